// struct cfs_rq (kernel/sched/sched.h) as the model keeps it.
#pragma once
#include <cstdint>

#include "sched_entity.h"

namespace cfsv {

struct CfsRq {
  explicit CfsRq(std::pmr::memory_resource* pool) : timeline(pool) {}
  CfsRq(const CfsRq&) = delete;
  CfsRq& operator=(const CfsRq&) = delete;
  uint64_t load_weight = 0;  // load.weight; its inv_weight is always lazy (update_load_add clears it)
  uint32_t nr_running = 0;   // entities queued here, curr included
  uint32_t h_nr_running = 0; // tasks queued in this cfs_rq's whole subtree
  uint64_t min_vruntime = kInitMinVruntime;
  int32_t curr = -1;         // the entity running here (not in the timeline)
  int32_t next = -1, last = -1, skip = -1;  // buddies
  int32_t tg = 0;            // the task group this cfs_rq belongs to
  int32_t cpu = 0;
  int32_t group_se = -1;     // tg->se[cpu], -1 for the root cfs_rq
  uint64_t load_down = 0;    // scale_load_down(load_weight) as counted in the group's total
  Timeline timeline;

  LoadWeight<uint64_t> load() const { return {load_weight, 0}; }
  // __pick_first_entity: the leftmost entity, -1 when the tree is empty.
  int32_t first() const { return timeline.empty() ? -1 : timeline.begin()->se; }
};

}  // namespace cfsv
