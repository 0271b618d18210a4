// PELT claims: the claim's domain decoded over Sym (SymReader), the model's
// PELT templates on it, the claim's statement (claims/pelt_case.h), and a
// refutation's case re-run through the uint64_t model. Internal to proofs/.
#pragma once
#include "proofs/prove.h"

namespace cfsv::proofs {

// By kind: the tg and shares kinds one SAT query per era; the decay kinds
// the same with decay_load's products abstracted, assuming lemmas the same
// run proves (proofs/product_lemmas.h); proved if every query is unsat,
// refuted by the first model Z3 finds, re-checked on uint64_t (a model the
// uint64_t model does not fail on is reported as a BUG, unknown). The update
// kinds at the long budget: each path split on decay_load's table entries
// (proofs/table_entries.h), one exact query per entry, over Z3's integers
// (proofs/bv_to_int.h) and bit-blasted when that is undecided. The update kinds
// below it and the periodic kind: Z3's evaluation of the templates on
// sampled cases, passed (not proved) or refuted by a case.
ProofResult prove_pelt(const Claim& claim, const CheckConfig& config);

}  // namespace cfsv::proofs
