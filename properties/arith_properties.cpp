#include "properties/arith_properties.h"

#include <sstream>

#include "claims/check.h"
#include "properties/calc_delta_bound.h"
#include "properties/runner.h"

namespace cfsv::properties {

namespace {
std::string shown(const auto& value) {
  std::ostringstream os;
  showValue(value, os);
  return os.str();
}
}  // namespace

void check_calc_delta_bound(const CalcDeltaCase& c, CalcDeltaFn f) {
  if (!in_calc_delta_bound_domain(c)) refute("generated outside the bound's domain: " + shown(c));
  const uint64_t result = f(c.delta, c.weight, c.lw, c.r);
  if (const auto violation = calc_delta_bound_violation(c, result))
    refute("__calc_delta out of its error bound: " + *violation, shown(c) + "\n");
}

void check_claim_on(const Claim& claim, const SliceCase& c) {
  if (const std::optional<Counterexample> cx = check_slice_case(claim, c)) refute(*cx);
}

void check_nice0_slices_sum(uint64_t n, const CpuTunables& ct, LoadResolution r, SliceFeatures f) {
  const SliceTunables<uint64_t> t = slice_tunables(ct.tunables);
  const uint64_t w = nice_0_load<uint64_t>(r);
  const std::array<SliceLevel<uint64_t>, 1> chain = {{{w, n * w, 1}}};
  const uint64_t slice = sched_slice<uint64_t>(chain, n, n, t, f, r);
  const uint64_t period = sched_period(n, t), sum = n * slice;
  // n * (exact * (b + 4) / 2^32 + 1) with exact = period / n, b = 1024 n.
  const uint64_t rounding = static_cast<uint64_t>((static_cast<unsigned __int128>(period) * (1024 * n + 4)) >> 32) + n;
  const uint64_t ceiling = f.base_slice ? max(period, n * t.min_granularity) : period;
  if (sum + rounding < period || sum > ceiling) {
    std::ostringstream os;
    os << n << " nice-0 " << to_string(f) << " slices of " << slice << " ns add up to " << sum
       << " ns, outside [period " << period << " - rounding " << rounding << ", " << ceiling << "] ("
       << era_name(r) << " era, " << ct.cpus << " CPUs, latency "
       << ct.tunables.latency_ns << ", min_granularity " << t.min_granularity << ", nr_latency " << t.nr_latency
       << ")";
    refute(os.str());
  }
}

rc::Gen<HeavierCase> gen_heavier_case() {
  return rc::gen::exec([] {
    HeavierCase c;
    c.light = c.heavy = *gen_slice_case();
    c.level = *gen_uniform(0, c.light.levels.size() - 1);
    const LoadResolution r = resolution_of(c.light.era);
    if (c.level == 0) {  // two nice levels
      const uint64_t a = *gen_uniform(0, kNiceLevels - 1), b = *gen_uniform(0, kNiceLevels - 1);
      const bool a_lighter = nice_weight_of_rank(a) <= nice_weight_of_rank(b);
      c.light.nice_rank = a_lighter ? a : b;
      c.heavy.nice_rank = a_lighter ? b : a;
      c.light.levels[0].weight = scale_load(nice_weight_of_rank(c.light.nice_rank), r);
      c.heavy.levels[0].weight = scale_load(nice_weight_of_rank(c.heavy.nice_rank), r);
    } else {
      const uint64_t w1 = *gen_exact_weight(r), w2 = *gen_exact_weight(r);
      c.light.levels[c.level].weight = min(w1, w2);
      c.heavy.levels[c.level].weight = max(w1, w2);
    }
    return c;
  });
}

void showValue(const HeavierCase& c, std::ostream& os) {
  showValue(c.light, os);
  os << "level " << c.level << " weight raised to " << c.heavy.levels[c.level].weight;
}

void check_heavier_never_shorter_beyond_rounding(const HeavierCase& c, SliceFeatures f) {
  const SliceTrace light_t = trace_slice(c.light, f), heavy_t = trace_slice(c.heavy, f);
  uint64_t allowance = 0;  // a variant that does not follow the changed level must not change at all
  if (heavy_t.levels[c.level].slice) {
    const uint64_t slice_in = c.level == 0 ? heavy_t.period : *heavy_t.levels[c.level - 1].slice;
    allowance = calc_delta_max_shortfall(slice_in, c.heavy.levels[c.level].weight, heavy_t.levels[c.level].load,
                                         resolution_of(c.heavy.era));
  }
  if (light_t.slice > heavy_t.slice + allowance || (allowance == 0 && light_t.slice != heavy_t.slice)) {
    std::ostringstream os;
    os << "raising level " << c.level << "'s weight from " << c.light.levels[c.level].weight << " to "
       << c.heavy.levels[c.level].weight << " changes the " << to_string(f) << " slice from " << light_t.slice
       << " to " << heavy_t.slice << " ns (allowed shortfall " << allowance << ")";
    refute(os.str(), "lighter:\n" + format_counterexample(slice_case_counterexample(c.light, f, light_t)) +
                         "heavier:\n" + format_counterexample(slice_case_counterexample(c.heavy, f, heavy_t)));
  }
}

}  // namespace cfsv::properties
