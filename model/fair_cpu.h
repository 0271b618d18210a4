// The per-CPU quantities that fair.c's load balancing and task placement read
// (v5.15: capacity_of, cpu_load, cpu_runnable, cpu_util_cfs; core.c idle_cpu),
// over the scheduler state. Era-1 balancing (v3.10, v4.4) reads its own
// quantities (weighted_cpuload and the cpu_load[] indexes) and keeps them with
// its code. Without load tracking (every pelt feature off) the averages are 0.
#pragma once
#include <algorithm>
#include <cstdint>

#include "sched.h"
#include "util_est.h"

namespace cfsv {

// capacity_orig_of / arch_scale_cpu_capacity (kernel/sched/sched.h v5.15): the
// CPU's capacity as the topology gives it (1024 unless `capacity=` says).
inline unsigned long capacity_orig_of(const Sched& s, CpuId cpu) { return s.topo.cpu_capacity[cpu]; }
// capacity_of (kernel/sched/fair.c v5.15): cpu_capacity, what RT, DL and IRQ
// time leave of capacity_orig; the model has no such time, so the two are equal.
inline unsigned long capacity_of(const Sched& s, CpuId cpu) { return capacity_orig_of(s, cpu); }

// fits_capacity (kernel/sched/fair.c v5.15): cap fits max with ~20% to spare.
inline bool fits_capacity(uint64_t cap, uint64_t max) { return cap * 1280 < max * 1024; }
// capacity_greater (kernel/sched/fair.c v5.15): cap1 is ~5% above cap2.
inline bool capacity_greater(uint64_t cap1, uint64_t cap2) { return cap1 * 1024 > cap2 * 1078; }
// task_fits_cpu (kernel/sched/fair.c v5.15): util_fits_cpu without uclamp,
// fits_capacity of task_util_est and the CPU's capacity.
inline bool task_fits_cpu(const Sched& s, TaskId p, CpuId cpu) {
  return fits_capacity(task_util_est(s, p), capacity_of(s, cpu));
}

inline const CfsRq& root_cfs_rq(const Sched& s, CpuId cpu) { return s.cfs[s.rq[cpu].cfs]; }

// cpu_load (kernel/sched/fair.c v5.15): cfs_rq_load_avg of the root cfs_rq.
inline unsigned long cpu_load(const Sched& s, CpuId cpu) { return root_cfs_rq(s, cpu).pelt.avg.load_avg; }
// cpu_runnable (kernel/sched/fair.c v5.15): the root cfs_rq's runnable_avg.
inline unsigned long cpu_runnable(const Sched& s, CpuId cpu) { return root_cfs_rq(s, cpu).pelt.avg.runnable_avg; }
// cpu_util (kernel/sched/fair.c v5.15): the root cfs_rq's util_avg, or with
// UTIL_EST its queued tasks' estimates if more, capped at capacity_orig (the
// sum stays 0 without UTIL_EST).
inline unsigned long cpu_util(const Sched& s, CpuId cpu) {
  const CfsRqPelt& p = root_cfs_rq(s, cpu).pelt;
  return std::min<unsigned long>(std::max<uint64_t>(p.avg.util_avg, p.util_est_enqueued), capacity_orig_of(s, cpu));
}

// rq->nr_running for the classes the model has: CFS tasks queued (running
// included) plus the stopper while it runs.
inline uint32_t rq_nr_running(const Sched& s, CpuId cpu) {
  return root_cfs_rq(s, cpu).h_nr_running + (s.rq[cpu].curr == kStopper ? 1 : 0);
}
// add_nr_running's rd->overload (kernel/sched/sched.h v3.16+): set when an rq
// that ran fewer than two tasks (prev_nr) now runs two or more.
inline void add_nr_running_overload(Sched& s, CpuId cpu, uint32_t prev_nr) {
  if (prev_nr < 2 && rq_nr_running(s, cpu) >= 2) s.lb.overload = true;
}

// A task blocked on cpu and its __schedule is in a newidle balance
// (model/balance.h): rq->curr is still that task, though the model's CPU idles.
inline bool newidle_after_task(const Sched& s, CpuId cpu) {
  return s.lb.walk.contains(cpu) && s.lb.walk[cpu].at && s.lb.walk[cpu].from_task;
}
// idle_cpu (kernel/sched/core.c v5.15): the idle task runs and nothing is
// queued (no wakeup is ever pending on a model rq: ttwu queues at once).
inline bool idle_cpu(const Sched& s, CpuId cpu) {
  return s.rq[cpu].curr == kIdle && rq_nr_running(s, cpu) == 0 && !newidle_after_task(s, cpu);
}
// available_idle_cpu (kernel/sched/core.c v5.15): idle_cpu and not a preempted
// vCPU (never, in the model).
inline bool available_idle_cpu(const Sched& s, CpuId cpu) { return idle_cpu(s, cpu); }
// sched_idle_rq (kernel/sched/fair.c v5.4+): it runs tasks, all SCHED_IDLE.
inline bool sched_idle_rq(const Sched& s, CpuId cpu) {
  const uint32_t n = rq_nr_running(s, cpu);
  return n && n == root_cfs_rq(s, cpu).idle_h_nr_running;
}
// sched_idle_cpu (kernel/sched/fair.c v5.4+), with the feature that brings it:
// placement and balancing take such a CPU as (nearly) idle.
inline bool sched_idle_cpu(const Sched& s, CpuId cpu) {
  return s.features[Feature::sched_idle_cpu] && sched_idle_rq(s, cpu);
}
// available_idle_cpu || sched_idle_cpu: v5.15's test in select_idle_sibling's scans.
inline bool idle_or_sched_idle(const Sched& s, CpuId cpu) {
  return available_idle_cpu(s, cpu) || sched_idle_cpu(s, cpu);
}

}  // namespace cfsv
