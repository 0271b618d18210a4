// CPU hotplug: what the scheduler does when a CPU goes offline or comes back
// (`cpu offline N` / `cpu online N`; docs/model.md, "CPU hotplug"). The
// caller (Sim) rebuilds the sched domains over the active CPUs in between,
// as cpuset's partition_sched_domains does.
#pragma once
#include "sched.h"

namespace cfsv {

// sched_cpu_deactivate / sched_cpu_activate (kernel/sched/core.c v5.15;
// v4.4: sched_cpu_inactive / sched_cpu_active): cpu leaves or joins
// cpu_active_mask; no task is placed on an inactive CPU again. Going
// offline, rq_offline_fair's clear_tg_offline_cfs_rqs under the feature
// tg_load_offline_clear (after v6.4).
void set_cpu_active(Sched& s, CpuId cpu, bool active);

// sched_cpu_dying's task migration (v3.10 and v4.4 migrate_tasks; v5.15
// balance_push does the same from the dying CPU), under stop_machine: the
// stopper preempts the running task of every online CPU (each picks again
// after), then every task queued on cpu, in the order pick_next_task
// takes them (each picked and put back), goes to select_fallback_rq's
// CPU (the first allowed active CPU of its node, else of the machine, else
// the cpuset fallback widens its affinity).
void migrate_tasks(Sched& s, CpuId dead);

}  // namespace cfsv
