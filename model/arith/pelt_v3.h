// Load tracking of the v3.10 profile: the 3.8-era per-entity runnable
// averages (kernel/sched/fair.c, read in v3.10.105). An entity tracks the
// decayed time it was runnable over the decayed time it existed; its
// load_avg_contrib is that ratio times its weight (a task) or its cfs_rq's
// share of the group (a group entity). Units: scale_load is the identity.
#pragma once
#include <cstdint>

#include "calc_delta.h"
#include "fixed_point.h"
#include "pelt_shares.h"
#include "pelt_tables.h"

namespace cfsv::pelt_v3_10 {

constexpr uint64_t kNice0Shift = 10;  // NICE_0_SHIFT = SCHED_LOAD_SHIFT

// struct sched_avg (include/linux/sched.h v3.10), decay_count left out.
template <class V> struct SchedAvg {
  V runnable_avg_sum{0};      // u32
  V runnable_avg_period{0};   // u32
  V last_runnable_update{0};  // u64, ns
  V load_avg_contrib{0};
  bool operator==(const SchedAvg&) const = default;
};

// The group-side fields a group entity's contribution reads and updates:
// struct task_group's load_avg and runnable_avg with its shares, and the
// group cfs_rq's tg_load_contrib and tg_runnable_contrib (v3.10).
template <class V> struct TaskGroupAvg {
  V load_avg{0};      // atomic64_t: \Sum tg_load_contrib
  V runnable_avg{0};  // atomic_t: \Sum tg_runnable_contrib
  V shares{0};
};
template <class V> struct GroupCfsRqAvg {
  V tg_load_contrib{0};
  V tg_runnable_contrib{0};
};

// decay_load (kernel/sched/fair.c v3.10): val * y^n rounded down, val for
// n == 0; the product is a plain u64 multiply, which wraps for val >= 2^32.
template <class V> V decay_load(V val, V n) {
  const V decayed = detail::decay_load_with(val, n, [](V a, V inv) { return (a * inv) >> V(32); });
  return select(n == V(0), val, decayed);
}

// __compute_runnable_contrib (kernel/sched/fair.c v3.10): 1024 (y + ... + y^n).
template <class V> V compute_runnable_contrib(V n) {
  return detail::compute_runnable_contrib_loop(n, [](V v, V k) { return decay_load(v, k); });
}

// __update_entity_runnable_avg (kernel/sched/fair.c v3.10): returns 1 when a
// period boundary was crossed, else 0. The position in the current period is
// runnable_avg_period % 1024; a boundary decays both sums by periods + 1.
template <class V> V update_entity_runnable_avg(V now, SchedAvg<V>& sa, V runnable) {
  const V delta_ns = now - sa.last_runnable_update;
  const auto backwards = negative_s64(delta_ns);
  V delta = delta_ns >> V(kPeltUnitShift);
  const auto skip = backwards || delta == V(0);
  const auto is_runnable = runnable != V(0);
  V sum = sa.runnable_avg_sum, period = sa.runnable_avg_period;
  const auto accrue = [&](V d) {
    sum = u32(sum + select(is_runnable, d, V(0)));
    period = u32(period + d);
  };

  const V delta_w0 = period & V(kPeltPeriodUs - 1);
  const auto crossed = delta + delta_w0 >= V(kPeltPeriodUs);
  {
    const V sum0 = sum, period0 = period;
    const V delta_w = V(kPeltPeriodUs) - delta_w0;
    accrue(delta_w);
    const V rest = delta - delta_w;
    const V periods = rest >> V(10);  // / 1024
    sum = u32(decay_load(sum, periods + V(1)));
    period = u32(decay_load(period, periods + V(1)));
    accrue(u32(compute_runnable_contrib(periods)));
    sum = select(crossed, sum, sum0);
    period = select(crossed, period, period0);
    delta = select(crossed, rest & V(kPeltPeriodUs - 1), delta);
  }
  accrue(delta);

  sa.runnable_avg_sum = select(skip, sa.runnable_avg_sum, sum);
  sa.runnable_avg_period = select(skip, sa.runnable_avg_period, period);
  sa.last_runnable_update = select(skip && !backwards, sa.last_runnable_update, now);
  return select(skip || !crossed, V(0), V(1));
}

// __update_task_entity_contrib (kernel/sched/fair.c v3.10):
// runnable_avg_sum * weight / (runnable_avg_period + 1), in u32. Always
// runnable, that is weight - ceil(weight / (period + 1)): one short of the
// weight for weights up to period + 1.
template <class V> V task_entity_contrib(const SchedAvg<V>& sa, V weight, LoadResolution r) {
  const V contrib = u32(sa.runnable_avg_sum * scale_load_down(weight, r));
  return scale_load(contrib / u32(sa.runnable_avg_period + V(1)), r);
}

// __update_tg_runnable_avg (kernel/sched/fair.c v3.10): the fraction of a CPU
// the cfs_rq used, runnable_avg_sum << 10 / (runnable_avg_period + 1), into
// tg->runnable_avg when it moved by more than 1/64.
template <class V> V update_tg_runnable_avg(const SchedAvg<V>& sa, GroupCfsRqAvg<V>& cfs_rq, TaskGroupAvg<V>& tg) {
  const V fraction = u32(sa.runnable_avg_sum << V(kNice0Shift)) / u32(sa.runnable_avg_period + V(1));
  return update_tg_contrib(fraction, cfs_rq.tg_runnable_contrib, tg.runnable_avg, V(0), 6);
}

// __update_group_entity_contrib (kernel/sched/fair.c v3.10): the cfs_rq's
// share of the group, tg_load_contrib * shares / (tg->load_avg + 1), scaled by
// tg->runnable_avg / 1024 when the group uses less than one CPU.
template <class V> V group_entity_contrib(const GroupCfsRqAvg<V>& cfs_rq, const TaskGroupAvg<V>& tg) {
  const V contrib = (cfs_rq.tg_load_contrib * tg.shares) / (tg.load_avg + V(1));
  const V nice0_load(uint64_t{1} << kNice0Shift);
  return select(tg.runnable_avg < nice0_load, (contrib * tg.runnable_avg) >> V(kNice0Shift), contrib);
}

// __update_entity_load_avg_contrib (kernel/sched/fair.c v3.10), a task:
// sets load_avg_contrib, returns its change (new - old, wrapping).
template <class V> V update_entity_load_avg_contrib(SchedAvg<V>& sa, V weight, LoadResolution r) {
  const V old = sa.load_avg_contrib;
  sa.load_avg_contrib = task_entity_contrib(sa, weight, r);
  return sa.load_avg_contrib - old;
}

// __update_entity_load_avg_contrib (kernel/sched/fair.c v3.10), a group
// entity: __update_tg_runnable_avg from the entity's own sums, then
// __update_group_entity_contrib.
template <class V>
V update_entity_load_avg_contrib(SchedAvg<V>& sa, GroupCfsRqAvg<V>& my_q, TaskGroupAvg<V>& tg) {
  const V old = sa.load_avg_contrib;
  update_tg_runnable_avg(sa, my_q, tg);
  sa.load_avg_contrib = group_entity_contrib(my_q, tg);
  return sa.load_avg_contrib - old;
}

// __update_cfs_rq_tg_load_contrib (kernel/sched/fair.c v3.10): the cfs_rq's
// runnable + blocked load into tg->load_avg when forced or when it moved by
// more than 1/8.
template <class V>
V update_cfs_rq_tg_load_contrib(V runnable_load_avg, V blocked_load_avg, GroupCfsRqAvg<V>& cfs_rq,
                                TaskGroupAvg<V>& tg, V force) {
  return update_tg_contrib(runnable_load_avg + blocked_load_avg, cfs_rq.tg_load_contrib, tg.load_avg, force, 3);
}

}  // namespace cfsv::pelt_v3_10
