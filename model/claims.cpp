#include "claims.h"

#include <array>

namespace cfsv {

namespace {
using F = Feature;
const std::array<Claim, 8> kClaims = {{
    {"slice-min-granularity/hierarchical", "seed 003 (before)", FeatureSet{}, "invariant holds",
     "sched_slice >= min_granularity with the v3.x..v5.12 hierarchical slice", Expect::refuted},
    {"slice-min-granularity/flat", "seed 003 (after)", FeatureSet{F::flat_slice}, "invariant holds",
     "sched_slice >= min_granularity when only the task's own cfs_rq is followed", Expect::refuted},
    {"slice-min-granularity/base_slice", "v5.13 ALT_PERIOD+BASE_SLICE", FeatureSet{F::alt_period, F::base_slice},
     "invariant holds", "sched_slice >= min_granularity with BASE_SLICE's floor", Expect::holds},
    {"slice-min-granularity/flat-equal-weights-exact-set", "seed 003 (after)", FeatureSet{F::flat_slice},
     "invariant holds",
     "with n equal-weight tasks on the task's cfs_rq, the flat sched_slice >= min_granularity iff n < sched_nr_latency",
     Expect::holds},
    {"slice-min-granularity/flat-equal-weights-rounding", "seed 003 (after)", FeatureSet{F::flat_slice},
     "invariant holds",
     "with n equal-weight (w) tasks on the task's cfs_rq, the flat sched_slice >= min_granularity - "
     "ceil(n * w * min_granularity / 2^32)",
     Expect::holds},
    {"slice-min-granularity/flat-equal-weights-exact-set-v3.10", "seed 003 (after, on its v3.10 base)",
     FeatureSet{F::flat_slice, F::calc_delta_mine}, "invariant holds",
     "with v3.10's calc_delta_mine and n equal-weight tasks on the task's cfs_rq, the flat sched_slice >= "
     "min_granularity iff n < sched_nr_latency",
     Expect::refuted},
    {"slice-min-granularity/flat-equal-weights-rounding-v3.10", "seed 003 (after, on its v3.10 base)",
     FeatureSet{F::flat_slice, F::calc_delta_mine}, "invariant holds",
     "with v3.10's calc_delta_mine and n equal-weight (w) tasks on the task's cfs_rq, the flat sched_slice >= "
     "min_granularity - ceil(n * w * min_granularity / 2^32) - ceil(2^15 / (n * w))",
     Expect::holds},
    {"calc-delta/loop-equals-fls", "__calc_delta loop form (v3.10..v5.10) vs fls form (v5.11+)", FeatureSet{},
     "equal results", "calc_delta_loop(delta, weight, lw) == calc_delta(delta, weight, lw) for all 64-bit inputs",
     Expect::holds},
}};
}  // namespace

std::span<const Claim> all_claims() { return kClaims; }

std::optional<LoadResolution> pinned_resolution(const Claim& claim) {
  const FeatureSet& f = claim.features;
  if (!f[F::hi_res_load] && !f[F::scale_load_down_min_2] && !f[F::calc_delta_mine]) return std::nullopt;
  return f.load_resolution();
}

LoadResolution claim_resolution(const Claim& claim) { return pinned_resolution(claim).value_or(kLoadResolutionV5); }

const Claim* claim_by_id(std::string_view id) {
  for (const Claim& c : kClaims)
    if (c.id == id) return &c;
  return nullptr;
}

std::string_view to_string(Expect e) { return e == Expect::holds ? "holds" : "refuted"; }

std::string_view to_string(Engine e) {
  switch (e) {
    case Engine::properties: return "properties";
    case Engine::fuzz: return "fuzz";
    case Engine::proofs: return "proofs";
  }
  return "?";
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::proved: return "proved";
    case Verdict::passed: return "passed";
    case Verdict::refuted: return "refuted";
    case Verdict::unknown: return "unknown";
  }
  return "?";
}

bool agrees(Expect e, Verdict v) {
  if (e == Expect::holds) return v == Verdict::proved || v == Verdict::passed;
  return v == Verdict::refuted;
}

std::string_view to_string(Budget b) {
  switch (b) {
    case Budget::smoke: return "smoke";
    case Budget::ci: return "ci";
    case Budget::long_: return "long";
  }
  return "?";
}

}  // namespace cfsv
