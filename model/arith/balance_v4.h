// Pure arithmetic of era-1 load balancing (kernel/sched/fair.c v4.4, before
// v5.5's group_type rework): groups compared by average load, the group
// classification other / imbalanced / overloaded, find_busiest_group's
// checks, calculate_imbalance and fix_small_imbalance, over the figures
// update_sg_lb_stats gathers. The kernel's C types (unsigned long, unsigned
// int, long), wraps included. Templates over the value type V (uint64_t in the
// simulator, proofs/' Sym), written without branching on values; the enums,
// bools and long ride on model/arith/balance.h's LbRepr. docs/balancing.md,
// "Era 1".
#pragma once
#include <cstdint>
#include <type_traits>

#include "balance.h"

namespace cfsv {

// enum group_type (kernel/sched/fair.c v4.4), in its order: a higher type is busier.
enum class GroupTypeV4 : uint8_t { other, imbalanced, overloaded };

template <class V> struct LbReprV4 {
  using Group = V;
};
template <> struct LbReprV4<uint64_t> {
  using Group = GroupTypeV4;
};

// struct sg_lb_stats (kernel/sched/fair.c v4.4), without the NUMA-balancing
// counts; min_load and max_load (the least and most loaded CPU's load as
// group_load sums them) are the Wasted Cores fix's (wasted_cores_min_load).
template <class V> struct SgLbStatsV4T {
  V avg_load{0}, group_load{0}, sum_weighted_load{0}, load_per_task{0};
  V group_capacity{1}, group_util{0}, sum_nr_running{0}, idle_cpus{0}, group_weight{0};
  V min_load{0}, max_load{0};
  LbBool<V> group_no_capacity = lb_bool<V>(false);
  LbBool<V> sg_imbalanced = lb_bool<V>(false);  // group->sgc->imbalance, read by group_classify
  typename LbReprV4<V>::Group type = lb_enum<V>(GroupTypeV4::other);
};
using SgLbStatsV4 = SgLbStatsV4T<uint64_t>;

// select() for the kernel's bools: the model's bool, or V's boolean.
template <class V> LbBool<V> select_bool(const LbBool<V>& c, const LbBool<V>& a, const LbBool<V>& b) {
  return (c && a) || (!c && b);
}

template <class V> SgLbStatsV4T<V> select(const LbBool<V>& c, const SgLbStatsV4T<V>& a, const SgLbStatsV4T<V>& b) {
  return {select(c, a.avg_load, b.avg_load),
          select(c, a.group_load, b.group_load),
          select(c, a.sum_weighted_load, b.sum_weighted_load),
          select(c, a.load_per_task, b.load_per_task),
          select(c, a.group_capacity, b.group_capacity),
          select(c, a.group_util, b.group_util),
          select(c, a.sum_nr_running, b.sum_nr_running),
          select(c, a.idle_cpus, b.idle_cpus),
          select(c, a.group_weight, b.group_weight),
          select(c, a.min_load, b.min_load),
          select(c, a.max_load, b.max_load),
          select_bool<V>(c, a.group_no_capacity, b.group_no_capacity),
          select_bool<V>(c, a.sg_imbalanced, b.sg_imbalanced),
          select(c, a.type, b.type)};
}

// struct sd_lb_stats (kernel/sched/fair.c v4.4) as init_sd_lb_stats leaves
// it: no busiest group, busiest_stat at avg_load 0 (min_load 0), group_other.
// min_load_cmp is not the kernel's: the feature wasted_cores_min_load, which
// the templates below read.
template <class V> struct SdLbStatsV4T {
  LbBool<V> has_busiest = lb_bool<V>(false);
  LbBool<V> has_local = lb_bool<V>(false);
  LbBool<V> min_load_cmp = lb_bool<V>(false);
  SgLbStatsV4T<V> local, busiest;
  V total_load{0}, total_capacity{0}, avg_load{0};
};
using SdLbStatsV4 = SdLbStatsV4T<uint64_t>;

// group_has_capacity (kernel/sched/fair.c v4.4): fewer tasks than CPUs, or
// utilisation under the capacity by more than imbalance_pct.
template <class V> LbBool<V> group_has_capacity_v4(const V& imbalance_pct, const SgLbStatsV4T<V>& sgs) {
  return sgs.sum_nr_running < sgs.group_weight || sgs.group_capacity * V(100) > sgs.group_util * imbalance_pct;
}

// group_is_overloaded (kernel/sched/fair.c v4.4): more tasks than CPUs and
// utilisation over the capacity by imbalance_pct.
template <class V> LbBool<V> group_is_overloaded_v4(const V& imbalance_pct, const SgLbStatsV4T<V>& sgs) {
  return sgs.sum_nr_running > sgs.group_weight && sgs.group_capacity * V(100) < sgs.group_util * imbalance_pct;
}

// group_classify (kernel/sched/fair.c v4.4): overloaded when the group has no
// capacity, imbalanced when sgc->imbalance is set (tasks pinned), else other.
template <class V> typename LbReprV4<V>::Group group_classify_v4(const SgLbStatsV4T<V>& sgs) {
  const auto g = [](GroupTypeV4 t) { return lb_enum<V>(t); };
  return select(sgs.group_no_capacity, g(GroupTypeV4::overloaded),
                select(sgs.sg_imbalanced, g(GroupTypeV4::imbalanced), g(GroupTypeV4::other)));
}

// The tail of update_sg_lb_stats (kernel/sched/fair.c v4.4), once the CPUs'
// loads are summed: avg_load scaled by the group's capacity, load_per_task,
// group_no_capacity and the type.
template <class V> void update_sg_lb_stats_tail_v4(const V& imbalance_pct, SgLbStatsV4T<V>& sgs) {
  sgs.avg_load = sgs.group_load * V(kSchedCapacityScale) / sgs.group_capacity;
  sgs.load_per_task = select(sgs.sum_nr_running != V(0), sgs.sum_weighted_load / max(sgs.sum_nr_running, V(1)), V(0));
  sgs.group_no_capacity = group_is_overloaded_v4(imbalance_pct, sgs);
  sgs.type = group_classify_v4(sgs);
}

// update_sd_pick_busiest (kernel/sched/fair.c v4.4), without SD_ASYM_PACKING:
// the higher type, then within a type the higher avg_load; with
// wasted_cores_min_load the higher min_load (docs/wasted-cores.md, "The Group
// Imbalance fix").
template <class V> LbBool<V> update_sd_pick_busiest_v4(const SdLbStatsV4T<V>& sds, const SgLbStatsV4T<V>& sgs) {
  const SgLbStatsV4T<V>& busiest = sds.busiest;
  const auto busier = select_bool<V>(sds.min_load_cmp, sgs.min_load > busiest.min_load, sgs.avg_load > busiest.avg_load);
  return sgs.type > busiest.type || (sgs.type == busiest.type && busier);
}

// update_sd_lb_stats (kernel/sched/fair.c v4.4), one group of the domain's
// list: the local group's figures are kept; another group, when the child
// domain prefers siblings and the local group has capacity, is marked without
// capacity if it runs more than one task; it becomes the busiest if
// update_sd_pick_busiest says so (returned). Every group adds its load and
// capacity.
template <class V>
LbBool<V> update_sd_lb_stats_group_v4(SdLbStatsV4T<V>& sds, SgLbStatsV4T<V> sgs, bool local_group,
                                 const std::type_identity_t<LbBool<V>>& prefer_sibling, const V& imbalance_pct) {
  auto pick = lb_bool<V>(false);
  if (local_group) {
    sds.local = sgs;
    sds.has_local = lb_bool<V>(true);
  } else {
    const auto lower = prefer_sibling && sds.has_local && group_has_capacity_v4(imbalance_pct, sds.local) &&
                       sgs.sum_nr_running > V(1);
    sgs.group_no_capacity = sgs.group_no_capacity || lower;
    sgs.type = group_classify_v4(sgs);
    pick = update_sd_pick_busiest_v4(sds, sgs);
    sds.busiest = select(pick, sgs, sds.busiest);
    sds.has_busiest = sds.has_busiest || pick;
  }
  sds.total_load = sds.total_load + sgs.group_load;
  sds.total_capacity = sds.total_capacity + sgs.group_capacity;
  return pick;
}

// What the verdict reads besides the statistics: the balancing CPU's idle
// type, the domain's imbalance_pct, and cpu_avg_load_per_task(dst_cpu)
// (fix_small_imbalance reads it when the local group runs nothing).
template <class V> struct ImbalanceEnvV4T {
  typename LbRepr<V>::Idle idle = lb_enum<V>(CpuIdleType::not_idle);
  V imbalance_pct{125};
  V dst_load_per_task{0};
};
using ImbalanceEnvV4 = ImbalanceEnvV4T<uint64_t>;

// fix_small_imbalance (kernel/sched/fair.c v4.4): when the average-based
// imbalance is too small to move a task, move one busiest task's load if the
// gap is at least one scaled task (two when local's tasks are not lighter),
// or if moving it raises the capacity used. Returns env->imbalance: the
// busiest load_per_task, or `none` (what calculate_imbalance left).
template <class V> V fix_small_imbalance(const ImbalanceEnvV4T<V>& env, SdLbStatsV4T<V>& sds, const V& none) {
  SgLbStatsV4T<V>& local = sds.local;
  const SgLbStatsV4T<V>& busiest = sds.busiest;
  const V scale(kSchedCapacityScale);
  const auto local_empty = local.sum_nr_running == V(0);
  local.load_per_task = select(local_empty, env.dst_load_per_task, local.load_per_task);
  const V imbn = select(!local_empty && busiest.load_per_task > local.load_per_task, V(1), V(2));
  const V scaled_busy = busiest.load_per_task * scale / busiest.group_capacity;
  const auto gap = busiest.avg_load + scaled_busy >= local.avg_load + scaled_busy * imbn;
  // The capacity used now, and after moving one task (unsigned long, as the kernel's).
  const V capa_now = (busiest.group_capacity * min(busiest.load_per_task, busiest.avg_load) +
                      local.group_capacity * min(local.load_per_task, local.avg_load)) / scale;
  const V sub = select(busiest.avg_load > scaled_busy,
                       busiest.group_capacity * min(busiest.load_per_task, busiest.avg_load - min(busiest.avg_load, scaled_busy)),
                       V(0));
  const V tmp = select(busiest.avg_load * busiest.group_capacity < busiest.load_per_task * scale,
                       busiest.avg_load * busiest.group_capacity / local.group_capacity,
                       busiest.load_per_task * scale / local.group_capacity);
  const V capa_move = (sub + local.group_capacity * min(local.load_per_task, local.avg_load + tmp)) / scale;
  return select(gap || capa_move > capa_now, busiest.load_per_task, none);
}

// calculate_imbalance (kernel/sched/fair.c v4.4): the load to move so that
// neither group crosses the domain's average, no more than busiest's load
// above its capacity when both groups are overloaded; fix_small_imbalance
// when that is below one busiest task. Returns env->imbalance.
template <class V> V calculate_imbalance_v4(const ImbalanceEnvV4T<V>& env, SdLbStatsV4T<V>& sds) {
  SgLbStatsV4T<V>& busiest = sds.busiest;
  const SgLbStatsV4T<V>& local = sds.local;
  const V scale(kSchedCapacityScale);
  const auto g = [](GroupTypeV4 t) { return lb_enum<V>(t); };
  busiest.load_per_task = select(busiest.type == g(GroupTypeV4::imbalanced),
                                 min(busiest.load_per_task, sds.avg_load), busiest.load_per_task);
  const auto outside = busiest.avg_load <= sds.avg_load || local.avg_load >= sds.avg_load;
  // load_above_capacity: busiest's tasks x SCHED_LOAD_SCALE over its capacity; ~0UL otherwise.
  const V nr_scaled = busiest.sum_nr_running * scale;
  const auto both_overloaded = busiest.type == g(GroupTypeV4::overloaded) && local.type == g(GroupTypeV4::overloaded);
  const V above = select(both_overloaded && nr_scaled > busiest.group_capacity,
                         nr_scaled - min(nr_scaled, busiest.group_capacity), V(~uint64_t{0}));
  const V max_pull = min(busiest.avg_load - min(busiest.avg_load, sds.avg_load), above);
  const V imbalance = min(max_pull * busiest.group_capacity,
                          (sds.avg_load - min(sds.avg_load, local.avg_load)) * local.group_capacity) / scale;
  const V base = select(outside, V(0), imbalance);
  return select_lazy(outside || imbalance < busiest.load_per_task,
                     [&] { return fix_small_imbalance(env, sds, base); }, [&] { return base; });
}

// calculate_imbalance as the Wasted Cores fix rewrites it (Lozi et al.,
// EuroSys 2016, on kernel/sched/fair.c v4.1; feature wasted_cores_min_load):
// half the gap between busiest's most loaded CPU and local's least loaded
// one, 0 when there is none. Returns env->imbalance (both eras' stats).
template <template <class> class Sds, class V> V calculate_imbalance_min_load(const Sds<V>& sds) {
  const V& most = sds.busiest.max_load;
  return (most - min(sds.local.min_load, most)) / V(2);
}

// find_busiest_group's verdict (kernel/sched/fair.c v4.4) once
// update_sd_lb_stats has run, without SD_ASYM_PACKING: whether a busiest group
// is returned, and env->imbalance. The group comes back whenever the checks
// reach force_balance, even when calculate_imbalance leaves 0. With
// wasted_cores_min_load, the Wasted Cores fix's test and imbalance.
template <class V> struct VerdictV4T {
  LbBool<V> busiest = lb_bool<V>(false);
  V imbalance{0};
};
using VerdictV4 = VerdictV4T<uint64_t>;

template <class V> VerdictV4T<V> select(const LbBool<V>& c, const VerdictV4T<V>& a, const VerdictV4T<V>& b) {
  return {select_bool<V>(c, a.busiest, b.busiest), select(c, a.imbalance, b.imbalance)};
}

template <class V> VerdictV4T<V> find_busiest_group_verdict_v4(const ImbalanceEnvV4T<V>& env, SdLbStatsV4T<V>& sds) {
  const SgLbStatsV4T<V>& local = sds.local;
  const SgLbStatsV4T<V>& busiest = sds.busiest;
  const auto g = [](GroupTypeV4 t) { return lb_enum<V>(t); };
  const auto idle_is = [&](CpuIdleType t) { return env.idle == lb_enum<V>(t); };
  const auto none = !sds.has_busiest || busiest.sum_nr_running == V(0);
  sds.avg_load = select(none, sds.avg_load, V(kSchedCapacityScale) * sds.total_load / max(sds.total_capacity, V(1)));
  const auto force = busiest.type == g(GroupTypeV4::imbalanced) ||
                     (idle_is(CpuIdleType::newly_idle) && group_has_capacity_v4(env.imbalance_pct, local) &&
                      busiest.group_no_capacity);
  const auto idle_out = busiest.type != g(GroupTypeV4::overloaded) && local.idle_cpus <= busiest.idle_cpus + V(1);
  const auto pct_out = V(100) * busiest.avg_load <= env.imbalance_pct * local.avg_load;
  const auto avg_out = local.avg_load >= busiest.avg_load || local.avg_load >= sds.avg_load ||
                       select_bool<V>(idle_is(CpuIdleType::idle), idle_out, pct_out);
  // wasted_cores_min_load: the four avg_load checks give way to one, balanced
  // unless local's least loaded CPU is below busiest's least loaded CPU.
  const auto min_out = local.min_load >= busiest.min_load;
  const auto balanced = none || (!force && select_bool<V>(sds.min_load_cmp, min_out, avg_out));
  const auto imbalance = [&] {
    return select_lazy(sds.min_load_cmp, [&] { return calculate_imbalance_min_load(sds); },
                       [&] { return calculate_imbalance_v4(env, sds); });
  };
  return select_lazy(
      balanced, [] { return VerdictV4T<V>{}; }, [&] { return VerdictV4T<V>{lb_bool<V>(true), imbalance()}; });
}

}  // namespace cfsv
