// The proofs engine's public interface: a verdict per claim with its one-line
// conjecture and, for a refutation, the counterexample's every intermediate.
// No Z3 type appears here (the Z3 side is proofs/bridge.h, proofs/symbolic.h).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "claims/claim.h"

namespace cfsv::proofs {

// proved: the negated conjecture is unsat; refuted: Z3 found a model of it;
// passed: not proved, but Z3's evaluation of the conjecture on sampled
// cases found none (the PELT kinds bit-blasting cannot decide in time);
// unknown: timeout, or the model and Z3 disagree.
enum class Outcome { proved, refuted, passed, unknown };
std::string_view to_string(Outcome o);
Verdict to_verdict(Outcome o);

// One solver call: which query, its outcome and solve time.
struct QueryStat {
  std::string label;
  Outcome outcome = Outcome::unknown;
  double seconds = 0;
};

struct ProofResult {
  std::string claim;
  std::string conjecture;  // one line: forall <the claim's domain>: <its statement>
  Outcome outcome = Outcome::unknown;
  std::string detail;             // one line: what was shown, or why unknown
  Counterexample counterexample;  // when refuted
  std::vector<QueryStat> queries;
  double seconds = 0;  // the whole proof, building the queries included
};

// Per-query solver timeout when CheckConfig::timeout_ms is 0.
uint32_t default_timeout_ms(Budget b);

// Proves or refutes one claim, by its kind, over its domain.
ProofResult prove_claim(const Claim& claim, const CheckConfig& config);

}  // namespace cfsv::proofs
