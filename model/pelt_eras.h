// The load tracking of the older eras in the simulator, each at its own
// fair.c call sites (docs/pelt.md, "PELT in v4.4", "PELT in v3.10"): v4.4's
// (model/pelt_v4.cpp, the v4.3 rewrite over arith/pelt_v4.h) and v3.10's
// (model/pelt_v3.cpp, the 3.8-era runnable averages over arith/pelt_v3.h).
// fair.cpp and core.cpp dispatch to them with s.era.pelt_v4 / pelt_v3;
// v5.15's paths are model/pelt.h.
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

namespace cfsv::pelt3 {

// enqueue_entity_load_avg(wakeup) / dequeue_entity_load_avg(sleep).
void enqueue_entity_load_avg(Sched& s, CfsRqId cq, EntityId se, bool wakeup);
void dequeue_entity_load_avg(Sched& s, CfsRqId cq, EntityId se, bool sleep);
// update_entity_load_avg(se, update_cfs_rq): entity_tick, put_prev_entity, the levels above.
void update_entity_load_avg(Sched& s, EntityId se, bool update_cfs_rq);
// update_cfs_rq_blocked_load(cfs_rq, force): entity_tick.
void update_cfs_rq_blocked_load(Sched& s, CfsRqId cq, bool force);
// list_add_leaf_cfs_rq / list_del_leaf_cfs_rq: the rq's leaf list in v3.10's
// order (Rq::leaf_head, CfsRqPelt::V3's links), which update_blocked_averages walks.
void list_add_leaf_cfs_rq(Sched& s, CfsRqId cq);
void list_del_leaf_cfs_rq(Sched& s, CfsRqId cq);
// A forked child's averages: its parent's contribution copied (none: zero).
void fork_entity(Sched& s, EntityId child, EntityId parent);
// migrate_task_rq_fair (set_task_cpu to another CPU).
void migrate_task_rq_fair(Sched& s, TaskId task);
// task_move_group_fair for a sleeping task that has run, after set_task_rq.
void task_move_group_fair(Sched& s, TaskId task);
uint64_t calc_cfs_shares(const Sched& s, CfsRqId gcq);
void update_blocked_averages(Sched& s, CpuId cpu);
// A cfs_rq's load in v3.10, the value tg_load_contrib follows:
// runnable_load_avg + blocked_load_avg.
inline uint64_t cfs_rq_load_avg(const CfsRq& c) { return c.pelt.runnable_load.avg + c.pelt.v3.blocked_load_avg; }

}  // namespace cfsv::pelt3
