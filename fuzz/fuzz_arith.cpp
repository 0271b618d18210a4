// fuzz_arith: the slice arithmetic of model/calc_delta.h and model/slice.h on
// arbitrary inputs of the kernel's domain, in every era of its fixed-point
// arithmetic (the eras v3.10 with calc_delta_mine, v3.13, v5.7).
//
// Input: one selector byte, then the case (see the decode_* functions). The
// domain: scale_load_down(weight) < 2^32 for an entity's weight (the kernel's
// largest is MAX_SHARES or nice -20, far below; beyond it __calc_delta's
// shift would go negative), runqueue loads up to 2^48 (past WMULT_CONST,
// where inv_weight is 1), tunables and nr_running of the kernel's 32-bit
// types. Checks: no UB (clang build: ASan+UBSan, no recovery),
// calc_delta_loop == calc_delta, the error bounds of __calc_delta and
// calc_delta_mine against an exact 128-bit oracle, __update_inv_weight's
// floor, __sched_period without overflow, and for sched_slice: hierarchical
// <= flat <= period (__calc_delta eras), BASE_SLICE >= min_granularity. A
// failed check prints what failed and aborts.
#include <array>
#include <cinttypes>
#include <span>

#include "fuzz/byte_reader.h"
#include "fuzz/fuzz_target.h"
#include "model/arith/calc_delta.h"
#include "model/arith/fair_math.h"
#include "model/arith/slice.h"
#include "model/arith/weights.h"

