// The properties engine's checks of the claims in claims/registry.cpp.
#pragma once
#include "claims/claim.h"

namespace cfsv::properties {

// Runs this engine on one claim; Verdict::unknown with a reason when the
// engine has no check for it or could not decide. Deterministic for a given
// config.seed and budget; prints nothing. Not thread-safe: RapidCheck keeps
// its generation context in plain statics, so call it from one thread at a time.
EngineResult check_claim(const Claim& claim, const CheckConfig& config);

}  // namespace cfsv::properties
