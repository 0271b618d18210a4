// UTIL_EST (kernel/sched/fair.c and pelt.h v5.15; sched_feat UTIL_EST and
// UTIL_EST_FASTUP, both on in v5.15; the feature util_est): each task's
// utilization estimate, taken from its util_avg when it is dequeued to sleep,
// and the root cfs_rq's sum of its queued tasks' estimates, which cpu_util,
// cpu_util_without and task_fits_cpu read. docs/util-est.md.
#pragma once
#include <algorithm>
#include <cstdint>

#include "sched.h"

namespace cfsv {

constexpr uint32_t kUtilAvgUnchanged = 0x80000000u;  // UTIL_AVG_UNCHANGED (v5.13+)

// task_util (kernel/sched/fair.c v5.15): the task's util_avg.
inline uint64_t task_util(const Sched& s, TaskId p) { return s.se[s.tasks[p].se].pelt.avg.util_avg; }
// _task_util_est (v5.15): the larger of the estimate's ewma and enqueued, without the flag.
inline uint64_t task_util_est_only(const Sched& s, TaskId p) {
  const UtilEst& ue = s.se[s.tasks[p].se].pelt.util_est;
  return std::max(ue.ewma, ue.enqueued & ~kUtilAvgUnchanged);
}
// task_util_est (v5.15): the larger of util_avg and the estimate (util_avg
// alone without UTIL_EST: the estimate stays 0).
inline uint64_t task_util_est(const Sched& s, TaskId p) { return std::max(task_util(s, p), task_util_est_only(s, p)); }

// cfs_se_util_change (kernel/sched/pelt.h v5.15): __update_load_avg_se moved
// the entity's util_avg, so the estimate may be taken again.
inline void cfs_se_util_change(const Sched& s, UtilEst& ue) {
  if (s.features[Feature::util_est]) ue.enqueued &= ~kUtilAvgUnchanged;
}

// util_est_enqueue / util_est_dequeue (v5.15): the task's estimate joins or
// leaves the sum on its CPU's root cfs_rq (at enqueue_task_fair's start,
// dequeue_task_fair's start).
void util_est_enqueue(Sched& s, CpuId cpu, TaskId p);
void util_est_dequeue(Sched& s, CpuId cpu, TaskId p);
// util_est_update (v5.15): at dequeue_task_fair's end, for a sleep, a new
// estimate from util_avg, unless util_avg did not move since the last one.
void util_est_update(Sched& s, CpuId cpu, TaskId p, bool task_sleep);

}  // namespace cfsv
