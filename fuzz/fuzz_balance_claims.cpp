// fuzz_balance_claims: the load-balancing claims of claims/registry.cpp
// (find_busiest_group's verdict and calculate_imbalance, v5.15), each on
// exactly the domain the claim states: the input's bytes feed the decoder
// every engine uses (claims/balance_case.h). CFSV_CLAIM and CFSV_BUDGET:
// fuzz/claim_target.h.
#include "fuzz/claim_target.h"
#include "fuzz/fuzz_target.h"

CFSV_CLAIM_FUZZ_TARGET("fuzz_balance_claims")
