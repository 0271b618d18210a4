// The PELT fields of the scheduler's objects, v5.15's form (struct sched_avg,
// include/linux/sched.h; the cfs_rq and task_group fields of
// kernel/sched/sched.h). model/pelt.h keeps them up to date; v4.4's
// (model/pelt_eras.h) keeps its sched_avg, v5.15's without the runnable
// fields, in the same storage, and its removed_load_avg/removed_util_avg in
// `removed`; v3.10's has fields of its own (EntityPeltV3, CfsRqPelt::V3).
#pragma once
#include <cstdint>

#include "arith/pelt.h"
#include "arith/pelt_v4.h"
#include "ids.h"

namespace cfsv {

using SchedAvg = pelt_v5_15::SchedAvg<uint64_t>;

// v3.10's per-entity runnable averages (struct sched_avg v3.10; its
// load_avg_contrib is kept in EntityPelt::avg.load_avg).
struct EntityPeltV3 {
  uint64_t runnable_avg_sum = 0, runnable_avg_period = 0;  // u32 each
  uint64_t last_runnable_update = 0;
  int64_t decay_count = 0;  // the cfs_rq's decay_counter at sleep; negative after a wakeup migration
};

// struct util_est (include/linux/sched.h v5.15): a task's estimate, the
// util_avg at its last dequeue for a sleep (with UTIL_AVG_UNCHANGED while
// util_avg has not moved since) and its moving average.
struct UtilEst {
  uint32_t enqueued = 0, ewma = 0;
  bool operator==(const UtilEst&) const = default;
};

// A sched_entity's load tracking.
struct EntityPelt {
  SchedAvg avg;                  // se->avg
  UtilEst util_est;              // se->avg.util_est (tasks; model/util_est.h)
  EntityPeltV3 v3;               // v3.10 only
  uint64_t runnable_weight = 0;  // se->runnable_weight: a group entity's my_q h_nr_running (se_update_runnable)
  CfsRqId attached;              // the model's own: the cfs_rq its averages are attached to; none when detached
};

// A cfs_rq's load tracking.
struct CfsRqPelt {
  SchedAvg avg;  // cfs_rq->avg
  uint32_t util_est_enqueued = 0;  // cfs_rq->avg.util_est.enqueued: its queued tasks' estimates (the root's)
  // cfs_rq->removed: the averages of entities that left (exit, wakeup
  // migration), subtracted at this cfs_rq's next update.
  struct Removed {
    uint32_t nr = 0;
    uint64_t load_avg = 0, util_avg = 0, runnable_avg = 0;
  } removed;
  bool propagate = false;             // cfs_rq->propagate
  int64_t prop_runnable_sum = 0;      // cfs_rq->prop_runnable_sum
  uint64_t tg_load_avg_contrib = 0;   // cfs_rq->tg_load_avg_contrib: its part of tg->load_avg
  pelt_v4_4::RunnableLoad<uint64_t> runnable_load;  // v4.4: runnable_load_sum/avg, the queued entities' part; v3.10: .avg
  // v3.10 (its removed_load is removed.load_avg, its tg_load_contrib tg_load_avg_contrib).
  struct V3 {
    uint64_t blocked_load_avg = 0;
    uint64_t decay_counter = 1, last_decay = 0;  // atomic64 decay_counter starts at 1
    uint64_t tg_runnable_contrib = 0;
    CfsRqId leaf_prev, leaf_next;  // its neighbours on the rq's leaf list (Rq::leaf_head), in v3.10's order
  } v3;
  bool on_list = false;               // on its rq's leaf_cfs_rq_list (update_blocked_averages walks it)
  uint64_t child_on_list_walk = 0;    // the rq's blocked walk in which a child group's cfs_rq stayed on the list
  // The model's own bookkeeping for the invariants: entities attached here,
  // and the removals queued and applied since boot.
  uint32_t nr_attached = 0;
  uint64_t removals_queued = 0, removals_applied = 0;
};

}  // namespace cfsv
