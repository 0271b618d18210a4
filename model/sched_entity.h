// struct sched_entity (include/linux/sched.h) as the model keeps it, and the
// key that orders entities on a cfs_rq's timeline.
#pragma once
#include <cstdint>
#include <memory_resource>
#include <set>

#include "arith/calc_delta.h"
#include "arith/fair_math.h"

namespace cfsv {

using Nanos = uint64_t;

// One node of a cfs_rq's tasks_timeline. The kernel orders its rbtree with
// entity_before(), (s64)(a->vruntime - b->vruntime) < 0, and puts an entity
// that ties with others to the right of them (FIFO among equals); `seq` (a
// per-simulation insertion counter) reproduces that tie-break.
//
// Why a signed-difference comparator is a valid std::set order: an entity's
// vruntime never changes while it is in the tree (only curr's does, and curr
// is not in the tree; reweight_entity does not touch vruntime before v6.6), and
// the entities of one cfs_rq always lie within a window far smaller than 2^63
// around min_vruntime. Inside such a window (s64)(a - b) < 0 is the same total
// order as comparing the offsets a - base, b - base for any base just below the
// window, so it is a strict weak order even as vruntimes wrap past 2^64. Keying
// on (vruntime - min_vruntime) instead would NOT be stable: min_vruntime moves
// while entities sit in the tree. The `timeline-order` invariant re-checks the
// order with entity_before after every operation.
struct TimelineKey {
  uint64_t vruntime;
  uint64_t seq;
  int32_t se;
};
struct EntityBefore {
  bool operator()(const TimelineKey& a, const TimelineKey& b) const {
    const int64_t d = static_cast<int64_t>(a.vruntime - b.vruntime);
    return d < 0 || (d == 0 && a.seq < b.seq);
  }
};
// std::set's leftmost (begin()) is cached by the container, like the kernel's
// rb_root_cached; nodes come from the simulator's pool, so inserting and
// erasing do not call malloc once the pool is warm.
using Timeline = std::pmr::set<TimelineKey, EntityBefore>;

struct SchedEntity {
  LoadWeight<uint64_t> load{0, 0};  // load.weight in the era's resolution; inv_weight 0 = lazy
  uint64_t vruntime = 0;
  Nanos exec_start = 0;
  uint64_t sum_exec_runtime = 0;
  uint64_t prev_sum_exec_runtime = 0;
  bool on_rq = false;
  bool in_timeline = false;  // the model's own bookkeeping: `node` is valid
  int32_t cfs_rq = -1;       // cfs_rq_of(se)
  int32_t my_q = -1;         // group_cfs_rq(se): -1 for a task's entity
  int32_t parent = -1;       // parent_entity(se): -1 at the top level
  int32_t task = -1;         // the task of a task entity, -1 for a group entity
  int32_t depth = 0;         // se->depth
  Timeline::iterator node{};
  bool is_task() const { return my_q < 0; }
};

}  // namespace cfsv
