// What core.cpp and core_prio.cpp share (kernel/sched/core.c): the change
// pattern around an attribute change of a queued task, and set_load_weight's
// weight. Internal to model/.
#pragma once
#include <cstdint>

#include "fair.h"
#include "sched.h"

namespace cfsv {

// The change pattern around an attribute change of a queued task (kernel/
// sched/core.c v3.10, v4.4, v5.15: set_user_nice, do_set_cpus_allowed,
// sched_move_task): dequeue_task, put_prev_task, the change, then
// enqueue_task and set_next_task (change_pattern: v5.x order; v3.10/v4.4 set
// curr first, then enqueue). put=false leaves a running task as curr.
template <class Change>
inline void change_queued_task(Sched& s, TaskId task, unsigned dequeue_flags, bool put, Change change) {
  const Task& t = s.tasks[task];
  put = put && s.rq[t.cpu].curr == task;
  dequeue_task_fair(s, t.cpu, task, dequeue_flags);
  if (put) put_prev_task_fair(s, task);
  change();
  if (put && !s.era.change_pattern_v5) set_next_task_fair(s, task);
  enqueue_task_fair(s, t.cpu, task, 0);
  if (put && s.era.change_pattern_v5) set_next_task_fair(s, task);
}

// set_load_weight's weight (kernel/sched/core.c v3.10..v6.5): a SCHED_IDLE
// task's is WEIGHT_IDLEPRIO whatever its nice; others' their nice level's.
LoadWeight<uint64_t> task_load_weight(const Sched& s, int nice, Policy policy);

}  // namespace cfsv
