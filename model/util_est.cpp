// UTIL_EST (kernel/sched/fair.c v5.15): model/util_est.h.
#include "util_est.h"

#include "fair_cpu.h"

namespace cfsv {

namespace {
constexpr unsigned kUtilEstWeightShift = 2;      // UTIL_EST_WEIGHT_SHIFT: the new sample weighs 1/4
constexpr int64_t kUtilEstMargin = 1024 / 100;   // UTIL_EST_MARGIN: SCHED_CAPACITY_SCALE / 100

// within_margin (v5.15): -margin < value < margin, as one unsigned comparison of ints.
bool within_margin(int64_t value, int64_t margin) {
  return static_cast<uint32_t>(static_cast<int32_t>(value + margin - 1)) < static_cast<uint32_t>(2 * margin - 1);
}
}  // namespace

void util_est_enqueue(Sched& s, CpuId cpu, TaskId p) {
  if (!s.features[Feature::util_est]) return;
  uint32_t& sum = s.cfs[s.rq[cpu].cfs].pelt.util_est_enqueued;
  sum = static_cast<uint32_t>(sum + task_util_est_only(s, p));
}

void util_est_dequeue(Sched& s, CpuId cpu, TaskId p) {
  if (!s.features[Feature::util_est]) return;
  uint32_t& sum = s.cfs[s.rq[cpu].cfs].pelt.util_est_enqueued;
  sum -= static_cast<uint32_t>(std::min<uint64_t>(sum, task_util_est_only(s, p)));
}

void util_est_update(Sched& s, CpuId cpu, TaskId p, bool task_sleep) {
  if (!s.features[Feature::util_est] || !task_sleep) return;
  UtilEst ue = s.se[s.tasks[p].se].pelt.util_est;
  if (ue.enqueued & kUtilAvgUnchanged) return;  // util_avg has not moved since the last estimate
  int64_t last_enqueued_diff = ue.enqueued;
  ue.enqueued = static_cast<uint32_t>(task_util(s, p));
  if (ue.ewma < ue.enqueued) {  // UTIL_EST_FASTUP: a rise is taken at once
    ue.ewma = ue.enqueued;
  } else {
    const int64_t last_ewma_diff = int64_t{ue.enqueued} - int64_t{ue.ewma};
    last_enqueued_diff -= ue.enqueued;
    if (within_margin(last_ewma_diff, kUtilEstMargin)) {
      if (within_margin(last_enqueued_diff, kUtilEstMargin)) return;
    } else {
      if (task_util(s, p) > capacity_orig_of(s, cpu)) return;  // util_avg of a task that cannot fit: no sample
      // ewma = (ewma * 3 + enqueued) / 4 as ((ewma << 2) + diff) >> 2, in unsigned int
      ue.ewma = static_cast<uint32_t>((uint32_t{ue.ewma} << kUtilEstWeightShift) + static_cast<uint32_t>(last_ewma_diff)) >>
                kUtilEstWeightShift;
    }
  }
  ue.enqueued |= kUtilAvgUnchanged;
  s.se[s.tasks[p].se].pelt.util_est = ue;
}

}  // namespace cfsv
