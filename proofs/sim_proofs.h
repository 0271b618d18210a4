// Simulation-differential claims: what Z3 shows of them. Internal to proofs/.
#pragma once
#include <string_view>

#include "proofs/prove.h"

namespace cfsv::proofs {

// root-tg-load-avg-skip/unobservable: the one function the skip changes,
// update_tg_load_avg (model/arith/pelt_shares.h, the call model/pelt.cpp
// makes), over symbolic 64-bit load_avg, tg_load_avg_contrib, tg->load_avg
// and force. Two queries: for a non-root group the feature changes none of
// its results; for the root with the skip it writes nothing and reports no
// update. Passed (not proved) when both are unsat: that no decision reads the
// root's tg->load_avg is tested (properties, fuzz), not proved.
inline constexpr std::string_view kSimLemma =
    "forall 64-bit load_avg, tg_load_avg_contrib, tg->load_avg, force and is_root: update_tg_load_avg with "
    "skip_root = is_root && root_tg_load_avg_skip gives a non-root group's results unchanged by the feature, and "
    "with the skip leaves the root's contribution and tg->load_avg alone and reports no update";
ProofResult prove_sim(const Claim& claim, const CheckConfig& config);

}  // namespace cfsv::proofs
