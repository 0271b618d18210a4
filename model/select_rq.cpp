// Task placement, v5.15 (kernel/sched/fair.c, kernel/sched/core.c).
// docs/placement.md lists what is simplified.
#include "select_rq.h"

#include <algorithm>
#include <climits>
#include <utility>

#include "arith/balance.h"
#include "balance_lb.h"
#include "fair_cpu.h"
#include "pelt.h"

namespace cfsv {

namespace {

using F = SdFlag;

// The modelled cost of probing one CPU in select_idle_cpu: the kernel times the
// scan with cpu_clock; the model charges this per CPU examined.
constexpr Nanos kSisScanCostPerCpuNs = 50;

struct WakeupStats {
  SgWakeupStats<uint64_t> v;
  GroupType type = GroupType::overloaded;
  unsigned max_capacity = 0;  // the group's sgc->max_capacity
};

const Task& task_of(const Sched& s, TaskId t) { return s.tasks[t]; }
bool task_has_avg(const Sched& s, TaskId t) { return s.se[s.tasks[t].se].pelt.avg.last_update_time != 0; }

uint64_t lsub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

bool sched_smt_active(const Sched& s) { return s.topo.smt_active; }

CpuId first_allowed(const Sched& s, const Task& t) {
  for (const CpuId c : s.rq.ids())
    if (cpu_allowed(t, c)) return c;
  return CpuId(0);  // unreachable: the model refuses an affinity with no CPU
}

CpuId sd_llc_id(const Sched& s, CpuId cpu) { return s.topo.llc_id[cpu]; }

// set_idle_cores / test_idle_cores (kernel/sched/fair.c v5.15): sd_llc_shared->has_idle_cores.
void set_idle_cores(Sched& s, CpuId cpu, bool val) {
  if (sd_llc(s, cpu)) s.rq[sd_llc_id(s, cpu)].has_idle_cores = val;
}
bool test_idle_cores(const Sched& s, CpuId cpu, bool def) {
  return sd_llc(s, cpu) ? s.rq[sd_llc_id(s, cpu)].has_idle_cores : def;
}

// cpu_load_without (kernel/sched/fair.c v5.15)
uint64_t cpu_load_without(const Sched& s, CpuId cpu, TaskId p) {
  if (cpu != task_of(s, p).cpu || !task_has_avg(s, p)) return cpu_load(s, cpu);
  return lsub(root_cfs_rq(s, cpu).pelt.avg.load_avg, task_h_load(s, p));
}
// cpu_util_without (kernel/sched/fair.c v5.15): with UTIL_EST, the queued
// tasks' estimates less p's own when p is queued or running, if more.
uint64_t cpu_util_without(const Sched& s, CpuId cpu, TaskId p) {
  if (cpu != task_of(s, p).cpu || !task_has_avg(s, p)) return cpu_util(s, cpu);
  const CfsRqPelt& rq = root_cfs_rq(s, cpu).pelt;
  uint64_t util = lsub(rq.avg.util_avg, task_util(s, p));
  if (s.features[Feature::util_est]) {
    const bool counted = s.se[task_of(s, p).se].on_rq || s.rq[cpu].curr == p;
    util = std::max(util, counted ? lsub(rq.util_est_enqueued, task_util_est_only(s, p)) : rq.util_est_enqueued);
  }
  return std::min<uint64_t>(util, capacity_orig_of(s, cpu));
}
// cpu_runnable_without (kernel/sched/fair.c v5.15)
uint64_t cpu_runnable_without(const Sched& s, CpuId cpu, TaskId p) {
  if (cpu != task_of(s, p).cpu || !task_has_avg(s, p)) return cpu_runnable(s, cpu);
  return lsub(root_cfs_rq(s, cpu).pelt.avg.runnable_avg, s.se[task_of(s, p).se].pelt.avg.runnable_avg);
}
// task_running_on_cpu (kernel/sched/fair.c v5.15)
uint32_t task_running_on_cpu(const Sched& s, CpuId cpu, TaskId p) {
  if (cpu != task_of(s, p).cpu || !task_has_avg(s, p)) return 0;
  return task_on_rq_queued(task_of(s, p)) ? 1 : 0;
}
// idle_cpu_without (kernel/sched/fair.c v5.15): no ttwu is ever pending in
// the model; a CPU in a newidle walk after a task blocked still has that task
// as rq->curr (newidle_after_task).
bool idle_cpu_without(const Sched& s, CpuId cpu, TaskId p) {
  const TaskId curr = s.rq[cpu].curr;
  return curr == p || (curr == kIdle && !newidle_after_task(s, cpu));
}

// update_sg_wakeup_stats (kernel/sched/fair.c v5.15). SD_ASYM_CPUCAPACITY:
// misfit (group_misfit_task_load 1) when p fits none of the group's CPUs.
WakeupStats update_sg_wakeup_stats(const Sched& s, const SchedDomain& sd, const SchedGroup& g, TaskId p) {
  WakeupStats w;
  SgWakeupStats<uint64_t>& sgs = w.v;
  bool misfit = sd.flags.has(F::ASYM_CPUCAPACITY);
  for (const CpuId i : s.rq.ids()) {
    if (!g.span.test(i.index())) continue;
    sgs.group_load += cpu_load_without(s, i, p);
    sgs.group_util += cpu_util_without(s, i, p);
    sgs.group_runnable += cpu_runnable_without(s, i, p);
    const uint32_t local = task_running_on_cpu(s, i, p);
    sgs.sum_h_nr_running += root_cfs_rq(s, i).h_nr_running - local;
    const uint32_t nr_running = rq_nr_running(s, i) - local;
    sgs.sum_nr_running += nr_running;
    if (!nr_running && idle_cpu_without(s, i, p)) sgs.idle_cpus++;
    if (misfit && task_fits_cpu(s, p, i)) misfit = false;
  }
  sgs.group_capacity = g.capacity;
  sgs.group_weight = g.span.count();
  w.max_capacity = g.max_capacity;
  w.type = group_classify(sd.imbalance_pct, s.lb.group_imbalanced(sd.level, g.id, s.nr_cpus()), sgs, misfit);
  if (w.type == GroupType::fully_busy || w.type == GroupType::overloaded)
    sgs.avg_load = sgs.group_load * kSchedCapacityScale / sgs.group_capacity;
  return w;
}

// update_pick_idlest (kernel/sched/fair.c v5.15), the types the model has.
bool update_pick_idlest(const WakeupStats& idlest, const WakeupStats& sgs) {
  if (sgs.type != idlest.type) return sgs.type < idlest.type;
  if (sgs.type == GroupType::misfit_task) return idlest.max_capacity < sgs.max_capacity;
  if (sgs.type == GroupType::has_spare) {
    if (idlest.v.idle_cpus > sgs.v.idle_cpus) return false;
    return !(idlest.v.idle_cpus == sgs.v.idle_cpus && idlest.v.group_util <= sgs.v.group_util);
  }
  return idlest.v.avg_load > sgs.v.avg_load;  // overloaded, fully busy: the lowest avg_load
}

// find_idlest_group_cpu (kernel/sched/fair.c v5.15): no cpuidle states (idle_get_state is NULL);
// the first CPU running only SCHED_IDLE tasks (sched_idle_cpu) at once.
CpuId find_idlest_group_cpu(const Sched& s, const SchedGroup& g, TaskId p, CpuId this_cpu) {
  if (g.span.count() == 1) return cpumask_first(g.span);
  uint64_t min_load = ULONG_MAX;
  Nanos latest_idle_timestamp = 0;
  CpuId least_loaded_cpu = this_cpu, shallowest_idle_cpu;
  for (const CpuId i : s.rq.ids()) {
    if (!g.span.test(i.index()) || !cpu_allowed(task_of(s, p), i)) continue;
    if (sched_idle_cpu(s, i)) return i;
    if (available_idle_cpu(s, i)) {
      if (idle_stamp_of(s, i) > latest_idle_timestamp) {
        latest_idle_timestamp = idle_stamp_of(s, i);
        shallowest_idle_cpu = i;
      }
    } else if (!shallowest_idle_cpu) {
      const uint64_t load = cpu_load(s, i);
      if (load < min_load) min_load = load, least_loaded_cpu = i;
    }
  }
  return shallowest_idle_cpu ? shallowest_idle_cpu : least_loaded_cpu;
}

// __select_idle_cpu (kernel/sched/fair.c v5.15): no core scheduling.
CpuId select_idle_cpu_one(const Sched& s, CpuId cpu) { return idle_or_sched_idle(s, cpu) ? cpu : CpuId{}; }

// select_idle_core (kernel/sched/fair.c v5.15, CONFIG_SCHED_SMT)
CpuId select_idle_core(const Sched& s, const Task& t, CpuId core, CpuMask& cpus, CpuId& idle_cpu) {
  if (!sched_smt_active(s)) return select_idle_cpu_one(s, core);
  bool idle = true;
  const CpuMask& smt = s.topo.smt_mask[core];
  for (const CpuId c : each_cpu(smt)) {
    if (!available_idle_cpu(s, c)) {
      idle = false;
      if (idle_cpu) break;
      if (sched_idle_cpu(s, c) && cpu_allowed(t, c)) {
        idle_cpu = c;
        break;
      }
      continue;
    }
    if (!idle_cpu && cpu_allowed(t, c)) idle_cpu = c;
  }
  if (idle) return core;
  cpus &= ~smt;
  return CpuId{};
}

// select_idle_smt (kernel/sched/fair.c v5.15)
CpuId select_idle_smt(const Sched& s, const Task& t, const SchedDomain& sd, CpuId target) {
  const CpuMask& smt = s.topo.smt_mask[target];
  for (const CpuId c : each_cpu(smt)) {
    if (!cpu_allowed(t, c) || !sd.span.test(c.index())) continue;
    if (idle_or_sched_idle(s, c)) return c;
  }
  return CpuId{};
}

// select_idle_cpu (kernel/sched/fair.c v5.15), SIS_PROP with the modelled scan cost.
CpuId select_idle_cpu(Sched& s, const Task& t, const SchedDomain& sd, bool has_idle_core, CpuId target,
                      CpuId this_cpu) {
  if (!sd_llc(s, this_cpu)) return CpuId{};
  CpuMask cpus = sd.span;
  if (t.allowed.any()) cpus &= t.allowed;
  Rq& this_rq = s.rq[this_cpu];
  uint64_t nr = UINT64_MAX;
  if (!has_idle_core) {
    const uint64_t now = s.now / s.tun.tick_ns();
    while (this_rq.wake_stamp < now && this_rq.wake_avg_idle) {
      this_rq.wake_stamp++;
      this_rq.wake_avg_idle >>= 1;
    }
    nr = sis_prop_nr<uint64_t>(sd.span_weight, this_rq.wake_avg_idle, this_rq.avg_scan_cost);
  }
  CpuId idle_cpu;
  uint64_t probed = 0;
  // for_each_cpu_wrap(cpu, cpus, target + 1): the CPUs after target, then
  // from 0 to target; cpus is read as it goes (select_idle_core clears cores).
  const std::size_t start = target.index() + 1;
  bool wrapped = false;
  for (std::size_t bit = cpus._Find_next(target.index());; bit = cpus._Find_next(bit)) {
    if (bit >= cpus.size()) {
      if (wrapped || (bit = cpus._Find_first()) >= cpus.size()) break;
      wrapped = true;
    }
    if (wrapped && bit >= start) break;
    const CpuId cpu(bit);
    if (has_idle_core) {
      if (const CpuId i = select_idle_core(s, t, cpu, cpus, idle_cpu)) return i;
    } else {
      if (!--nr) return CpuId{};
      ++probed;
      idle_cpu = select_idle_cpu_one(s, cpu);
      if (idle_cpu) break;
    }
  }
  if (has_idle_core) set_idle_cores(s, target, false);
  if (!has_idle_core) {
    const Nanos time = probed * kSisScanCostPerCpuNs;
    this_rq.wake_avg_idle -= std::min(this_rq.wake_avg_idle, time);
    this_rq.avg_scan_cost = update_avg(this_rq.avg_scan_cost, time);
  }
  return idle_cpu;
}

// select_idle_capacity (kernel/sched/fair.c v5.15): of sd's CPUs p may run
// on, from target round, the first idle one that p fits, else the idle one
// of the largest capacity (the first found); none when none is idle.
CpuId select_idle_capacity(const Sched& s, TaskId p, const SchedDomain& sd, CpuId target) {
  const Task& t = task_of(s, p);
  const unsigned n = s.nr_cpus();
  uint64_t best_cap = 0;
  CpuId best;
  for (unsigned i = 0; i < n; ++i) {  // for_each_cpu_wrap(cpu, cpus, target)
    const CpuId c((target.index() + i) % n);
    if (!sd.span.test(c.index()) || !cpu_allowed(t, c) || !idle_or_sched_idle(s, c)) continue;
    if (task_fits_cpu(s, p, c)) return c;
    if (capacity_of(s, c) > best_cap) best_cap = capacity_of(s, c), best = c;
  }
  return best;
}

// wake_affine_idle (kernel/sched/fair.c v5.15)
CpuId wake_affine_idle(const Sched& s, CpuId this_cpu, CpuId prev_cpu, bool sync) {
  if (available_idle_cpu(s, this_cpu) && cpus_share_cache(s, this_cpu, prev_cpu))
    return available_idle_cpu(s, prev_cpu) ? prev_cpu : this_cpu;
  if (sync && rq_nr_running(s, this_cpu) == 1) return this_cpu;  // the waker alone there, about to sleep
  if (available_idle_cpu(s, prev_cpu)) return prev_cpu;
  return CpuId{};
}

// wake_affine_weight (kernel/sched/fair.c v5.15), WA_BIAS on; with sync, the
// waker is the task running on this_cpu.
CpuId wake_affine_weight(const Sched& s, const SchedDomain& sd, TaskId p, CpuId this_cpu, CpuId prev_cpu, bool sync) {
  const uint64_t current_load = sync ? task_h_load(s, s.rq[this_cpu].curr) : 0;
  const bool affine = wake_affine_weight_this<uint64_t>(cpu_load(s, this_cpu), cpu_load(s, prev_cpu), task_h_load(s, p),
                                                        capacity_of(s, this_cpu), capacity_of(s, prev_cpu),
                                                        sd.imbalance_pct, sync, current_load);
  return affine ? this_cpu : CpuId{};
}

// update_cfs_rq_h_load (kernel/sched/fair.c v4.4, v5.15): once a jiffy, cq's
// h_load from its parent's (the root's: its load_avg), recomputing the
// ancestors not yet computed this jiffy, top down; one computed this jiffy is
// used as it is, stale or not.
void update_cfs_rq_h_load(const Sched& s, CfsRqId cq) {
  const uint64_t now = jiffies(s);
  const CfsRq& c = s.cfs[cq];
  if (c.last_h_load_update == now) return;
  if (!c.group_se) {
    c.h_load = c.pelt.avg.load_avg;
  } else {
    const SchedEntity& gse = s.se[c.group_se];
    update_cfs_rq_h_load(s, gse.cfs_rq);
    const CfsRq& parent = s.cfs[gse.cfs_rq];
    c.h_load = parent.h_load * gse.pelt.avg.load_avg / (parent.pelt.avg.load_avg + 1);
  }
  c.last_h_load_update = now;
}

// The Overload-on-Wakeup fix of Lozi et al. (EuroSys 2016, on
// select_task_rq_fair of kernel/sched/fair.c v4.1; feature
// wasted_cores_wakeup_idle): a waking task goes to prev_cpu when its rq runs
// nothing, else to the allowed CPU running nothing that has idled longest
// (the oldest idle stamp), anywhere on the machine; none: the usual path.
// Only CPUs the task may run on (allowed and active) are candidates.
CpuId wakeup_longest_idle(const Sched& s, const Task& t, CpuId prev_cpu) {
  if (cpu_usable(s, t, prev_cpu) && rq_nr_running(s, prev_cpu) == 0) return prev_cpu;
  CpuId oldest;
  for (const CpuId c : s.rq.ids())
    if (cpu_usable(s, t, c) && rq_nr_running(s, c) == 0 && (!oldest || idle_stamp_of(s, c) < idle_stamp_of(s, oldest)))
      oldest = c;
  return oldest;
}

}  // namespace

// rq->idle_stamp when newidle balance left one, else when the CPU went idle
// (rq clock + 1: the kernel's clock is never 0 once booted).
Nanos idle_stamp_of(const Sched& s, CpuId cpu) {
  const Rq& r = s.rq[cpu];
  return r.idle_stamp ? r.idle_stamp : r.since + 1;
}

bool intersects_allowed(const Task& t, const CpuMask& span) { return t.allowed.none() ? span.any() : (span & t.allowed).any(); }

const SchedDomain* sd_llc(const Sched& s, CpuId cpu) {
  const int level = s.topo.llc_level[cpu];
  return level < 0 ? nullptr : &s.topo.sd[cpu][static_cast<std::size_t>(level)];
}

bool cpus_share_cache(const Sched& s, CpuId a, CpuId b) { return sd_llc_id(s, a) == sd_llc_id(s, b); }

const WakeeFlips& current_wakee(const Sched& s, CpuId cpu) {
  const Rq& rq = s.rq[cpu];
  if (rq.curr) return s.tasks[rq.curr].wakee;
  return rq.curr == kStopper ? rq.stopper_wakee : rq.idle_wakee;
}
WakeeFlips& current_wakee(Sched& s, CpuId cpu) {
  return const_cast<WakeeFlips&>(current_wakee(std::as_const(s), cpu));
}

void record_wakee(Sched& s, CpuId this_cpu, TaskId p) {
  WakeeFlips& w = current_wakee(s, this_cpu);
  const uint64_t now = jiffies(s);
  if (lb::time_after(now, w.decay_ts + s.tun.hz)) w.flips >>= 1, w.decay_ts = now;
  if (w.last != p) w.last = p, w.flips++;
}

bool count_wake_wide(Sched& s, CpuId this_cpu, TaskId p) {
  const bool wide = wake_wide(s, this_cpu, p);
  s.counters.wake_wide += wide;
  return wide;
}

CpuId count_wake_affine(Sched& s, CpuId this_cpu, CpuId chosen) {
  s.counters.wake_affine_calls++;
  s.counters.wake_affine_pulls += chosen == this_cpu;
  return chosen;
}

bool wake_wide(const Sched& s, CpuId this_cpu, TaskId p) {
  uint32_t master = current_wakee(s, this_cpu).flips, slave = s.tasks[p].wakee.flips;
  const SchedDomain* llc = sd_llc(s, this_cpu);
  const uint32_t factor = llc ? static_cast<uint32_t>(llc->span.count()) : 1;  // sd_llc_size
  if (master < slave) std::swap(master, slave);
  return slave >= factor && master >= slave * factor;  // u32, as the kernel's
}

uint64_t task_h_load(const Sched& s, TaskId task) {
  const SchedEntity& e = s.se[s.tasks[task].se];
  update_cfs_rq_h_load(s, e.cfs_rq);
  return e.pelt.avg.load_avg * s.cfs[e.cfs_rq].h_load / (s.cfs[e.cfs_rq].pelt.avg.load_avg + 1);
}

void update_idle_core(Sched& s, CpuId core) {
  if (!sched_smt_active(s) || test_idle_cores(s, core, true)) return;
  for (const CpuId c : each_cpu(s.topo.smt_mask[core]))
    if (c != core && !available_idle_cpu(s, c)) return;
  set_idle_cores(s, core, true);
}

CpuId wake_affine(const Sched& s, const SchedDomain& sd, TaskId task, CpuId this_cpu, CpuId prev_cpu, bool sync) {
  CpuId target = wake_affine_idle(s, this_cpu, prev_cpu, sync);
  if (!target) target = wake_affine_weight(s, sd, task, this_cpu, prev_cpu, sync);
  return target ? target : prev_cpu;
}

CpuId select_idle_sibling(Sched& s, TaskId task, CpuId prev, CpuId target, CpuId this_cpu) {
  Task& t = s.tasks[task];
  // asymmetric capacities: an idle CPU is taken only if the task fits it (asym_fits_cpu)
  const bool asym = s.topo.asym_cpucap_active;
  if (asym && s.era.pelt) sync_entity_load_avg(s, t.se);  // v5.15 PELT
  const auto idle_fits = [&](CpuId c) { return idle_or_sched_idle(s, c) && (!asym || task_fits_cpu(s, task, c)); };
  if (idle_fits(target)) return target;
  if (prev != target && cpus_share_cache(s, prev, target) && idle_fits(prev)) return prev;
  const CpuId recent_used_cpu = t.recent_used_cpu;
  t.recent_used_cpu = prev;
  // The affinity test reads p->recent_used_cpu, prev by now (recent_used_cpu_affinity_fix: the recent CPU's).
  const CpuId tested = s.features[Feature::recent_used_cpu_affinity_fix] ? recent_used_cpu : t.recent_used_cpu;
  if (recent_used_cpu && recent_used_cpu != prev && recent_used_cpu != target &&
      cpus_share_cache(s, recent_used_cpu, target) && idle_fits(recent_used_cpu) && cpu_allowed(t, tested))
    return recent_used_cpu;
  if (asym && s.topo.asym_level[target] >= 0) {  // sd_asym_cpucapacity
    const SchedDomain& sd = s.topo.sd[target][static_cast<std::size_t>(s.topo.asym_level[target])];
    const CpuId i = select_idle_capacity(s, task, sd, target);
    return i ? i : target;
  }
  const SchedDomain* sd = sd_llc(s, target);
  if (!sd) return target;
  bool has_idle_core = false;
  if (sched_smt_active(s)) {
    has_idle_core = test_idle_cores(s, target, false);
    if (!has_idle_core && cpus_share_cache(s, prev, target))
      if (const CpuId i = select_idle_smt(s, t, *sd, prev)) return i;
  }
  if (const CpuId i = select_idle_cpu(s, t, *sd, has_idle_core, target, this_cpu)) return i;
  return target;
}

const SchedGroup* find_idlest_group(const Sched& s, const SchedDomain& sd, TaskId task, CpuId this_cpu) {
  const Task& t = task_of(s, task);
  const SchedGroup *idlest = nullptr, *local = nullptr;
  WakeupStats idlest_sgs, local_sgs;
  idlest_sgs.v.avg_load = UINT_MAX;
  for (const SchedGroup& g : sd.groups) {
    if (!intersects_allowed(t, g.span)) continue;
    const bool local_group = g.span.test(this_cpu.index());
    const WakeupStats sgs = update_sg_wakeup_stats(s, sd, g, task);
    if (local_group) {
      local = &g, local_sgs = sgs;
    } else if (update_pick_idlest(idlest_sgs, sgs)) {
      idlest = &g, idlest_sgs = sgs;
    }
  }
  if (!idlest) return nullptr;
  if (!local) return idlest;
  if (local_sgs.type != idlest_sgs.type) return local_sgs.type < idlest_sgs.type ? nullptr : idlest;
  if (local_sgs.type == GroupType::misfit_task)  // the group of the highest max capacity
    return local_sgs.max_capacity >= idlest_sgs.max_capacity ? nullptr : idlest;
  const bool numa = sd.flags.has(F::NUMA);
  if (local_sgs.type == GroupType::has_spare) {
    // CONFIG_NUMA_BALANCING's preferred node: none (NUMA_NO_NODE) in the model.
    if (numa && allow_numa_imbalance<uint64_t>(local_sgs.v.sum_nr_running + 1, local_sgs.v.group_weight)) return nullptr;
    return local_sgs.v.idle_cpus >= idlest_sgs.v.idle_cpus ? nullptr : idlest;
  }
  return idlest_busy_group_wins<uint64_t>(local_sgs.v.avg_load, idlest_sgs.v.avg_load, sd.imbalance_pct, numa) ? idlest
                                                                                                              : nullptr;
}

CpuId find_idlest_cpu(const Sched& s, std::size_t level, TaskId task, CpuId cpu, CpuId prev_cpu, SdFlag sd_flag) {
  const Task& t = task_of(s, task);
  if (!intersects_allowed(t, s.topo.sd[cpu][level].span)) return prev_cpu;
  return walk_idlest(
      s, cpu, static_cast<std::ptrdiff_t>(level), sd_flag, cpu,
      [&](const SchedDomain& sd, CpuId c) { return find_idlest_group(s, sd, task, c); },
      [&](const SchedGroup& g, CpuId c) { return find_idlest_group_cpu(s, g, task, c); });
}

CpuId select_task_rq_fair(Sched& s, TaskId task, CpuId prev_cpu, CpuId this_cpu, WakeKind kind, bool sync) {
  const SdFlag sd_flag = kind == WakeKind::fork ? F::BALANCE_FORK : F::BALANCE_WAKE;
  const bool wake = kind == WakeKind::ttwu, v515 = !s.era.placement_v4;
  CpuId new_cpu = prev_cpu;
  if (wake && v515) record_wakee(s, this_cpu, task);  // (era 1: task_waking_fair, model/core.cpp)
  if (wake && s.features[Feature::wasted_cores_wakeup_idle])
    if (const CpuId idle = wakeup_longest_idle(s, s.tasks[task], prev_cpu)) return idle;
  if (!v515) return select_task_rq_fair_v4(s, task, prev_cpu, this_cpu, kind, sync);
  const TaskId waker = s.rq[this_cpu].curr;  // sync: a task (the ttwu op's rule)
  sync = sync && waker && !s.tasks[waker].exiting;
  const bool want_affine = wake && !count_wake_wide(s, this_cpu, task) && cpu_allowed(s.tasks[task], this_cpu);
  std::ptrdiff_t sd = -1;
  const auto& doms = s.topo.sd[this_cpu];
  for (std::size_t l = 0; l < doms.size(); ++l) {
    const SchedDomain& tmp = doms[l];
    if (want_affine && tmp.flags.has(F::WAKE_AFFINE) && tmp.span.test(prev_cpu.index())) {
      if (this_cpu != prev_cpu) new_cpu = count_wake_affine(s, this_cpu, wake_affine(s, tmp, task, this_cpu, prev_cpu, sync));
      sd = -1;
      break;
    }
    if (tmp.flags.has(sd_flag)) sd = static_cast<std::ptrdiff_t>(l);
    else if (!want_affine) break;
  }
  if (sd >= 0) return find_idlest_cpu(s, static_cast<std::size_t>(sd), task, this_cpu, prev_cpu, sd_flag);
  if (kind == WakeKind::ttwu) return select_idle_sibling(s, task, prev_cpu, new_cpu, this_cpu);
  return new_cpu;
}

unsigned nr_cpus_allowed(const Sched& s, const Task& t) {
  return t.allowed.none() ? s.nr_cpus() : static_cast<unsigned>(t.allowed.count());
}

CpuId select_fallback_rq(Sched& s, CpuId cpu, TaskId task) {
  Task& t = s.tasks[task];
  for (const CpuId c : s.rq.ids())
    if (s.topo.node_mask[cpu].test(c.index()) && cpu_usable(s, t, c)) return c;
  for (const CpuId c : s.rq.ids())
    if (cpu_usable(s, t, c)) return c;
  // No allowed CPU is active: cpuset_cpus_allowed_fallback ("process N
  // (comm) no longer affine to cpuM"): v5.15 (cgroup v1) every possible CPU,
  // v3.10 and v4.4 the root cpuset's CPUs, the active ones.
  t.allowed = s.topo.era == TopologyEra::v5_15 ? CpuMask{} : s.active;
  s.counters.affinity_broken++;
  return cpumask_first(s.active);
}

CpuId select_task_rq(Sched& s, TaskId task, CpuId this_cpu, WakeKind kind, bool sync) {
  const Task& t = s.tasks[task];
  CpuId cpu = nr_cpus_allowed(s, t) > 1 ? select_task_rq_fair(s, task, t.cpu, this_cpu, kind, sync)
                                        : first_allowed(s, t);  // cpumask_any
  if (!cpu_usable(s, t, cpu)) cpu = select_fallback_rq(s, t.cpu, task);
  return cpu;
}

}  // namespace cfsv
