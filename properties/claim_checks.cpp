// The properties engine's claim check: one RapidCheck property per kind of
// claim, the claim's domain decoded by RcReader (claims/check.h), run seeded,
// silent and budgeted by run_property().
#include "properties/claim_checks.h"

#include "claims/check.h"
#include "properties/rc_reader.h"
#include "properties/runner.h"

namespace cfsv::properties {

EngineResult check_claim(const Claim& claim, const CheckConfig& config) {
  const Budget budget = config.budget;
  return run_testable(
      [&claim, budget] {
        RcReader r;
        if (const std::optional<Counterexample> cx = check_case(claim, r, budget)) refute(*cx);
      },
      config);
}

}  // namespace cfsv::properties
