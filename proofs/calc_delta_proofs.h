// calc-delta/loop-equals-fls: the loop and fls forms of __calc_delta (both
// model/calc_delta.h templates, instantiated with Sym) agree. Internal to proofs/.
#pragma once
#include <cstdint>

#include "model/calc_delta.h"
#include "proofs/prove.h"

namespace cfsv::proofs {

// calc_delta_loop(delta, weight, lw) == calc_delta(delta, weight, lw) for
// every 64-bit delta, weight, lw.weight and lw.inv_weight, under `r`.
ProofResult prove_loop_equals_fls(LoadResolution r, uint32_t timeout_ms);

}  // namespace cfsv::proofs
