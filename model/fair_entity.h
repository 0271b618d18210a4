// The entity-level CFS functions that fair.cpp (enqueue, dequeue, ticks) and
// fair_pick.cpp (pick, buddies, preemption) share: internal to the two;
// model/fair.h is the class's interface.
#pragma once
#include "sched.h"

namespace cfsv::fair {

// update_stats_wait_start / update_stats_wait_end (schedstats).
void wait_begin(Sched& s, TaskId task);
void wait_end(Sched& s, TaskId task);
// __enqueue_entity / __dequeue_entity: the timeline.
void enqueue_entity_tree(Sched& s, CfsRqId cq, EntityId se);
void dequeue_entity_tree(Sched& s, CfsRqId cq, EntityId se);
// check_preempt_tick: curr's slice against sched_slice at a tick.
void check_preempt_tick(Sched& s, CfsRqId cq, EntityId curr);
// set_next_buddy, and clear_buddies of se on cq and up the hierarchy.
void set_next_buddy(Sched& s, EntityId se);
void clear_buddies(Sched& s, CfsRqId cq, EntityId se);

}  // namespace cfsv::fair
