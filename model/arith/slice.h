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
};

// One step of for_each_sched_entity: the entity and the cfs_rq it is on.
template <class V> struct SliceLevel {
  V weight;         // se->load.weight
  V cfs_rq_weight;  // cfs_rq_of(se)->load.weight
  V on_rq;          // se->on_rq, 0 or 1
};

// Which sched_slice: hierarchical is v3.x..v5.12 (no flags); flat_slice is
// seed 003 (first level only); alt_period + base_slice is v5.13..v6.5.
struct SliceFeatures {
  bool alt_period = false;
  bool base_slice = false;
  bool flat_slice = false;
};

// __sched_period (kernel/sched/fair.c v3.10..v6.5)
template <class V> V sched_period(V nr_running, const SliceTunables<V>& t) {
  return select(nr_running > t.nr_latency, nr_running * t.min_granularity, t.latency);
}

// sched_slice (kernel/sched/fair.c v3.10..v5.12, calc_delta_mine before v3.13; v5.13..v6.5 with ALT_PERIOD
// and BASE_SLICE; seed 003). v5.16's smaller floor for a SCHED_IDLE entity is the
// live model's (model/fair.cpp sched_slice), not the claims'.
// chain[0] is the task's entity, chain.back() the top-level one; nr_running is
// the task's cfs_rq's, rq_h_nr_running the root cfs_rq's h_nr_running.
template <class V>
V sched_slice(std::span<const SliceLevel<V>> chain, V nr_running, V rq_h_nr_running,
              const SliceTunables<V>& t, SliceFeatures f, LoadResolution r) {
  const V nr = f.alt_period ? rq_h_nr_running : nr_running;
  V slice = sched_period(nr + select(chain[0].on_rq != V(0), V(0), V(1)), t);
  const std::size_t levels = f.flat_slice ? 1 : chain.size();
  for (std::size_t i = 0; i < levels; ++i) {
    const SliceLevel<V>& l = chain[i];
    const LoadWeight<V> load{l.cfs_rq_weight + select(l.on_rq != V(0), V(0), l.weight), V(0)};
    slice = calc_delta_for_era(slice, l.weight, load, r);
  }
  if (f.base_slice) slice = max(slice, t.min_granularity);
  return slice;
}

}  // namespace cfsv
