#include "properties/generators.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <ostream>

#include "model/arith/weights.h"

namespace cfsv::properties {

namespace {
constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kU32Max = 0xffffffffu;
using u128 = unsigned __int128;

// Picks alternative 0..n-1; shrinks toward alternative 0.
std::size_t pick(std::size_t n) { return static_cast<std::size_t>(*gen_uniform(0, n - 1)); }

uint64_t low_bits(LoadResolution r) {  // bits below the era's resolution, dropped by scale_load_down
  return r.shift ? *gen_uniform(0, (uint64_t{1} << r.shift) - 1) : 0;
}

// A weight whose scale_load_down is at most max(2, max_down) (v5 keeps at least 2).
uint64_t weight_down_at_most(LoadResolution r, uint64_t max_down) {
  const uint64_t down = *gen_log_uniform(0, std::min(max_down, kU64Max >> r.shift));
  return (down << r.shift) | low_bits(r);
}

// The delta of a case: every magnitude up to the domain's limit
// delta * a * inv < 2^96 (the intended result fits in 64 bits).
uint64_t delta_within(uint64_t a_times_inv) {
  const u128 limit = (u128{1} << 96) - 1;
  const u128 max = a_times_inv ? limit / a_times_inv : kU64Max;
  return *gen_log_uniform(0, static_cast<uint64_t>(std::min<u128>(max, kU64Max)));
}
}  // namespace

rc::Gen<uint64_t> gen_uniform(uint64_t lo, uint64_t hi) {
  // An offset in [0, hi - lo]; inRange's bound is exclusive, so the full range is arbitrary<>.
  const uint64_t span = hi - lo;
  auto offset = span == kU64Max ? rc::gen::arbitrary<uint64_t>() : rc::gen::inRange<uint64_t>(0, span + 1);
  return rc::gen::map(rc::gen::resize(rc::kNominalSize, std::move(offset)), [lo](uint64_t o) { return lo + o; });
}

rc::Gen<uint64_t> gen_log_uniform(uint64_t lo, uint64_t hi) {
  return rc::gen::exec([lo, hi] {
    const int width = static_cast<int>(*gen_uniform(std::bit_width(lo), std::bit_width(hi)));
    const uint64_t band_lo = width ? uint64_t{1} << (width - 1) : 0;
    const uint64_t band_hi = width == 64 ? kU64Max : (uint64_t{1} << width) - 1;
    return *gen_uniform(std::max(lo, band_lo), std::min(hi, band_hi));
  });
}

rc::Gen<int> gen_nice() {
  // 0, -1, 1, -2, 2, ..., 19, -20: shrinking the index shrinks toward nice 0.
  return rc::gen::map(gen_uniform(0, kNiceLevels - 1), [](uint64_t i) {
    const int k = static_cast<int>(i);
    return k % 2 ? -(k + 1) / 2 : k / 2;
  });
}

rc::Gen<LoadResolution> gen_load_resolution() {
  return rc::gen::map(gen_uniform(0, 1), [](uint64_t i) { return i ? kLoadResolutionV5 : kLoadResolutionV3; });
}

const char* era_name(LoadResolution r) {
  if (r.calc_delta_mine) return "v3.10";
  return r.shift ? "v5" : "v3.13";
}

uint64_t era_inv_weight(const LoadWeight<uint64_t>& lw, LoadResolution r) {
  return update_inv_weight(lw, r, r.calc_delta_mine ? uint64_t{1} << 32 : kWmultConst);
}

rc::Gen<uint64_t> gen_task_weight(LoadResolution r) {
  return rc::gen::map(gen_nice(), [r](int nice) { return scale_load<uint64_t>(nice_to_weight(nice), r); });
}

rc::Gen<uint64_t> gen_group_weight(LoadResolution r) {
  return rc::gen::exec([r] {
    switch (pick(3)) {
      case 0: return scale_load<uint64_t>(1024, r);  // cpu.shares default, the whole group on this CPU
      case 1: return scale_load<uint64_t>(*gen_log_uniform(kMinShares, kMaxShares), r);
      default: return *gen_log_uniform(kMinShares, scale_load<uint64_t>(kMaxShares, r));
    }
  });
}

rc::Gen<uint64_t> gen_exact_weight(LoadResolution r) {
  return rc::gen::exec([r] {
    if (pick(2) == 0) return *gen_task_weight(r);
    return scale_load<uint64_t>(*gen_log_uniform(kMinShares, kMaxShares), r);
  });
}

rc::Gen<CpuTunables> gen_tunables(bool sysctl_writes) {
  return rc::gen::exec([sysctl_writes] {
    CpuTunables c;
    c.cpus = static_cast<unsigned>(*gen_uniform(1, 64));
    constexpr TunableScaling kScalings[] = {TunableScaling::log, TunableScaling::none, TunableScaling::linear};
    Tunables normalised;
    normalised.scaling = kScalings[pick(3)];
    c.tunables = normalised.for_cpus(c.cpus);
    c.sysctl_written = sysctl_writes && pick(4) == 3;
    if (c.sysctl_written) {
      constexpr uint64_t kMin = 100'000, kMax = 1'000'000'000;  // the sysctls' bounds
      const uint64_t min_gran = *gen_log_uniform(kMin, kMax);
      // Half the writes put latency just above a multiple of min_granularity,
      // where nr_latency rounds up and the period barely covers it.
      const uint64_t near_multiple = min_gran * *gen_uniform(1, 16) + *gen_log_uniform(0, min_gran - 1);
      c.tunables.min_granularity_ns = min_gran;
      c.tunables.latency_ns = pick(2) == 0 ? *gen_log_uniform(kMin, kMax) : std::min(near_multiple, kMax);
      c.tunables.recompute_nr_latency();
    }
    return c;
  });
}

SliceTunables<uint64_t> slice_tunables(const Tunables& t) {
  return {t.latency_ns, t.min_granularity_ns, t.nr_latency};
}

rc::Gen<CalcDeltaCase> gen_calc_delta_lazy() {
  return rc::gen::exec([] {
    CalcDeltaCase c;
    c.r = *gen_load_resolution();
    c.lw.weight = pick(2) == 0 ? *gen_group_weight(c.r) : weight_down_at_most(c.r, kU32Max);
    if (scale_load_down(c.lw.weight, c.r) == 0) c.lw.weight = scale_load<uint64_t>(1, c.r);
    const uint64_t inv = update_inv_weight(c.lw, c.r);
    c.weight = pick(2) == 0 ? *gen_exact_weight(c.r) : weight_down_at_most(c.r, kU64Max / inv);
    c.delta = delta_within(scale_load_down(c.weight, c.r) * inv);
    return c;
  });
}

rc::Gen<CalcDeltaCase> gen_calc_delta_table() {
  return rc::gen::exec([] {
    CalcDeltaCase c;
    c.r = *gen_load_resolution();
    const int nice = *gen_nice();
    c.lw = {scale_load<uint64_t>(nice_to_weight(nice), c.r), nice_to_wmult(nice)};
    c.weight = pick(2) == 0 ? nice_0_load<uint64_t>(c.r) : weight_down_at_most(c.r, kU64Max / c.lw.inv_weight);
    c.delta = delta_within(scale_load_down(c.weight, c.r) * c.lw.inv_weight);
    return c;
  });
}

rc::Gen<CalcDeltaCase> gen_calc_delta_defined() {
  return rc::gen::exec([] {
    CalcDeltaCase c;
    c.r = *gen_load_resolution();
    c.lw.weight = pick(2) == 0 ? *gen_task_weight(c.r) : *gen_log_uniform(0, kU64Max);
    switch (pick(3)) {
      case 0: c.lw.inv_weight = 0; break;
      case 1: c.lw.inv_weight = nice_to_wmult(*gen_nice()); break;
      default: c.lw.inv_weight = *gen_log_uniform(1, kU32Max); break;
    }
    c.weight = weight_down_at_most(c.r, kU64Max / update_inv_weight(c.lw, c.r));
    c.delta = *gen_log_uniform(0, kU64Max);
    return c;
  });
}

void showValue(const CalcDeltaCase& c, std::ostream& os) {
  os << "__calc_delta(delta " << c.delta << ", weight " << c.weight << ", lw {weight " << c.lw.weight
     << ", inv_weight " << c.lw.inv_weight << "}) in the " << era_name(c.r) << " era";
}

bool SliceCase::level_on_rq(std::size_t i) const {
  // A group entity is queued iff the cfs_rq it owns has a queued entity.
  return i == 0 ? on_rq : !levels[i - 1].others.empty() || level_on_rq(i - 1);
}

uint64_t SliceCase::nr_running(std::size_t i) const { return levels[i].others.size() + (level_on_rq(i) ? 1 : 0); }

uint64_t SliceCase::rq_h_nr_running() const {
  uint64_t n = on_rq ? 1 : 0;
  for (const PathLevel& l : levels)
    for (const Sibling& s : l.others) n += s.h_nr_running;
  return n;
}

std::vector<SliceLevel<uint64_t>> SliceCase::chain() const {
  std::vector<SliceLevel<uint64_t>> chain;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const bool queued = level_on_rq(i);
    uint64_t load = queued ? levels[i].weight : 0;
    for (const Sibling& s : levels[i].others) load += s.weight;
    chain.push_back({levels[i].weight, load, queued ? 1u : 0u});
  }
  return chain;
}

