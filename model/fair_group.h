// Shared by fair.cpp and fair_group.cpp (kernel/sched/fair.c): the group
// entities' weights, and update_curr, which reweighting calls first.
#pragma once

#include "sched.h"

namespace cfsv {

// update_curr: charge the running entity of cq up to s.now.
void update_curr(Sched& s, CfsRqId cq);
// The group's instantaneous load after a change of cq's weight.
void cfs_load_changed(Sched& s, CfsRqId cq);
// update_cfs_group (v4.15+): reweight group entity se (nothing for a task's).
void update_cfs_group(Sched& s, EntityId se);
// update_cfs_shares (v3.10..v4.14): reweight the group entity owning cq.
void update_cfs_shares(Sched& s, CfsRqId cq);

}  // namespace cfsv
