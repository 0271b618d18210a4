#include "proofs/prove.h"

#include <array>
#include <optional>

#include "proofs/calc_delta_proofs.h"
#include "proofs/slice_proofs.h"

namespace cfsv::proofs {

namespace {

std::string ns(uint64_t v) { return std::to_string(v) + " ns"; }

uint32_t timeout_ms_of(const CheckConfig& c) { return c.timeout_ms ? c.timeout_ms : default_timeout_ms(c.budget); }

std::string arithmetic_text(LoadResolution r) {
  return std::string(r.calc_delta_mine ? "calc_delta_mine" : "__calc_delta") + ", load shift " +
         std::to_string(r.shift) + (r.down_min_2 ? " (scale_load_down min 2)" : "");
}

// The domain a slice query quantifies over, for its one-line conjecture.
std::string slice_domain_text(const SliceSetup& s, const SliceProofSpec& spec) {
  std::string depths;
  for (unsigned d : spec.depths) depths += (depths.empty() ? "" : ",") + std::to_string(d);
  const std::string tasks = spec.domain == SliceDomain::equal_weights_on_task_rq
                                ? "n tasks of one nice level on the task's cfs_rq"
                                : "a task of any nice level, groups of shares MIN_SHARES..MAX_SHARES";
  return "depth " + depths + ", " + tasks + ", at most " + std::to_string(s.max_nr_running) +
         " tasks, on_rq either way, latency " + ns(s.tunables.latency) + ", min_granularity " +
         ns(s.tunables.min_granularity) + ", sched_nr_latency " + std::to_string(s.tunables.nr_latency) +
         ", " + arithmetic_text(s.resolution);
}

std::string conjecture_text(SliceConjecture kind, LoadResolution r) {
  switch (kind) {
    case SliceConjecture::at_least_min_gran: break;
    case SliceConjecture::equal_weights_exact_set: return "(sched_slice >= min_granularity) == (n < sched_nr_latency)";
    case SliceConjecture::equal_weights_rounding_bound:
      return std::string("sched_slice >= min_granularity - ceil(n * scale_load_down(w) * min_granularity / 2^32)") +
             (r.calc_delta_mine ? " - ceil(2^15 / (n * scale_load_down(w)))" : "");
  }
  return "sched_slice >= min_granularity";
}

// Equal-weight queries are nonlinear in n (period n * min_gran times a fact
// ~ 2^32 / n): their solve time grows with n's range, so the budget sets it,
// and the long budget splits them by nice level (docs/proofs.md: times).
uint64_t equal_weights_max_nr(Budget b) {
  switch (b) {
    case Budget::smoke: return 16;
    case Budget::ci: return 32;
    case Budget::long_: return 1000;
  }
  return 32;
}

ProofResult slice_claim(const Claim& claim, const CheckConfig& config, SliceConjecture kind, SliceDomain domain,
                        Preference prefer) {
  SliceSetup setup = default_slice_setup();
  setup.resolution = claim_resolution(claim);
  SliceProofSpec spec;
  spec.kind = kind;
  spec.domain = domain;
  spec.prefer = prefer;
  if (domain == SliceDomain::equal_weights_on_task_rq) {
    spec.depths = {1};  // the flat slice reads the task's level only
    setup.max_nr_running = equal_weights_max_nr(config.budget);
    spec.split_by_nice = config.budget == Budget::long_;
  }
  const SliceFeatures f = claim.features.slice();
  const std::string variant = f.flat_slice ? "flat" : f.base_slice ? "alt_period+base_slice" : "hierarchical";
  spec.conjecture = "forall " + slice_domain_text(setup, spec) + ": " + conjecture_text(kind, setup.resolution) + " (" +
                    variant + " sched_slice)";
  return run_slice_proof(spec, model_slice(f), setup, timeout_ms_of(config));
}

ProofResult loop_equals_fls(const CheckConfig& config) {
  const uint32_t timeout_ms = timeout_ms_of(config);
  ProofResult res;
  for (LoadResolution r : {kLoadResolutionV5, kLoadResolutionV3}) {
    ProofResult one = prove_loop_equals_fls(r, timeout_ms);
    res.queries.insert(res.queries.end(), one.queries.begin(), one.queries.end());
    res.seconds += one.seconds;
    if (res.conjecture.empty()) {
      res.conjecture = "calc_delta_loop(delta, weight, lw) == calc_delta(delta, weight, lw) for all 64-bit delta, "
                       "weight, lw.weight, lw.inv_weight, load shift 10 (min 2) and 0";
    }
    if (one.outcome != Outcome::proved) {
      res.outcome = one.outcome;
      res.detail = one.detail;
      res.counterexample = one.counterexample;
      return res;
    }
  }
  res.outcome = Outcome::proved;
  res.detail = "proved for all 2^256 inputs, load shift 10 and 0: equal arguments at mul_u32_u32 and "
               "mul_u64_u32_shr, then congruence";
  return res;
}

// The Z3 query behind each claim: a slice query's conjecture, domain and
// preferred counterexample shape, or (no conjecture) the __calc_delta query.
struct Entry {
  std::string_view id;
  std::optional<SliceConjecture> conjecture;
  SliceDomain domain = SliceDomain::any_weights;
  Preference prefer = Preference::none;

