// PELT of the v4.4 profile: the v4.3 rewrite (kernel/sched/fair.c, read in
// v4.4.121; v4.9.115 differs only in __compute_runnable_contrib). Averages
// divide by LOAD_AVG_MAX; a boundary decays the sums by periods + 1.
// scale_freq and scale_cpu are parameters; the model runs them at full
// capacity (SCHED_CAPACITY_SCALE), where cap_scale is the identity.
#pragma once
#include <cstdint>

#include "fixed_point.h"
#include "pelt_tables.h"

namespace cfsv::pelt_v4_4 {

// struct sched_avg (include/linux/sched.h v4.4).
template <class V> struct SchedAvg {
  V last_update_time{0};  // u64, ns
  V load_sum{0};          // u64
  V util_sum{0};          // u32
  V period_contrib{0};    // u32, < 1024
  V load_avg{0};
  V util_avg{0};
  bool operator==(const SchedAvg&) const = default;
};

// A cfs_rq's runnable_load_sum and runnable_load_avg (struct cfs_rq v4.4),
// which __update_load_avg advances with the cfs_rq's own sched_avg.
template <class V> struct RunnableLoad {
  V sum{0};
  V avg{0};
  bool operator==(const RunnableLoad&) const = default;
};

// Every field: c ? a : b.
template <class V, class C> SchedAvg<V> select_each(C c, const SchedAvg<V>& a, const SchedAvg<V>& b) {
  return {select(c, a.last_update_time, b.last_update_time), select(c, a.load_sum, b.load_sum),
          select(c, a.util_sum, b.util_sum),                 select(c, a.period_contrib, b.period_contrib),
          select(c, a.load_avg, b.load_avg),                 select(c, a.util_avg, b.util_avg)};
}

// decay_load (kernel/sched/fair.c v4.4, v4.9): val * y^n rounded down, val itself for n == 0.
template <class V> V decay_load(V val, V n) {
  const V decayed = detail::decay_load_with(val, n, [](V a, V inv) { return mul_u64_u32_shr(a, inv, V(32)); });
  return select(n == V(0), val, decayed);
}

// __compute_runnable_contrib (kernel/sched/fair.c v4.4): 1024 (y + ... + y^n).
template <class V> V compute_runnable_contrib(V n) {
  return detail::compute_runnable_contrib_loop(n, [](V v, V k) { return decay_load(v, k); });
}

// __compute_runnable_contrib (kernel/sched/fair.c v4.9; not in v4.4): the
// loop replaced by __accumulated_sum_N32. Not equal to the loop form: at
// n = 64 it gives 35056 where the loop gives 35055.
template <class V> V compute_runnable_contrib_n32(V n) {
  const PeltTables& t = pelt_tables();
  const V r = n & V(kLoadAvgPeriod - 1);
  const V tabled = decay_load(table_at(t.accumulated_sum_N32, min(n >> V(5), V(11))), r) + table_at(t.yN_sum, r);
  return select(n <= V(kLoadAvgPeriod), table_at(t.yN_sum, min(n, V(kLoadAvgPeriod))),
                select(n >= V(t.load_avg_max_n), V(t.load_avg_max), u32(tabled)));
}

// cap_scale (kernel/sched/fair.c v4.4; kernel/sched/sched.h v5.15, as
// update_rq_clock_pelt uses it): v * s >> SCHED_CAPACITY_SHIFT.
template <class V> V cap_scale(V v, V s) { return (v * s) >> V(kSchedCapacityShift); }

// __update_load_avg (kernel/sched/fair.c v4.4, v4.9): returns 1 when a period
// boundary was crossed (the averages were then recomputed), else 0. weight is
// se->on_rq * scale_load_down(se->load.weight) for an entity and
// scale_load_down(cfs_rq->load.weight) for a cfs_rq, which passes its
// runnable_load as `cfs_rq`. Time going backwards, or any update, sets
// last_update_time = now: the sub-1024 ns remainder is dropped.
template <class V>
V update_load_avg(V now, SchedAvg<V>& sa, V weight, V running, RunnableLoad<V>* cfs_rq,
                  V scale_freq = V(kSchedCapacityScale), V scale_cpu = V(kSchedCapacityScale)) {
  const PeltTables& t = pelt_tables();
  const V delta_ns = now - sa.last_update_time;
  const auto backwards = negative_s64(delta_ns);
  V delta = delta_ns >> V(kPeltUnitShift);
  const auto skip = backwards || delta == V(0);
  const auto is_running = running != V(0);
  SchedAvg<V> s = sa;
  RunnableLoad<V> rl = cfs_rq ? *cfs_rq : RunnableLoad<V>{};
  // Adds `scaled` units of time to the sums.
  const auto accrue = [&](V scaled, V& load_sum, V& util_sum, V& runnable_sum) {
    load_sum = load_sum + weight * scaled;
    runnable_sum = runnable_sum + weight * scaled;
    util_sum = u32(util_sum + select(is_running, scaled * scale_cpu, V(0)));
  };

  // Crossing a boundary: complete the current period, decay by periods + 1,
  // add the full periods.
  const auto crossed = delta + s.period_contrib >= V(kPeltPeriodUs);
  {
    V load_sum = s.load_sum, util_sum = s.util_sum, runnable_sum = rl.sum;
    const V delta_w = u32(V(kPeltPeriodUs) - s.period_contrib);
    accrue(u32(cap_scale(delta_w, scale_freq)), load_sum, util_sum, runnable_sum);
    const V rest = delta - delta_w;
    const V periods = rest >> V(10);
    load_sum = decay_load(load_sum, periods + V(1));
    runnable_sum = decay_load(runnable_sum, periods + V(1));
    util_sum = u32(decay_load(util_sum, periods + V(1)));
    accrue(u32(cap_scale(compute_runnable_contrib(periods), scale_freq)), load_sum, util_sum, runnable_sum);
    s.load_sum = select(crossed, load_sum, s.load_sum);
    s.util_sum = select(crossed, util_sum, s.util_sum);
    rl.sum = select(crossed, runnable_sum, rl.sum);
    s.period_contrib = select(crossed, V(0), s.period_contrib);
    delta = select(crossed, rest & V(kPeltPeriodUs - 1), delta);
  }
  // The remainder accrues against the new current period.
  accrue(cap_scale(delta, scale_freq), s.load_sum, s.util_sum, rl.sum);
  s.period_contrib = u32(s.period_contrib + delta);
  s.load_avg = select(crossed, s.load_sum / V(t.load_avg_max), s.load_avg);
  s.util_avg = select(crossed, s.util_sum / V(t.load_avg_max), s.util_avg);
  rl.avg = select(crossed, rl.sum / V(t.load_avg_max), rl.avg);
  s.last_update_time = now;

  SchedAvg<V> stay = sa;
  stay.last_update_time = select(backwards, now, sa.last_update_time);
  sa = select_each(skip, stay, s);
  if (cfs_rq) *cfs_rq = {select(skip, cfs_rq->sum, rl.sum), select(skip, cfs_rq->avg, rl.avg)};
  return select(skip || !crossed, V(0), V(1));
}

}  // namespace cfsv::pelt_v4_4
