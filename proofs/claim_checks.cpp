// The proofs engine's entry for `cfsv verify`: prove_claim() as an EngineResult.
#include "proofs/claim_checks.h"

#include "proofs/prove.h"

namespace cfsv::proofs {

EngineResult check_claim(const Claim& claim, const CheckConfig& config) {
  const ProofResult r = prove_claim(claim, config);
  EngineResult out{Engine::proofs, to_verdict(r.outcome), r.detail, "", r.seconds, {}};
  if (r.outcome == Outcome::refuted) {
    out.counterexample = r.counterexample;
    out.reproducer = "# conjecture: " + r.conjecture + "\n" + format_counterexample(r.counterexample);
  }
  return out;
}

}  // namespace cfsv::proofs
