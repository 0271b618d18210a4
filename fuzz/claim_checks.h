// The fuzz engine's checks of the claims in model/claims.h.
#pragma once
#include "model/claims.h"

namespace cfsv::fuzz {

// Runs this engine on one claim; Verdict::unknown with a reason when the
// engine has no check for it or could not decide.
EngineResult check_claim(const Claim& claim, const CheckConfig& config);

}  // namespace cfsv::fuzz
