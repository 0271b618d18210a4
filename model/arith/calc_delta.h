// Weighted time scaling: __calc_delta and calc_delta_fair (kernel/sched/fair.c).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "fixed_point.h"

namespace cfsv {

constexpr uint64_t kWmultConst = 0xffffffffu;  // WMULT_CONST = 2^32 - 1
constexpr uint64_t kWmultShift = 32;           // WMULT_SHIFT
constexpr uint64_t kNice0Weight = 1024;        // sched_prio_to_weight[nice 0]

// The kernel's fixed-point arithmetic in one era: the load resolution and
// which weighted-delta function scales deltas.
struct LoadResolution {
  uint64_t shift = 10;           // SCHED_FIXEDPOINT_SHIFT bits carried by weights (0: none)
  bool down_min_2 = true;        // scale_load_down keeps at least 2
  bool calc_delta_mine = false;  // calc_delta_mine instead of __calc_delta
  bool operator==(const LoadResolution&) const = default;
};

// The eras, each named after the release that introduced it (read in the
// kernel/sched/fair.c and sched.h of v3.10, v3.12, v3.13, v4.6, v4.7, v5.6, v5.7):
enum class Era { v3_10, v3_13, v4_7, v5_7 };
struct EraInfo {
  Era era;
  std::string_view name;
  LoadResolution resolution;
  std::string_view what;
};
inline constexpr std::array<EraInfo, 4> kEras = {{
    {Era::v3_10, "v3.10", {0, false, true},
     "calc_delta_mine (WMULT_CONST 2^32, rounded shifts), 32-bit loads (v3.2..v3.12)"},
    {Era::v3_13, "v3.13", {0, false, false}, "__calc_delta, 32-bit loads (v3.13..v4.6)"},
    {Era::v4_7, "v4.7", {10, false, false}, "__calc_delta, 64-bit loads of 10 more fixed-point bits (v4.7..v5.6)"},
    {Era::v5_7, "v5.7", {10, true, false}, "__calc_delta, 64-bit loads, scale_load_down keeps at least 2 (v5.7+)"},
}};
constexpr const EraInfo& era_info(Era e) { return kEras[static_cast<std::size_t>(e)]; }
constexpr LoadResolution resolution_of(Era e) { return era_info(e).resolution; }
constexpr std::string_view era_name(Era e) { return era_info(e).name; }
// The era with this arithmetic, if it is one of the kernel's.
constexpr std::optional<Era> era_of(LoadResolution r) {
  for (const EraInfo& i : kEras)
    if (i.resolution == r) return i.era;
  return std::nullopt;
}
constexpr std::string_view era_name(LoadResolution r) {
  const std::optional<Era> e = era_of(r);
  return e ? era_name(*e) : "custom";
}
constexpr LoadResolution kLoadResolutionV3_10 = resolution_of(Era::v3_10);
constexpr LoadResolution kLoadResolutionV3_13 = resolution_of(Era::v3_13);  // v4.4's
constexpr LoadResolution kLoadResolutionV4_7 = resolution_of(Era::v4_7);
constexpr LoadResolution kLoadResolutionV5_7 = resolution_of(Era::v5_7);    // v5.15's

// struct load_weight: weight in the era's resolution; inv_weight 0 = not yet computed.
template <class V> struct LoadWeight {
  V weight;
  V inv_weight;
};

// scale_load (kernel/sched/sched.h, all eras)
template <class V> V scale_load(V w, LoadResolution r) { return w << V(r.shift); }

// scale_load_down (kernel/sched/sched.h; see kEras for the eras)
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
  return select_lazy(
      lw.inv_weight != V(0), [&] { return lw.inv_weight; },
      [&] {
        const V w = scale_load_down(lw.weight, r);
        return select(w >= V(wmult_const), V(1),
                      select(w == V(0), V(wmult_const), V(wmult_const) / select(w == V(0), V(1), w)));
      });
}

// The inverse the era's weighted delta divides by: __update_inv_weight's,
// or calc_delta_mine's, whose WMULT_CONST is 2^32 (64-bit, v3.10..v3.12).
template <class V> V era_inv_weight(const LoadWeight<V>& lw, LoadResolution r) {
  return update_inv_weight(lw, r, r.calc_delta_mine ? uint64_t{1} << 32 : kWmultConst);
}

namespace detail {
// The two ways __calc_delta brings fact below 2^32, lowering shift by the
// bits it drops. The loop form: `while (fact >> 32) { fact >>= 1; shift--; }`
// unrolled to its 32-round bound.
template <class V> void normalise_loop(V& fact, V& shift) {
  for (int i = 0; i < 32; ++i) {
    const auto high = (fact >> V(32)) != V(0);
    fact = select(high, fact >> V(1), fact);
    shift = shift - select(high, V(1), V(0));
  }
}
// The fls form: `fs = fls(fact >> 32); shift -= fs; fact >>= fs;`.
template <class V> void normalise_fls(V& fact, V& shift) {
  const V fs = fls32(fact >> V(32));
  shift = shift - fs;
  fact = fact >> fs;
}

// The shared body of both __calc_delta forms, normalising with `normalise`.
template <class V, void (*normalise)(V&, V&)>
V calc_delta_with(V delta_exec, V weight, const LoadWeight<V>& lw, LoadResolution r) {
  V fact = scale_load_down(weight, r);
  V shift(kWmultShift);
  const V inv = update_inv_weight(lw, r);
  normalise(fact, shift);
  fact = mul_u32_u32(fact, inv);
  normalise(fact, shift);
  return mul_u64_u32_shr(delta_exec, fact, shift);
}
}  // namespace detail

// __calc_delta, loop form (kernel/sched/fair.c v3.13..v5.10): delta * weight / lw.weight.
template <class V> V calc_delta_loop(V delta_exec, V weight, const LoadWeight<V>& lw, LoadResolution r) {
  return detail::calc_delta_with<V, detail::normalise_loop<V>>(delta_exec, weight, lw, r);
}

// __calc_delta, fls form (kernel/sched/fair.c v5.11..v6.x, unverified first release).
// Gives the same result as calc_delta_loop for every input (tested and proven).
template <class V> V calc_delta(V delta_exec, V weight, const LoadWeight<V>& lw, LoadResolution r) {
  return detail::calc_delta_with<V, detail::normalise_fls<V>>(delta_exec, weight, lw, r);
}

// calc_delta_mine (kernel/sched/fair.c v3.10..v3.12, 64-bit): delta * weight /
// lw.weight with WMULT_CONST = 2^32 and round-to-nearest shifts (SRR), the
// 64-bit product split in two 16-bit shifts when it would overflow.
template <class V> V calc_delta_mine(V delta_exec, V weight, const LoadWeight<V>& lw, LoadResolution r) {
  constexpr uint64_t kWmultConst64 = uint64_t{1} << 32;
  constexpr uint64_t kLongMax = ~uint64_t{0} >> 1;
  const auto srr = [](V x, uint64_t y) { return (x + V(uint64_t{1} << (y - 1))) >> V(y); };
  const V tmp = select(weight > V(uint64_t{1} << r.shift), delta_exec * scale_load_down(weight, r), delta_exec);
  const V inv = era_inv_weight(lw, r);
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
  return select_lazy(
      se_load.weight != nice0, [&] { return calc_delta_for_era(delta, nice0, se_load, r); }, [&] { return delta; });
}

}  // namespace cfsv
