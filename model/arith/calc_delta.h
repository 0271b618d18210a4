// Weighted time scaling: __calc_delta and calc_delta_fair (kernel/sched/fair.c).
#pragma once
#include <cstdint>

#include "fixed_point.h"

namespace cfsv {

constexpr uint64_t kWmultConst = 0xffffffffu;  // WMULT_CONST = 2^32 - 1
constexpr uint64_t kWmultShift = 32;           // WMULT_SHIFT
constexpr uint64_t kNice0Weight = 1024;        // sched_prio_to_weight[nice 0]

// The kernel's fixed-point arithmetic for an era.
// v4.7+ on 64-bit: weights carry SCHED_FIXEDPOINT_SHIFT (10) extra bits.
// v5.7+ (unverified release): scale_load_down(w) = w ? max(2, w >> 10) : 0.
// v3.2..v3.12: deltas are scaled by calc_delta_mine (rounding), not __calc_delta.
struct LoadResolution {
  uint64_t shift = 10;
  bool down_min_2 = true;
  bool calc_delta_mine = false;
  bool operator==(const LoadResolution&) const = default;
};
constexpr LoadResolution kLoadResolutionV3_10 = {0, false, true};  // v3.10
constexpr LoadResolution kLoadResolutionV3 = {0, false, false};    // v3.13..v4.6 (v4.4)
constexpr LoadResolution kLoadResolutionV5 = {10, true, false};    // v5.15

// struct load_weight: weight in the era's resolution; inv_weight 0 = not yet computed.
template <class V> struct LoadWeight {
  V weight;
  V inv_weight;
};

// scale_load (kernel/sched/sched.h, all eras)
template <class V> V scale_load(V w, LoadResolution r) { return w << V(r.shift); }

// scale_load_down (kernel/sched/sched.h; see LoadResolution for the eras)
template <class V> V scale_load_down(V w, LoadResolution r) {
  const V down = w >> V(r.shift);
  if (!r.down_min_2) return down;
  return select(w == V(0), V(0), max(V(2), down));
}

// NICE_0_LOAD (kernel/sched/sched.h)
template <class V> V nice_0_load(LoadResolution r) { return scale_load(V(kNice0Weight), r); }

// __update_inv_weight (kernel/sched/fair.c, v3.13..v6.5; inline in
// calc_delta_mine before, with wmult_const 2^32): the inverse weight, computed
// lazily as wmult_const / scale_load_down(weight) when not cached.
template <class V>
V update_inv_weight(const LoadWeight<V>& lw, LoadResolution r, uint64_t wmult_const = kWmultConst) {
  const V w = scale_load_down(lw.weight, r);
  const V lazy = select(w >= V(wmult_const), V(1),
                        select(w == V(0), V(wmult_const), V(wmult_const) / select(w == V(0), V(1), w)));
  return select(lw.inv_weight != V(0), lw.inv_weight, lazy);
}

namespace detail {
// The shared body of both __calc_delta forms; `normalise` brings fact below
// 2^32, lowering shift by the bits it drops.
template <class V, class Normalise>
V calc_delta_with(V delta_exec, V weight, const LoadWeight<V>& lw, LoadResolution r, Normalise normalise) {
  V fact = scale_load_down(weight, r);
  V shift(kWmultShift);
  const V inv = update_inv_weight(lw, r);
  normalise(fact, shift);
  fact = mul_u32_u32(fact, inv);
  normalise(fact, shift);
  return mul_u64_u32_shr(delta_exec, fact, shift);
}
}  // namespace detail

// __calc_delta, loop form (kernel/sched/fair.c v3.10..v5.10): delta * weight / lw.weight.
// `while (fact >> 32) { fact >>= 1; shift--; }` unrolled to its 32-round bound.
template <class V> V calc_delta_loop(V delta_exec, V weight, const LoadWeight<V>& lw, LoadResolution r) {
  return detail::calc_delta_with(delta_exec, weight, lw, r, [](V& fact, V& shift) {
    for (int i = 0; i < 32; ++i) {
      const auto high = (fact >> V(32)) != V(0);
      fact = select(high, fact >> V(1), fact);
      shift = select(high, shift - V(1), shift);
    }
  });
}

// __calc_delta, fls form (kernel/sched/fair.c v5.11..v6.x, unverified first release).
// Gives the same result as calc_delta_loop for every input (tested and proven).
template <class V> V calc_delta(V delta_exec, V weight, const LoadWeight<V>& lw, LoadResolution r) {
  return detail::calc_delta_with(delta_exec, weight, lw, r, [](V& fact, V& shift) {
    const V fs = fls32(fact >> V(32));
    shift = shift - fs;
    fact = fact >> fs;
  });
}

// calc_delta_mine (kernel/sched/core.c v3.2..v3.12, 64-bit): delta * weight /
// lw.weight with WMULT_CONST = 2^32 and round-to-nearest shifts (SRR), the
// 64-bit product split in two 16-bit shifts when it would overflow.
template <class V> V calc_delta_mine(V delta_exec, V weight, const LoadWeight<V>& lw, LoadResolution r) {
  constexpr uint64_t kWmultConst64 = uint64_t{1} << 32;
  constexpr uint64_t kLongMax = ~uint64_t{0} >> 1;
  const auto srr = [](V x, uint64_t y) { return (x + V(uint64_t{1} << (y - 1))) >> V(y); };
  const V tmp = select(weight > V(uint64_t{1} << r.shift), delta_exec * scale_load_down(weight, r), delta_exec);
  const V inv = update_inv_weight(lw, r, kWmultConst64);
  const V scaled = select(tmp > V(kWmultConst64), srr(srr(tmp, 16) * inv, 16), srr(tmp * inv, 32));
  return min(scaled, V(kLongMax));
}

// The era's weighted delta: calc_delta_mine up to v3.12, __calc_delta after.
template <class V> V calc_delta_for_era(V delta_exec, V weight, const LoadWeight<V>& lw, LoadResolution r) {
  return r.calc_delta_mine ? calc_delta_mine(delta_exec, weight, lw, r) : calc_delta(delta_exec, weight, lw, r);
}

// calc_delta_fair (kernel/sched/fair.c v3.10..v6.5): delta scaled to virtual
// time; returned unchanged for a nice-0 weight.
template <class V> V calc_delta_fair(V delta, const LoadWeight<V>& se_load, LoadResolution r) {
  const V nice0 = nice_0_load<V>(r);
  return select(se_load.weight != nice0, calc_delta_for_era(delta, nice0, se_load, r), delta);
}

}  // namespace cfsv
