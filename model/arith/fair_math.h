// Pure CFS arithmetic the simulator needs beyond calc_delta.h and slice.h:
// wrap-safe vruntime comparisons, wakeup granularity, the instantaneous group
// share and sleeper placement. Templates over the value type V (uint64_t in the
// simulator, a symbolic bit-vector in proofs/), written without branching on
// values so proofs/ can reuse them.
#pragma once
#include <cstdint>

#include "calc_delta.h"
#include "fixed_point.h"

namespace cfsv {

// MIN_SHARES and MAX_SHARES (kernel/sched/sched.h); calc_group_shares clamps
// to the unscaled MIN_SHARES, sched_group_set_shares to scale_load() of both.
constexpr uint64_t kFairMinShares = 2;
constexpr uint64_t kFairMaxShares = 1u << 18;

// init_cfs_rq (kernel/sched/fair.c v3.10..v6.5): min_vruntime starts at
// (u64)(-(1LL << 20)) so that wrap-around is exercised right away.
constexpr uint64_t kInitMinVruntime = static_cast<uint64_t>(-(int64_t{1} << 20));

// entity_before (kernel/sched/fair.c v3.10..v6.5): (s64)(a - b) < 0.
inline bool vruntime_before(uint64_t a, uint64_t b) { return static_cast<int64_t>(a - b) < 0; }

// max_vruntime (kernel/sched/fair.c v3.10..v6.5): the later of two vruntimes, wrap-safe.
template <class V> V max_vruntime(V max_v, V v) {
  return select(static_cast<int64_t>(v - max_v) > 0, v, max_v);
}
// min_vruntime (kernel/sched/fair.c v3.10..v6.5): the earlier of two vruntimes, wrap-safe.
template <class V> V min_vruntime(V min_v, V v) {
  return select(static_cast<int64_t>(v - min_v) < 0, v, min_v);
}

// wakeup_gran (kernel/sched/fair.c v3.10..v6.5): sysctl_sched_wakeup_granularity
// in the woken entity's virtual time.
template <class V> V wakeup_gran(V wakeup_granularity, const LoadWeight<V>& se_load, LoadResolution r) {
  return calc_delta_fair(wakeup_granularity, se_load, r);
}

// calc_cfs_shares (kernel/sched/fair.c v3.10, with load.weight standing in for
// tg_load_contrib) / calc_group_shares (v4.15+, with scale_load_down(load.weight)
// standing in for load_avg): the INSTANTANEOUS group entity weight
//   tg_shares * this CPU's group load / the group's load over all CPUs,
// clamped to [MIN_SHARES, tg_shares]. `load` and `tg_weight` are in
// scale_load_down units, tg_shares in the era's resolution. The PELT issue
// replaces this one function with the PELT-based calc_group_shares.
template <class V> V calc_group_shares_instant(V tg_shares, V load, V tg_weight) {
  const V shares = select(tg_weight != V(0), (tg_shares * load) / select(tg_weight == V(0), V(1), tg_weight),
                          tg_shares * load);
  return min(max(shares, V(kFairMinShares)), tg_shares);
}

// place_entity's sleeper credit (kernel/sched/fair.c v3.10..v6.2): latency,
// halved with GENTLE_FAIR_SLEEPERS.
template <class V> V sleeper_thresh(V latency, bool gentle) { return gentle ? latency >> V(1) : latency; }

}  // namespace cfsv
