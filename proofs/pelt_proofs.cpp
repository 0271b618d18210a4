#include "proofs/pelt_proofs.h"

#include <bit>
#include <string>

#include "claims/check.h"
#include "model/deterministic_random.h"
#include "proofs/bridge.h"
#include "proofs/sym_reader.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

namespace {

// Ranges of at most this many values become paths: decay_load's table entry
// (32), an update's on_rq and running (2). Constant there, they fold away.
uint64_t split_for(ClaimKind k) { return pelt_shape(k) == PeltShape::update ? 2 : 1; }

// The kinds whose queries bit-blast within the budget: the tg updates and
// the shares (additions, shifts, one division). decay_load's 64 x 32-bit
// products by table entries, and an update's products and divisions by a
// symbolic divider, do not: 1 to 5 s per query for decay_load (96 per
// claim), timeouts of 15 s for an update, on this 2-core machine.
bool sat_decides(ClaimKind k) { return pelt_shape(k) == PeltShape::tg || pelt_shape(k) == PeltShape::shares; }

// A Reader of concrete Sym values: a choice uniformly; a range's low or high
// end one time in 8 each (where bounds are at stake: a full sum, the
// heaviest weight, the longest gap), else as the properties engine draws:
// up to 64 values uniformly, a wider range log-uniformly (a bit width, then
// a value of that width).
class SampledReader {
 public:
  using value_type = Sym;
  explicit SampledReader(DeterministicRandom& rng) : rng_(rng) {}
  std::size_t choose(std::size_t n) { return static_cast<std::size_t>(rng_.below(n)); }
  Sym range(uint64_t lo, uint64_t hi) {
    if (const uint64_t end = rng_.below(8); end < 2) return Sym(end ? hi : lo);
    if (hi - lo < 64) return Sym(rng_.range(lo, hi));
    const uint64_t width = rng_.range(std::bit_width(lo), std::bit_width(hi));
    const uint64_t band_lo = width ? uint64_t{1} << (width - 1) : 0;
    const uint64_t band_hi = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    return Sym(rng_.range(std::max(lo, band_lo), std::min(hi, band_hi)));
  }
  Sym range(const Sym& lo, const Sym& hi, uint64_t) { return range(fold(lo), fold(hi)); }

 private:
  DeterministicRandom& rng_;
};

PeltCase<uint64_t> folded(const PeltCase<Sym>& c) {
  PeltCase<uint64_t> out{c.era, {}};
  for (const PeltValue<Sym>& x : c.in) out.in.push_back({x.name, fold(x.v)});
  return out;
}

// The claim's terms evaluated by Z3 on sampled cases of its domain: a test,
// reported as passed, or refuted by the first case that folds to false.
ProofResult sample_pelt(const Claim& claim, const CheckConfig& config) {
  const uint64_t samples = PerBudget<uint64_t>{300, 1000, 100000}.at(config.budget);
  ProofResult res;
  DeterministicRandom rng(config.seed);
  QueryStat stat{std::to_string(samples) + " sampled cases, each folded by Z3's simplifier", Outcome::passed, 0};
  z3::context ctx;  // one for every case: creating one costs more than a case
  ContextScope scope(ctx);
  for (uint64_t i = 0; i < samples; ++i) {
    SampledReader reader(rng);
    const PeltCase<Sym> c = decode_pelt_case(reader, claim);
    const BridgeResult br = find_ground((!pelt_holds(claim, c)).expr());
    stat.seconds += br.seconds;
    if (br.outcome == Outcome::proved) continue;
    stat.outcome = br.outcome;
    res.queries.push_back(stat);
    res.seconds = stat.seconds;
    const PeltCase<uint64_t> concrete = folded(c);
    const std::optional<Counterexample> cx = check_pelt_case(claim, concrete);
    if (br.outcome != Outcome::refuted || !cx) {
      res.outcome = Outcome::unknown;
      res.detail = br.outcome != Outcome::refuted ? br.reason
                                                  : "BUG: Z3's evaluation and the uint64_t model disagree at " +
                                                        format_counterexample(pelt_counterexample(claim, concrete));
      return res;
    }
    res.outcome = Outcome::refuted;
    res.counterexample = *cx;
    res.counterexample.note = "sampled case " + std::to_string(i + 1) + " (seed " + std::to_string(config.seed) + ")";
    res.detail = cx->summary;
    return res;
  }
  res.queries.push_back(stat);
  res.seconds = stat.seconds;
  res.outcome = Outcome::passed;
  res.detail = "sampled, not proved: " + std::to_string(samples) + " cases (seed " + std::to_string(config.seed) +
               ") folded by Z3 with no counterexample; bit-blasting decay_load's 64-bit products and an update's "
               "divisions does not decide in the budget";
  return res;
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
    if (uint64_t v = 0; x.v.expr().is_numeral_u64(v) && x.name != "n")
      s += " " + std::string(x.name) + "=" + std::to_string(v);
  return s;
}

}  // namespace

ProofResult prove_pelt(const Claim& claim, const CheckConfig& config) {
  if (!sat_decides(claim.kind)) return sample_pelt(claim, config);
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
    res.detail = join_reasons(unknown);
    return res;
  }
  res.outcome = Outcome::proved;
  res.detail = std::to_string(res.queries.size()) + (res.queries.size() == 1 ? " query" : " queries") + " unsat";
  return res;
}

}  // namespace cfsv::proofs
