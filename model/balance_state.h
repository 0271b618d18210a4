// The running state of load balancing (kernel/sched v5.15): the fields of
// struct sched_domain that balancing writes, per domain of each CPU; the
// imbalance flag of each struct sched_group_capacity; the root domain's
// overload flag; nohz.next_balance. model/balance.h reads and writes it.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "ids.h"
#include "scenario.h"

namespace cfsv {

// struct sched_domain's balancing fields (sd_init v5.15 sets them at boot).
struct SdBalance {
  uint64_t last_balance = 0;            // jiffies
  unsigned balance_interval = 0;        // ms
  unsigned nr_balance_failed = 0;
  Nanos max_newidle_lb_cost = 0;
  uint64_t next_decay_max_lb_cost = 0;  // jiffies
};

// A newidle balance in progress on one CPU (newidle_balance v5.15 with the
// rq lock dropped): its domain walk, one domain's load_balance at a time,
// each taking its modelled time (model/balance.h). `at` is when the domain
// being balanced is done; 0: no walk.
struct NewidleWalk {
  Nanos at = 0, t0 = 0;          // the domain's balance started at t0, ends at `at`
  uint32_t gen = 0;              // invalidates the pending event of an earlier walk
  std::size_t level = 0;         // the domain being balanced, or next
  Nanos curr_cost = 0;           // the walk's cost so far
  uint64_t next_balance = 0;     // jiffies
  bool from_task = false;        // a task blocked into it: rq->curr is that task, not idle (idle_cpu false)
  Nanos first_arrival = 0;       // when a task first arrived on the rq during the walk; 0: none
};

// rq->cpu_load[] (kernel/sched/sched.h v4.4, era 1): the CPU's load averaged
// over 2^i ticks, index i; and rq->last_load_update_tick (jiffies).
constexpr unsigned kCpuLoadIdxMax = 5;  // CPU_LOAD_IDX_MAX
struct CpuLoadV4 {
  std::array<uint64_t, kCpuLoadIdxMax> load{};
  uint64_t last_update_tick = 0;
};

struct BalanceState {
  IdVec<CpuId, std::vector<SdBalance>> sd;  // per CPU, as SchedTopology::sd
  // sgc->imbalance by (sd->level, sgc->id): the groups of one level that
  // share a sched_group_capacity share it.
  std::vector<uint8_t> group_imbalance;
  unsigned levels = 0;                      // the highest sd->level + 1
  bool overload = false;                    // rd->overload
  uint64_t nohz_next_balance = 0;           // nohz.next_balance (jiffies)
  bool nohz_has_blocked = false;            // nohz.has_blocked (v5.15)
  uint64_t nohz_next_blocked = 0;           // nohz.next_blocked (jiffies, v5.15)
  IdVec<CpuId, NewidleWalk> walk;           // per CPU
  CpuMask walk_event;                       // CPUs whose walk needs its event queued (Sim)
  IdVec<CpuId, CpuLoadV4> cpu_load;         // per CPU, era 1 (model/balance_v4.cpp)
  CpuId ilb_running;                        // v3.10: the idle load balancer while it balances for another CPU

  // sg_imbalanced: sgc->imbalance at level of the group whose capacity is
  // sgc's (0 where balancing never ran).
  static std::size_t group_imbalance_index(unsigned level, CpuId sgc, std::size_t nr_cpus) {
    return level * nr_cpus + sgc.index();
  }
  bool group_imbalanced(unsigned level, CpuId sgc, std::size_t nr_cpus) const {
    const std::size_t i = group_imbalance_index(level, sgc, nr_cpus);
    return i < group_imbalance.size() && group_imbalance[i] != 0;
  }

  // Back to a new BalanceState's values with the storage kept: sd keeps its
  // per-CPU vectors, emptied, for init_balance to fill again.
  void clear() {
    for (std::vector<SdBalance>& v : sd) v.clear();
    group_imbalance.clear(), walk.clear(), cpu_load.clear();
    levels = 0, overload = false, nohz_next_balance = 0, walk_event = {}, ilb_running = {};
    nohz_has_blocked = false, nohz_next_blocked = 0;
  }
};

}  // namespace cfsv
