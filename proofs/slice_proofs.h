// Slice claims: the claim's domain decoded over Sym (SymReader), the model's
// sched_slice instantiated on it, the claim's conjecture (claims/slice_case.h),
// and a refutation's counterexample, cross-checked against the uint64_t
// model. Internal to proofs/.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "claims/slice_case.h"
#include "proofs/bridge.h"
#include "proofs/prove.h"
#include "proofs/sym_reader.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

// A slice function under test, with both instantiations: the symbolic one is
// proven, the concrete one re-runs every counterexample.
struct SliceFn {
  std::function<Sym(const SliceCase<Sym>&)> sym;
  std::function<uint64_t(const SliceCase<uint64_t>&)> concrete;
  bool is_model = false;  // the model's sched_slice: its per-level slices are re-checked too
};
template <class F> SliceFn make_slice_fn(F f) { return {f, f, false}; }
SliceFn model_slice(SliceFeatures f);  // run_slice: the model's sched_slice, nothing else

// One query: a path of the claim's domain decoded over Sym, in its own
// context or a shared one.
struct SliceQuery {
  std::shared_ptr<z3::context> ctx;
  std::optional<SymReader> reader;  // its domain() is the query's domain
  std::optional<SliceCase<Sym>> c;
  std::optional<Sym> slice;
  std::vector<MulCall> calls;  // the mul_u64_u32_shr of each level
  std::optional<z3::expr> conjecture;
  std::optional<std::vector<uint64_t>> next;  // the next path, if any
};
std::unique_ptr<SliceQuery> build_slice_query(const Claim& claim, Budget b, const SliceFn& fn,
                                              std::vector<uint64_t> path, uint64_t split_up_to = 1,
                                              std::shared_ptr<z3::context> ctx = nullptr);

// The case a model of the query assigns (every unknown completed).
SliceCase<uint64_t> evaluate(const SliceCase<Sym>& c, const z3::model& m);

// Every query of the claim's domain: proved if every query is unsat, refuted
// by the first preferred-shape counterexample (claim.prefer) or else the
// first counterexample, unknown otherwise. A domain of at most
// kMaxPointsToEnumerate points is decided point by point instead (every range
// split into its values, each point's formula folded by Z3's simplifier):
// there a SAT query costs more than a thousand points. A counterexample's
// every value is re-computed by the uint64_t model; a difference is reported
// as a BUG.
inline constexpr double kMaxPointsToEnumerate = 100'000;
ProofResult prove_slice(const Claim& claim, const CheckConfig& config, const SliceFn& fn);

}  // namespace cfsv::proofs
