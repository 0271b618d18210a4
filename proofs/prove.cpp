#include "proofs/prove.h"

#include <chrono>
#include <cstdlib>

#include "claims/slice_trace.h"
#include "proofs/balance_proofs.h"
#include "proofs/bridge.h"
#include "proofs/calc_delta_proofs.h"
#include "proofs/pelt_proofs.h"
#include "proofs/sim_proofs.h"
#include "proofs/slice_proofs.h"

namespace cfsv::proofs {

namespace {

// The conjecture line: "forall DOMAIN: STATEMENT" (a simulation claim: the lemma its proof shows).
std::string conjecture_text(const Claim& c, Budget b) {
  const std::string forall = "forall " + describe(c, b) + ": ";
  switch (family_of(c.kind)) {
    case ClaimFamily::slice: break;
    case ClaimFamily::calc_delta: return forall + "calc_delta_loop(delta, weight, lw) == calc_delta(delta, weight, lw)";
    case ClaimFamily::sim: return std::string(sim_lemma(c));
    case ClaimFamily::pelt:
    case ClaimFamily::balance:
    case ClaimFamily::balance_v4:
    case ClaimFamily::balance_v3: return forall + std::string(c.statement);
  }
  const std::string variant = " (" + to_string(c.features.slice()) + " sched_slice)";
  switch (c.kind) {
    case ClaimKind::equal_weights_exact_set:
      return forall + "(sched_slice >= min_granularity) == (n < sched_nr_latency)" + variant;
    case ClaimKind::equal_weights_rounding:
      return forall + "sched_slice >= min_granularity - ceil(n * scale_load_down(w) * min_granularity / 2^32), less "
             "ceil(2^15 / (n * scale_load_down(w))) more with calc_delta_mine" + variant;
    case ClaimKind::idle_floor_only_shortens:
      return forall + "sched_slice <= sched_slice without the idle floor, and == unless the task is SCHED_IDLE" +
             variant;
    default: return forall + "sched_slice >= min_granularity" + variant;
  }
}

ProofResult prove_family(const Claim& claim, const CheckConfig& config) {
  switch (family_of(claim.kind)) {
    case ClaimFamily::slice: return prove_slice(claim, config, model_slice(claim.features.slice()));
    case ClaimFamily::calc_delta: return prove_loop_equals_fls(claim, config);
    case ClaimFamily::pelt: return prove_pelt(claim, config);
    case ClaimFamily::sim: return prove_sim(claim, config);
    case ClaimFamily::balance:
    case ClaimFamily::balance_v4:
    case ClaimFamily::balance_v3: return prove_balance(claim, config);
  }
  std::abort();  // family_of gives one of the above
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
  ProofResult r = prove_family(claim, config);
  r.claim = std::string(claim.id);
  r.conjecture = conjecture_text(claim, config.budget);
  r.counterexample.claim = r.claim;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace cfsv::proofs
