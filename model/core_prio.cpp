// The priority and policy paths of kernel/sched/core.c: set_load_weight,
// set_user_nice and __sched_setscheduler between fair policies
// (docs/policies.md).
#include "arith/weights.h"
#include "core.h"
#include "core_change.h"
#include "fair.h"

namespace cfsv {

LoadWeight<uint64_t> task_load_weight(const Sched& s, int nice, Policy policy) {
  if (policy == Policy::idle) return {scale_load<uint64_t>(kWeightIdlePrio, s.res), kWmultIdlePrio};
  return {scale_load<uint64_t>(nice_to_weight(nice), s.res), nice_to_wmult(nice)};
}

namespace {

// set_load_weight(p, true) (kernel/sched/core.c v3.10..v6.5) from the task's
// nice and policy: v5.15's PELT era reweights a SCHED_NORMAL or SCHED_BATCH
// task through reweight_task, queued or not (a SCHED_IDLE one too with
// v6.11's reweight_idle_task); other weights, and every weight in v3.10 and
// v4.4, are assigned, leaving v5.15's PELT load at the old weight's scale.
void set_load_weight(Sched& s, TaskId task) {
  Task& t = s.tasks[task];
  const LoadWeight<uint64_t> lw = task_load_weight(s, t.nice, t.policy);
  if (s.era.pelt && (t.policy != Policy::idle || s.features[Feature::reweight_idle_task]))
    return reweight_task(s, task, lw);
  SchedEntity& e = s.se[t.se];
  if (s.era.pelt && e.load.weight != lw.weight) t.load_unscaled = true;
  e.load = lw;
}

}  // namespace

// set_user_nice (kernel/sched/core.c v3.10, v4.4, v5.15): an unchanged nice
// returns at once; a queued task is dequeued (DEQUEUE_SAVE from v4.4 on),
// reweighted and enqueued, around put_prev/set_next in v5.x (change_pattern).
// Then v3.10..v5.4 reschedule when the nice went down, or went up on the
// running task; v5.15 calls prio_changed_fair. A SCHED_IDLE task keeps its
// weight (v5.15's set_load_weight sets it without reweight_task).
void set_user_nice(Sched& s, TaskId task, int nice) {
  Task& t = s.tasks[task];
  if (nice == t.nice) return;
  touch(s, t.cpu);
  const int old_nice = t.nice;
  const auto change = [&] {
    t.nice = nice;
    set_load_weight(s, task);
  };
  if (!task_on_rq_queued(t)) return change();
  const bool running = s.rq[t.cpu].curr == task;
  change_queued_task(s, task, kDequeueSave, s.era.change_pattern_v5, change);
  if (s.features[Feature::nice_prio_changed]) prio_changed_fair(s, task, old_nice);
  else if (nice < old_nice || running) resched_curr(s, t.cpu);
}

// __sched_setscheduler (kernel/sched/core.c v3.10, v4.4, v5.15) from one
// fair policy to another (sched_setscheduler passes the task's own nice):
// the same policy returns at once; otherwise a queued task is dequeued and,
// running, put; its policy and weight set; then set as curr and enqueued
// (v3.10, v4.4) or enqueued and set (v5.15). Its prio is unchanged, so
// check_class_changed calls nothing: no reschedule, no preemption check.
void sched_setscheduler(Sched& s, TaskId task, Policy policy) {
  Task& t = s.tasks[task];
  if (policy == t.policy) return;
  touch(s, t.cpu);
  const auto change = [&] {
    t.policy = policy;
    set_load_weight(s, task);
  };
  if (!task_on_rq_queued(t)) return change();
  change_queued_task(s, task, kDequeueSave, true, change);
}

}  // namespace cfsv
