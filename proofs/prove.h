// The proofs engine's public interface: a verdict per claim with its one-line
// conjecture and, for a refutation, the counterexample's every intermediate.
// No Z3 type appears here (the Z3 side is proofs/bridge.h, proofs/symbolic.h).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/claims.h"

namespace cfsv::proofs {

// proved: the negated conjecture is unsat; refuted: Z3 found a model of it;
// unknown: timeout, or a claim this engine has no query for.
enum class Outcome { proved, refuted, unknown };
std::string_view to_string(Outcome o);

// A named value; `text` is a decimal integer (valid JSON).
struct Value {
  std::string name;
  std::string text;
};

struct Counterexample {
  std::string note;                        // how it was found, one line
  std::vector<Value> values;               // inputs and results
  std::vector<std::vector<Value>> levels;  // per sched_entity level, task first
};

// One solver call: which query, its outcome and solve time.
struct QueryStat {
  std::string label;
  Outcome outcome = Outcome::unknown;
  double seconds = 0;
};

struct ProofResult {
  std::string claim;
  std::string conjecture;  // one line
  Outcome outcome = Outcome::unknown;
  std::string detail;      // one line: what was shown, or why unknown
  Counterexample counterexample;  // when refuted
  std::vector<QueryStat> queries;
  double seconds = 0;
};

// The claims this engine has queries for, in claims-registry order.
std::vector<std::string_view> supported_claims();
bool supports(std::string_view claim_id);

// Per-query solver timeout when CheckConfig::timeout_ms is 0.
uint32_t default_timeout_ms(Budget b);

// Proves or refutes one claim (unknown with a reason if unsupported).
ProofResult prove_claim(const Claim& claim, const CheckConfig& config);

// The counterexample as indented text lines, for terminals and reproducers.
std::string format_counterexample(const Counterexample& c);

Verdict to_verdict(Outcome o);

}  // namespace cfsv::proofs
