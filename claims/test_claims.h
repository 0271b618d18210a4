// Claim records that are in no registry, for the engines' tests: each engine
// must check them by their kind and domain alone, as it would a new record of
// claims/registry.cpp.
#pragma once
#include <array>

#include "claims/claim.h"

namespace cfsv {

inline const std::array<Claim, 2>& test_only_claims() {
  static const std::array<Claim, 2> claims = {{
      {"test/flat-equal-weights-exact-set-1-to-2-cpus", "test", "the exact set on 1 or 2 CPUs, 32-bit loads",
       ClaimKind::equal_weights_exact_set, Domain{1, 1, {16, 16, 16}, Weights::equal_on_task_rq, 1, 2, {Era::v3_13}},
       FeatureSet{Feature::flat_slice}, Shape::none, Expect::holds},
      {"test/hierarchical-depth-2-only", "test", "the hierarchical slice at depth 2, v4.7's loads",
       ClaimKind::slice_at_least_min_gran, Domain{2, 2, {64, 64, 64}, Weights::any, 4, 4, {Era::v4_7}}, FeatureSet{},
       Shape::upper_levels_cut, Expect::refuted},
  }};
  return claims;
}

}  // namespace cfsv
