// Pure arithmetic of v3.10's load balancing (kernel/sched/fair.c v3.10):
// era 1 before v3.13 moved group_imb to sgp->imbalance and v4.1 measured a
// group's capacity by utilisation. A group's capacity is a count of CPUs (its
// cpu_power rounded to SCHED_POWER_SCALE); only a group running more tasks
// than that, or imbalanced within (group_imb, from its own CPUs' loads), can
// be the busiest; calculate_imbalance pulls no more than the load above that
// capacity. The kernel's unsigned long arithmetic, wraps included; templates
// over V written without branching on values, like model/arith/balance_v4.h,
// whose verdict and environment types they share. docs/balancing.md, "Era 1
// in v3.10".
#pragma once
#include <cstdint>

#include "balance_v4.h"

namespace cfsv {

// DIV_ROUND_CLOSEST (include/linux/kernel.h) of an unsigned power by SCHED_POWER_SCALE.
template <class V> V power_in_cpus(const V& power) {
  return (power + V(kSchedCapacityScale / 2)) / V(kSchedCapacityScale);
}

// struct sg_lb_stats (v3.10), with the group's power (group->sgp->power),
// which the later steps read; min_load and max_load (its least and most
// loaded CPU's load, every group's) are the Wasted Cores fix's
// (wasted_cores_min_load), as in model/arith/balance_v4.h.
template <class V> struct SgLbStatsV3T {
  V avg_load{0}, group_load{0}, sum_nr_running{0}, sum_weighted_load{0};
  V group_capacity{0}, idle_cpus{0}, group_weight{0}, power{1}, min_load{0}, max_load{0};
  LbBool<V> group_imb = lb_bool<V>(false);
  LbBool<V> group_has_capacity = lb_bool<V>(false);
};
using SgLbStatsV3 = SgLbStatsV3T<uint64_t>;

template <class V> SgLbStatsV3T<V> select(const LbBool<V>& c, const SgLbStatsV3T<V>& a, const SgLbStatsV3T<V>& b) {
  return {select(c, a.avg_load, b.avg_load),
          select(c, a.group_load, b.group_load),
          select(c, a.sum_nr_running, b.sum_nr_running),
          select(c, a.sum_weighted_load, b.sum_weighted_load),
          select(c, a.group_capacity, b.group_capacity),
          select(c, a.idle_cpus, b.idle_cpus),
          select(c, a.group_weight, b.group_weight),
          select(c, a.power, b.power),
          select(c, a.min_load, b.min_load),
          select(c, a.max_load, b.max_load),
          select_bool<V>(c, a.group_imb, b.group_imb),
          select_bool<V>(c, a.group_has_capacity, b.group_has_capacity)};
}

// What update_sg_lb_stats' loop keeps besides the sums: the highest and
// lowest source_load and nr_running among a non-local group's CPUs (the
// initial 0 and ~0UL stay for the local group and for a group with no CPU in
// env->cpus).
template <class V> struct SgSpreadV3T {
  V max_cpu_load{0}, min_cpu_load{~uint64_t{0}}, max_nr_running{0}, min_nr_running{~uint64_t{0}};
};

// The tail of update_sg_lb_stats (v3.10) once the loop has summed the CPUs:
// avg_load by the group's power; group_imb when the CPUs' loads spread by at
// least the group's average task and their nr_running by more than one;
// group_capacity, the power in whole CPUs (0 becomes fix_small_capacity's 1
// for SMT siblings that keep ~90% of their power: `smt_siblings`, the
// domain's SD_SHARE_CPUPOWER); has_capacity while the capacity exceeds the
// tasks.
template <class V>
void update_sg_lb_stats_tail_v3(SgLbStatsV3T<V>& sgs, const SgSpreadV3T<V>& spread,
                                const std::type_identity_t<LbBool<V>>& smt_siblings) {
  sgs.avg_load = sgs.group_load * V(kSchedCapacityScale) / sgs.power;
  const V per_task = select_lazy(sgs.sum_nr_running != V(0), [&] { return sgs.sum_weighted_load / sgs.sum_nr_running; },
                                 [] { return V(0); });
  sgs.group_imb = spread.max_cpu_load - spread.min_cpu_load >= per_task &&
                  spread.max_nr_running - spread.min_nr_running > V(1);
  const V cpus = power_in_cpus(sgs.power);
  sgs.group_capacity = select(cpus == V(0), select(smt_siblings, V(1), V(0)), cpus);
  sgs.group_has_capacity = sgs.group_capacity > sgs.sum_nr_running;
}

// struct sd_lb_stats (v3.10) after its memset: the local group's figures
// (this_*), the busiest's (busiest_*; max_load is busiest.avg_load, 0 until a
// group is picked), the domain's sums. min_load_cmp is the feature
// wasted_cores_min_load.
template <class V> struct SdLbStatsV3T {
  LbBool<V> has_busiest = lb_bool<V>(false);
  LbBool<V> min_load_cmp = lb_bool<V>(false);
  SgLbStatsV3T<V> local, busiest;
  V total_load{0}, total_pwr{0}, avg_load{0};
};
using SdLbStatsV3 = SdLbStatsV3T<uint64_t>;

// update_sd_pick_busiest (v3.10), without SD_ASYM_PACKING: a group busier by
// avg_load than the busiest so far (with wasted_cores_min_load: by min_load),
// running more tasks than its capacity or imbalanced within.
template <class V> LbBool<V> update_sd_pick_busiest_v3(const SdLbStatsV3T<V>& sds, const SgLbStatsV3T<V>& sgs) {
  const auto busier = select_bool<V>(sds.min_load_cmp, sgs.min_load > sds.busiest.min_load,
                                     sgs.avg_load > sds.busiest.avg_load);
  return busier && (sgs.sum_nr_running > sgs.group_capacity || sgs.group_imb);
}

// update_sd_lb_stats (v3.10), one group of the domain's list (the local group
// first): every group adds its load and power; when the child domain prefers
// siblings and the local group has capacity, another group's capacity drops
// to at most one CPU (its has_capacity stays); the local group's figures are
// kept, another group becomes the busiest if update_sd_pick_busiest says so
// (returned).
template <class V>
LbBool<V> update_sd_lb_stats_group_v3(SdLbStatsV3T<V>& sds, SgLbStatsV3T<V> sgs, bool local_group,
                                      const std::type_identity_t<LbBool<V>>& prefer_sibling) {
  sds.total_load = sds.total_load + sgs.group_load;
  sds.total_pwr = sds.total_pwr + sgs.power;
  if (local_group) {
    sds.local = sgs;
    return lb_bool<V>(false);
  }
  sgs.group_capacity =
      select(prefer_sibling && sds.local.group_has_capacity, min(sgs.group_capacity, V(1)), sgs.group_capacity);
  const auto pick = update_sd_pick_busiest_v3(sds, sgs);
  sds.busiest = select(pick, sgs, sds.busiest);
  sds.has_busiest = sds.has_busiest || pick;
  return pick;
}

// fix_small_imbalance (v3.10): one busiest task's load (busiest_load_per_task)
// when the gap max_load - this_load (unsigned: it wraps when the local group
// is the busier) is at least one scaled task, two when local's tasks are not
// lighter, or when moving one raises the power used; else `none`.
template <class V>
V fix_small_imbalance_v3(const ImbalanceEnvV4T<V>& env, const SdLbStatsV3T<V>& sds, const V& busiest_per_task,
                         const V& none) {
  const SgLbStatsV3T<V>& local = sds.local;
  const SgLbStatsV3T<V>& busiest = sds.busiest;
  const V scale(kSchedCapacityScale);
  const auto local_runs = local.sum_nr_running != V(0);
  const V local_per_task = select_lazy(local_runs, [&] { return local.sum_weighted_load / local.sum_nr_running; },
                                       [&] { return env.dst_load_per_task; });
  const V imbn = select(local_runs && busiest_per_task > local_per_task, V(1), V(2));
  const V scaled_busy = busiest_per_task * scale / busiest.power;
  const auto gap = busiest.avg_load - local.avg_load + scaled_busy >= scaled_busy * imbn;
  const V pwr_now = (busiest.power * min(busiest_per_task, busiest.avg_load) +
                     local.power * min(local_per_task, local.avg_load)) / scale;
  const V sub = select(busiest.avg_load > scaled_busy,
                       busiest.power * min(busiest_per_task, busiest.avg_load - min(busiest.avg_load, scaled_busy)),
                       V(0));
  const V add = select(busiest.avg_load * busiest.power < busiest_per_task * scale,
                       busiest.avg_load * busiest.power / local.power, busiest_per_task * scale / local.power);
  const V pwr_move = (sub + local.power * min(local_per_task, local.avg_load + add)) / scale;
  return select(gap || pwr_move > pwr_now, busiest_per_task, none);
}

// calculate_imbalance (v3.10): the load to move so that neither group crosses
// the domain's average, pulling no more than busiest's tasks above its
// capacity (unless group_imb; unsigned, so a group under its capacity wraps
// to a huge bound); fix_small_imbalance when the busiest is below the average
// (imbalance 0) or the result is below one busiest task.
template <class V> V calculate_imbalance_v3(const ImbalanceEnvV4T<V>& env, const SdLbStatsV3T<V>& sds) {
  const SgLbStatsV3T<V>& busiest = sds.busiest;
  const SgLbStatsV3T<V>& local = sds.local;
  const V scale(kSchedCapacityScale);
  const V per_task = busiest.sum_weighted_load / busiest.sum_nr_running;
  const V busiest_per_task = select(busiest.group_imb, min(per_task, sds.avg_load), per_task);
  const auto below = busiest.avg_load < sds.avg_load;
  const V above = select(busiest.group_imb, V(~uint64_t{0}),
                         (busiest.sum_nr_running - busiest.group_capacity) * (scale * scale) / busiest.power);
  const V max_pull = min(busiest.avg_load - sds.avg_load, above);
  const V imbalance = min(max_pull * busiest.power, (sds.avg_load - local.avg_load) * local.power) / scale;
  const V base = select(below, V(0), imbalance);
  return select_lazy(below || imbalance < busiest_per_task,
                     [&] { return fix_small_imbalance_v3(env, sds, busiest_per_task, base); }, [&] { return base; });
}

// find_busiest_group's verdict (v3.10) once update_sd_lb_stats has run,
// without SD_ASYM_PACKING: forced by group_imb, or for a newly idle CPU whose
// group has capacity while the busiest has none; else balanced when local is
// at least as loaded as the busiest or the average, or (CPU_IDLE) when the
// idle CPUs differ by at most one and the busiest runs no more tasks than it
// has CPUs, or (otherwise) within imbalance_pct.
template <class V> VerdictV4T<V> find_busiest_group_verdict_v3(const ImbalanceEnvV4T<V>& env, SdLbStatsV3T<V>& sds) {
  const SgLbStatsV3T<V>& local = sds.local;
  const SgLbStatsV3T<V>& busiest = sds.busiest;
  const auto idle_is = [&](CpuIdleType t) { return env.idle == lb_enum<V>(t); };
  const auto none = !sds.has_busiest || busiest.sum_nr_running == V(0);
  sds.avg_load = select_lazy(none, [&] { return sds.avg_load; },
                             [&] { return V(kSchedCapacityScale) * sds.total_load / sds.total_pwr; });
  const auto force = busiest.group_imb || (idle_is(CpuIdleType::newly_idle) && local.group_has_capacity &&
                                           !busiest.group_has_capacity);
  const auto idle_out = local.idle_cpus <= busiest.idle_cpus + V(1) && busiest.sum_nr_running <= busiest.group_weight;
  const auto pct_out = V(100) * busiest.avg_load <= env.imbalance_pct * local.avg_load;
  const auto out = local.avg_load >= busiest.avg_load || local.avg_load >= sds.avg_load ||
                   select_bool<V>(idle_is(CpuIdleType::idle), idle_out, pct_out);
  // wasted_cores_min_load: the avg_load checks give way to the least loaded CPUs', and
  // the imbalance is half the gap from busiest's most loaded CPU (model/arith/balance_v4.h).
  const auto min_out = local.min_load >= busiest.min_load;
  const auto balanced = none || (!force && select_bool<V>(sds.min_load_cmp, min_out, out));
  const auto imbalance = [&] {
    return select_lazy(sds.min_load_cmp, [&] { return calculate_imbalance_min_load(sds); },
                       [&] { return calculate_imbalance_v3(env, sds); });
  };
  return select_lazy(
      balanced, [] { return VerdictV4T<V>{}; }, [&] { return VerdictV4T<V>{lb_bool<V>(true), imbalance()}; });
}

}  // namespace cfsv
