// The fuzz engine's checks of the claims in claims/registry.cpp.
#pragma once
#include "claims/claim.h"

namespace cfsv::fuzz {

// Runs this engine on one claim; Verdict::unknown with a reason when the
// engine has no check for it or could not decide.
EngineResult check_claim(const Claim& claim, const CheckConfig& config);

}  // namespace cfsv::fuzz
