#include "proofs/pelt_proofs.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <string>

#include "claims/check.h"
#include "model/deterministic_random.h"
#include "proofs/bridge.h"
#include "proofs/bv_to_int.h"
#include "proofs/product_lemmas.h"
#include "proofs/sym_reader.h"
#include "proofs/table_entries.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

namespace {

// Ranges of at most this many values become paths: an update's on_rq and
// running (2). Constant there, they fold away.
uint64_t split_for(ClaimKind k) { return pelt_shape(k) == PeltShape::update ? 2 : 1; }

// How the proofs engine decides a PELT kind.
enum class Method {
  sat,         // one SAT query per path: the tg updates and the shares (additions, shifts, one division)
  ints,        // one query per path over the integers, else bit-blasted (find_entry): the sum syncs, whose
               // products of two unknowns (an average by its divider) bit-blasting does not decide
  abstracted,  // one SAT query per path with decay_load's products abstracted (proofs/product_lemmas.h)
  entries,     // the updates at the long budget: per path, one SAT query per feasible combination of decay_load's
               // table entries (proofs/table_entries.h), each exact
  sampled,     // the updates below it, and the periodic kind: Z3's evaluation on sampled cases
};
Method method_for(ClaimKind k, Budget b) {
  switch (pelt_shape(k)) {
    case PeltShape::tg:
    case PeltShape::shares: return Method::sat;
    case PeltShape::sync:
    case PeltShape::idle_reweight: return Method::ints;
    case PeltShape::decay: return Method::abstracted;
    case PeltShape::update: return b == Budget::long_ ? Method::entries : Method::sampled;
    case PeltShape::periodic: break;
  }
  return Method::sampled;
}

// Why a kind is sampled (docs/proofs-pelt.md).
std::string_view sampled_why(ClaimKind k) {
  if (k == ClaimKind::pelt_periodic_util)
    return "a history of hundreds of updates is no SAT query; each case's updates run on Sym, every step folded by "
           "Z3's simplifier";
  return "Z3 decides an update only with decay_load's table entry split into its values, one exact query each "
         "(tried only at --budget long: 32 queries a path, each 1 to 40 s over the integers, a claim half an hour or "
         "more); with the products abstracted the lemmas do not decide it (it needs each product's ratio to the "
         "others, e.g. decay_load(util_sum) against 1024 decay_load(LOAD_AVG_MAX))";
}

// Entry queries past this many in one path: the enumeration gives up (a
// v5.15 update has 32, one per entry; v3.10 and v4.4 pair two entries).
constexpr std::size_t kMaxEntryQueries = 1100;
// An entry query's timeout unless --timeout sets one, over the integers and
// then, if that is undecided, bit-blasted: a queued entity's take 7 to 40 s
// over the integers, bit-blasted 30 to past 60 s.
constexpr uint32_t kEntryTimeoutMs = 60'000;

// Tells CheckConfig::on_query, if any, what is being asked or was decided.
void tell(const CheckConfig& config, const std::string& text, bool decided = false) {
  if (config.on_query) config.on_query(text, decided);
}

// "proved in 8.1 s", "unknown in 60.0 s (timeout ...)": how a query or path ended.
std::string ended(Outcome o, double seconds, const std::string& reason = {}) {
  char b[48];
  std::snprintf(b, sizeof b, " in %.1f s", seconds);
  return std::string(to_string(o)) + b + (reason.empty() ? "" : " (" + reason + ")");
}

// An entry query decided over Z3's integers (proofs/bv_to_int.h), else
// bit-blasted, each asked under several seeds (with_restarts), else over the
// integers once more in a context of its own (in_own_context);
// `over_ints` counts the ones the integers decided.
BridgeResult find_entry(const z3::expr& query, uint32_t timeout_ms, std::size_t& over_ints) {
  const BridgeResult ints =
      with_restarts(timeout_ms, [&](uint32_t t, unsigned seed) { return find_int(query, t, seed); });
  if (ints.outcome != Outcome::unknown) {
    ++over_ints;
    return ints;
  }
  BridgeResult bits = with_restarts(timeout_ms, [&](uint32_t t, unsigned seed) { return find(query, t, seed); });
  bits.seconds += ints.seconds;
  if (bits.outcome != Outcome::unknown) return bits;
  BridgeResult own = in_own_context(query, [&](const z3::expr& q) { return find_int(q, timeout_ms); });
  own.seconds += bits.seconds;
  if (own.outcome != Outcome::unknown) {
    ++over_ints;
    return own;
  }
  own.reason = ints.reason + "; bit-blasted: " + bits.reason + "; in a context of its own: " + own.reason;
  return own;
}

// An entry query find_entry left undecided, asked again split on its
// halvings (shift_queries: for yN_inv[0] up to 64 queries, each without the
// barrel shifter of n / 32): proved when every part is; else the first part
// not proved, its label in `reason` when undecided. `asked` counts the parts.
BridgeResult find_by_halvings(const EntryQuery& q, const z3::expr& domain, uint32_t timeout_ms,
                              std::size_t& over_ints, std::size_t& asked, BridgeResult undecided,
                              const CheckConfig& config, const std::string& where) {
  const std::optional<std::vector<EntryQuery>> parts = shift_queries(q, domain, timeout_ms, kMaxEntryQueries);
  if (!parts || (parts->size() == 1 && parts->front().shifts.empty())) return undecided;  // no symbolic shift
  BridgeResult all{Outcome::proved, std::nullopt, "", undecided.seconds};
  for (std::size_t i = 0; i < parts->size(); ++i) {
    const EntryQuery& part = (*parts)[i];
    tell(config, where + ", " + entry_label(part) + " (split on its halvings: " + std::to_string(i + 1) + " of " +
                     std::to_string(parts->size()) + ")");
    BridgeResult br = find_entry(part.query, timeout_ms, over_ints);
    ++asked;
    all.seconds += br.seconds;
    if (br.outcome == Outcome::proved) continue;
    br.seconds = all.seconds;
    if (br.outcome == Outcome::unknown) br.reason = "split on its halvings, " + entry_label(part) + ": " + br.reason;
    return br;
  }
  return all;
}

// Cases sampled per budget: a periodic case is a history of up to 2,000 updates.
PerBudget<uint64_t> samples_for(ClaimKind k) {
  return k == ClaimKind::pelt_periodic_util ? PerBudget<uint64_t>{3, 10, 300} : PerBudget<uint64_t>{300, 1000, 100000};
}

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

// The negated statement on a sampled case, as Z3 evaluates it: the
// templates on Sym (the periodic kind's history on the case's parameters,
// each step folded by Z3's simplifier).
z3::expr negated_on(const Claim& claim, const PeltCase<Sym>& c) {
  if (claim.kind != ClaimKind::pelt_periodic_util) return (!pelt_holds(claim, c)).expr();
  const PeltPeriodic p = pelt_periodic(folded(c));
  return (!periodic_within<Sym>(p, periodic_bounds(p), [](const Sym& v) { return Sym(v.expr().simplify()); })).expr();
}

// The claim's terms evaluated by Z3 on sampled cases of its domain: a test,
// reported as passed, or refuted by the first case that folds to false.
ProofResult sample_pelt(const Claim& claim, const CheckConfig& config) {
  const uint64_t samples = samples_for(claim.kind).at(config.budget);
  ProofResult res;
  DeterministicRandom rng(config.seed);
  QueryStat stat{std::to_string(samples) + " sampled cases, each folded by Z3's simplifier", Outcome::passed, 0};
  tell(config, stat.label);
  z3::context ctx;  // one for every case: creating one costs more than a case
  ContextScope scope(ctx);
  for (uint64_t i = 0; i < samples; ++i) {
    SampledReader reader(rng);
    const PeltCase<Sym> c = decode_pelt_case(reader, claim);
    const BridgeResult br = find_ground(negated_on(claim, c));
    stat.seconds += br.seconds;
    if (br.outcome == Outcome::proved) continue;
    stat.outcome = br.outcome;
    res.queries.push_back(stat);
    tell(config, stat.label + ": case " + std::to_string(i + 1) + " " + ended(br.outcome, stat.seconds), true);
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
  tell(config, stat.label + ": " + ended(Outcome::passed, stat.seconds), true);
  res.seconds = stat.seconds;
  res.outcome = Outcome::passed;
  res.detail = "sampled, not proved: " + std::to_string(samples) + " cases (seed " + std::to_string(config.seed) +
               ") folded by Z3 with no counterexample; " + std::string(sampled_why(claim.kind));
  return res;
}

// The entry split's undecided verdict `split` completed by sampling: its
// queries and seconds kept, the paths it decided and those it did not named.
ProofResult sampled_after(const Claim& claim, const CheckConfig& config, const ProofResult& split,
                          const std::vector<std::string>& undecided) {
  ProofResult res = sample_pelt(claim, config);
  res.queries.insert(res.queries.begin(), split.queries.begin(), split.queries.end());
  res.seconds += split.seconds;
  if (res.outcome != Outcome::passed) return res;
  const auto proved = std::count_if(split.queries.begin(), split.queries.end(),
                                    [](const QueryStat& q) { return q.outcome == Outcome::proved; });
  std::string why;
  for (const std::string& u : undecided) why += (why.empty() ? "" : "; ") + u;
  res.detail = "Z3 proved " + std::to_string(proved) + " of " + std::to_string(split.queries.size()) +
               " paths exactly, one query per decay_load table entry (undecided: " + why + "); then " + res.detail;
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
  const Method method = method_for(claim.kind, config.budget);
  if (method == Method::sampled) return sample_pelt(claim, config);
  const uint32_t timeout_ms = config.timeout_ms ? config.timeout_ms : default_timeout_ms(config.budget);
  ProofResult res;
  std::vector<std::string> unknown;
  unsigned products = 0;
  std::size_t lemma_queries = 0, entry_queries_asked = 0, over_ints = 0;
  std::size_t halving_splits = 0, halving_parts = 0;  // entries proved split on their halvings; their parts
  if (method == Method::abstracted) {  // no query is asked on lemmas that are not proved
    const LemmaProof lemmas = prove_product_lemmas(timeout_ms);
    lemma_queries = lemmas.queries.size();
    res.queries = lemmas.queries;
    if (lemmas.outcome != Outcome::proved) unknown.push_back(lemmas.reason);
  }
  z3::context ctx;  // one for every query: they share most of their terms
  ContextScope scope(ctx);
  std::optional<std::vector<uint64_t>> path;
  if (unknown.empty()) path.emplace();
  while (path) {
    SymReader reader(std::move(*path), split_for(claim.kind));
    const PeltCase<Sym> c = decode_pelt_case(reader, claim);
    path = reader.next();
    const std::string where = label(c);
    const z3::expr negated = reader.domain() && !pelt_holds(claim, c).expr();
    if (method == Method::entries) {
      tell(config, where + ": enumerating decay_load's table entries");
      const std::optional<std::vector<EntryQuery>> split =
          entry_queries(negated, reader.domain(), timeout_ms, kMaxEntryQueries);
      if (!split) {
        res.queries.push_back({where + ": enumerating decay_load's table entries", Outcome::unknown, 0});
        tell(config, res.queries.back().label + ": did not finish", true);
        unknown.push_back(where + ": the enumeration of decay_load's table entries did not finish");
        continue;
      }
      QueryStat stat{where, Outcome::proved, 0};
      double slowest = 0;
      const uint32_t entry_timeout_ms = config.timeout_ms ? timeout_ms : std::min(timeout_ms, kEntryTimeoutMs);
      for (std::size_t i = 0; i < split->size(); ++i) {
        const EntryQuery& q = (*split)[i];
        const std::string entry = where + ", " + entry_label(q);
        tell(config, entry + " (" + std::to_string(i + 1) + " of " + std::to_string(split->size()) + ")");
        BridgeResult br = find_entry(q.query, entry_timeout_ms, over_ints);
        if (br.outcome == Outcome::unknown) {
          std::size_t parts = 0;
          br = find_by_halvings(q, reader.domain(), entry_timeout_ms, over_ints, parts, std::move(br), config, where);
          if (br.outcome == Outcome::proved) ++halving_splits, halving_parts += parts;
        }
        stat.seconds += br.seconds;
        slowest = std::max(slowest, br.seconds);
        ++entry_queries_asked;
        if (br.outcome == Outcome::proved) continue;
        stat.outcome = br.outcome;
        stat.label = entry;
        res.queries.push_back(stat);
        tell(config, entry + ": " + ended(stat.outcome, stat.seconds, br.reason), true);
        if (br.outcome == Outcome::unknown) {
          unknown.push_back(stat.label + ": " + br.reason);
          break;
        }
        const PeltCase<uint64_t> concrete = evaluate(c, *br.model);
        refute_with(res, check_pelt_case(claim, concrete), [&] { return pelt_counterexample(claim, concrete); },
                    stat.label);
        for (const QueryStat& s : res.queries) res.seconds += s.seconds;
        return res;
      }
      if (stat.outcome != Outcome::proved) continue;
      char slow[32];
      std::snprintf(slow, sizeof slow, "%.1f", slowest);
      stat.label += ": " + std::to_string(split->size()) + " queries, one per table entry (slowest " + slow + " s)";
      res.queries.push_back(stat);
      tell(config, stat.label + ": " + ended(stat.outcome, stat.seconds), true);
      continue;
    }
    tell(config, where);
    const BridgeResult br = method == Method::abstracted ? find_abstracted(negated, timeout_ms, products)
                            : method == Method::ints     ? find_entry(negated, timeout_ms, over_ints)
                                                         : find(negated, timeout_ms);
    res.queries.push_back({where, br.outcome, br.seconds});
    tell(config, where + ": " + ended(br.outcome, br.seconds, br.reason), true);
    if (br.outcome == Outcome::unknown) unknown.push_back(where + ": " + br.reason);
    if (br.outcome != Outcome::refuted) continue;
    const PeltCase<uint64_t> concrete = evaluate(c, *br.model);
    refute_with(res, check_pelt_case(claim, concrete), [&] { return pelt_counterexample(claim, concrete); }, where);
    return res;
  }
  for (const QueryStat& q : res.queries) res.seconds += q.seconds;
  if (method == Method::entries && !unknown.empty()) return sampled_after(claim, config, res, unknown);
  const std::size_t paths = res.queries.size() - lemma_queries;
  std::string detail;
  if (method == Method::abstracted) {
    detail = std::to_string(paths) + (paths == 1 ? " query" : " queries") + " unsat with decay_load's " +
             std::to_string(products) + " products abstracted, assuming the lemmas";
    for (const ProductLemma& l : product_lemmas()) detail += " " + std::string(l.name) + ",";
    detail.back() = ';';
    detail += " each proved over the integers (" + std::to_string(lemma_queries) + " queries unsat)";
  }
  if (method == Method::entries)
    detail = std::to_string(entry_queries_asked - halving_splits + halving_parts) + " queries unsat over " +
             std::to_string(paths) +
             " paths: each path split on decay_load's table entries (runnable_avg_yN_inv), every product by its "
             "entry exact" +
             (halving_splits ? "; " + std::to_string(halving_splits) + " entries undecided whole split again on " +
                                   "their halvings n / 32 (" + std::to_string(halving_parts) + " queries)"
                             : std::string()) +
             "; " + std::to_string(over_ints) + " decided over Z3's integers, the others bit-blasted";
  conclude(res, unknown, Outcome::proved, detail);
  return res;
}

}  // namespace cfsv::proofs
