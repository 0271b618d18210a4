// The claims fuzz_slice_claims checks, and how: every claim in
// model/claims.cpp (fuzz_slice_claims.cpp decodes each in the proofs
// engine's domain for it).
#pragma once
#include <array>
#include <optional>
#include <string_view>

namespace cfsv::fuzz {

enum class SliceClaimCheck {
  at_least_min_gran,        // sched_slice >= min_granularity on any hierarchy
  equal_weights_exact_set,  // flat, n equal-weight tasks: slice >= min_granularity iff n < nr_latency
  equal_weights_rounding,   // flat, n equal-weight tasks: slice >= min_granularity - allowance
  loop_equals_fls,          // calc_delta_loop == calc_delta
};

struct FuzzClaim {
  std::string_view id;
  SliceClaimCheck check;
};

inline constexpr std::array<FuzzClaim, 8> kFuzzSliceClaims = {{
    {"slice-min-granularity/hierarchical", SliceClaimCheck::at_least_min_gran},
    {"slice-min-granularity/flat", SliceClaimCheck::at_least_min_gran},
    {"slice-min-granularity/base_slice", SliceClaimCheck::at_least_min_gran},
    {"slice-min-granularity/flat-equal-weights-exact-set", SliceClaimCheck::equal_weights_exact_set},
    {"slice-min-granularity/flat-equal-weights-rounding", SliceClaimCheck::equal_weights_rounding},
    {"slice-min-granularity/flat-equal-weights-exact-set-v3.10", SliceClaimCheck::equal_weights_exact_set},
    {"slice-min-granularity/flat-equal-weights-rounding-v3.10", SliceClaimCheck::equal_weights_rounding},
    {"calc-delta/loop-equals-fls", SliceClaimCheck::loop_equals_fls},
}};

inline std::optional<SliceClaimCheck> fuzz_slice_claim_check(std::string_view claim_id) {
  for (const FuzzClaim& c : kFuzzSliceClaims)
    if (c.id == claim_id) return c.check;
  return std::nullopt;
}

inline bool fuzz_slice_claims_covers(std::string_view claim_id) { return fuzz_slice_claim_check(claim_id).has_value(); }

}  // namespace cfsv::fuzz