rc::Gen<SliceCase> gen_slice_case(std::optional<LoadResolution> era, bool sysctl_writes) {
  return rc::gen::exec([era, sysctl_writes] {
    SliceCase c;
    c.tunables = *gen_tunables(sysctl_writes);
    c.r = era ? *era : *gen_load_resolution();
    c.on_rq = pick(5) != 4;
    const std::size_t depth = *rc::gen::inRange<std::size_t>(1, 4);
    const auto sibling = rc::gen::exec([r = c.r] {
      if (pick(2) == 0) return Sibling{*gen_task_weight(r), 1};
      return Sibling{*gen_group_weight(r), *gen_uniform(1, 64)};
    });
    for (std::size_t i = 0; i < depth; ++i) {
      PathLevel l;
      l.weight = i == 0 ? *gen_task_weight(c.r) : *gen_group_weight(c.r);
      l.others = *rc::gen::container<std::vector<Sibling>>(*rc::gen::inRange<std::size_t>(0, 33), sibling);
      c.levels.push_back(std::move(l));
    }
    return c;
  });
}

rc::Gen<SliceCase> gen_equal_weights_case(std::optional<LoadResolution> era, bool sysctl_writes) {
  return rc::gen::exec([era, sysctl_writes] {
    SliceCase c = *gen_slice_case(era, sysctl_writes);
    c.levels[0].others.assign(*gen_log_uniform(0, 1023), Sibling{c.levels[0].weight, 1});
    return c;
  });
}

