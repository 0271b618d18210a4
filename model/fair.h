// The CFS scheduling class (kernel/sched/fair.c): what core.cpp and sim.cpp
// call. fair.cpp says which kernel version each function follows.
#pragma once
#include <cstdint>

#include "sched.h"

namespace cfsv {

// The class's hooks (struct sched_class fair_sched_class).
void enqueue_task_fair(Sched& s, CpuId cpu, TaskId task, unsigned flags);
void dequeue_task_fair(Sched& s, CpuId cpu, TaskId task, unsigned flags);
void check_preempt_wakeup(Sched& s, CpuId cpu, TaskId task, unsigned wake_flags);
TaskId pick_next_task_fair(Sched& s, CpuId cpu, TaskId prev);  // kIdle when nothing is queued
void put_prev_task_fair(Sched& s, TaskId task);
void set_next_task_fair(Sched& s, TaskId task);
void task_tick_fair(Sched& s, CpuId cpu);
void yield_task_fair(Sched& s, CpuId cpu);  // the running task yields (sched_yield)
// cq: the forking task's cfs_rq (task_cfs_rq(current)).
void task_fork_fair(Sched& s, TaskId task, CfsRqId cq);
// After set_user_nice changed a queued task's nice from old_nice.
void prio_changed_fair(Sched& s, TaskId task, int old_nice);

// reweight_task (v5.15): a task's new weight, its PELT load_avg with it.
void reweight_task(Sched& s, TaskId task, LoadWeight<uint64_t> load);
// sched_group_set_shares: shares in cpu.shares units, clamped as the kernel does.
void sched_group_set_shares(Sched& s, GroupId tg, uint64_t shares);
// sched_group_set_idle: cpu.idle of a group that is not the root.
void sched_group_set_idle(Sched& s, GroupId tg, bool idle);
// place_entity: a new entity's (initial) or a waking one's vruntime on cq.
void place_entity(Sched& s, CfsRqId cq, EntityId se, bool initial);
// sched_slice of entity se on cfs_rq cq now.
uint64_t sched_slice(const Sched& s, CfsRqId cq, EntityId se);

}  // namespace cfsv
