// fuzz_sim_claims: the simulation-differential claims of claims/registry.cpp
// (root-tg-load-avg-skip/unobservable): the input's bytes decode to one op
// scenario (model/ops_decoder.h), run with the claim's two feature sets and
// compared (claims/sim_diff.h). CFSV_CLAIM and CFSV_BUDGET: fuzz/claim_target.h.
#include "fuzz/claim_target.h"
#include "fuzz/fuzz_target.h"

CFSV_CLAIM_FUZZ_TARGET("fuzz_sim_claims")
