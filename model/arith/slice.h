// Time slices: __sched_period and sched_slice (kernel/sched/fair.c) in the
// three variants the suite compares.
#pragma once
#include <span>

#include "calc_delta.h"

namespace cfsv {

template <class V> struct SliceTunables {
  V latency;          // sysctl_sched_latency
  V min_granularity;  // sysctl_sched_min_granularity
  V nr_latency;       // sched_nr_latency
  V idle_min_granularity;  // sysctl_sched_idle_min_granularity (v5.16+, never scaled)
};

// What v5.16's floor reads besides the tunables: se_is_idle(se) of the entity
// the slice is for, and its cfs_rq's idle_nr_running.
template <class V> struct SliceIdle {
  V se_idle = V(0);          // 0 or 1
  V idle_nr_running = V(0);  // entities queued on the cfs_rq that are se_is_idle
};

// One step of for_each_sched_entity: the entity and the cfs_rq it is on.
template <class V> struct SliceLevel {
  V weight;         // se->load.weight
  V cfs_rq_weight;  // cfs_rq_of(se)->load.weight
  V on_rq;          // se->on_rq, 0 or 1
};

// Which sched_slice: hierarchical is v3.x..v5.12 (no flags); flat_slice is
// seed 003 (first level only); alt_period + base_slice is v5.13..v6.5;
// idle_floor (with base_slice) v5.16..v6.5.
struct SliceFeatures {
  bool alt_period = false;
  bool base_slice = false;
  bool flat_slice = false;
  bool idle_floor = false;  // feature idle_min_granularity
};

// __sched_period (kernel/sched/fair.c v3.10..v6.5)
template <class V> V sched_period(V nr_running, const SliceTunables<V>& t) {
  return select(nr_running > t.nr_latency, nr_running * t.min_granularity, t.latency);
}

constexpr SliceFeatures without_idle_floor(SliceFeatures f) {
  f.idle_floor = false;
  return f;
}

// BASE_SLICE's floor (kernel/sched/fair.c sched_slice v5.13..v6.5): min_granularity;
// from v5.16 (idle_floor) idle_min_granularity for an idle entity on a
// cfs_rq whose queued entities are not all idle (!sched_idle_cfs_rq).
template <class V> V slice_floor(V nr_running, const SliceTunables<V>& t, SliceFeatures f, const SliceIdle<V>& idle) {
  if (!f.idle_floor) return t.min_granularity;
  const auto all_idle = nr_running != V(0) && nr_running == idle.idle_nr_running;  // sched_idle_cfs_rq
  return select(idle.se_idle != V(0) && !all_idle, t.idle_min_granularity, t.min_granularity);
}

// sched_slice (kernel/sched/fair.c v3.10..v5.12, calc_delta_mine before v3.13; v5.13..v6.5 with ALT_PERIOD
// and BASE_SLICE, v5.16..v6.5 with the idle floor; seed 003).
// chain[0] is the entity's, chain.back() the top-level one; nr_running is
// the entity's cfs_rq's, rq_h_nr_running the root cfs_rq's h_nr_running.
template <class V>
V sched_slice(std::span<const SliceLevel<V>> chain, V nr_running, V rq_h_nr_running,
              const SliceTunables<V>& t, SliceFeatures f, LoadResolution r, const SliceIdle<V>& idle = {}) {
  const V nr = f.alt_period ? rq_h_nr_running : nr_running;
  V slice = sched_period(nr + select(chain[0].on_rq != V(0), V(0), V(1)), t);
  const std::size_t levels = f.flat_slice ? 1 : chain.size();
  for (std::size_t i = 0; i < levels; ++i) {
    const SliceLevel<V>& l = chain[i];
    const LoadWeight<V> load{l.cfs_rq_weight + select(l.on_rq != V(0), V(0), l.weight), V(0)};
    slice = calc_delta_for_era(slice, l.weight, load, r);
  }
  if (f.base_slice) slice = max(slice, slice_floor(nr_running, t, f, idle));
  return slice;
}

}  // namespace cfsv
