#include "proofs/prove.h"

#include <chrono>

#include "claims/slice_trace.h"
#include "proofs/balance_proofs.h"
#include "proofs/bridge.h"
#include "proofs/calc_delta_proofs.h"
#include "proofs/pelt_proofs.h"
#include "proofs/sim_proofs.h"
#include "proofs/slice_proofs.h"

namespace cfsv::proofs {

namespace {

// The statement of a kind, as the conjecture line writes it.
std::string conjecture_text(const Claim& c) {
  if (is_pelt_kind(c.kind) || is_verdict_kind(c.kind)) return std::string(c.statement);
  const std::string variant = " (" + to_string(c.features.slice()) + " sched_slice)";
  switch (c.kind) {
    case ClaimKind::slice_at_least_min_gran: return "sched_slice >= min_granularity" + variant;
    case ClaimKind::equal_weights_exact_set:
      return "(sched_slice >= min_granularity) == (n < sched_nr_latency)" + variant;
    case ClaimKind::equal_weights_rounding:
      return "sched_slice >= min_granularity - ceil(n * scale_load_down(w) * min_granularity / 2^32), less "
             "ceil(2^15 / (n * scale_load_down(w))) more with calc_delta_mine" + variant;
    default: break;
  }
  return "calc_delta_loop(delta, weight, lw) == calc_delta(delta, weight, lw)";
}

}  // namespace

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::proved: return "proved";
    case Outcome::refuted: return "refuted";
    case Outcome::passed: return "passed";
    case Outcome::unknown: return "unknown";
  }
  return "?";
}

Verdict to_verdict(Outcome o) {
  switch (o) {
    case Outcome::proved: return Verdict::proved;
    case Outcome::refuted: return Verdict::refuted;
    case Outcome::passed: return Verdict::passed;
    case Outcome::unknown: return Verdict::unknown;
  }
  return Verdict::unknown;
}

uint32_t default_timeout_ms(Budget b) {
  switch (b) {
    case Budget::smoke: return 10'000;
    case Budget::ci: return 60'000;
    case Budget::long_: return 600'000;
  }
  return 60'000;
}

ProofResult prove_claim(const Claim& claim, const CheckConfig& config) {
  const auto start = std::chrono::steady_clock::now();
  const QueryRlimitScope rlimit(config.rlimit);
  ProofResult r = is_slice_kind(claim.kind)  ? prove_slice(claim, config, model_slice(claim.features.slice()))
                  : is_pelt_kind(claim.kind) ? prove_pelt(claim, config)
                  : is_sim_kind(claim.kind)  ? prove_sim(claim, config)
                  : is_verdict_kind(claim.kind) ? prove_balance(claim, config)
                                             : prove_loop_equals_fls(claim, config);
  r.claim = std::string(claim.id);
  r.conjecture = is_sim_kind(claim.kind) ? std::string(sim_lemma(claim))
                                         : "forall " + describe(claim, config.budget) + ": " + conjecture_text(claim);
  r.counterexample.claim = r.claim;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace cfsv::proofs
