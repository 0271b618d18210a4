// Group shares from PELT: the task group's load sum, kept per cfs_rq by a
// differential update, and the group entity's weight computed from it
// (kernel/sched/fair.c). The instantaneous form lives in fair_math.h.
#pragma once
#include <cstdint>

#include "calc_delta.h"
#include "fair_math.h"
#include "fixed_point.h"

namespace cfsv {

// The differential update of a task group's sum from one cfs_rq, the shape
// of update_tg_load_avg and of v3.10's __update_cfs_rq_tg_load_contrib and
// __update_tg_runnable_avg: when forced or when |value - contrib| >
// contrib / 2^shift, add value - contrib to the group's sum and remember value
// as contrib. Returns 1 when it updated, else 0. Values are non-negative, so
// the kernel's signed difference is the wrapping one here.
template <class V> V update_tg_contrib(V value, V& contrib, V& tg_sum, V force, uint64_t shift) {
  const V diff = select(value >= contrib, value - contrib, contrib - value);
  const auto update = force != V(0) || diff > (contrib >> V(shift));
  tg_sum = select(update, tg_sum + value - contrib, tg_sum);
  contrib = select(update, value, contrib);
  return select(update, V(1), V(0));
}

// update_tg_load_avg (kernel/sched/fair.c v4.4 with `force`; v4.5+ skip the
// root task group, seed 000; v5.15 and v6.1 have no `force`, pass 0):
// cfs_rq->avg.load_avg into tg->load_avg when it moved by more than
// tg_load_avg_contrib / 64. skip_root: the caller's "this is the root task
// group and root_tg_load_avg_skip is on".
template <class V> V update_tg_load_avg(V load_avg, V& tg_load_avg_contrib, V& tg_load_avg, V force, V skip_root) {
  V contrib = tg_load_avg_contrib, sum = tg_load_avg;
  const V updated = update_tg_contrib(load_avg, contrib, sum, force, 6);
  const auto skip = skip_root != V(0);
  tg_load_avg_contrib = select(skip, tg_load_avg_contrib, contrib);
  tg_load_avg = select(skip, tg_load_avg, sum);
  return select(skip, V(0), updated);
}

// calc_group_shares (kernel/sched/fair.c v4.15+; read in v5.15, v6.1): the
// group entity's weight on this CPU,
//   tg_shares * load / (tg->load_avg - tg_load_avg_contrib + load),
//   load = max(scale_load_down(cfs_rq->load.weight), cfs_rq->avg.load_avg),
// clamped to [MIN_SHARES, tg_shares]. Needs tg_load_avg >= contrib (tg->load_avg
// includes this cfs_rq's contrib).
template <class V>
V calc_group_shares(V tg_shares, V load_weight, V load_avg, V tg_load_avg, V tg_load_avg_contrib, LoadResolution r) {
  const V load = max(scale_load_down(load_weight, r), load_avg);
  return calc_group_shares_instant(tg_shares, load, tg_load_avg - tg_load_avg_contrib + load);
}

// calc_cfs_shares (kernel/sched/fair.c v3.10 and v4.4, with calc_tg_weight):
//   tg->shares * load.weight / (tg->load_avg - contrib + load.weight),
// clamped to [MIN_SHARES, tg->shares], cfs_rq->load.weight unscaled. contrib is
// tg_load_contrib in v3.10 (runnable + blocked load), tg_load_avg_contrib in
// v4.4 (the PELT load_avg); tg_load_avg >= contrib as above.
template <class V> V calc_cfs_shares(V tg_shares, V load_weight, V tg_load_avg, V contrib) {
  return calc_group_shares_instant(tg_shares, load_weight, tg_load_avg - contrib + load_weight);
}

}  // namespace cfsv
