// TODO(owner): placeholder until the properties engine lands; reports unknown.
#include "properties/claim_checks.h"

namespace cfsv::properties {

EngineResult check_claim(const Claim&, const CheckConfig&) {
  return {Engine::properties, Verdict::unknown, "the properties engine is not built yet", "", 0};
}

}  // namespace cfsv::properties
