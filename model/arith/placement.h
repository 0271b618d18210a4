// Pure arithmetic of task placement (kernel/sched/fair.c v5.15): wake_affine's
// weight comparison, find_idlest_group's group classification and its
// idlest-vs-local tests, SIS_PROP's scan depth; era 1's effective_load step. Templates over the value type
// V (uint64_t in the simulator), written without branching on values.
#pragma once
#include <cstdint>

#include "fair_math.h"
#include "fixed_point.h"

namespace cfsv {

// wake_affine_weight (kernel/sched/fair.c v5.15), its comparison with WA_BIAS on:
// whether this_cpu's effective load (with the task) is below prev_cpu's
// (without it, biased by half the domain's imbalance_pct), each scaled by the
// other CPU's capacity; s64 arithmetic. sync (WF_SYNC) takes the waker's
// load off this_cpu's, and a waker heavier than this_cpu's load decides at once.
template <class V>
auto wake_affine_weight_this(V this_load, V prev_load, V task_load, V this_cap, V prev_cap, V imbalance_pct, bool sync,
                             V current_load) {
  if (sync && current_load > this_load) return true;
  const V this_eff = (this_load - select(sync, current_load, V(0)) + task_load) * V(100) * prev_cap;
  const V prev_eff = (prev_load - task_load) * (V(100) + (imbalance_pct - V(100)) / V(2)) * this_cap +
                     select(sync, V(1), V(0));
  return static_cast<int64_t>(this_eff) < static_cast<int64_t>(prev_eff);
}

// The figures update_sg_wakeup_stats gathers for a group (struct sg_lb_stats).
template <class V> struct SgWakeupStats {
  V group_load{0}, group_util{0}, group_runnable{0}, group_capacity{0}, avg_load{0};
  V sum_nr_running{0}, sum_h_nr_running{0}, idle_cpus{0}, group_weight{0};
};

// group_has_capacity (kernel/sched/fair.c v5.15)
template <class V> auto group_has_capacity(V imbalance_pct, const SgWakeupStats<V>& sgs) {
  const auto fewer = sgs.sum_nr_running < sgs.group_weight;
  const auto runnable_over = sgs.group_capacity * imbalance_pct < sgs.group_runnable * V(100);
  const auto util_under = sgs.group_capacity * V(100) > sgs.group_util * imbalance_pct;
  return fewer || (!runnable_over && util_under);
}

// group_is_overloaded (kernel/sched/fair.c v5.15)
template <class V> auto group_is_overloaded(V imbalance_pct, const SgWakeupStats<V>& sgs) {
  const auto more = sgs.sum_nr_running > sgs.group_weight;
  const auto util_over = sgs.group_capacity * V(100) < sgs.group_util * imbalance_pct;
  const auto runnable_over = sgs.group_capacity * imbalance_pct < sgs.group_runnable * V(100);
  return more && (util_over || runnable_over);
}

// find_idlest_group (kernel/sched/fair.c v5.15), the overloaded / fully-busy
// case: whether the idlest group's avg_load is low enough to push the task
// there. imbalance = scale_load_down(NICE_0_LOAD) * (imbalance_pct - 100) / 100;
// across NUMA the remote group must be lighter by it; then it must be lighter
// by it and by the imbalance_pct ratio.
template <class V> auto idlest_busy_group_wins(V local_avg, V idlest_avg, V imbalance_pct, bool numa) {
  const V imbalance = V(1024) * (imbalance_pct - V(100)) / V(100);
  const auto numa_stays = numa && idlest_avg + imbalance >= local_avg;
  const auto lighter = idlest_avg < local_avg + imbalance;
  const auto ratio = V(100) * local_avg > imbalance_pct * idlest_avg;
  return !numa_stays && lighter && ratio;
}

// allow_numa_imbalance (kernel/sched/fair.c v5.15): busy CPUs under a quarter of the group.
template <class V> auto allow_numa_imbalance(V running, V weight) { return running < (weight >> V(2)); }

// select_idle_cpu's SIS_PROP depth (kernel/sched/fair.c v5.15): span_weight *
// avg_idle / (avg_scan_cost + 1) CPUs, at least 4.
template <class V> V sis_prop_nr(V span_weight, V avg_idle, V avg_scan_cost) {
  const V avg_cost = avg_scan_cost + V(1);
  const V span_avg = span_weight * avg_idle;
  return select(span_avg > V(4) * avg_cost, span_avg / avg_cost, V(4));
}

// One level of effective_load (kernel/sched/fair.c v4.4; v3.10 passes
// load.weight where v4.4 reads load_avg): the group entity's new weight
// tg->shares * w / W when wl joins this cfs_rq (its load `now`, counted as
// `contrib` in the group's total tg_load_avg) and wg the group's total (all
// of the shares once w >= W), at least MIN_SHARES, less its weight now
// (`se_weight`): the change it passes up. s64, as the kernel's longs; not a
// template: nothing proves it, and its signs are the point.
inline int64_t effective_load_level(int64_t wl, int64_t wg, int64_t now, int64_t tg_load_avg, int64_t contrib,
                                    int64_t shares, int64_t se_weight) {
  const int64_t W = wg + tg_load_avg - contrib + now;
  const int64_t w = now + wl;
  const int64_t weight = W > 0 && w < W ? w * shares / W : shares;
  return (weight < int64_t(kFairMinShares) ? int64_t(kFairMinShares) : weight) - se_weight;
}

// update_avg (kernel/sched/sched.h v5.15): avg += (sample - avg) / 8, in s64.
template <class V> V update_avg(V avg, V sample) {
  return V(static_cast<uint64_t>(static_cast<int64_t>(avg) + (static_cast<int64_t>(sample) - static_cast<int64_t>(avg)) / 8));
}

}  // namespace cfsv
