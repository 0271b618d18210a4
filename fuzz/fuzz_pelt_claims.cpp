// fuzz_pelt_claims: the PELT claims of claims/registry.cpp (decay_load, one
// update from a valid state, tg load_avg, group shares), each on exactly the
// domain the claim states: the input's bytes feed the decoder every engine
// uses (claims/pelt_case.h). CFSV_CLAIM and CFSV_BUDGET: fuzz/claim_target.h.
#include "fuzz/claim_target.h"
#include "fuzz/fuzz_target.h"

CFSV_CLAIM_FUZZ_TARGET("fuzz_pelt_claims")