  ProofResult run(const Claim& c, const CheckConfig& k) const {
    return conjecture ? slice_claim(c, k, *conjecture, domain, prefer) : loop_equals_fls(k);
  }
};

const std::array<Entry, 8>& entries() {
  using C = SliceConjecture;
  using D = SliceDomain;
  using P = Preference;
  static const std::array<Entry, 8> e = {{
      {"slice-min-granularity/hierarchical", C::at_least_min_gran, D::any_weights, P::upper_levels_cut},
      {"slice-min-granularity/flat", C::at_least_min_gran, D::any_weights, P::equal_weights},
      {"slice-min-granularity/base_slice", C::at_least_min_gran, D::any_weights, P::none},
      {"slice-min-granularity/flat-equal-weights-exact-set", C::equal_weights_exact_set, D::equal_weights_on_task_rq},
      {"slice-min-granularity/flat-equal-weights-rounding", C::equal_weights_rounding_bound,
       D::equal_weights_on_task_rq},
      {"slice-min-granularity/flat-equal-weights-exact-set-v3.10", C::equal_weights_exact_set,
       D::equal_weights_on_task_rq},
      {"slice-min-granularity/flat-equal-weights-rounding-v3.10", C::equal_weights_rounding_bound,
       D::equal_weights_on_task_rq},
      {"calc-delta/loop-equals-fls", std::nullopt},
  }};
  return e;
}

const Entry* entry(std::string_view id) {
  for (const Entry& e : entries())
    if (e.id == id) return &e;
  return nullptr;
}

}  // namespace

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::proved: return "proved";
    case Outcome::refuted: return "refuted";
    case Outcome::unknown: return "unknown";
  }
  return "?";
}

Verdict to_verdict(Outcome o) {
  switch (o) {
    case Outcome::proved: return Verdict::proved;
    case Outcome::refuted: return Verdict::refuted;
    case Outcome::unknown: return Verdict::unknown;
  }
  return Verdict::unknown;
}

std::vector<std::string_view> supported_claims() {
  std::vector<std::string_view> ids;
  for (const Claim& c : all_claims())
    if (entry(c.id)) ids.push_back(c.id);
  return ids;
}

bool supports(std::string_view claim_id) { return entry(claim_id) && claim_by_id(claim_id); }

uint32_t default_timeout_ms(Budget b) {
  switch (b) {
    case Budget::smoke: return 10'000;
    case Budget::ci: return 60'000;
    case Budget::long_: return 600'000;
  }
  return 60'000;
}

ProofResult prove_claim(const Claim& claim, const CheckConfig& config) {
  const Entry* e = entry(claim.id);
  if (!e) {
    ProofResult r;
    r.claim = std::string(claim.id);
    r.conjecture = std::string(claim.statement);
    r.detail = "no Z3 query for this claim";
    return r;
  }
  ProofResult r = e->run(claim, config);
  r.claim = std::string(claim.id);
  return r;
}

std::string format_counterexample(const Counterexample& c) {
  std::string out;
  out += "  counterexample" + (c.note.empty() ? std::string() : " (" + c.note + ")") + ":\n";
  auto line = [](const std::vector<Value>& vs) {
    std::string s;
    for (const Value& v : vs) s += (s.empty() ? "" : " ") + v.name + "=" + v.text;
    return s;
  };
  if (!c.values.empty()) out += "    " + line(c.values) + "\n";
  for (std::size_t i = 0; i < c.levels.size(); ++i)
    out += "    level " + std::to_string(i) + (i == 0 ? " (task): " : " (group): ") + line(c.levels[i]) + "\n";
  return out;
}

}  // namespace cfsv::proofs
