// Load-balancing claims: the claim's domain decoded over Sym (SymReader), the
// model's balancing templates (model/arith/balance.h) on it, the claim's
// statement (claims/balance_case.h), and a refutation's case re-run through
// the uint64_t model. Internal to proofs/.
#pragma once
#include "proofs/prove.h"

namespace cfsv::proofs {

// One SAT query per path (level, idle type, two or three groups): proved if
// every query is unsat, refuted by the first model Z3 finds, re-checked on
// uint64_t (a model the uint64_t model does not fail on is reported as a
// BUG, unknown); unknown with the solver's reason otherwise.
ProofResult prove_balance(const Claim& claim, const CheckConfig& config);

}  // namespace cfsv::proofs
