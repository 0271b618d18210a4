// One load_balance pass that moved tasks, as the sink sees it
// (SchedSink::lb_pass, model/sink.h): where it balanced, the verdict
// find_busiest_group computed (v5.15's, or era 1's v4.4 one), the local and
// busiest groups' figures it computed the verdict from, and what
// detach_tasks took against that verdict. docs/balancing.md, "One pass".
#pragma once
#include <cstdint>

#include "arith/balance.h"
#include "ids.h"

namespace cfsv {

// The figures update_sg_lb_stats gathered for a group (v5.15's sg_lb_stats;
// era 1: v4.4's, whose group_load is the biased cpu_load[] index loads) and
// the group type (era 1: GroupTypeV4's value).
struct LbGroupFigures {
  uint64_t group_load, group_capacity, avg_load;
  uint64_t sum_nr_running, idle_cpus, group_weight;
  uint8_t type;
};

// Every field is set before the sink sees it (no initialisers: a pass that
// no sink reads costs nothing to declare).
struct LbPass {
  CpuId dst, src;         // dst: where the tasks went (the balancing CPU, or the
                          // local group's CPU that LBF_DST_PINNED chose)
  uint32_t level;         // the domain's index among dst's domains
  CpuIdleType idle;
  bool era1;              // v4.4's load_balance (the feature balance_v4_4)
  bool pulls_one;         // a newly idle pass stops after one task (newidle_pulls_one)
  MigrationType type;     // era 1: always load
  int64_t imbalance;      // X: env->imbalance as find_busiest_group left it
  int64_t left;           // env->imbalance when the pass's last detach_tasks ended
  uint32_t nr_balance_failed;  // sd->nr_balance_failed as detach_tasks read it
  uint32_t tasks;         // ld_moved
  uint64_t last_take;     // what the last task detached took off env->imbalance
  uint64_t max_take;      // the most any one task took off it
  uint64_t domain_avg_load;  // sds->avg_load where the verdict computed it, else 0
  LbGroupFigures local, busiest;
};

}  // namespace cfsv
