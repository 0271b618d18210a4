#include "proofs/bridge.h"

#include <chrono>

namespace cfsv::proofs {

namespace {
thread_local uint32_t query_rlimit = 0;
}  // namespace

QueryRlimitScope::QueryRlimitScope(uint32_t rlimit) : saved_(query_rlimit) { query_rlimit = rlimit; }
QueryRlimitScope::~QueryRlimitScope() { query_rlimit = saved_; }

z3::params query_params(z3::context& c, uint32_t timeout_ms, unsigned seed) {
  z3::params p(c);
  p.set("timeout", timeout_ms);
  if (query_rlimit) p.set("rlimit", query_rlimit);
  if (seed) p.set("random_seed", seed);
  return p;
}

std::string unknown_reason(const z3::solver& s, uint32_t timeout_ms, double seconds) {
  const std::string z3_reason = s.reason_unknown();
  // A tactic solver says "canceled" for both limits: the time tells them apart.
  const bool stopped = z3_reason == "canceled" || z3_reason == "timeout";
  if (query_rlimit && (z3_reason == "max. resource limit exceeded" || (stopped && seconds * 1000 < timeout_ms)))
    return "resource limit " + std::to_string(query_rlimit) + " reached";
  return stopped ? "timeout after " + std::to_string(timeout_ms) + " ms" : z3_reason;
}

BridgeResult find(const z3::expr& formula, uint32_t timeout_ms, unsigned seed) {
  z3::context& c = formula.ctx();
  // Bit-blast and SAT-solve directly: on these formulas Z3's default QF_BV
  // pipeline spends several times longer in preprocessing.
  z3::solver s = (z3::tactic(c, "simplify") & z3::tactic(c, "bit-blast") & z3::tactic(c, "sat")).mk_solver();
  s.set(query_params(c, timeout_ms, seed));
  s.add(formula);
  const auto t0 = std::chrono::steady_clock::now();
  const z3::check_result r = s.check();
  BridgeResult out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  switch (r) {
    case z3::unsat: out.outcome = Outcome::proved; break;
    case z3::sat:
      out.outcome = Outcome::refuted;
      out.model = s.get_model();
      break;
    case z3::unknown:
      out.outcome = Outcome::unknown;
      out.reason = unknown_reason(s, timeout_ms, out.seconds);
      break;
  }
  return out;
}

BridgeResult with_restarts(uint32_t timeout_ms, const std::function<BridgeResult(uint32_t, unsigned)>& attempt) {
  static constexpr struct {
    unsigned seed, thirtieths;
  } kAttempts[] = {{0, 1}, {1, 1}, {2, 2}, {3, 4}, {0, 22}};
  double seconds = 0;
  BridgeResult r;
  for (const auto& a : kAttempts) {
    r = attempt(std::max<uint32_t>(1, static_cast<uint32_t>(uint64_t{timeout_ms} * a.thirtieths / 30)), a.seed);
    seconds += r.seconds;
    if (r.outcome != Outcome::unknown) break;
  }
  r.seconds = seconds;
  if (r.outcome == Outcome::unknown) r.reason += " (the last of 5 attempts: seeds 0 to 3, then 0 again)";
  return r;
}

BridgeResult in_own_context(const z3::expr& query, const std::function<BridgeResult(const z3::expr&)>& solve) {
  z3::context own;
  BridgeResult r;
  {
    const z3::expr q(own, Z3_translate(query.ctx(), query, own));
    r = solve(q);
  }
  if (r.model) r.model = z3::model(query.ctx(), Z3_model_translate(own, *r.model, query.ctx()));
  return r;
}

BridgeResult find_ground(const z3::expr& formula) {
  const auto t0 = std::chrono::steady_clock::now();
  const z3::expr folded = formula.simplify();
  BridgeResult out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (folded.is_true()) {
    out.outcome = Outcome::refuted;
    out.model = z3::model(formula.ctx());
  } else if (folded.is_false()) {
    out.outcome = Outcome::proved;
  } else {
    out.reason = "not a ground formula: " + folded.to_string();
  }
  return out;
}

BridgeResult prove(const z3::expr& domain, const z3::expr& conjecture, uint32_t timeout_ms) {
  return find(domain && !conjecture, timeout_ms);
}

void conclude(ProofResult& res, const std::vector<std::string>& unknown, Outcome outcome, std::string detail) {
  if (!unknown.empty()) {
    res.outcome = Outcome::unknown;
    res.detail.clear();
    for (const std::string& r : unknown) res.detail += (res.detail.empty() ? "" : "; ") + r;
    return;
  }
  res.outcome = outcome;
  res.detail = !detail.empty() ? std::move(detail)
                               : std::to_string(res.queries.size()) +
                                     (res.queries.size() == 1 ? " query" : " queries") + " unsat";
}

void refute_with(ProofResult& res, const std::optional<Counterexample>& cx,
                 const std::function<Counterexample()>& as_found, const std::string& where) {
  if (!cx) {
    res.outcome = Outcome::unknown;
    res.detail = "BUG: Z3's model and the uint64_t model disagree: the claim holds on uint64_t at " +
                 format_counterexample(as_found());
    return;
  }
  res.outcome = Outcome::refuted;
  res.counterexample = *cx;
  res.counterexample.note = "the first one Z3 found; " + where;
  res.detail = cx->summary;
}

}  // namespace cfsv::proofs
