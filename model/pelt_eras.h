// The load tracking of the older eras in the simulator, each at its own
// fair.c call sites (docs/model.md, "PELT"): v4.4's (model/pelt_v4.cpp, the
// v4.3 rewrite over arith/pelt_v4.h). fair.cpp and core.cpp dispatch to them
// with s.era.pelt_v4; v5.15's paths are model/pelt.h.
#pragma once
#include <cstdint>

#include "sched.h"

namespace cfsv::pelt4 {

// enqueue_entity_load_avg / dequeue_entity_load_avg (enqueue_entity, dequeue_entity).
void enqueue_entity_load_avg(Sched& s, CfsRqId cq, EntityId se);
void dequeue_entity_load_avg(Sched& s, CfsRqId cq, EntityId se);
// update_load_avg(se, update_tg): entity_tick, set_next/put_prev_entity, the levels above.
void update_load_avg(Sched& s, EntityId se, bool update_tg);
// init_entity_runnable_average: a new task (wake_up_new_task) or group entity.
void init_entity_runnable_average(Sched& s, EntityId se);
// remove_entity_load_avg: task_dead_fair.
void remove_entity_load_avg(Sched& s, EntityId se);
// migrate_task_rq_fair (set_task_cpu to another CPU): remove, then
// last_update_time = 0 so that the enqueue attaches.
void migrate_task_rq_fair(Sched& s, TaskId task);
// task_move_group_fair's PELT: detach from the old cfs_rq (before the
// change), then attach to the new one (after it).
void detach_entity_load_avg(Sched& s, EntityId se);
void attach_entity_load_avg_moved(Sched& s, EntityId se);
// calc_cfs_shares of the group cfs_rq gcq.
uint64_t calc_cfs_shares(const Sched& s, CfsRqId gcq);
void update_blocked_averages(Sched& s, CpuId cpu);

}  // namespace cfsv::pelt4
