// calc-delta/loop-equals-fls: the loop and fls forms of __calc_delta (both
// model/calc_delta.h templates, instantiated with Sym) agree. Internal to proofs/.
#pragma once
#include <cstdint>

#include "model/arith/calc_delta.h"
#include "proofs/prove.h"

namespace cfsv::proofs {

// calc_delta_loop(delta, weight, lw) == calc_delta(delta, weight, lw) for
// every 64-bit delta, weight, lw.weight and lw.inv_weight, under `r`.
ProofResult prove_loop_equals_fls(LoadResolution r, uint32_t timeout_ms);

// mul_u64_u32_shr's contract in both forms: the fact it receives fits in 32
// bits for every 64-bit input (so Sym's u32 `mul`, as in the kernel's
// signature, drops nothing). The product from mul_u32_u32 is generalised to
// any 64-bit value.
ProofResult prove_fact_fits_u32(LoadResolution r, uint32_t timeout_ms);

}  // namespace cfsv::proofs
