// The claims: one record each (claims/claim.h). A claim of an existing kind
// needs nothing else: every engine checks it by its kind and domain.
#include "claims/claim.h"

namespace cfsv {

namespace {
using F = Feature;
using K = ClaimKind;

// n tasks of one nice level on the task's own cfs_rq, depth 1 (the flat
// slice reads that level only), at most 16 / 32 / 1000 tasks by budget.
Domain equal_weights(Era era) { return {1, 1, {16, 32, 1000}, Weights::equal_on_task_rq, 4, 4, {era}}; }

}  // namespace

// Built on first use: other static initialisers may ask for the claims.
std::span<const Claim> all_claims() {
  static const Claim kClaims[] = {
      {"slice-min-granularity/hierarchical", "seed 003 (before)",
       "sched_slice >= min_granularity with the v3.x..v5.12 hierarchical slice", K::slice_at_least_min_gran, Domain{},
       FeatureSet{}, Shape::upper_levels_cut, Expect::refuted},
      {"slice-min-granularity/flat", "seed 003 (after)",
       "sched_slice >= min_granularity when only the task's own cfs_rq is followed", K::slice_at_least_min_gran,
       Domain{}, FeatureSet{F::flat_slice}, Shape::equal_siblings, Expect::refuted},
      {"slice-min-granularity/base_slice", "v5.13 ALT_PERIOD+BASE_SLICE",
       "sched_slice >= min_granularity with BASE_SLICE's floor", K::slice_at_least_min_gran, Domain{},
       FeatureSet{F::alt_period, F::base_slice}, Shape::none, Expect::holds},
      {"slice-min-granularity/flat-equal-weights-exact-set", "seed 003 (after)",
       "with n equal-weight tasks on the task's cfs_rq, the flat sched_slice >= min_granularity iff "
       "n < sched_nr_latency",
       K::equal_weights_exact_set, equal_weights(Era::v5_7), FeatureSet{F::flat_slice}, Shape::none, Expect::holds},
      {"slice-min-granularity/flat-equal-weights-rounding", "seed 003 (after)",
       "with n equal-weight (w) tasks on the task's cfs_rq, the flat sched_slice >= min_granularity - "
       "ceil(n * w * min_granularity / 2^32)",
       K::equal_weights_rounding, equal_weights(Era::v5_7), FeatureSet{F::flat_slice}, Shape::none, Expect::holds},
      {"slice-min-granularity/flat-equal-weights-exact-set-v3.10", "seed 003 (after, on its v3.10 base)",
       "with v3.10's calc_delta_mine and n equal-weight tasks on the task's cfs_rq, the flat sched_slice >= "
       "min_granularity iff n < sched_nr_latency",
       K::equal_weights_exact_set, equal_weights(Era::v3_10), FeatureSet{F::flat_slice}, Shape::none,
       Expect::refuted},
      {"slice-min-granularity/flat-equal-weights-rounding-v3.10", "seed 003 (after, on its v3.10 base)",
       "with v3.10's calc_delta_mine and n equal-weight (w) tasks on the task's cfs_rq, the flat sched_slice >= "
       "min_granularity - ceil(n * w * min_granularity / 2^32) - ceil(2^15 / (n * w))",
       K::equal_weights_rounding, equal_weights(Era::v3_10), FeatureSet{F::flat_slice}, Shape::none, Expect::holds},
      {"slice-min-granularity/flat-equal-weights-exact-set-v3.13", "seed 003 (after, on v4.4's 32-bit loads)",
       "with v3.13..v4.6's 32-bit loads and n equal-weight tasks on the task's cfs_rq, the flat sched_slice >= "
       "min_granularity iff n < sched_nr_latency",
       K::equal_weights_exact_set, equal_weights(Era::v3_13), FeatureSet{F::flat_slice}, Shape::none, Expect::holds},
      {"calc-delta/loop-equals-fls", "__calc_delta loop form (v3.13..v5.10) vs fls form (v5.11+)",
       "calc_delta_loop(delta, weight, lw) == calc_delta(delta, weight, lw) wherever the kernel's shift is defined",
       K::calc_delta_loop_equals_fls, Domain{.eras = {Era::v5_7, Era::v4_7, Era::v3_13}}, FeatureSet{}, Shape::none,
       Expect::holds},
  };
  return kClaims;
}

}  // namespace cfsv
