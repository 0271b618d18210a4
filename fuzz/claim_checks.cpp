// TODO(owner): placeholder until the fuzz engine lands; reports unknown.
#include "fuzz/claim_checks.h"

namespace cfsv::fuzz {

EngineResult check_claim(const Claim&, const CheckConfig&) {
  return {Engine::fuzz, Verdict::unknown, "the fuzz engine is not built yet", "", 0};
}

}  // namespace cfsv::fuzz
