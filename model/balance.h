// Load balancing (kernel/sched/fair.c v5.15) under the feature `load_balance`:
// the periodic balance of a busy CPU's tick (trigger_load_balance ->
// rebalance_domains), the idle CPUs' balance through the nohz idle load
// balancer, newidle balance when a CPU is about to go idle, and active
// balance by the stopper. Its state is Sched::lb (model/balance_state.h); its
// arithmetic is model/arith/balance.h. docs/balancing.md, "Load balancing",
// says what is modelled and what is simplified.
#pragma once
#include "sched.h"

namespace cfsv {

// jiffies at the simulated clock (the model boots at jiffy 0).
inline uint64_t jiffies(const Sched& s) { return s.now / s.tun.tick_ns(); }

// sd_init's balancing fields for every CPU's domains (v5.15), at boot.
void init_balance(Sched& s);

// trigger_load_balance (v5.15) at the tick of a busy CPU: rebalance_domains
// when rq->next_balance is due, then nohz_balancer_kick.
void trigger_load_balance(Sched& s, CpuId cpu);

// newidle_balance (v5.15), when `cpu` finds nothing to run: stamps idle_stamp,
// and with `load_balance` on pulls from the busiest CPUs of its domains.
// Returns > 0 when the cfs rq now has a task to pick.
int newidle_balance(Sched& s, CpuId cpu);

}  // namespace cfsv
