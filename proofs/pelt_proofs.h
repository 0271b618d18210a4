// PELT claims: the claim's domain decoded over Sym (SymReader), the model's
// PELT templates on it, the claim's statement (claims/pelt_case.h), and a
// refutation's case re-run through the uint64_t model. Internal to proofs/.
#pragma once
#include "proofs/prove.h"

namespace cfsv::proofs {

// One query per path of the domain (each era; each table entry of
// decay_load's n; on_rq and running of an update): proved if every query is
// unsat, refuted by the first model Z3 finds, re-checked on uint64_t (a
// model the uint64_t model does not fail on is reported as a BUG, unknown).
ProofResult prove_pelt(const Claim& claim, const CheckConfig& config);

}  // namespace cfsv::proofs
