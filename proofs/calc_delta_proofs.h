// calc-delta/loop-equals-fls: the loop and fls forms of __calc_delta (both
// model/arith/calc_delta.h templates, instantiated with Sym) agree on the
// claim's domain (claims/calc_delta_case.h). Internal to proofs/.
#pragma once
#include <cstdint>

#include "model/arith/calc_delta.h"
#include "proofs/prove.h"

namespace cfsv::proofs {

// calc_delta_loop(delta, weight, lw) == calc_delta(delta, weight, lw) on
// every input of the claim's domain, one path per era.
ProofResult prove_loop_equals_fls(const Claim& claim, const CheckConfig& config);

// mul_u64_u32_shr's contract in both forms, in an era: the fact it receives
// fits in 32 bits for every 64-bit input (so Sym's u32 `mul`, as in the kernel's
// signature, drops nothing). The product from mul_u32_u32 is generalised to
// any 64-bit value.
ProofResult prove_fact_fits_u32(Era era, uint32_t timeout_ms);

}  // namespace cfsv::proofs
