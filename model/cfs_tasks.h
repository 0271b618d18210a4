// rq->cfs_tasks (kernel/sched/sched.h v5.15): the CFS tasks queued on a
// runqueue, most recently run first. account_entity_enqueue adds a task at
// the head, account_entity_dequeue removes it, set_next_task_fair and
// pick_next_task_fair move the task they run to the head; load balancing
// (model/balance.h) takes tasks from the tail, the least recently run. An
// intrusive doubly linked list through Task::lb_prev/lb_next, so every
// operation is O(1).
#pragma once
#include "id_list.h"
#include "sched.h"

namespace cfsv {

// A task's links on its rq's cfs_tasks (se.group_node).
inline IdLinks<TaskId> cfs_tasks_links(Sched& s, TaskId task) {
  Task& t = s.tasks[task];
  return {t.lb_prev, t.lb_next};
}
// list_del_init(&se->group_node): off cpu's list.
inline void cfs_tasks_del(Sched& s, CpuId cpu, TaskId task) {
  Rq& r = s.rq[cpu];
  id_list_del(r.cfs_tasks_head, r.cfs_tasks_tail, task, [&s](TaskId t) { return cfs_tasks_links(s, t); });
}
// list_add(&se->group_node, &rq->cfs_tasks): at the head.
inline void cfs_tasks_add(Sched& s, CpuId cpu, TaskId task) {
  Rq& r = s.rq[cpu];
  id_list_add(r.cfs_tasks_head, r.cfs_tasks_tail, task, [&s](TaskId t) { return cfs_tasks_links(s, t); });
}
// list_move_tail(&se->group_node, &rq->cfs_tasks): v4.4's detach_tasks.
inline void cfs_tasks_move_to_tail(Sched& s, CpuId cpu, TaskId task) {
  Rq& r = s.rq[cpu];
  if (r.cfs_tasks_tail == task) return;
  cfs_tasks_del(s, cpu, task);
  id_list_add_tail(r.cfs_tasks_head, r.cfs_tasks_tail, task, [&s](TaskId t) { return cfs_tasks_links(s, t); });
}
// list_move(&se->group_node, &rq->cfs_tasks)
inline void cfs_tasks_move_to_head(Sched& s, CpuId cpu, TaskId task) {
  if (s.rq[cpu].cfs_tasks_head == task) return;
  cfs_tasks_del(s, cpu, task);
  cfs_tasks_add(s, cpu, task);
}

}  // namespace cfsv
