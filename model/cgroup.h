// Task-group lifecycle and autogroup (kernel/sched/core.c, kernel/sched/
// autogroup.c, v6.4): which group a task belongs in, cgroup rmdir, and the
// session autogroups that setsid makes. sched_move_task itself is in core.h.
#pragma once
#include <cstdint>
#include <string>

#include "sched.h"

namespace cfsv {

// sched_get_task_group: the task's cgroup, or its autogroup (autogroup_task_group).
GroupId sched_get_task_group(const Sched& s, TaskId task);

// cgroup_destroy_locked's refusal of an rmdir, EBUSY: the group has live
// tasks (cgroup_is_populated; an exited task left it at cgroup_exit) or child
// groups. "" when it may go on.
std::string cgroup_rmdir_refusal(const Sched& s, GroupId tg);
// sched_offline_group + sched_destroy_group: an empty group without children goes.
void sched_destroy_group(Sched& s, GroupId tg);

// sched_autogroup_fork: a forked child shares its parent's autogroup.
void sched_autogroup_fork(Sched& s, TaskId child, TaskId parent);
// sched_autogroup_create_attach (ksys_setsid): a new autogroup for the task.
void sched_autogroup_create_attach(Sched& s, TaskId task);
// sched_autogroup_exit_task (do_exit, PF_EXITING set): back to the cgroup's group.
void sched_autogroup_exit_task(Sched& s, TaskId task);
// sched_autogroup_exit (free_signal_struct): the exited task's reference goes.
void sched_autogroup_exit(Sched& s, TaskId task);
// proc_sched_autogroup_set_nice: false (EINVAL) when the task has no autogroup
// of its own (autogroup_default is the root group, whose shares are fixed).
bool proc_sched_autogroup_set_nice(Sched& s, TaskId task, int nice);

}  // namespace cfsv
