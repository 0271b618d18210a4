// struct task_group (kernel/sched/sched.h): one cfs_rq and one group entity
// per CPU; the root group has no entities.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cfsv {

struct TaskGroup {
  std::string path;            // "/" for the root, "/g0", "/a/b"
  int32_t parent = -1;         // -1 for the root
  uint64_t shares = 0;         // tg->shares, in the era's resolution (scale_load(cpu.shares))
  std::vector<int32_t> cfs_rq; // per CPU
  std::vector<int32_t> se;     // per CPU; empty for the root
  uint64_t load_down_sum = 0;  // sum over CPUs of scale_load_down(cfs_rq load): the instantaneous tg load
  int32_t depth = 0;           // 0 for the root
};

}  // namespace cfsv
