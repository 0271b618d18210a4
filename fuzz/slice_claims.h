// The claims fuzz_slice_claims checks: those stating exactly
// "sched_slice >= min_granularity" under the claim's feature set. Other
// slice-min-granularity/* claims state something else and are not covered.
#pragma once
#include <algorithm>
#include <array>
#include <string_view>

namespace cfsv::fuzz {

inline constexpr std::array<std::string_view, 3> kSliceMinGranularityClaims = {
    "slice-min-granularity/hierarchical", "slice-min-granularity/flat", "slice-min-granularity/base_slice"};

inline bool fuzz_slice_claims_covers(std::string_view claim_id) {
  return std::find(kSliceMinGranularityClaims.begin(), kSliceMinGranularityClaims.end(), claim_id) !=
         kSliceMinGranularityClaims.end();
}

}  // namespace cfsv::fuzz
