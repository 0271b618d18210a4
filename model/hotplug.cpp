#include "hotplug.h"

#include "balance.h"
#include "core.h"
#include "fair.h"
#include "pelt.h"
#include "select_rq.h"

namespace cfsv {

void set_cpu_active(Sched& s, CpuId cpu, bool active) {
  Rq& r = s.rq[cpu];
  if (active) r.offline_ns += s.now - r.offline_since;
  else r.offline_since = s.now;
  s.active[cpu.index()] = active;
  touch(s, cpu);
  // rq_offline_fair (after v6.4: tg_load_offline_clear)
  if (!active && s.era.pelt && s.features[Feature::tg_load_offline_clear]) clear_tg_offline_cfs_rqs(s, cpu);
}

void migrate_tasks(Sched& s, CpuId dead) {
  touch(s, dead);
  // take_cpu_down runs under stop_machine: every online CPU's stopper
  // preempts what runs there (multi_cpu_stop), the idle task too, until the
  // dying CPU is gone; then each picks again, an idle one through its newidle
  // balance (prev is the stopper). A CPU still in a newidle walk finishes it
  // first: left out (docs/model.md).
  CpuMask stopped;
  for (const CpuId c : each_cpu(s.active))
    if (!newidle_walking(s, c)) stopper_preempt(s, c), stopped.set(c.index());
  if (s.rq[dead].curr != kIdle) stopper_preempt(s, dead);
  // In the order the CPU's pick takes them, each picked and put back (v5.15's
  // balance_push pushes each as it becomes rq->curr: the same order).
  while (const TaskId task = pick_next_task_fair(s, dead, TaskId{})) {
    put_prev_task_fair(s, task);
    const CpuId dest = select_fallback_rq(s, dead, task);
    detach_task(s, task, dest);
    attach_task(s, task, true);
    s.counters.hotplug_migrations++;
  }
  resched_curr(s, dead);
  for (const CpuId c : each_cpu(stopped)) resched_curr(s, c);
}

}  // namespace cfsv
