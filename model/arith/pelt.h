// PELT of the v5.15 profile: kernel/sched/pelt.c and pelt.h, read in v5.15 and
// v6.1 (the same arithmetic; first and last releases of this form unverified).
// At full capacity: rq_clock_pelt advances like clock_task, so no frequency
// or CPU scaling appears.
#pragma once
#include <concepts>
#include <cstdint>

#include "calc_delta.h"
#include "fixed_point.h"
#include "pelt_tables.h"

namespace cfsv::pelt_v5_15 {

// struct sched_avg (include/linux/sched.h v5.15), util_est left out.
template <class V> struct SchedAvg {
  V last_update_time{0};  // u64, ns
  V load_sum{0};          // u64
  V runnable_sum{0};      // u64
  V util_sum{0};          // u32
  V period_contrib{0};    // u32, < 1024
  V load_avg{0};
  V runnable_avg{0};
  V util_avg{0};
  bool operator==(const SchedAvg&) const = default;
};

// Every field: c ? a : b.
template <class V, class C> SchedAvg<V> select_each(C c, const SchedAvg<V>& a, const SchedAvg<V>& b) {
  return {select(c, a.last_update_time, b.last_update_time), select(c, a.load_sum, b.load_sum),
          select(c, a.runnable_sum, b.runnable_sum),         select(c, a.util_sum, b.util_sum),
          select(c, a.period_contrib, b.period_contrib),     select(c, a.load_avg, b.load_avg),
          select(c, a.runnable_avg, b.runnable_avg),         select(c, a.util_avg, b.util_avg)};
}

// a(sa) when c, else b(sa): in place for a plain bool; for a symbolic c, each
// on a copy and every field selected.
template <class V, class F, class G> void update_each_lazy(bool c, SchedAvg<V>& sa, F&& a, G&& b) {
  c ? a(sa) : b(sa);
}
template <class V, class C, class F, class G> void update_each_lazy(const C& c, SchedAvg<V>& sa, F&& a, G&& b) {
  SchedAvg<V> x = sa, y = sa;
  a(x), b(y);
  sa = select_each(c, x, y);
}

// decay_load (kernel/sched/pelt.c v5.15, v6.1): val * y^n,
// rounded down; no n == 0 shortcut: decay_load(v, 0) = v - ceil(v / 2^32).
// decay_load_by(n)(val) = decay_load(val, n).
template <class V> auto decay_load_by(V n) {
  return detail::decay_load_by(n, [](V a, V inv) { return mul_u64_u32_shr(a, inv, V(32)); });
}
template <class V> V decay_load(V val, V n) { return decay_load_by(n)(val); }

// __accumulate_pelt_segments (kernel/sched/pelt.c v5.15, v6.1):
// d1 y^p + 1024 (y + ... + y^(p-1)) + d3, the middle term as
// LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, p) - 1024. u32 arithmetic;
// `decay` is decay_load_by(periods).
template <class V, std::invocable<V> Decay> V accumulate_pelt_segments(const Decay& decay, V d1, V d3) {
  const V max(pelt_tables().load_avg_max);
  const V c1 = u32(decay(d1));
  const V c2 = u32(max - decay(max) - V(1024));
  return u32(c1 + c2 + d3);
}
template <class V> V accumulate_pelt_segments(V periods, V d1, V d3) {
  return accumulate_pelt_segments(decay_load_by(periods), d1, d3);
}

// accumulate_sum (kernel/sched/pelt.c v5.15, v6.1):
// adds delta (PELT units) to the sums, decaying them over crossed period
// boundaries; returns the number of boundaries crossed.
template <class V> V accumulate_sum(V delta, SchedAvg<V>& sa, V load, V runnable, V running) {
  const V d = delta + sa.period_contrib;
  const V periods = d >> V(10);  // d / 1024
  const auto crossed = periods != V(0);
  const V d3 = d & V(kPeltPeriodUs - 1);  // d % 1024, = d when nothing was crossed
  // Step 1: decay the old sums; step 2: the three segments (only used when load != 0).
  const auto decay = decay_load_by(periods);
  sa.load_sum = select_lazy(crossed, [&] { return decay(sa.load_sum); }, [&] { return sa.load_sum; });
  sa.runnable_sum = select_lazy(crossed, [&] { return decay(sa.runnable_sum); }, [&] { return sa.runnable_sum; });
  sa.util_sum = select_lazy(crossed, [&] { return u32(decay(sa.util_sum)); }, [&] { return sa.util_sum; });
  const V contrib = select_lazy(
      crossed && load != V(0),
      [&] { return accumulate_pelt_segments(decay, V(kPeltPeriodUs) - sa.period_contrib, d3); },
      [&] { return u32(delta); });
  sa.period_contrib = d3;
  sa.load_sum = sa.load_sum + load * contrib;  // + 0 when !load
  sa.runnable_sum = sa.runnable_sum + ((runnable * contrib) << V(kSchedCapacityShift));
  sa.util_sum = u32(sa.util_sum + select(running != V(0), u32(contrib << V(kSchedCapacityShift)), V(0)));
  return periods;
}

// ___update_load_sum (kernel/sched/pelt.c v5.15, v6.1): 1 when a period boundary
// was crossed (the averages are then due), else 0. Time going backwards
// resets last_update_time; the sub-1024 ns remainder stays in the clock.
template <class V> V update_load_sum(V now, SchedAvg<V>& sa, V load, V runnable, V running) {
  const V delta_ns = now - sa.last_update_time;
  const auto backwards = negative_s64(delta_ns);
  const V delta = delta_ns >> V(kPeltUnitShift);
  const auto no_load = load == V(0);  // then runnable = running = 0
  const auto skip = backwards || delta == V(0);
  V periods(0);
  update_each_lazy(
      skip, sa, [&](SchedAvg<V>& stay) { stay.last_update_time = select(backwards, now, stay.last_update_time); },
      [&](SchedAvg<V>& next) {
        next.last_update_time = next.last_update_time + (delta << V(kPeltUnitShift));
        periods = accumulate_sum(delta, next, load, select(no_load, V(0), runnable), select(no_load, V(0), running));
      });
  return select(skip || periods == V(0), V(0), V(1));
}

// get_pelt_divider (kernel/sched/pelt.h v5.15, v6.1): LOAD_AVG_MAX - 1024 +
// period_contrib, the largest sum reachable at this point of the period.
template <class V> V get_pelt_divider(const SchedAvg<V>& sa) {
  return V(pelt_tables().load_avg_max - kPeltPeriodUs) + sa.period_contrib;
}

// ___update_load_avg (kernel/sched/pelt.c v5.15, v6.1): the averages from the sums.
template <class V> void update_load_avg(SchedAvg<V>& sa, V load) {
  const V divider = get_pelt_divider(sa);
  sa.load_avg = (load * sa.load_sum) / divider;
  sa.runnable_avg = sa.runnable_sum / divider;
  sa.util_avg = sa.util_sum / divider;
}

namespace detail {
// The update_load_sum + update_load_avg pair every __update_load_avg_* makes.
template <class V> V update_sum_then_avg(V now, SchedAvg<V>& sa, V load, V runnable, V running, V avg_load) {
  const V decayed = update_load_sum(now, sa, load, runnable, running);
  update_each_lazy(
      decayed != V(0), sa, [&](SchedAvg<V>& averaged) { update_load_avg(averaged, avg_load); }, [](SchedAvg<V>&) {});
  return decayed;
}
}  // namespace detail

// __update_load_avg_se (kernel/sched/pelt.c v5.15, v6.1): load_sum counts
// on_rq time (load = !!on_rq), load_avg weighs it by se_weight =
// scale_load_down(se->load.weight). runnable is se_runnable(): !!on_rq for a
// task, its group cfs_rq's h_nr_running for a group entity; running is cfs_rq->curr == se.
template <class V> V update_load_avg_se(V now, SchedAvg<V>& sa, V weight, V on_rq, V runnable, V running,
                                        LoadResolution r) {
  return detail::update_sum_then_avg(now, sa, select(on_rq != V(0), V(1), V(0)), runnable, running,
                                     scale_load_down(weight, r));
}

// __update_load_avg_blocked_se (kernel/sched/pelt.c v5.15, v6.1): a dequeued
// entity's sums decay.
template <class V> V update_load_avg_blocked_se(V now, SchedAvg<V>& sa, V weight, LoadResolution r) {
  return detail::update_sum_then_avg(now, sa, V(0), V(0), V(0), scale_load_down(weight, r));
}

// __update_load_avg_cfs_rq (kernel/sched/pelt.c v5.15, v6.1): load is
// scale_load_down(cfs_rq->load.weight), runnable h_nr_running, running
// cfs_rq->curr != NULL; load_avg is load_sum / divider.
template <class V> V update_load_avg_cfs_rq(V now, SchedAvg<V>& sa, V load_weight, V h_nr_running, V curr,
                                            LoadResolution r) {
  return detail::update_sum_then_avg(now, sa, scale_load_down(load_weight, r), h_nr_running,
                                     select(curr != V(0), V(1), V(0)), V(1));
}

}  // namespace cfsv::pelt_v5_15
