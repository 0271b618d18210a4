// Pure arithmetic of load balancing (kernel/sched/fair.c v5.15): the group
// classification, the busiest-group choice and verdict of find_busiest_group,
// and calculate_imbalance, over the figures update_sg_lb_stats gathers. In the
// kernel's C types (unsigned long, unsigned int, long), wraps included.
// Templates over the value type V (uint64_t in the simulator, proofs/' Sym),
// written without branching on values; docs/balancing.md, "Load balancing".
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "fixed_point.h"
#include "pelt_tables.h"  // kSchedCapacityScale
#include "placement.h"

namespace cfsv {

// enum group_type (kernel/sched/fair.c v5.15), in its order: a higher type pulls first.
enum class GroupType : uint8_t { has_spare, fully_busy, misfit_task, asym_packing, imbalanced, overloaded };
// enum migration_type (kernel/sched/fair.c v5.15)
enum class MigrationType : uint8_t { load, util, task, misfit };
// enum cpu_idle_type (include/linux/sched/idle.h v5.15)
enum class CpuIdleType : uint8_t { idle, not_idle, newly_idle };

// How the templates carry the kernel's enums, bools and long: the model's own
// types for uint64_t; for a symbolic V, V (an enum's value) and V's boolean.
template <class V> struct LbRepr {
  using Group = V;
  using Migration = V;
  using Idle = V;
  using Long = V;  // every env->imbalance v5.15 computes is below 2^63: unsigned is the same
};
template <> struct LbRepr<uint64_t> {
  using Group = GroupType;
  using Migration = MigrationType;
  using Idle = CpuIdleType;
  using Long = int64_t;
};
template <class V> using LbBool = decltype(V(0) == V(0));
template <class V, class E> auto lb_enum(E e) {
  if constexpr (std::is_same_v<V, uint64_t>) return e;
  else return V(static_cast<uint64_t>(e));
}
template <class V> LbBool<V> lb_bool(bool b) { return V(b) == V(1); }
template <class V> typename LbRepr<V>::Long lb_long(const V& v) { return static_cast<typename LbRepr<V>::Long>(v); }
template <class V> V lb_value(const typename LbRepr<V>::Long& v) {
  if constexpr (std::is_same_v<V, uint64_t>) return static_cast<uint64_t>(v);
  else return v;
}

// select() for the model's enums and long (the Sym overloads are proofs/').
template <class E>
  requires std::is_enum_v<E>
E select(bool c, E a, E b) { return c ? a : b; }
inline int64_t select(bool c, int64_t a, int64_t b) { return c ? a : b; }

// group_classify (kernel/sched/fair.c v5.15). imbalanced: sgc->imbalance;
// misfit: the group's group_misfit_task_load is not 0; asym: its
// group_asym_packing (an idle dst of SD_ASYM_PACKING preferred to the group).
template <class V>
typename LbRepr<V>::Group group_classify(std::type_identity_t<V> imbalance_pct,
                                         std::type_identity_t<LbBool<V>> imbalanced, const SgWakeupStats<V>& sgs,
                                         std::type_identity_t<LbBool<V>> misfit = lb_bool<V>(false),
                                         std::type_identity_t<LbBool<V>> asym = lb_bool<V>(false)) {
  const auto g = [](GroupType t) { return lb_enum<V>(t); };
  return select(group_is_overloaded(imbalance_pct, sgs), g(GroupType::overloaded),
                select(imbalanced, g(GroupType::imbalanced),
                       select(asym, g(GroupType::asym_packing),
                              select(misfit, g(GroupType::misfit_task),
                                     select(group_has_capacity(imbalance_pct, sgs), g(GroupType::has_spare),
                                            g(GroupType::fully_busy))))));
}

// struct sg_lb_stats: the figures, the group's type, and
// group_misfit_task_load (the largest rq->misfit_task_load of its CPUs).
template <class V> struct SgLbStatsT {
  SgWakeupStats<V> v;
  typename LbRepr<V>::Group type = lb_enum<V>(GroupType::has_spare);
  V misfit_task_load{0};
};
using SgLbStats = SgLbStatsT<uint64_t>;

// struct sd_lb_stats (kernel/sched/fair.c v5.15), as init_sd_lb_stats leaves
// it: the worst busiest group (idle_cpus UINT_MAX) until one is picked.
template <class V> struct SdLbStatsT {
  LbBool<V> has_busiest = lb_bool<V>(false);
  SgLbStatsT<V> local, busiest{{.idle_cpus = V(UINT32_MAX)}, lb_enum<V>(GroupType::has_spare)};
  V total_load{0}, total_capacity{0}, avg_load{0};
  LbBool<V> prefer_sibling = lb_bool<V>(false);
};
using SdLbStats = SdLbStatsT<uint64_t>;

template <class V> SgWakeupStats<V> select(const LbBool<V>& c, const SgWakeupStats<V>& a, const SgWakeupStats<V>& b) {
  return {select(c, a.group_load, b.group_load),         select(c, a.group_util, b.group_util),
          select(c, a.group_runnable, b.group_runnable), select(c, a.group_capacity, b.group_capacity),
          select(c, a.avg_load, b.avg_load),             select(c, a.sum_nr_running, b.sum_nr_running),
          select(c, a.sum_h_nr_running, b.sum_h_nr_running), select(c, a.idle_cpus, b.idle_cpus),
          select(c, a.group_weight, b.group_weight)};
}
template <class V> SgLbStatsT<V> select(const LbBool<V>& c, const SgLbStatsT<V>& a, const SgLbStatsT<V>& b) {
  return {select(c, a.v, b.v), select(c, a.type, b.type), select(c, a.misfit_task_load, b.misfit_task_load)};
}

// What update_sd_pick_busiest (kernel/sched/fair.c v5.15) reads of the
// capacities of the group (sgc) and of the balancing CPU (dst):
// out_of_reach: !capacity_greater(capacity_of(dst), sgc->max_capacity), dst
// cannot help the group's misfit task; keeps_bigger: SD_ASYM_CPUCAPACITY and
// capacity_greater(sgc->min_capacity, capacity_of(dst)). Symmetric: both false.
// And of the CPUs' priorities: preferred: sched_asym_prefer(sg->asym_prefer_cpu,
// the busiest group's), an asym_packing group that is not the one to empty.
template <class V> struct PickCapacityT {
  LbBool<V> out_of_reach = lb_bool<V>(false);
  LbBool<V> keeps_bigger = lb_bool<V>(false);
  LbBool<V> preferred = lb_bool<V>(false);
};
using PickCapacity = PickCapacityT<uint64_t>;

// update_sd_pick_busiest (kernel/sched/fair.c v5.15): whether sgs is busier
// than the busiest so far.
template <class V>
LbBool<V> update_sd_pick_busiest(const SdLbStatsT<V>& sds, const SgLbStatsT<V>& sgs, const PickCapacityT<V>& cap = {}) {
  const SgLbStatsT<V>& busiest = sds.busiest;
  const auto is = [&](GroupType t) { return sgs.type == lb_enum<V>(t); };
  // a misfit task the balancing CPU cannot help, or a local group without spare capacity
  const auto misfit_out = is(GroupType::misfit_task) &&
                          (cap.out_of_reach || sds.local.type != lb_enum<V>(GroupType::has_spare));
  const auto by_load = (is(GroupType::overloaded) || is(GroupType::fully_busy)) && sgs.v.avg_load > busiest.v.avg_load;
  const auto by_spare = is(GroupType::has_spare) && (sgs.v.idle_cpus < busiest.v.idle_cpus ||
                                                     (sgs.v.idle_cpus == busiest.v.idle_cpus &&
                                                      sgs.v.sum_nr_running > busiest.v.sum_nr_running));
  const auto by_misfit = is(GroupType::misfit_task) && sgs.misfit_task_load >= busiest.misfit_task_load;
  const auto by_asym = is(GroupType::asym_packing) && !cap.preferred;  // the lowest priority work first
  const auto same_type = by_load || by_spare || by_misfit || by_asym;
  const auto busier = (sgs.type != busiest.type && sgs.type > busiest.type) || (sgs.type == busiest.type && same_type);
  // no more than a task per CPU, on CPUs bigger than dst: they keep them
  const auto keeps = cap.keeps_bigger && sgs.type <= lb_enum<V>(GroupType::fully_busy);
  return sgs.v.sum_h_nr_running != V(0) && !misfit_out && busier && !keeps;
}

// update_sd_lb_stats (kernel/sched/fair.c v5.15), one group of the domain's
// list: the local group's figures are kept, another one becomes the busiest
// if update_sd_pick_busiest says so; every group adds its load and capacity.
template <class V>
void update_sd_lb_stats_group(SdLbStatsT<V>& sds, const SgLbStatsT<V>& sgs, bool local_group,
                              const PickCapacityT<V>& cap = {}) {
  if (local_group) {
    sds.local = sgs;
  } else {
    const auto pick = update_sd_pick_busiest(sds, sgs, cap);
    sds.busiest = select(pick, sgs, sds.busiest);
    sds.has_busiest = sds.has_busiest || pick;
  }
  sds.total_load = sds.total_load + sgs.v.group_load;
  sds.total_capacity = sds.total_capacity + sgs.v.group_capacity;
}

// The domain's flags and the balancing CPU's state that the verdict reads.
template <class V> struct ImbalanceEnvT {
  typename LbRepr<V>::Idle idle = lb_enum<V>(CpuIdleType::not_idle);
  uint32_t imbalance_pct = 117;
  LbBool<V> share_pkg_resources = lb_bool<V>(false);  // SD_SHARE_PKG_RESOURCES
  LbBool<V> numa = lb_bool<V>(false);                 // SD_NUMA
};
using ImbalanceEnv = ImbalanceEnvT<uint64_t>;
template <class V> struct ImbalanceT {
  typename LbRepr<V>::Migration type = lb_enum<V>(MigrationType::load);
  typename LbRepr<V>::Long imbalance = lb_long(V(0));  // env->imbalance (long)
};
using Imbalance = ImbalanceT<uint64_t>;

template <class C, class V> ImbalanceT<V> select(const C& c, const ImbalanceT<V>& a, const ImbalanceT<V>& b) {
  return {select(c, a.type, b.type), select(c, a.imbalance, b.imbalance)};
}

// calculate_imbalance (kernel/sched/fair.c v5.15): a misfit group moves its
// misfit task (migrate_misfit, 1), an asym_packing group all its tasks
// (migrate_task, sum_h_nr_running). Fills local's avg_load and sds.avg_load where the kernel does (a
// symbolic V: wherever its load path is taken).
// (local - busiest idle CPUs) is unsigned int, as in v5.15: with more idle
// CPUs in busiest it wraps to about 2^31 tasks (max_t(long, 0, ...) does not
// catch it); find_busiest_group lets that case through only where a domain
// has no prefer_sibling and the local group has spare capacity but fewer
// idle CPUs (docs/balancing.md).
template <class V>
ImbalanceT<V> calculate_imbalance(const std::type_identity_t<ImbalanceEnvT<V>>& env, SdLbStatsT<V>& sds) {
  using I = ImbalanceT<V>;
  SgLbStatsT<V>& local = sds.local;
  const SgLbStatsT<V>& busiest = sds.busiest;
  const auto g = [](GroupType t) { return lb_enum<V>(t); };
  const auto m = [](MigrationType t) { return lb_enum<V>(t); };
  const auto imbalanced = busiest.type == g(GroupType::imbalanced);
  const auto spare = local.type == g(GroupType::has_spare);
  const auto spare_case = [&] {
    const auto util_path = busiest.type > g(GroupType::fully_busy) && !env.share_pkg_resources;
    const V util = max(local.v.group_capacity, local.v.group_util) - local.v.group_util;
    const auto one_task = env.idle != lb_enum<V>(CpuIdleType::not_idle) && util == V(0);
    // unsigned int nr_diff = busiest's; lsub_positive(&nr_diff, local's)
    const V nr_busiest = busiest.v.sum_nr_running & V(0xffffffffu);
    const V nr_half = (nr_busiest - min(nr_busiest, local.v.sum_nr_running & V(0xffffffffu))) >> V(1);
    const V idle_half = ((local.v.idle_cpus - busiest.v.idle_cpus) & V(0xffffffffu)) >> V(1);
    const V tasks = select(busiest.v.group_weight == V(1) || sds.prefer_sibling, nr_half, idle_half);
    // SD_NUMA: adjust_numa_imbalance, a small imbalance stays while the local group is mostly idle
    const auto numa_keeps = env.numa && tasks <= V(2) &&
                            allow_numa_imbalance<V>(local.v.sum_nr_running + V(1), local.v.group_weight);
    return I{select(util_path && !one_task, m(MigrationType::util), m(MigrationType::task)),
             lb_long(select(util_path, select(one_task, V(1), util), select(numa_keeps, V(0), tasks)))};
  };
  const auto load_case = [&] {
    const auto below = !imbalanced && !spare && local.type < g(GroupType::overloaded);
    local.v.avg_load = select_lazy(
        below, [&] { return local.v.group_load * V(kSchedCapacityScale) / local.v.group_capacity; },
        [&] { return local.v.avg_load; });
    sds.avg_load = select_lazy(
        below, [&] { return sds.total_load * V(kSchedCapacityScale) / sds.total_capacity; },
        [&] { return sds.avg_load; });
    const auto none = below && local.v.avg_load >= busiest.v.avg_load;
    const V from_busiest = (busiest.v.avg_load - sds.avg_load) * busiest.v.group_capacity;
    const V to_local = (sds.avg_load - local.v.avg_load) * local.v.group_capacity;
    return I{m(MigrationType::load),
             lb_long(select(none, V(0), min(from_busiest, to_local) / V(kSchedCapacityScale)))};
  };
  return select_lazy(
      busiest.type == g(GroupType::misfit_task), [&] { return I{m(MigrationType::misfit), lb_long(V(1))}; },
      [&] {
        return select_lazy(
            busiest.type == g(GroupType::asym_packing),
            [&] { return I{m(MigrationType::task), lb_long(busiest.v.sum_h_nr_running)}; },
            [&] {
              return select_lazy(
                  imbalanced, [&] { return I{m(MigrationType::task), lb_long(V(1))}; },
                  [&] { return select_lazy(spare, spare_case, load_case); });
            });
      });
}

// find_busiest_group's verdict (kernel/sched/fair.c v5.15) once
// update_sd_lb_stats has run: the imbalance to move (0: balanced).
template <class V>
ImbalanceT<V> find_busiest_group_verdict(const std::type_identity_t<ImbalanceEnvT<V>>& env, SdLbStatsT<V>& sds) {
  const SgLbStatsT<V>& local = sds.local;
  const SgLbStatsT<V>& busiest = sds.busiest;
  const auto g = [](GroupType t) { return lb_enum<V>(t); };
  // a misfit, asym_packing or imbalanced busiest group forces the balance
  const auto forced = busiest.type == g(GroupType::imbalanced) || busiest.type == g(GroupType::misfit_task) ||
                      busiest.type == g(GroupType::asym_packing);
  const auto lighter = local.type > busiest.type;
  const auto local_overloaded = local.type == g(GroupType::overloaded);
  const auto heavier = local.v.avg_load >= busiest.v.avg_load;
  sds.avg_load = select_lazy(
      sds.has_busiest && !forced && !lighter && local_overloaded && !heavier,
      [&] { return sds.total_load * V(kSchedCapacityScale) / sds.total_capacity; }, [&] { return sds.avg_load; });
  const auto overloaded_out = local_overloaded && (heavier || local.v.avg_load >= sds.avg_load ||
                                                   V(100) * busiest.v.avg_load <= V(env.imbalance_pct) * local.v.avg_load);
  const auto force = sds.prefer_sibling && local.type == g(GroupType::has_spare) &&
                     busiest.v.sum_nr_running > local.v.sum_nr_running + V(1);
  const auto busy_out = !force && busiest.type != g(GroupType::overloaded) &&
                        (env.idle == lb_enum<V>(CpuIdleType::not_idle) ||
                         (busiest.v.group_weight > V(1) && local.v.idle_cpus <= busiest.v.idle_cpus + V(1)) ||
                         busiest.v.sum_h_nr_running == V(1));
  const auto balanced = !sds.has_busiest || (!forced && (lighter || overloaded_out || busy_out));
  return select_lazy(balanced, [] { return ImbalanceT<V>{}; }, [&] { return calculate_imbalance(env, sds); });
}

// newidle_balance's test after each domain (kernel/sched/fair.c v5.15): the
// walk stops after a pull, or, with seed 002's patch (v3.13+;
// stop_on_runnable), once the rq has a runnable task.
template <class V> auto newidle_walk_stops(const V& pulled_task, const V& nr_running, bool stop_on_runnable) {
  const auto pulled = pulled_task != V(0);
  return stop_on_runnable ? (pulled || nr_running != V(0)) : pulled;
}

// detach_tasks' test of one task's load against what is left of
// env->imbalance (kernel/sched/fair.c v5.15, migrate_load; LB_MIN off):
// shr_bound(load, nr_balance_failed) <= imbalance. The loop tests only while
// the imbalance is positive, where the kernel's long compares as unsigned.
template <class V> auto detach_load_fits(const V& load, const V& nr_balance_failed, const V& imbalance) {
  return (load >> min(nr_balance_failed, V(63))) <= imbalance;
}
// The same test in era 1 (kernel/sched/fair.c v4.4): load / 2 <= imbalance.
template <class V> auto detach_load_fits_v4(const V& load, const V& imbalance) { return load / V(2) <= imbalance; }

// shr_bound (kernel/sched/fair.c v5.15): val >> shift, the shift capped at 63.
inline uint64_t shr_bound(uint64_t val, unsigned shift) { return val >> std::min(shift, 63u); }

}  // namespace cfsv
