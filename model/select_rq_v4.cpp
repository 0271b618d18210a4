// Task placement of era 1 (feature placement_v4_4 with kernel_placement;
// profiles v4.4 and, with placement_v3_10, v3.10): select_task_rq_fair of
// kernel/sched/fair.c v4.4 and v3.10, their wake_affine (the cpu_load[]
// indexes and effective_load), the old select_idle_sibling (an idle group
// from the LLC domain down) and the find_idlest_group / find_idlest_cpu walk.
// docs/placement.md, "Placement in era 1".
#include <climits>
#include <utility>
#include <cstdint>

#include "arith/placement.h"
#include "balance_lb.h"
#include "fair_cpu.h"
#include "select_rq.h"

namespace cfsv {

namespace {

using F = SdFlag;

// select_idle_sibling (kernel/sched/fair.c v3.10, v4.4): target when idle;
// prev when it shares target's cache and is idle; else, from target's LLC
// domain down, the first group (round from target's own) that p may run in
// whose CPUs are all idle and not target: its first CPU p may run on.
CpuId select_idle_sibling_v4(const Sched& s, const Task& t, CpuId prev, CpuId target) {
  if (idle_cpu(s, target)) return target;
  if (prev != target && cpus_share_cache(s, prev, target) && idle_cpu(s, prev)) return prev;
  for (int l = s.topo.llc_level[target]; l >= 0; --l)  // for_each_lower_domain(sd_llc)
    for (const SchedGroup& g : s.topo.sd[target][static_cast<std::size_t>(l)].groups) {
      if (!intersects_allowed(t, g.span)) continue;
      bool idle = true;
      for (const CpuId i : each_cpu(g.span)) idle = idle && i != target && idle_cpu(s, i);
      if (!idle) continue;
      for (const CpuId i : each_cpu(g.span))
        if (cpu_allowed(t, i)) return i;
    }
  return target;
}

// find_idlest_group (kernel/sched/fair.c v3.10, v4.4): the group p may run
// in of the least load per capacity, its CPUs' target_load of the index (the
// local group's source_load); none when the local group is within half the
// domain's imbalance_pct of it.
const SchedGroup* find_idlest_group_v4(const Sched& s, const SchedDomain& sd, const Task& t, CpuId this_cpu,
                                       unsigned load_idx) {
  const SchedGroup* idlest = nullptr;
  uint64_t min_load = ULONG_MAX, this_load = 0;
  const uint64_t imbalance = 100 + (sd.imbalance_pct - 100) / 2;
  for (const SchedGroup& g : sd.groups) {
    if (!intersects_allowed(t, g.span)) continue;
    const bool local_group = g.span.test(this_cpu.index());
    uint64_t avg_load = 0;
    for (const CpuId i : each_cpu(g.span)) avg_load += lb::biased_load(s, i, load_idx, !local_group);
    avg_load = avg_load * 1024 / g.capacity;  // SCHED_CAPACITY_SCALE / sgc->capacity
    if (local_group) this_load = avg_load;
    else if (avg_load < min_load) min_load = avg_load, idlest = &g;
  }
  return !idlest || 100 * this_load < imbalance * min_load ? nullptr : idlest;
}

// find_idlest_cpu (kernel/sched/fair.c v4.4; no cpuidle states): of the
// group's CPUs p may run on, the idle one idled most recently (rq->idle_stamp),
// else the least weighted_cpuload, this_cpu among equals. v3.10: the least
// weighted_cpuload, idle or not; none when p may run on none.
CpuId find_idlest_cpu_v4(const Sched& s, const SchedGroup& g, const Task& t, CpuId this_cpu, bool v3) {
  uint64_t min_load = ULONG_MAX;
  Nanos latest_idle_timestamp = 0;
  CpuId least_loaded_cpu = v3 ? CpuId{} : this_cpu, shallowest_idle_cpu;
  for (const CpuId i : each_cpu(g.span)) {
    if (!cpu_allowed(t, i)) continue;
    if (!v3 && idle_cpu(s, i)) {
      if (idle_stamp_of(s, i) > latest_idle_timestamp) latest_idle_timestamp = idle_stamp_of(s, i), shallowest_idle_cpu = i;
    } else if (!shallowest_idle_cpu) {
      const uint64_t load = lb::weighted_cpuload(s, i);
      if (load < min_load || (load == min_load && i == this_cpu)) min_load = load, least_loaded_cpu = i;
    }
  }
  return shallowest_idle_cpu ? shallowest_idle_cpu : least_loaded_cpu;
}

// effective_load (kernel/sched/fair.c v4.4; v3.10): the change in the root's
// load on cpu when wl is added to the group tg there and wg to its total,
// passed up one level at a time (effective_load_level), wg only at the first.
int64_t effective_load(const Sched& s, GroupId tg, CpuId cpu, int64_t wl, int64_t wg, bool v3) {
  if (!s.tg[tg].parent) return wl;
  for (EntityId se = s.tg[tg].se[cpu]; se; se = s.se[se].parent, wg = 0) {
    const CfsRq& q = s.cfs[s.se[se].my_q];
    const TaskGroup& g = s.tg[q.tg];
    wl = effective_load_level(wl, wg, static_cast<int64_t>(v3 ? q.load_weight : q.pelt.avg.load_avg),
                              static_cast<int64_t>(g.load_avg), static_cast<int64_t>(q.pelt.tg_load_avg_contrib),
                              static_cast<int64_t>(g.shares),
                              static_cast<int64_t>(v3 ? s.se[se].load.weight : s.se[se].pelt.avg.load_avg));
  }
  return wl;
}

}  // namespace

bool wake_affine_v4(const Sched& s, const SchedDomain& sd, TaskId task, CpuId this_cpu, CpuId prev_cpu, bool sync) {
  const bool v3 = s.era.placement_v3;
  auto load = static_cast<int64_t>(lb::biased_load(s, prev_cpu, sd.wake_idx, false));      // source_load
  auto this_load = static_cast<int64_t>(lb::biased_load(s, this_cpu, sd.wake_idx, true));  // target_load
  // An entity's weight as its era's wake_affine reads it, and its group.
  const auto weight_of = [&](const SchedEntity& e) {
    return std::pair{static_cast<int64_t>(v3 ? e.load.weight : e.pelt.avg.load_avg), s.cfs[e.cfs_rq].tg};
  };
  if (sync) {  // the waker (running on this_cpu, a task: the ttwu op's rule) leaves both CPUs' loads
    const auto [w, wtg] = weight_of(s.se[s.tasks[s.rq[this_cpu].curr].se]);
    this_load += effective_load(s, wtg, this_cpu, -w, -w, v3);
    load += effective_load(s, wtg, prev_cpu, 0, -w, v3);
  }
  const auto [weight, tg] = weight_of(s.se[s.tasks[task].se]);
  int64_t this_eff_load = 100 * static_cast<int64_t>(capacity_of(s, prev_cpu));
  int64_t prev_eff_load = (100 + (static_cast<int64_t>(sd.imbalance_pct) - 100) / 2) * static_cast<int64_t>(capacity_of(s, this_cpu));
  if (this_load > 0) {
    this_eff_load *= this_load + effective_load(s, tg, this_cpu, weight, weight, v3);
    prev_eff_load *= load + effective_load(s, tg, prev_cpu, 0, weight, v3);
  }
  const bool balanced = this_eff_load <= prev_eff_load || (v3 && this_load <= 0);
  if (!v3) return balanced;
  // v3.10: also when this_cpu is no busier and both loads fit in its average task.
  const auto tl_per_task = static_cast<int64_t>(lb::cpu_avg_load_per_task(s, this_cpu));
  return balanced || (this_load <= load &&
                      this_load + static_cast<int64_t>(lb::biased_load(s, prev_cpu, sd.wake_idx, true)) <= tl_per_task);
}

CpuId select_task_rq_fair_v4(Sched& s, TaskId task, CpuId prev_cpu, CpuId this_cpu, WakeKind kind, bool sync) {
  const bool v3 = s.era.placement_v3, wake = kind == WakeKind::ttwu;
  const Task& t = s.tasks[task];
  const SdFlag sd_flag = wake ? F::BALANCE_WAKE : F::BALANCE_FORK;
  CpuId cpu = this_cpu, new_cpu = v3 && !wake ? this_cpu : prev_cpu;
  const bool want_affine = wake && (v3 || !count_wake_wide(s, cpu, task)) && cpu_allowed(t, cpu);  // v3.10: no wake_wide
  std::ptrdiff_t sd = -1, affine_sd = -1;
  const auto& doms = s.topo.sd[cpu];
  for (std::size_t l = 0; l < doms.size(); ++l) {
    if (want_affine && doms[l].flags.has(F::WAKE_AFFINE) && doms[l].span.test(prev_cpu.index())) {
      affine_sd = static_cast<std::ptrdiff_t>(l);
      break;
    }
    if (doms[l].flags.has(sd_flag)) sd = static_cast<std::ptrdiff_t>(l);
    else if (!v3 && !want_affine) break;
  }
  if (affine_sd >= 0) {
    const bool affine =
        cpu != prev_cpu &&
        count_wake_affine(s, cpu, wake_affine_v4(s, doms[static_cast<std::size_t>(affine_sd)], task, cpu, prev_cpu, sync) ? cpu : prev_cpu) == cpu;
    if (v3) return select_idle_sibling_v4(s, t, t.cpu, affine ? cpu : prev_cpu);
    if (affine) new_cpu = cpu;
    sd = -1;  // prefer wake_affine over the balance flags
  }
  if (sd < 0) return wake && !v3 ? select_idle_sibling_v4(s, t, t.cpu, new_cpu) : new_cpu;
  return walk_idlest(
      s, cpu, sd, sd_flag, new_cpu,
      [&](const SchedDomain& d, CpuId c) { return find_idlest_group_v4(s, d, t, c, wake ? d.wake_idx : d.forkexec_idx); },
      [&](const SchedGroup& g, CpuId c) { return find_idlest_cpu_v4(s, g, t, c, v3); });
}

}  // namespace cfsv
