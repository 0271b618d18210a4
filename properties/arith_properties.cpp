#include "properties/arith_properties.h"

#include <sstream>

#include "model/equal_weights.h"
#include "properties/calc_delta_bound.h"
#include "properties/runner.h"
#include "properties/slice_trace.h"

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

void check_loop_equals_fls(const CalcDeltaCase& c) {
  const uint64_t fls = calc_delta(c.delta, c.weight, c.lw, c.r);
  const uint64_t loop = calc_delta_loop(c.delta, c.weight, c.lw, c.r);
  if (fls != loop)
    refute("calc_delta_loop " + std::to_string(loop) + " != calc_delta " + std::to_string(fls) + ": " + shown(c),
           shown(c) + "\n");
}

void check_slice_min_granularity(const SliceCase& c, SliceFeatures f) {
  const SliceTrace t = trace_slice(c, f);
  if (t.slice < t.min_granularity) refute(summary(c, t), reproducer(c, t));
}

void check_equal_weights_exact_set(const SliceCase& c, SliceFeatures f) {
  const SliceTrace t = trace_slice(c, f);
  const uint64_t n = c.nr_running() + (c.on_rq ? 0 : 1), nr_latency = c.tunables.tunables.nr_latency;
  if (!equal_weights_exact_set_holds(t.slice, n, t.min_granularity, nr_latency))
    refute(std::to_string(n) + " equal-weight tasks, nr_latency " + std::to_string(nr_latency) + ": " + summary(c, t),
           reproducer(c, t));
}

void check_equal_weights_rounding(const SliceCase& c, SliceFeatures f, bool mine_term) {
  const SliceTrace t = trace_slice(c, f);
  const uint64_t n = c.nr_running() + (c.on_rq ? 0 : 1), w = scale_load_down(c.levels[0].weight, c.r);
  const uint64_t allowance = equal_weights_rounding_allowance(n, w, t.min_granularity, mine_term);
  if (!equal_weights_rounding_holds(t.slice, n, w, t.min_granularity, mine_term))
    refute(std::to_string(n) + " equal-weight tasks, allowance ceil(n * w * min_granularity / 2^32)" +
               (mine_term ? " + ceil(2^15 / (n * w))" : "") + " = " + std::to_string(allowance) + ": " +
               summary(c, t),
           reproducer(c, t));
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
    c.light = *gen_slice_case();
    c.level = *gen_uniform(0, c.light.levels.size() - 1);
    const LoadResolution r = c.light.r;
    const auto weight = c.level == 0 ? gen_task_weight(r) : gen_exact_weight(r);
    const uint64_t w1 = *weight, w2 = *weight;
    c.light.levels[c.level].weight = min(w1, w2);
    c.heavier_weight = max(w1, w2);
    return c;
  });
}

void showValue(const HeavierCase& c, std::ostream& os) {
  showValue(c.light, os);
  os << "; level " << c.level << " weight raised to " << c.heavier_weight;
}

void check_heavier_never_shorter_beyond_rounding(const HeavierCase& c, SliceFeatures f) {
  SliceCase heavy = c.light;
  heavy.levels[c.level].weight = c.heavier_weight;
  const SliceTrace light_t = trace_slice(c.light, f), heavy_t = trace_slice(heavy, f);
  uint64_t allowance = 0;  // a variant that does not follow the changed level must not change at all
  if (c.level < heavy_t.levels.size()) {
    const uint64_t slice_in = c.level == 0 ? heavy_t.period : heavy_t.levels[c.level - 1].slice;
    allowance = calc_delta_max_shortfall(slice_in, c.heavier_weight, heavy_t.levels[c.level].load, c.light.r);
  }
  if (light_t.slice > heavy_t.slice + allowance || (allowance == 0 && light_t.slice != heavy_t.slice)) {
    std::ostringstream os;
    os << "raising level " << c.level << "'s weight from " << c.light.levels[c.level].weight << " to "
       << c.heavier_weight << " changes the " << to_string(f) << " slice from " << light_t.slice << " to "
       << heavy_t.slice << " ns (allowed shortfall " << allowance << ")";
    refute(os.str(), "lighter:\n" + reproducer(c.light, light_t) + "heavier:\n" + reproducer(heavy, heavy_t));
  }
}

}  // namespace cfsv::properties
