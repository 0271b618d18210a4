// Pure arithmetic of load balancing (kernel/sched/fair.c v5.15): the group
// classification, the busiest-group choice and verdict of find_busiest_group,
// and calculate_imbalance, over the figures update_sg_lb_stats gathers. In the
// kernel's C types (unsigned long, unsigned int, long), wraps included.
// docs/balancing.md, "Load balancing".
#pragma once
#include <algorithm>
#include <cstdint>

#include "pelt_tables.h"  // kSchedCapacityScale
#include "placement.h"

namespace cfsv {

// enum group_type (kernel/sched/fair.c v5.15), in its order: a higher type pulls first.
enum class GroupType : uint8_t { has_spare, fully_busy, misfit_task, asym_packing, imbalanced, overloaded };
// enum migration_type (kernel/sched/fair.c v5.15)
enum class MigrationType : uint8_t { load, util, task, misfit };
// enum cpu_idle_type (include/linux/sched/idle.h v5.15)
enum class CpuIdleType : uint8_t { idle, not_idle, newly_idle };

// group_classify (kernel/sched/fair.c v5.15); the model has no asym packing
// and no misfit tasks (docs/balancing.md). imbalanced: sgc->imbalance.
inline GroupType group_classify(uint64_t imbalance_pct, bool imbalanced, const SgWakeupStats<uint64_t>& sgs) {
  if (group_is_overloaded(imbalance_pct, sgs)) return GroupType::overloaded;
  if (imbalanced) return GroupType::imbalanced;
  if (!group_has_capacity(imbalance_pct, sgs)) return GroupType::fully_busy;
  return GroupType::has_spare;
}

// struct sg_lb_stats: the figures, and the group's type.
struct SgLbStats {
  SgWakeupStats<uint64_t> v;
  GroupType type = GroupType::has_spare;
};

// struct sd_lb_stats (kernel/sched/fair.c v5.15), as init_sd_lb_stats leaves
// it: the worst busiest group (idle_cpus UINT_MAX) until one is picked.
struct SdLbStats {
  bool has_busiest = false;
  SgLbStats local, busiest{{.idle_cpus = UINT32_MAX}, GroupType::has_spare};
  uint64_t total_load = 0, total_capacity = 0, avg_load = 0;
  bool prefer_sibling = false;
};

// update_sd_pick_busiest (kernel/sched/fair.c v5.15), without misfit and asym
// packing: whether sgs is busier than the busiest so far.
inline bool update_sd_pick_busiest(const SdLbStats& sds, const SgLbStats& sgs) {
  const SgLbStats& busiest = sds.busiest;
  if (!sgs.v.sum_h_nr_running) return false;
  if (sgs.type != busiest.type) return sgs.type > busiest.type;
  switch (sgs.type) {
    case GroupType::overloaded:
    case GroupType::fully_busy: return sgs.v.avg_load > busiest.v.avg_load;
    case GroupType::imbalanced: return false;
    case GroupType::has_spare:
      if (sgs.v.idle_cpus != busiest.v.idle_cpus) return sgs.v.idle_cpus < busiest.v.idle_cpus;
      return sgs.v.sum_nr_running > busiest.v.sum_nr_running;
    case GroupType::misfit_task:
    case GroupType::asym_packing: break;
  }
  return true;
}

// The domain's flags and the balancing CPU's state that the verdict reads.
struct ImbalanceEnv {
  CpuIdleType idle = CpuIdleType::not_idle;
  uint32_t imbalance_pct = 117;
  bool share_pkg_resources = false;  // SD_SHARE_PKG_RESOURCES
  bool numa = false;                 // SD_NUMA
};
struct Imbalance {
  MigrationType type = MigrationType::load;
  int64_t imbalance = 0;  // env->imbalance (long)
};

// calculate_imbalance (kernel/sched/fair.c v5.15), without misfit and asym
// packing. Fills local's avg_load and sds.avg_load where the kernel does.
// (local - busiest idle CPUs) is unsigned int, as in v5.15: with more idle
// CPUs in busiest it wraps to about 2^31 tasks (max_t(long, 0, ...) does not
// catch it); find_busiest_group lets that case through only where a domain
// has no prefer_sibling and the local group has spare capacity but fewer
// idle CPUs (docs/balancing.md).
inline Imbalance calculate_imbalance(const ImbalanceEnv& env, SdLbStats& sds) {
  SgLbStats& local = sds.local;
  const SgLbStats& busiest = sds.busiest;
  if (busiest.type == GroupType::imbalanced) return {MigrationType::task, 1};
  if (local.type == GroupType::has_spare) {
    if (busiest.type > GroupType::fully_busy && !env.share_pkg_resources) {
      Imbalance r{MigrationType::util,
                  static_cast<int64_t>(std::max(local.v.group_capacity, local.v.group_util) - local.v.group_util)};
      if (env.idle != CpuIdleType::not_idle && r.imbalance == 0) r = {MigrationType::task, 1};
      return r;
    }
    Imbalance r{MigrationType::task, 0};
    if (busiest.v.group_weight == 1 || sds.prefer_sibling) {
      uint32_t nr_diff = static_cast<uint32_t>(busiest.v.sum_nr_running);
      nr_diff -= std::min(nr_diff, static_cast<uint32_t>(local.v.sum_nr_running));  // lsub_positive
      r.imbalance = nr_diff >> 1;
    } else {
      const uint32_t diff = static_cast<uint32_t>(local.v.idle_cpus) - static_cast<uint32_t>(busiest.v.idle_cpus);
      r.imbalance = std::max<int64_t>(0, diff >> 1);
    }
    // adjust_numa_imbalance: a small imbalance stays while the local group is mostly idle
    if (env.numa && allow_numa_imbalance<uint64_t>(local.v.sum_nr_running + 1, local.v.group_weight) &&
        r.imbalance <= 2)
      r.imbalance = 0;
    return r;
  }
  if (local.type < GroupType::overloaded) {
    local.v.avg_load = local.v.group_load * kSchedCapacityScale / local.v.group_capacity;
    sds.avg_load = sds.total_load * kSchedCapacityScale / sds.total_capacity;
    if (local.v.avg_load >= busiest.v.avg_load) return {MigrationType::load, 0};
  }
  const uint64_t from_busiest = (busiest.v.avg_load - sds.avg_load) * busiest.v.group_capacity;
  const uint64_t to_local = (sds.avg_load - local.v.avg_load) * local.v.group_capacity;
  return {MigrationType::load, static_cast<int64_t>(std::min(from_busiest, to_local) / kSchedCapacityScale)};
}

// find_busiest_group's verdict (kernel/sched/fair.c v5.15) once
// update_sd_lb_stats has run: the imbalance to move (0: balanced).
inline Imbalance find_busiest_group_verdict(const ImbalanceEnv& env, SdLbStats& sds) {
  SgLbStats& local = sds.local;
  const SgLbStats& busiest = sds.busiest;
  const Imbalance balanced{MigrationType::load, 0};
  if (!sds.has_busiest) return balanced;
  if (busiest.type == GroupType::imbalanced) return calculate_imbalance(env, sds);
  if (local.type > busiest.type) return balanced;
  if (local.type == GroupType::overloaded) {
    if (local.v.avg_load >= busiest.v.avg_load) return balanced;
    sds.avg_load = sds.total_load * kSchedCapacityScale / sds.total_capacity;
    if (local.v.avg_load >= sds.avg_load) return balanced;
    if (100 * busiest.v.avg_load <= env.imbalance_pct * local.v.avg_load) return balanced;
  }
  const bool force = sds.prefer_sibling && local.type == GroupType::has_spare &&
                     busiest.v.sum_nr_running > local.v.sum_nr_running + 1;
  if (!force && busiest.type != GroupType::overloaded) {
    if (env.idle == CpuIdleType::not_idle) return balanced;
    if (busiest.v.group_weight > 1 && local.v.idle_cpus <= busiest.v.idle_cpus + 1) return balanced;
    if (busiest.v.sum_h_nr_running == 1) return balanced;
  }
  return calculate_imbalance(env, sds);
}

// shr_bound (kernel/sched/fair.c v5.15): val >> shift, the shift capped at 63.
inline uint64_t shr_bound(uint64_t val, unsigned shift) { return val >> std::min(shift, 63u); }

}  // namespace cfsv
