// The properties engine's claim checks: each claim id it supports maps to a
// RapidCheck property run by run_property() (seeded, silent, budgeted).
#include "properties/claim_checks.h"

#include <optional>

#include "properties/arith_properties.h"
#include "properties/runner.h"

namespace cfsv::properties {

namespace {
// The slice claims run on hierarchies of a machine with 1..64 CPUs and its
// boot tunables (latency = nr_latency * min_granularity), under the claim's
// own slice features. A sysctl write can break that relation and refute the
// holds-claims (slice_test.cpp shows it for flat-equal-weights-exact-set).
using SliceCaseGen = rc::Gen<SliceCase> (*)(std::optional<LoadResolution> era, bool sysctl_writes);
template <SliceCaseGen gen, void (*check)(const SliceCase&, SliceFeatures)>
EngineResult slice_claim(const Claim& claim, const CheckConfig& config) {
  const SliceFeatures f = claim.features.slice();
  // No pinned era: the v3.13+ and v5 __calc_delta eras are both generated.
  const std::optional<LoadResolution> era = pinned_resolution(claim);
  return run_testable([f, era] { check(*gen(era, false), f); }, config);
}

// The -v3.10 rows: the proofs engine's domain for them (generators.h,
// gen_equal_weights_proof_case) in the era the claim pins (calc_delta_mine),
// n up to 32 tasks (the proofs' ci bound; smoke proves up to 16).
constexpr uint64_t kEqualWeightsMaxTasks = 32;
void check_rounding(const SliceCase& c, SliceFeatures f) { check_equal_weights_rounding(c, f); }
void check_rounding_v3_10(const SliceCase& c, SliceFeatures f) { check_equal_weights_rounding(c, f, true); }

template <void (*check)(const SliceCase&, SliceFeatures)>
EngineResult equal_weights_v3_10_claim(const Claim& claim, const CheckConfig& config) {
  const SliceFeatures f = claim.features.slice();
  const LoadResolution r = claim.features.load_resolution();
  return run_testable([f, r] { check(*gen_equal_weights_proof_case(r, kEqualWeightsMaxTasks), f); }, config);
}

// calc-delta/loop-equals-fls: both __calc_delta forms agree wherever the
// kernel's shift is defined.
EngineResult loop_equals_fls(const Claim&, const CheckConfig& config) {
  return run_testable([] { check_loop_equals_fls(*gen_calc_delta_defined()); }, config);
}

struct Check {
  std::string_view id;
  EngineResult (*run)(const Claim&, const CheckConfig&);
};
constexpr Check kChecks[] = {
    {"slice-min-granularity/hierarchical", slice_claim<gen_slice_case, check_slice_min_granularity>},
    {"slice-min-granularity/flat", slice_claim<gen_slice_case, check_slice_min_granularity>},
    {"slice-min-granularity/base_slice", slice_claim<gen_slice_case, check_slice_min_granularity>},
    {"slice-min-granularity/flat-equal-weights-exact-set",
     slice_claim<gen_equal_weights_case, check_equal_weights_exact_set>},
    {"slice-min-granularity/flat-equal-weights-rounding",
     slice_claim<gen_equal_weights_case, check_rounding>},
    {"slice-min-granularity/flat-equal-weights-exact-set-v3.10",
     equal_weights_v3_10_claim<check_equal_weights_exact_set>},
    {"slice-min-granularity/flat-equal-weights-rounding-v3.10", equal_weights_v3_10_claim<check_rounding_v3_10>},
    {"calc-delta/loop-equals-fls", loop_equals_fls},
};
}  // namespace

EngineResult check_claim(const Claim& claim, const CheckConfig& config) {
  for (const Check& c : kChecks)
    if (c.id == claim.id) return c.run(claim, config);
  return {Engine::properties, Verdict::unknown, "no property for this claim", "", 0};
}

}  // namespace cfsv::properties
