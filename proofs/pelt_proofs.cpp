#include "proofs/pelt_proofs.h"

#include <string>

#include "claims/check.h"
#include "proofs/bridge.h"
#include "proofs/sym_reader.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

namespace {

// Ranges of at most this many values become paths: decay_load's table entry
// (32), an update's on_rq and running (2). Constant there, they fold away.
uint64_t split_for(ClaimKind k) {
  switch (pelt_shape(k)) {
    case PeltShape::decay: return kLoadAvgPeriod;
    case PeltShape::update: return 2;
    default: return 1;
  }
}

PeltCase<uint64_t> evaluate(const PeltCase<Sym>& c, const z3::model& m) {
  PeltCase<uint64_t> out{c.era, {}};
  for (const PeltValue<Sym>& x : c.in) out.in.push_back({x.name, numeral(m.eval(x.v.expr(), true))});
  return out;
}

// "era v5.15, on_rq=1 running=0": the path's era and split values.
std::string label(const PeltCase<Sym>& c) {
  std::string s = "era " + std::string(era_name(c.era));
  for (const PeltValue<Sym>& x : c.in)
    if (uint64_t v = 0; x.v.expr().is_numeral_u64(v) && x.name != "n") s += " " + std::string(x.name) + "=" + std::to_string(v);
  return s;
}

}  // namespace

ProofResult prove_pelt(const Claim& claim, const CheckConfig& config) {
  const uint32_t timeout_ms = config.timeout_ms ? config.timeout_ms : default_timeout_ms(config.budget);
  ProofResult res;
  std::vector<std::string> unknown;
  z3::context ctx;  // one for every query: they share most of their terms
  ContextScope scope(ctx);
  for (std::optional<std::vector<uint64_t>> path = std::vector<uint64_t>{}; path;) {
    SymReader reader(std::move(*path), split_for(claim.kind));
    const PeltCase<Sym> c = decode_pelt_case(reader, claim);
    path = reader.next();
    const std::string where = label(c);
    const BridgeResult br = find(reader.domain() && !pelt_holds(claim, c).expr(), timeout_ms);
    res.queries.push_back({where, br.outcome, br.seconds});
    res.seconds += br.seconds;
    if (br.outcome == Outcome::unknown) unknown.push_back(where + ": " + br.reason);
    if (br.outcome != Outcome::refuted) continue;
    const PeltCase<uint64_t> concrete = evaluate(c, *br.model);
    const std::optional<Counterexample> cx = check_pelt_case(claim, concrete);
    if (!cx) {
      res.outcome = Outcome::unknown;
      res.detail = "BUG: Z3's model and the uint64_t model disagree: the claim holds on uint64_t at " +
                   format_counterexample(pelt_counterexample(claim, concrete));
      return res;
    }
    res.outcome = Outcome::refuted;
    res.counterexample = *cx;
    res.counterexample.note = "the first one Z3 found; " + where;
    res.detail = cx->summary;
    return res;
  }
  if (!unknown.empty()) {
    res.outcome = Outcome::unknown;
    res.detail = unknown.front();
    for (std::size_t i = 1; i < unknown.size(); ++i) res.detail += "; " + unknown[i];
    return res;
  }
  res.outcome = Outcome::proved;
  res.detail = std::to_string(res.queries.size()) + (res.queries.size() == 1 ? " query" : " queries") + " unsat";
  return res;
}

}  // namespace cfsv::proofs
