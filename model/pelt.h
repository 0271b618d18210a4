// PELT in the simulator: the load-tracking paths of kernel/sched/fair.c v5.15
// over the state of pelt_state.h, built on the arithmetic of
// arith/pelt.h and arith/pelt_shares.h. fair.cpp and core.cpp call them
// where the kernel does; they run only when s.era.pelt (feature pelt_v5).
#pragma once
#include <cstdint>

#include "sched.h"

namespace cfsv {

// update_load_avg's flags (kernel/sched/fair.c v5.15; DO_DETACH is v6.0+).
constexpr unsigned kUpdateTg = 1, kSkipAgeLoad = 2, kDoAttach = 4, kDoDetach = 8;

// The clock of v4.4's and v3.10's load tracking (cfs_rq_clock_task): the
// clock plus kPeltClockStart (model/sched.h). v5.15's is per rq, rq_clock_pelt.
inline uint64_t cfs_rq_clock_pelt(const Sched& s) { return s.now + kPeltClockStart; }
// rq_clock_pelt (kernel/sched/pelt.h v5.15), as cfs_rq_clock_pelt reads it
// (no bandwidth throttling): clock_pelt brought up to now, less the idle time
// lost while the CPU was fully busy.
inline uint64_t rq_clock_pelt(Sched& s, CpuId cpu) {
  update_rq_clock_pelt(s, cpu);
  return s.rq[cpu].clock_pelt - s.rq[cpu].lost_idle_time;
}
// update_idle_rq_clock_pelt (kernel/sched/pelt.h v5.15), as cpu goes idle:
// when its util_sum is at the maximum, the idle time the lower capacity took
// is lost (lost_idle_time), not given back.
void update_idle_rq_clock_pelt(Sched& s, CpuId cpu);

void update_load_avg(Sched& s, CfsRqId cq, EntityId se, unsigned flags);
void se_update_runnable(Sched& s, EntityId se);
// reweight_entity's PELT parts, around the change of se->load.
void dequeue_load_avg(Sched& s, CfsRqId cq, EntityId se);
void reweight_load_avg(Sched& s, CfsRqId cq, EntityId se);  // load_avg for the new weight, then enqueue_load_avg
// calc_group_shares of the group cfs_rq gcq.
uint64_t calc_group_shares(const Sched& s, CfsRqId gcq);
void list_add_leaf_cfs_rq(Sched& s, CfsRqId cq);
// update_tg_load_avg: tg->load_avg follows the cfs_rq's load_avg past the
// 1/64 threshold (v4.4 and v5.15; the root skipped under root_tg_load_avg_skip).
void update_tg_load_avg(Sched& s, CfsRqId cq);
// clear_tg_offline_cfs_rqs (tg_load_offline_clear): each group's
// tg_load_avg_contrib on cpu out of its tg->load_avg (rq_offline_fair).
void clear_tg_offline_cfs_rqs(Sched& s, CpuId cpu);

// Fork, exit, migration and group moves.
void init_entity_runnable_average(Sched& s, EntityId se);
void post_init_entity_util_avg(Sched& s, TaskId task);
void attach_entity_cfs_rq(Sched& s, EntityId se);
void detach_entity_cfs_rq(Sched& s, EntityId se);
void remove_entity_load_avg(Sched& s, EntityId se);
void sync_entity_load_avg(Sched& s, EntityId se);  // v5.15
// migrate_task_rq_fair's PELT part: detach (a queued task) or remove (a
// waking one), then last_update_time = 0 so that the enqueue attaches.
void migrate_task_rq_fair_pelt(Sched& s, TaskId task, bool queued);

// update_blocked_averages for one CPU (v5.15; its rq's has_blocked_load and
// last_blocked_load_update_tick kept); update_blocked_averages_of_era, the
// era's form (v4.4, v3.10: model/pelt_eras.h), none without load tracking;
// and without load balancing the model's rhythm for it: at a busy CPU's
// tick, every CPU's once LOAD_AVG_PERIOD ms have passed (docs/pelt.md, "PELT
// in the model"). Load balancing calls it where the kernel's does.
void update_blocked_averages(Sched& s, CpuId cpu);
void update_blocked_averages_of_era(Sched& s, CpuId cpu);
void blocked_averages_tick(Sched& s);

}  // namespace cfsv
