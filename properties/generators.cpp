#include "properties/generators.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <ostream>

#include "claims/slice_trace.h"
#include "model/arith/weights.h"
#include "properties/rc_reader.h"

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
  return rc::gen::map(gen_uniform(0, 1), [](uint64_t i) { return i ? kLoadResolutionV5_7 : kLoadResolutionV3_13; });
}

rc::Gen<uint64_t> gen_task_weight(LoadResolution r) {
  return rc::gen::map(gen_nice(), [r](int nice) { return scale_load<uint64_t>(nice_to_weight(nice), r); });
}

rc::Gen<uint64_t> gen_group_weight(LoadResolution r) {
  return rc::gen::exec([r] {
    switch (pick(3)) {
      case 0: return scale_load<uint64_t>(1024, r);  // cpu.shares default, the whole group on this CPU
      case 1: return scale_load<uint64_t>(*gen_log_uniform(kFairMinShares, kFairMaxShares), r);
      default: return *gen_log_uniform(kFairMinShares, scale_load<uint64_t>(kFairMaxShares, r));
    }
  });
}

rc::Gen<uint64_t> gen_exact_weight(LoadResolution r) {
  return rc::gen::exec([r] {
    if (pick(2) == 0) return *gen_task_weight(r);
    return scale_load<uint64_t>(*gen_log_uniform(kFairMinShares, kFairMaxShares), r);
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

void showValue(const CalcDeltaCase& c, std::ostream& os) {
  os << "__calc_delta(delta " << c.delta << ", weight " << c.weight << ", lw {weight " << c.lw.weight
     << ", inv_weight " << c.lw.inv_weight << "}) in the " << era_name(c.r) << " era";
}

rc::Gen<SliceCase> gen_slice_case(std::optional<Era> era, bool sysctl_writes, Weights weights, bool idle) {
  return rc::gen::exec([era, sysctl_writes, weights, idle] {
    Domain d{1, 3, {4096, 4096, 4096}, weights, 1, 1, {Era::v3_13, Era::v5_7}};
    if (era) d.eras = {*era};
    d.idle = idle;
    RcReader r;
    SliceCase c = decode_slice_case(r, d, Budget::ci);
    const CpuTunables t = *gen_tunables(sysctl_writes);
    c.cpus = t.cpus;
    c.tunables = slice_tunables(t.tunables);
    return c;
  });
}

}  // namespace cfsv::properties

namespace cfsv {

void showValue(const SliceCase<uint64_t>& c, std::ostream& os) {
  os << format_counterexample(slice_case_counterexample(c, {}, trace_slice(c, {})));
}

}  // namespace cfsv
