// The core scheduler paths (kernel/sched/core.c) that sim.cpp drives: set-up,
// fork, wakeup, sleep and exit, renice, affinity, group creation and moves,
// and schedule(). core.cpp says which kernel version each follows. The
// callers have checked their arguments: every id names a live object.
#pragma once
#include <cstdint>
#include <string>

#include "sched.h"

namespace cfsv {

// sched_init: nr_cpus runqueues and the root task group (s.features, s.res set).
void sched_init(Sched& s, unsigned nr_cpus);
// sched_create_group: a group under parent with cpu.shares `shares`.
GroupId sched_create_group(Sched& s, GroupId parent, std::string path, uint64_t shares);

// sched_fork: a new task and its entity in `group`, placed on a CPU; not yet
// queued. parent: the running task that forks it, or none (docs/model.md, "Fork").
// `slot`: the row of a reaped churn child to reuse (model/sim.h); none: a new row.
TaskId sched_fork(Sched& s, const TaskSpec& spec, GroupId group, const CpuMask& allowed, TaskId parent,
                  TaskId slot = {});
// wake_up_new_task: queue the forked task.
void wake_up_new_task(Sched& s, TaskId task);
// try_to_wake_up of a sleeping task, run on waker (none: the CPU it slept on,
// its timer's); sync: WF_SYNC, the task running on waker about to sleep.
void wake_up_task(Sched& s, TaskId task, CpuId waker = {}, bool sync = false);
// try_to_wake_up of a runnable task (one whose sleep has not happened yet).
void ttwu_runnable(Sched& s, TaskId task);
// ttwu_do_wakeup's update of rq->avg_idle after newidle balance stamped the rq idle.
void update_avg_idle(Sched& s, CpuId cpu);
// set_next_task_idle (kernel/sched/idle.c v5.15): the idle task is picked on
// cpu (once a newidle balance is over): update_idle_core with the kernel's placement.
void set_next_task_idle(Sched& s, CpuId cpu);
// deactivate_task: the running task sleeps or exits.
void block_task(Sched& s, TaskId task, TaskState to);
// do_exit: the running task, or a sleeping one; others are left alone.
void do_exit(Sched& s, TaskId task);

void set_user_nice(Sched& s, TaskId task, int nice);
// sched_setscheduler between fair policies (the `policy` op).
void sched_setscheduler(Sched& s, TaskId task, Policy policy);
// allowed: trimmed to the CPUs that exist, and not empty unless it means every CPU.
void set_cpus_allowed_ptr(Sched& s, TaskId task, const CpuMask& allowed);
// sched_move_task: the task joins the group sched_get_task_group names
// (model/cgroup.h: its cgroup, or its autogroup); the callers set those first.
void sched_move_task(Sched& s, TaskId task);

// The migration paths (load balancing, move_queued_task). detach_task: off
// its CPU and set to dest, queued nowhere; attach_task: queued on its new
// CPU. stopper_preempt: migration/N preempts what runs on cpu.
void detach_task(Sched& s, TaskId task, CpuId dest);
void attach_task(Sched& s, TaskId task, bool check_preempt);
void stopper_preempt(Sched& s, CpuId cpu);

// __schedule on a CPU whose need_resched is set.
void schedule(Sched& s, CpuId cpu);

}  // namespace cfsv
