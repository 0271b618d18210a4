// The running state of load balancing (kernel/sched v5.15): the fields of
// struct sched_domain that balancing writes, per domain of each CPU; the
// imbalance flag of each struct sched_group_capacity; the root domain's
// overload flag; nohz.next_balance. model/balance.h reads and writes it.
#pragma once
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

struct BalanceState {
  IdVec<CpuId, std::vector<SdBalance>> sd;  // per CPU, as SchedTopology::sd
  // sgc->imbalance by (sd->level, sgc->id): the groups of one level that
  // share a sched_group_capacity share it.
  std::vector<uint8_t> group_imbalance;
  unsigned levels = 0;                      // the highest sd->level + 1
  bool overload = false;                    // rd->overload
  uint64_t nohz_next_balance = 0;           // nohz.next_balance (jiffies)
};

}  // namespace cfsv
