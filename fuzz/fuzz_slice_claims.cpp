// fuzz_slice_claims: the slice and calc-delta claims of claims/registry.cpp,
// each on exactly the domain the claim states: the input's bytes feed the
// same decoders the other engines use (claims/check.h), and the claim's kind
// picks the check. CFSV_CLAIM and CFSV_BUDGET: fuzz/claim_target.h.
#include "fuzz/claim_target.h"
#include "fuzz/fuzz_target.h"

CFSV_CLAIM_FUZZ_TARGET("fuzz_slice_claims")
