// Task-group lifecycle and autogroup; each function names the kernel function
// and version it follows (kernel/sched/core.c, kernel/sched/autogroup.c, v6.4).
#include "cgroup.h"

#include <string>

#include "arith/weights.h"
#include "core.h"
#include "fair.h"
#include "pelt.h"
#include "pelt_eras.h"

namespace cfsv {

namespace {

// task_wants_autogroup (kernel/sched/autogroup.c v6.4): only a task in the
// root cgroup uses its autogroup, and not once it is exiting (PF_EXITING).
bool task_wants_autogroup(const Task& t, GroupId tg) { return tg == kRootGroup && !t.exiting; }

// autogroup_task_group (kernel/sched/autogroup.h v6.4): the autogroup's tg
// when the sysctl is on and the task wants it; else the cgroup's.
GroupId autogroup_task_group(const Sched& s, const Task& t, GroupId tg) {
  if (s.features[Feature::sched_autogroup] && s.tun.autogroup_enabled && task_wants_autogroup(t, tg))
    return t.autogroup;
  return tg;
}

// autogroup_kref_put (kernel/sched/autogroup.c v6.4): the last reference
// frees the autogroup and its tg (autogroup_destroy). The root group stands
// for autogroup_default, which is never freed.
void autogroup_kref_put(Sched& s, GroupId ag) {
  if (ag == kRootGroup || --s.tg[ag].autogroup_refs > 0) return;
  sched_destroy_group(s, ag);
}

// autogroup_move_group (kernel/sched/autogroup.c v6.4; autogroup_move_task
// before v6.1): the signal's autogroup changes, then sched_move_task for the
// task (the model's tasks are single-threaded processes), then the old
// autogroup's reference goes.
void autogroup_move_group(Sched& s, TaskId task, GroupId ag) {
  Task& t = s.tasks[task];
  const GroupId prev = t.autogroup;
  if (prev == ag) return;
  t.autogroup = ag;
  if (ag != kRootGroup) s.tg[ag].autogroup_refs++;
  sched_move_task(s, task);
  autogroup_kref_put(s, prev);
}

}  // namespace

// sched_get_task_group (kernel/sched/core.c v6.4; inside sched_change_group
// in v3.10..v6.3): the cpu cgroup's task group, through autogroup_task_group.
GroupId sched_get_task_group(const Sched& s, TaskId task) {
  const Task& t = s.tasks[task];
  return autogroup_task_group(s, t, t.cgroup);
}

// cgroup_destroy_locked (kernel/cgroup/cgroup.c v6.4): cgroup_is_populated,
// then css_has_online_children.
std::string cgroup_rmdir_refusal(const Sched& s, GroupId tg) {
  const std::string& path = s.tg[tg].path;
  uint32_t n = 0;
  for (const Task& t : s.tasks) n += t.cgroup == tg && t.state != TaskState::exited;
  if (n) return "group '" + path + "' has " + std::to_string(n) + " live task(s) (EBUSY)";
  for (const TaskGroup& g : s.tg)
    if (!g.dead && g.parent == tg) return "group '" + path + "' has child groups (EBUSY)";
  return "";
}

// sched_offline_group + unregister_fair_sched_group (kernel/sched/core.c,
// fair.c v6.4): each group entity's remaining averages leave its parent
// cfs_rq through removed (remove_entity_load_avg), its cfs_rqs leave the leaf
// list; then sched_destroy_group frees it (the model marks it dead).
void sched_destroy_group(Sched& s, GroupId tg) {
  TaskGroup& g = s.tg[tg];
  touch_all(s);
  for (const CpuId c : s.rq.ids()) {
    if (s.era.pelt) remove_entity_load_avg(s, g.se[c]);
    else if (s.era.pelt_v4) pelt4::remove_entity_load_avg(s, g.se[c]);
    if (s.era.pelt_v3) pelt3::list_del_leaf_cfs_rq(s, g.cfs_rq[c]);
    else s.cfs[g.cfs_rq[c]].pelt.on_list = false;
  }
  g.dead = true;
}

// sched_autogroup_fork (kernel/sched/autogroup.c v6.4): the child's signal
// takes a reference on the parent's autogroup (autogroup_task_get).
void sched_autogroup_fork(Sched& s, TaskId child, TaskId parent) {
  const GroupId ag = parent ? s.tasks[parent].autogroup : kRootGroup;
  s.tasks[child].autogroup = ag;
  if (ag != kRootGroup) s.tg[ag].autogroup_refs++;
}

// sched_autogroup_create_attach (kernel/sched/autogroup.c v6.4): setsid
// makes an autogroup whether or not the sysctl is on (autogroup_create: a
// task group under the root, NICE_0 shares, named /autogroup-<id>), and
// moves the task to it.
void sched_autogroup_create_attach(Sched& s, TaskId task) {
  uint32_t id = 1;
  for (const TaskGroup& g : s.tg) id += g.autogroup;
  const GroupId ag = sched_create_group(s, kRootGroup, "/autogroup-" + std::to_string(id), kNice0Weight);
  s.tg[ag].autogroup = true;
  s.tg[ag].autogroup_refs = 1;  // autogroup_create's kref_init
  autogroup_move_group(s, task, ag);
  autogroup_kref_put(s, ag);  // the extra one autogroup_create added
}

// sched_autogroup_exit_task (kernel/sched/autogroup.c v6.4): called by
// do_exit after PF_EXITING is set, while the task is still queued, so that
// task_wants_autogroup sends it back to its cgroup's group.
void sched_autogroup_exit_task(Sched& s, TaskId task) { sched_move_task(s, task); }

// sched_autogroup_exit (kernel/sched/autogroup.c v6.4), from
// free_signal_struct: the model frees the signal when the task exits.
void sched_autogroup_exit(Sched& s, TaskId task) {
  const GroupId ag = s.tasks[task].autogroup;
  s.tasks[task].autogroup = kRootGroup;
  autogroup_kref_put(s, ag);
}

// proc_sched_autogroup_set_nice (kernel/sched/autogroup.c v6.4): the
// autogroup's shares become the nice level's weight (sched_prio_to_weight),
// through sched_group_set_shares. The rate limit for unprivileged writers
// (-EAGAIN within HZ/10) is not modelled: the writer is privileged.
bool proc_sched_autogroup_set_nice(Sched& s, TaskId task, int nice) {
  const GroupId ag = s.tasks[task].autogroup;
  if (ag == kRootGroup) return false;
  sched_group_set_shares(s, ag, nice_to_weight(nice));
  return true;
}

}  // namespace cfsv
