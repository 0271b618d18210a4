// Task placement at fork and wakeup, v5.15 (feature kernel_placement):
// select_task_rq (kernel/sched/core.c) and select_task_rq_fair with its fast
// path (wake_affine, select_idle_sibling) and slow path (find_idlest_cpu) from
// kernel/sched/fair.c. docs/placement.md.
#pragma once
#include <cstdint>

#include "sched.h"

namespace cfsv {

// What places the task: WF_FORK (wake_up_new_task) or WF_TTWU (try_to_wake_up).
enum class WakeKind { fork, ttwu };

// select_task_rq (kernel/sched/core.c v5.15): the fair class's choice for a
// task allowed on more than one CPU, else its first allowed CPU; a CPU it may
// not run on goes to select_fallback_rq. this_cpu is smp_processor_id();
// sync is WF_SYNC (a ttwu whose waker, the task running on this_cpu, is to sleep).
CpuId select_task_rq(Sched& s, TaskId task, CpuId this_cpu, WakeKind kind, bool sync = false);
// select_task_rq_fair (kernel/sched/fair.c v5.15)
CpuId select_task_rq_fair(Sched& s, TaskId task, CpuId prev_cpu, CpuId this_cpu, WakeKind kind, bool sync);
// The waker record of `current` on cpu: the running task's, else the idle or
// stopper thread's (the idle threads' start at 0, the model's boot).
const WakeeFlips& current_wakee(const Sched& s, CpuId cpu);
WakeeFlips& current_wakee(Sched& s, CpuId cpu);
// record_wakee (kernel/sched/fair.c v4.4, v5.15): current on this_cpu wakes
// p; its flips halve at most once a second (HZ jiffies) and count a change of wakee.
void record_wakee(Sched& s, CpuId this_cpu, TaskId p);
// wake_wide (kernel/sched/fair.c v4.4, v5.15): whether waker and wakee switch
// partners too often for an affine wakeup, against this_cpu's sd_llc_size.
bool wake_wide(const Sched& s, CpuId this_cpu, TaskId p);
// wake_wide and wake_affine as select_task_rq_fair calls them, counted
// (Counters::wake_wide, wake_affine_calls, wake_affine_pulls): their results.
bool count_wake_wide(Sched& s, CpuId this_cpu, TaskId p);
CpuId count_wake_affine(Sched& s, CpuId this_cpu, CpuId chosen);
// p->nr_cpus_allowed: cpumask_weight(p->cpus_ptr) over the machine (an empty
// mask is every CPU; a task's mask names only the machine's CPUs).
unsigned nr_cpus_allowed(const Sched& s, const Task& t);
// select_fallback_rq (kernel/sched/core.c v4.4, v5.15): the first allowed
// active CPU of cpu's node, else the first allowed active one; with none,
// the task's affinity becomes every active CPU (the cpuset fallback).
CpuId select_fallback_rq(Sched& s, CpuId cpu, TaskId task);

// wake_affine (kernel/sched/fair.c v5.15): WA_IDLE then WA_WEIGHT; sd is this_cpu's domain at index level.
CpuId wake_affine(const Sched& s, const SchedDomain& sd, TaskId task, CpuId this_cpu, CpuId prev_cpu, bool sync = false);
// select_idle_sibling (kernel/sched/fair.c v5.15), SIS_PROP on, SIS_UTIL off.
CpuId select_idle_sibling(Sched& s, TaskId task, CpuId prev, CpuId target, CpuId this_cpu);
// find_idlest_cpu (kernel/sched/fair.c v5.15) from domain `level` of cpu.
CpuId find_idlest_cpu(const Sched& s, std::size_t level, TaskId task, CpuId cpu, CpuId prev_cpu, SdFlag sd_flag);
// find_idlest_group (kernel/sched/fair.c v5.15): nullptr to stay local.
const SchedGroup* find_idlest_group(const Sched& s, const SchedDomain& sd, TaskId task, CpuId this_cpu);

// update_idle_core (kernel/sched/sched.h v5.15, __update_idle_core in fair.c): a CPU going idle
// marks its LLC as having an idle core when all its SMT siblings are idle.
void update_idle_core(Sched& s, CpuId cpu);
// The LLC domain (sd_llc: the highest of the bottom domains with SD_SHARE_PKG_RESOURCES), or nullptr.
const SchedDomain* sd_llc(const Sched& s, CpuId cpu);
// cpus_share_cache (kernel/sched/core.c v5.15): the same sd_llc_id.
bool cpus_share_cache(const Sched& s, CpuId a, CpuId b);
// Era 1 (model/select_rq_v4.cpp, feature placement_v4_4; placement_v3_10):
// select_task_rq_fair of kernel/sched/fair.c v4.4 (v3.10); wake_affine
// (v4.4, v3.10): whether this_cpu takes the wakee (sd is this_cpu's domain).
CpuId select_task_rq_fair_v4(Sched& s, TaskId task, CpuId prev_cpu, CpuId this_cpu, WakeKind kind, bool sync);
bool wake_affine_v4(const Sched& s, const SchedDomain& sd, TaskId task, CpuId this_cpu, CpuId prev_cpu,
                    bool sync = false);
// rq->idle_stamp as find_idlest_cpu reads it: when the CPU last went idle
// (its newidle balance's start); boot-idle CPUs count as idled at time 0.
Nanos idle_stamp_of(const Sched& s, CpuId cpu);
// Whether the task may run on some CPU of span.
bool intersects_allowed(const Task& t, const CpuMask& span);

// The slow path's walk (v5.15 find_idlest_cpu; v3.10 and v4.4 the loop of
// select_task_rq_fair): from cpu's domain at `level` down, each domain with
// sd_flag names a group (find_group(sd, cpu), nullptr: none) and a CPU in it
// (find_cpu(group, cpu), none: keep new_cpu); a CPU other than cpu goes on
// from its own highest domain with the flag narrower than this one.
template <class FindGroup, class FindCpu>
CpuId walk_idlest(const Sched& s, CpuId cpu, std::ptrdiff_t level, SdFlag sd_flag, CpuId new_cpu, FindGroup find_group,
                  FindCpu find_cpu) {
  while (level >= 0) {  // s.topo.sd[cpu][level]; sd->child is level - 1
    const SchedDomain& sd = s.topo.sd[cpu][static_cast<std::size_t>(level)];
    const SchedGroup* group = sd.flags.has(sd_flag) ? find_group(sd, cpu) : nullptr;
    const CpuId idlest = group ? find_cpu(*group, cpu) : CpuId{};
    if (idlest) new_cpu = idlest;
    if (!idlest || idlest == cpu) {
      --level;
      continue;
    }
    cpu = idlest;
    level = -1;
    const auto& doms = s.topo.sd[cpu];
    for (std::size_t l = 0; l < doms.size() && doms[l].span_weight < sd.span_weight; ++l)
      if (doms[l].flags.has(sd_flag)) level = static_cast<std::ptrdiff_t>(l);
  }
  return new_cpu;
}

// task_h_load (kernel/sched/fair.c v4.4, v5.15): the task's load_avg times its
// cfs_rq's h_load (cached for the jiffy) over the cfs_rq's load_avg + 1.
uint64_t task_h_load(const Sched& s, TaskId task);

}  // namespace cfsv