rc::Gen<SliceCase> gen_equal_weights_proof_case(LoadResolution r, uint64_t max_n) {
  return rc::gen::exec([r, max_n] {
    SliceCase c;
    c.tunables = {4, Tunables{}.for_cpus(4), false};
    c.r = r;
    c.on_rq = pick(2) == 0;
    const uint64_t w = scale_load<uint64_t>(nice_to_weight(*gen_nice()), r);
    c.levels = {{w, std::vector<Sibling>(*gen_uniform(1, max_n) - 1, Sibling{w, 1})}};
    return c;
  });
}

void show_siblings(const std::vector<Sibling>& others, std::ostream& os) {
  for (std::size_t i = 0; i < others.size();) {
    std::size_t run = 1;
    while (i + run < others.size() && others[i + run].weight == others[i].weight &&
           others[i + run].h_nr_running == others[i].h_nr_running)
      ++run;
    os << (i ? " " : "") << others[i].weight;
    if (others[i].h_nr_running != 1) os << "x" << others[i].h_nr_running;
    if (run > 1) os << " (" << run << " times)";
    i += run;
  }
}

void showValue(const SliceCase& c, std::ostream& os) {
  const Tunables& t = c.tunables.tunables;
  os << era_name(c.r) << " era, " << c.tunables.cpus << " CPUs ("
     << to_string(t.scaling) << (c.tunables.sysctl_written ? ", sysctl" : "") << ") latency " << t.latency_ns
     << " min_granularity " << t.min_granularity_ns << " nr_latency " << t.nr_latency << ", task on_rq "
     << c.on_rq;
  for (std::size_t i = 0; i < c.levels.size(); ++i) {
    os << "; level " << i << ": weight " << c.levels[i].weight << " with [";
    show_siblings(c.levels[i].others, os);
    os << "]";
  }
}

}  // namespace cfsv::properties
