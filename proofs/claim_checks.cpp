// TODO(owner): placeholder until the proofs engine lands; reports unknown.
#include "proofs/claim_checks.h"

namespace cfsv::proofs {

EngineResult check_claim(const Claim&, const CheckConfig&) {
  return {Engine::proofs, Verdict::unknown, "the proofs engine is not built yet", "", 0};
}

}  // namespace cfsv::proofs
