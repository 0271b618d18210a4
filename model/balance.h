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

// sd_init's balancing fields for every CPU's domains (v5.15), at boot.
void init_balance(Sched& s);
// The balancing fields of the domains s.topo now holds, as sd_init sets them
// (last_balance now, the level's balance_interval, no failures, no newidle
// cost), and the groups' imbalance flags cleared: at boot, and when hotplug
// rebuilds the domains (partition_sched_domains). A newidle walk in progress
// goes on over the new domains (the kernel's finishes over the old ones).
void init_domains_balance(Sched& s);

// trigger_load_balance (v5.15) at the tick of a busy CPU: nohz_balancer_kick
// decides in the tick whether an idle CPU is to balance for the idle ones;
// then, when rq->next_balance is due, the CPU's own run_rebalance_domains
// (update_blocked_averages, rebalance_domains), then the kicked CPU's
// _nohz_idle_balance.
void trigger_load_balance(Sched& s, CpuId cpu);
// nohz_balance_enter_idle (v5.15): cpu stops its tick in idle with blocked
// load to decay (rq->has_blocked_load, nohz.has_blocked).
void nohz_balance_enter_idle(Sched& s, CpuId cpu);

// update_misfit_status (kernel/sched/fair.c v5.15) when cpu picks p (kIdle:
// none) and at p's tick: with asymmetric capacities, rq->misfit_task_load is
// p's task_h_load (at least 1) when p does not fit cpu and may run elsewhere.
void update_misfit_status(Sched& s, TaskId p, CpuId cpu);

// newidle_balance (v5.15), when `cpu` finds nothing to run (from_task: a
// task just blocked there): stamps idle_stamp, and with `load_balance` on
// starts the domain walk that pulls from the busiest CPUs. Returns > 0 when
// the cfs rq has a task to pick now; else the CPU idles, and while
// newidle_walking() its schedule() waits for the walk (as the kernel's
// __schedule does): Sim calls newidle_balance_done at the walk's next
// event time (NewidleWalk::at, the CPUs in BalanceState::walk_event), which
// is true when the walk ended with a task to pick.
int newidle_balance(Sched& s, CpuId cpu, bool from_task);
bool newidle_walking(const Sched& s, CpuId cpu);
bool newidle_balance_done(Sched& s, CpuId cpu);
// A task was queued on cpu by a wakeup, a fork or a migration: counted when
// it arrives during a newidle walk.
void note_arrival(Sched& s, CpuId cpu);

}  // namespace cfsv