namespace {

using namespace cfsv;
using cfsv::fuzz::ByteReader;
using cfsv::fuzz::fail;
using cfsv::fuzz::to_dec;
using u128 = unsigned __int128;
constexpr const char* kTarget = "fuzz_arith";
constexpr u128 k2Pow32 = u128{1} << 32;

constexpr std::array<LoadResolution, 3> kResolutions = {kLoadResolutionV3_10, kLoadResolutionV3_13,
                                                        kLoadResolutionV5_7};
const char* era_text(LoadResolution r) { return era_name(r).data(); }  // the names are string literals

// A weight in the era's resolution. wide: also runqueue loads past 2^32.
uint64_t decode_weight(ByteReader& in, LoadResolution r, bool wide) {
  static constexpr std::array<uint64_t, 13> kEdges = {0,    1,     2,     3,              15,          1023,
                                                      1024, 1025,  88761, kFairMaxShares, 0xfffffffeu, 0xffffffffu,
                                                      1ull << 31};
  switch (in.range(0, wide ? 4 : 3)) {
    case 0: return scale_load<uint64_t>(nice_to_weight(in.integer(kNiceMin, kNiceMax)), r);
    case 1: return scale_load<uint64_t>(in.range(kFairMinShares, kFairMaxShares), r);
    case 2: return scale_load<uint64_t>(in.pick<uint64_t>(kEdges), r) + in.range(0, (1ull << r.shift) - 1);
    case 3: return in.range(0, (1ull << (32 + r.shift)) - 1);
    default: return in.range(0, (1ull << (48 + r.shift)) - 1);
  }
}

// A struct load_weight: a task's (nice weight with the table's inverse, as
// set_load_weight) or any weight with the inverse left to compute lazily.
LoadWeight<uint64_t> decode_load_weight(ByteReader& in, LoadResolution r) {
  if (in.range(0, 3) == 0) {
    const int nice = in.integer(kNiceMin, kNiceMax);
    return {scale_load<uint64_t>(nice_to_weight(nice), r), nice_to_wmult(nice)};
  }
  return {decode_weight(in, r, true), 0};
}

uint64_t decode_delta(ByteReader& in) {
  switch (in.range(0, 2)) {
    case 0: return in.range(0, 100'000'000);  // up to 100 ms
    case 1: return in.range(0, UINT32_MAX);
    default: return in.u64();
  }
}

// __update_inv_weight: the cached inverse if set, else floor(WMULT_CONST / L)
// for 0 < L < WMULT_CONST, 1 above, WMULT_CONST for 0.
void check_inv_weight(const LoadWeight<uint64_t>& lw, LoadResolution r) {
  const uint64_t inv = update_inv_weight(lw, r);
  const uint64_t L = scale_load_down(lw.weight, r);
  const char* e = era_text(r);
  if (lw.inv_weight != 0) {
    if (inv != lw.inv_weight) fail(kTarget, "%s update_inv_weight ignored the cached %" PRIu64, e, lw.inv_weight);
    // The table's inverses are within one weight of 2^32 / weight.
    const u128 p = u128{inv} * L;
    const u128 d = p > k2Pow32 ? p - k2Pow32 : k2Pow32 - p;
    if (d > L) fail(kTarget, "%s table inv_weight %" PRIu64 " is not 2^32/%" PRIu64, e, inv, L);
  } else if (L == 0) {
    if (inv != kWmultConst) fail(kTarget, "%s inv_weight of load 0 is %" PRIu64, e, inv);
  } else if (L >= kWmultConst) {
    if (inv != 1) fail(kTarget, "%s inv_weight of load %" PRIu64 " is %" PRIu64 ", not 1", e, L, inv);
  } else if (u128{inv} * L > kWmultConst || u128{inv + 1} * L <= kWmultConst) {
    fail(kTarget, "%s inv_weight of load %" PRIu64 " is %" PRIu64 ", not floor(WMULT_CONST / load)", e, L, inv);
  }
}

// __calc_delta's bound. w = scale_load_down(weight) < 2^32,
// L = scale_load_down(lw.weight), inv = __update_inv_weight(lw), N = delta*w,
// R the result:
//  (1) against the fixed-point ideal X = N*inv/2^32, only the normalisation
//      of fact (relative loss < 2^-31) and the final shift (< 1) round, both
//      down: X - X/2^31 - 1 < R <= X;
//  (2) against the exact E = N/L, for 0 < L <= WMULT_CONST: the lazy
//      inv = floor((2^32-1)/L) has 0 < 2^32 - inv*L <= L, so
//      E - N/2^32 - X/2^31 - 1 < R <= E: never above the exact value, and
//      short of it by at most w/2^32 of delta plus 2^-31 of the value plus 1.
//      The table's cached inverses (rounded, some floored) have
//      |inv*L - 2^32| <= L, so R may also exceed E by up to N/2^32.
// Checked while X < 2^64 (beyond, the kernel's 64-bit result wraps too).
// Past WMULT_CONST inv is 1 and R = N/2^32 > E: the kernel's, not checked.
void check_calc_delta(const char* what, uint64_t delta, uint64_t weight, const LoadWeight<uint64_t>& lw,
                      LoadResolution r, uint64_t R) {
  const uint64_t w = scale_load_down(weight, r);
  const uint64_t L = scale_load_down(lw.weight, r);
  const uint64_t inv = update_inv_weight(lw, r);
  const u128 N = u128{delta} * w;
  const u128 X = (N * inv) >> 32;  // N < 2^96, inv < 2^32
  auto bad = [&](const char* bound, const std::string& limit) {
    fail(kTarget,
         "%s %s: delta=%" PRIu64 " weight=%" PRIu64 " (w=%" PRIu64 ") lw.weight=%" PRIu64 " (L=%" PRIu64
         ") inv_weight=%" PRIu64 " -> %" PRIu64 ", %s %s (exact %s/%" PRIu64 ")",
         era_text(r), what, delta, weight, w, lw.weight, L, inv, R, bound, limit.c_str(), to_dec(N).c_str(), L);
  };
  if (X >> 64) return;
  if (R > X) bad("above the fixed-point ideal", to_dec(X));
  if (X - R > (X >> 31) + 1) bad("too far below the fixed-point ideal", to_dec(X));
  if (L == 0 || L > kWmultConst) return;
  const u128 E = N / L;  // floor of the exact value; R <= E exactly when R <= N/L
  const u128 over = lw.inv_weight ? (N >> 32) + 1 : 0;
  if (R > E + over) bad("above the exact value", to_dec(E));
  if (E > R && E - R > (N >> 32) + (X >> 31) + 2) bad("below the error bound of the exact value", to_dec(E));
}

// calc_delta_mine's bound (v3.10; WMULT_CONST 2^32, round-to-nearest shifts).
// tmp = delta * w (w = scale_load_down(weight), taken as 1 when weight <= 1
// in the era's resolution), inv = floor(2^32 / L), E = tmp / L exact. Where
// nothing wraps (tmp and its product with inv below 2^63, so the rounding
// additions do not wrap either: the kernel's domain; beyond it the kernel's
// u64 arithmetic wraps just as the model's does), each rounding is half a
// unit either way and inv is within one of 2^32/L (lazy: floor; cached: the
// table's), so for 0 < L < 2^32:
//   |R - E| <= tmp/2^32 + inv/2^17 + 1
// (inv/2^17: the first rounding of the split path, taken when tmp > 2^32).
void check_calc_delta_mine(const char* what, uint64_t delta, uint64_t weight, const LoadWeight<uint64_t>& lw,
                           LoadResolution r, uint64_t R) {
  const uint64_t w = weight > (uint64_t{1} << r.shift) ? scale_load_down(weight, r) : 1;
  const uint64_t L = scale_load_down(lw.weight, r);
  const uint64_t inv = update_inv_weight(lw, r, k2Pow32);
  const u128 tmp = u128{delta} * w;
  const u128 first = tmp > k2Pow32 ? (tmp + (1u << 15)) >> 16 : tmp;
  if (tmp >> 63 || (first * inv) >> 63 || L == 0 || L >= k2Pow32) return;  // the SRR additions wrap too
  const u128 E = tmp / L;
  const u128 slack = (tmp >> 32) + (inv >> 17) + 2;
  if ((R > E && R - E > slack) || (E > R && E - R > slack))
    fail(kTarget,
         "%s %s: delta=%" PRIu64 " weight=%" PRIu64 " (w=%" PRIu64 ") lw.weight=%" PRIu64 " (L=%" PRIu64
         ") inv_weight=%" PRIu64 " -> %" PRIu64 ", more than %s from the exact %s/%" PRIu64,
         era_text(r), what, delta, weight, w, lw.weight, L, inv, R, to_dec(slack).c_str(), to_dec(tmp).c_str(), L);
}

void fuzz_calc_delta(ByteReader& in, LoadResolution r) {
  const uint64_t delta = decode_delta(in);
  const uint64_t weight = decode_weight(in, r, false);
  const LoadWeight<uint64_t> lw = decode_load_weight(in, r);
  check_inv_weight(lw, r);
  const uint64_t loop = calc_delta_loop(delta, weight, lw, r);
  const uint64_t fls = calc_delta(delta, weight, lw, r);
  if (loop != fls)
    fail(kTarget,
         "%s calc_delta_loop(%" PRIu64 ", %" PRIu64 ", {%" PRIu64 ", %" PRIu64 "}) = %" PRIu64
         " but calc_delta = %" PRIu64,
         era_text(r), delta, weight, lw.weight, lw.inv_weight, loop, fls);
  check_calc_delta("__calc_delta", delta, weight, lw, r, fls);
  if (r.calc_delta_mine)
    check_calc_delta_mine("calc_delta_mine", delta, weight, lw, r, calc_delta_mine(delta, weight, lw, r));
}

// calc_delta_fair: delta unchanged for a nice-0 entity, else delta * NICE_0_LOAD / weight.
void fuzz_calc_delta_fair(ByteReader& in, LoadResolution r) {
  const uint64_t delta = decode_delta(in);
  const LoadWeight<uint64_t> se = decode_load_weight(in, r);
  const uint64_t v = calc_delta_fair(delta, se, r);
  const uint64_t nice0 = nice_0_load<uint64_t>(r);
  if (se.weight == nice0) {
    if (v != delta) fail(kTarget, "%s calc_delta_fair(%" PRIu64 ", nice 0) = %" PRIu64, era_text(r), delta, v);
    return;
  }
  if (r.calc_delta_mine)
    check_calc_delta_mine("calc_delta_fair", delta, nice0, se, r, v);
  else
    check_calc_delta("calc_delta_fair", delta, nice0, se, r, v);
}

SliceTunables<uint64_t> decode_tunables(ByteReader& in) {
  if (in.boolean()) {  // the kernel's defaults scaled for 1..8 CPUs (log scaling)
    const uint64_t factor = 1 + in.range(0, 3);
    return {6'000'000 * factor, 750'000 * factor, 8, 750'000};
  }
  return {in.range(0, UINT32_MAX), in.range(0, UINT32_MAX), in.range(0, UINT32_MAX), 750'000};  // unsigned int sysctls
}

// __sched_period: nr > nr_latency ? nr * min_granularity : latency, with no wrap-around.
uint64_t checked_period(uint64_t nr, const SliceTunables<uint64_t>& t) {
  const uint64_t p = sched_period(nr, t);
  const u128 want = nr > t.nr_latency ? u128{nr} * t.min_granularity : u128{t.latency};
  if (p != want)
    fail(kTarget,
         "__sched_period(%" PRIu64 ") = %" PRIu64 ", want %s (latency=%" PRIu64 " min_granularity=%" PRIu64
         " nr_latency=%" PRIu64 ")",
         nr, p, to_dec(want).c_str(), t.latency, t.min_granularity, t.nr_latency);
  return p;
}

void fuzz_sched_period(ByteReader& in) {
  const SliceTunables<uint64_t> t = decode_tunables(in);
  checked_period(in.range(0, uint64_t{UINT32_MAX} + 1), t);  // nr_running + !on_rq
}

// A hierarchy of depth 1..3: each level's cfs_rq holds the entity (when
// on_rq) and any other load.
void fuzz_sched_slice(ByteReader& in, LoadResolution r) {
  const SliceTunables<uint64_t> t = decode_tunables(in);
  std::array<SliceLevel<uint64_t>, 3> levels{};
  const std::size_t depth = in.range(1, 3);
  for (std::size_t i = 0; i < depth; ++i) {
    SliceLevel<uint64_t>& l = levels[i];
    l.weight = decode_weight(in, r, false);
    l.on_rq = in.boolean() ? 1 : 0;
    l.cfs_rq_weight = (l.on_rq ? l.weight : 0) + decode_weight(in, r, true);
  }
  const std::span<const SliceLevel<uint64_t>> chain(levels.data(), depth);
  const uint64_t nr_running = in.range(levels[0].on_rq, UINT32_MAX);
  const uint64_t h_nr_running = nr_running + in.range(0, UINT32_MAX - nr_running);
  const uint64_t not_on_rq = levels[0].on_rq ? 0 : 1;

  const uint64_t hier = sched_slice(chain, nr_running, h_nr_running, t, SliceFeatures{}, r);
  const uint64_t flat = sched_slice(chain, nr_running, h_nr_running, t, SliceFeatures{.flat_slice = true}, r);
  const uint64_t base = sched_slice(chain, nr_running, h_nr_running, t,
                                    SliceFeatures{.alt_period = true, .base_slice = true}, r);
  const uint64_t period = checked_period(nr_running + not_on_rq, t);
  const uint64_t alt_period = checked_period(h_nr_running + not_on_rq, t);
  // Each level multiplies by w/L <= 1 rounding down (w * inv_weight <= 2^32);
  // calc_delta_mine rounds to nearest and may come out above.
  if (!r.calc_delta_mine && (hier > flat || flat > period))
    fail(kTarget,
         "%s depth %zu: want hierarchical %" PRIu64 " <= flat %" PRIu64 " <= period %" PRIu64 " (nr_running %" PRIu64
         ")",
         era_text(r), depth, hier, flat, period, nr_running);
  if (base < t.min_granularity || (!r.calc_delta_mine && base > max(alt_period, t.min_granularity)))
    fail(kTarget,
         "%s depth %zu: base_slice slice %" PRIu64 " outside [min_granularity %" PRIu64 ", max(period %" PRIu64
         ", min_granularity)]",
         era_text(r), depth, base, t.min_granularity, alt_period);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  ByteReader in(data, size);
  const LoadResolution r = in.pick<LoadResolution>(kResolutions);
  switch (in.range(0, 3)) {
    case 0: fuzz_calc_delta(in, r); break;
    case 1: fuzz_calc_delta_fair(in, r); break;
    case 2: fuzz_sched_period(in); break;
    default: fuzz_sched_slice(in, r); break;
  }
  return 0;
}
