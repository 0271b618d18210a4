// The CFS functions (kernel/sched/fair.c), each with the kernel version(s) it
// follows: update_curr, enqueue/dequeue, placement, ticks, fork, nice; the
// pick, buddies and preemption are in fair_pick.cpp, the group entities'
// weights in fair_group.cpp. Their PELT parts are v5.15's (model/pelt.h,
// s.era.pelt), v4.4's or v3.10's (model/pelt_eras.h, s.era.pelt_v4 /
// pelt_v3), each at its own era's call sites.
#include "fair.h"

#include <algorithm>
#include <array>
#include <span>

#include "arith/fair_math.h"
#include "arith/slice.h"
#include "balance.h"
#include "cfs_tasks.h"
#include "fair_cpu.h"
#include "fair_entity.h"
#include "fair_group.h"
#include "pelt.h"
#include "pelt_eras.h"
#include "sink.h"

namespace cfsv {

namespace fair {

// update_stats_wait_start / update_stats_wait_end (kernel/sched/fair.c,
// schedstats): a task's time runnable but not running.
void wait_begin(Sched& s, TaskId task) {
  Task& t = s.tasks[task];
  if (t.waiting) return;
  t.waiting = true;
  t.wait_start = s.now;
}

void wait_end(Sched& s, TaskId task) {
  Task& t = s.tasks[task];
  if (!t.waiting) return;
  t.waiting = false;
  t.stats.wait_ns += s.now - t.wait_start;
}

// __enqueue_entity (kernel/sched/fair.c v3.10..v6.5): insert into the timeline.
void enqueue_entity_tree(Sched& s, CfsRqId cq, EntityId sei) {
  SchedEntity& e = s.se[sei];
  e.node = s.timeline_insert(s.cfs[cq].timeline, TimelineKey{e.vruntime, s.seq++, sei});
  e.in_timeline = true;
}

// __dequeue_entity (kernel/sched/fair.c v3.10..v6.5)
void dequeue_entity_tree(Sched& s, CfsRqId cq, EntityId sei) {
  SchedEntity& e = s.se[sei];
  s.timeline_erase(s.cfs[cq].timeline, e.node);
  e.node = {};
  e.in_timeline = false;
}

}  // namespace fair

using namespace fair;

namespace {

// update_min_vruntime (kernel/sched/fair.c v3.10; v4.9+ skips a dequeued curr)
void update_min_vruntime(Sched& s, CfsRqId cq) {
  CfsRq& c = s.cfs[cq];
  uint64_t v = c.min_vruntime;
  bool have_curr = bool(c.curr);
  if (have_curr) {
    if (s.era.min_vruntime_skips_dequeued_curr && !s.se[c.curr].on_rq) have_curr = false;
    else v = s.se[c.curr].vruntime;
  }
  const EntityId left = c.first();
  if (left) v = have_curr ? min_vruntime(v, s.se[left].vruntime) : s.se[left].vruntime;
  c.min_vruntime = max_vruntime(c.min_vruntime, v);
}

}  // namespace

// update_curr (kernel/sched/fair.c v3.10..v6.5): charge the time since
// exec_start to curr's sum_exec_runtime and, weighted, to its vruntime.
void update_curr(Sched& s, CfsRqId cq) {
  CfsRq& c = s.cfs[cq];
  if (!c.curr) return;
  SchedEntity& e = s.se[c.curr];
  const uint64_t delta = s.now - e.exec_start;
  if (static_cast<int64_t>(delta) <= 0) return;
  e.exec_start = s.now;
  e.sum_exec_runtime += delta;
  e.vruntime += calc_delta_fair<uint64_t>(delta, e.load, s.res);
  update_min_vruntime(s, cq);
}

namespace {

// account_entity_enqueue (kernel/sched/fair.c v3.10..v6.5; idle_nr_running v5.16+)
void account_entity_enqueue(Sched& s, CfsRqId cq, EntityId sei) {
  CfsRq& c = s.cfs[cq];
  c.load_weight += s.se[sei].load.weight;
  c.nr_running++;
  c.idle_nr_running += se_is_idle(s, sei);
  if (const TaskId t = s.se[sei].task) cfs_tasks_add(s, c.cpu, t);
  cfs_load_changed(s, cq);
}

// account_entity_dequeue (kernel/sched/fair.c v3.10..v6.5; idle_nr_running v5.16+)
void account_entity_dequeue(Sched& s, CfsRqId cq, EntityId sei) {
  CfsRq& c = s.cfs[cq];
  c.load_weight -= s.se[sei].load.weight;
  c.nr_running--;
  c.idle_nr_running -= se_is_idle(s, sei);
  if (const TaskId t = s.se[sei].task) cfs_tasks_del(s, c.cpu, t);
  cfs_load_changed(s, cq);
}

// sched_vslice (kernel/sched/fair.c v3.10..v6.5)
uint64_t sched_vslice(const Sched& s, CfsRqId cq, EntityId sei) {
  return calc_delta_fair<uint64_t>(sched_slice(s, cq, sei), s.se[sei].load, s.res);
}

// entity_is_long_sleeper (kernel/sched/fair.c v6.3..v6.5): more than
// 2^63 / scale_load_down(NICE_0_LOAD) ns since it last ran (exec_start 0:
// never ran here, or migrated).
bool entity_is_long_sleeper(const Sched& s, const SchedEntity& e) {
  if (e.exec_start == 0 || s.now <= e.exec_start) return false;
  return s.now - e.exec_start > (uint64_t{1} << 63) / scale_load_down<uint64_t>(nice_0_load<uint64_t>(s.res), s.res);
}

}  // namespace

// place_entity (kernel/sched/fair.c v3.10..v6.5): a new entity starts a
// vslice after min_vruntime with START_DEBIT; a waking one at most (half) a
// latency before it (v5.16+, idle_min_granularity: a SCHED_IDLE one (half) a
// min_granularity); never backwards, unless (v6.3+, sanitize_vruntime) it
// slept so long that its old vruntime may have wrapped against min_vruntime.
void place_entity(Sched& s, CfsRqId cq, EntityId sei, bool initial) {
  uint64_t v = s.cfs[cq].min_vruntime;
  if (initial && s.features[Feature::start_debit]) v += sched_vslice(s, cq, sei);
  if (!initial) {
    const bool idle = s.features[Feature::idle_min_granularity] && se_is_idle(s, sei);
    v -= sleeper_thresh<uint64_t>(idle ? s.tun.min_granularity_ns : s.tun.latency_ns,
                                  s.features[Feature::gentle_fair_sleepers]);
  }
  SchedEntity& e = s.se[sei];
  e.vruntime = s.features[Feature::sanitize_vruntime] && entity_is_long_sleeper(s, e) ? v : max_vruntime(e.vruntime, v);
}

namespace {

// enqueue_entity (kernel/sched/fair.c v3.10; v4.6+ renormalises after
// update_curr; v4.15+ update_cfs_group(se) before accounting; v5.15's
// update_load_avg(UPDATE_TG | DO_ATTACH) and the leaf list; v3.10's and
// v4.4's enqueue_entity_load_avg)
void enqueue_entity(Sched& s, CfsRqId cq, EntityId sei, unsigned flags) {
  CfsRq& c = s.cfs[cq];
  const bool renorm = !(flags & kEnqueueWakeup) || (flags & kEnqueueMigrated);
  const bool is_curr = c.curr == sei;
  if (renorm && (is_curr || !s.era.renorm_after_update_curr)) s.se[sei].vruntime += c.min_vruntime;
  update_curr(s, cq);
  if (renorm && !is_curr && s.era.renorm_after_update_curr) s.se[sei].vruntime += c.min_vruntime;
  if (s.era.pelt) {
    update_load_avg(s, cq, sei, kUpdateTg | kDoAttach);
    se_update_runnable(s, sei);
  } else if (s.era.pelt_v4) {
    pelt4::enqueue_entity_load_avg(s, cq, sei);
  } else if (s.era.pelt_v3) {
    pelt3::enqueue_entity_load_avg(s, cq, sei, flags & kEnqueueWakeup);
  }
  if (!s.era.shares_on_cfs_rq) update_cfs_group(s, sei);
  account_entity_enqueue(s, cq, sei);
  if (s.era.shares_on_cfs_rq) update_cfs_shares(s, cq);
  if (flags & kEnqueueWakeup) place_entity(s, cq, sei, false);
  if ((flags & kEnqueueMigrated) && s.features[Feature::sanitize_vruntime]) s.se[sei].exec_start = 0;
  if (!is_curr) {
    if (s.se[sei].is_task()) wait_begin(s, s.se[sei].task);
    enqueue_entity_tree(s, cq, sei);
  }
  s.se[sei].on_rq = true;
  if (s.era.pelt_v3 && c.nr_running == 1) pelt3::list_add_leaf_cfs_rq(s, cq);
  else if (s.era.tracks_pelt && c.nr_running == 1) list_add_leaf_cfs_rq(s, cq);
  s.counters.enqueues++;
}

// dequeue_entity (kernel/sched/fair.c v3.10; v4.15+ update_cfs_group(se)
// before update_min_vruntime; v5.4+ skips update_min_vruntime on DEQUEUE_SAVE
// without DEQUEUE_MOVE, so that the entity is put back where it was; the
// era's PELT: v3.10's and v4.4's dequeue_entity_load_avg; v6.4's DO_DETACH
// for a migrating task, pelt_attach_at_enqueue)
void dequeue_entity(Sched& s, CfsRqId cq, EntityId sei, unsigned flags) {
  update_curr(s, cq);
  if (s.era.pelt) {
    const bool detach = (flags & kDequeueMigrating) && s.se[sei].is_task() &&
                        s.features[Feature::pelt_attach_at_enqueue];
    update_load_avg(s, cq, sei, kUpdateTg | (detach ? kDoDetach : 0));
    se_update_runnable(s, sei);
  } else if (s.era.pelt_v4) {
    pelt4::dequeue_entity_load_avg(s, cq, sei);
  } else if (s.era.pelt_v3) {
    pelt3::dequeue_entity_load_avg(s, cq, sei, flags & kDequeueSleep);
  }
  CfsRq& c = s.cfs[cq];
  const bool is_curr = c.curr == sei;
  if (!is_curr && s.se[sei].is_task()) wait_end(s, s.se[sei].task);
  clear_buddies(s, cq, sei);
  if (!is_curr) dequeue_entity_tree(s, cq, sei);
  s.se[sei].on_rq = false;
  account_entity_dequeue(s, cq, sei);
  if (!(flags & kDequeueSleep)) s.se[sei].vruntime -= c.min_vruntime;
  if (!s.era.shares_on_cfs_rq) update_cfs_group(s, sei);
  const bool save = (flags & (kDequeueSave | kDequeueMove)) == kDequeueSave;
  if (!save || !s.features[Feature::dequeue_save_keeps_min_vruntime]) update_min_vruntime(s, cq);
  if (s.era.shares_on_cfs_rq) update_cfs_shares(s, cq);
  s.counters.dequeues++;
}

// entity_tick (kernel/sched/fair.c v3.10; v4.15+ update_cfs_group(curr);
// the era's update_load_avg), without hrtick.
void entity_tick(Sched& s, CfsRqId cq, EntityId curr) {
  update_curr(s, cq);
  if (s.era.pelt) update_load_avg(s, cq, curr, kUpdateTg);
  else if (s.era.pelt_v4) pelt4::update_load_avg(s, curr, true);
  if (s.era.pelt_v3) {
    pelt3::update_entity_load_avg(s, curr, true);
    pelt3::update_cfs_rq_blocked_load(s, cq, true);
  }
  if (s.era.shares_on_cfs_rq) update_cfs_shares(s, cq);
  else update_cfs_group(s, curr);
  if (s.cfs[cq].nr_running > 1) check_preempt_tick(s, cq, curr);
}

}  // namespace

// sched_slice (kernel/sched/fair.c; the variant in force comes from
// model/arith/slice.h), with the chain taken from the live hierarchy.
uint64_t sched_slice(const Sched& s, CfsRqId cq, EntityId sei) {
  std::array<SliceLevel<uint64_t>, kMaxDepth> chain;
  std::size_t n = 0;
  for (EntityId x = sei; x && n < chain.size(); x = s.se[x].parent) {
    const SchedEntity& e = s.se[x];
    chain[n++] = {e.load.weight, s.cfs[e.cfs_rq].load_weight, e.on_rq ? 1u : 0u};
  }
  const CfsRq& c = s.cfs[cq];
  const uint64_t rq_h = s.cfs[s.rq[c.cpu].cfs].h_nr_running;
  const SliceFeatures f = s.features.slice();
  const SliceIdle<uint64_t> idle{f.idle_floor && se_is_idle(s, sei) ? 1u : 0u, c.idle_nr_running};
  return cfsv::sched_slice<uint64_t>({chain.data(), n}, c.nr_running, rq_h, slice_tunables(s.tun), f, s.res, idle);
}

namespace {

// The levels above those enqueue_task_fair / dequeue_task_fair queued or
// dequeued: v3.10..v4.14 count the task, then (v4.4's PELT) update_load_avg,
// then update_cfs_shares, then (v3.10's) update_entity_load_avg; v4.15+
// update_load_avg (v5.15's PELT), se_update_runnable, update_cfs_group, then
// count it.
// nr is +1 or -1; idle 1 for a SCHED_IDLE task or one below an idle
// cfs_rq (v5.15+), which it becomes above one.
void update_upper_level(Sched& s, EntityId sei, int nr, int& idle) {
  const CfsRqId cq = s.se[sei].cfs_rq;
  s.cfs[cq].idle_h_nr_running += nr * idle;
  if (cfs_rq_is_idle(s, cq)) idle = 1;
  if (s.era.shares_on_cfs_rq) {
    s.cfs[cq].h_nr_running += nr;
    if (s.era.pelt_v4) pelt4::update_load_avg(s, sei, true);
    update_cfs_shares(s, cq);
    if (s.era.pelt_v3) pelt3::update_entity_load_avg(s, sei, true);
    return;
  }
  if (s.era.pelt) {
    update_load_avg(s, cq, sei, kUpdateTg);
    se_update_runnable(s, sei);
  }
  update_cfs_group(s, sei);
  s.cfs[cq].h_nr_running += nr;
}

}  // namespace

// enqueue_task_fair (kernel/sched/fair.c v3.10..v6.5, no bandwidth control;
// idle_h_nr_running as v5.4+ counts it, with v5.15's idle groups)
void enqueue_task_fair(Sched& s, CpuId cpu, TaskId task, unsigned flags) {
  touch(s, cpu);
  const uint32_t prev_nr = rq_nr_running(s, cpu);
  int idle = s.tasks[task].policy == Policy::idle;
  util_est_enqueue(s, cpu, task);
  EntityId sei = s.tasks[task].se;
  for (; sei; sei = s.se[sei].parent) {
    if (s.se[sei].on_rq) break;
    const CfsRqId cq = s.se[sei].cfs_rq;
    enqueue_entity(s, cq, sei, flags);
    s.cfs[cq].h_nr_running++;
    s.cfs[cq].idle_h_nr_running += idle;
    if (cfs_rq_is_idle(s, cq)) idle = 1;
    flags = kEnqueueWakeup;
  }
  for (; sei; sei = s.se[sei].parent) update_upper_level(s, sei, 1, idle);
  note_nr_running(s, cpu);
  add_nr_running_overload(s, cpu, prev_nr);
}

// dequeue_task_fair (kernel/sched/fair.c v3.10..v6.5, no bandwidth control):
// a parent stays queued while its cfs_rq has load; a sleeping task makes
// that parent the next buddy. v5.4+ (sched_idle_cpu): when only SCHED_IDLE
// tasks are left, the CPU's periodic balance is due at once.
void dequeue_task_fair(Sched& s, CpuId cpu, TaskId task, unsigned flags) {
  touch(s, cpu);
  const bool task_sleep = flags & kDequeueSleep;
  int idle = s.tasks[task].policy == Policy::idle;
  const bool was_sched_idle = sched_idle_cpu(s, cpu);
  util_est_dequeue(s, cpu, task);
  EntityId sei = s.tasks[task].se;
  while (sei) {
    const CfsRqId cq = s.se[sei].cfs_rq;
    dequeue_entity(s, cq, sei, flags);
    s.cfs[cq].h_nr_running--;
    s.cfs[cq].idle_h_nr_running -= idle;
    if (cfs_rq_is_idle(s, cq)) idle = 1;
    if (s.cfs[cq].load_weight) {
      const EntityId parent = s.se[sei].parent;
      if (task_sleep && parent) set_next_buddy(s, parent);
      sei = parent;
      break;
    }
    flags |= kDequeueSleep;
    sei = s.se[sei].parent;
  }
  for (; sei; sei = s.se[sei].parent) update_upper_level(s, sei, -1, idle);
  note_nr_running(s, cpu);
  if (!was_sched_idle && sched_idle_cpu(s, cpu)) s.rq[cpu].next_balance = jiffies(s);
  util_est_update(s, cpu, task, task_sleep);
}

// task_tick_fair (kernel/sched/fair.c v3.10..v6.5): entity_tick at every
// level; then the blocked averages, which the kernel's SCHED_SOFTIRQ brings up
// to date (model/pelt.h; load balancing itself: model/balance.h).
void task_tick_fair(Sched& s, CpuId cpu) {
  touch(s, cpu);
  for (EntityId sei = s.tasks[s.rq[cpu].curr].se; sei; sei = s.se[sei].parent) entity_tick(s, s.se[sei].cfs_rq, sei);
  update_misfit_status(s, s.rq[cpu].curr, cpu);
  const Nanos blocked_due = s.next_blocked;
  if (s.era.tracks_pelt && !s.features[Feature::load_balance]) blocked_averages_tick(s);
  if (s.next_blocked != blocked_due) touch_all(s);  // every CPU's blocked averages were updated
}

// task_fork_fair (kernel/sched/fair.c v3.10, v4.4, v5.15): on cq, the
// parent's cfs_rq (task_cfs_rq(current)), the child starts at cq's curr
// vruntime, placed with START_DEBIT, then normalised against cq. Without a
// parent task cq is the child's own cfs_rq on its CPU (docs/model.md, "Fork").
void task_fork_fair(Sched& s, TaskId task, CfsRqId cq) {
  const EntityId sei = s.tasks[task].se;
  update_curr(s, cq);
  const EntityId curr = s.cfs[cq].curr;
  if (curr) s.se[sei].vruntime = s.se[curr].vruntime;
  place_entity(s, cq, sei, true);
  s.se[sei].vruntime -= s.cfs[cq].min_vruntime;
}

// prio_changed_fair (kernel/sched/fair.c v5.15): nothing when the root
// cfs_rq holds one entity; the running task reschedules only when its nice
// went up, a waiting one goes through check_preempt_curr.
void prio_changed_fair(Sched& s, TaskId task, int old_nice) {
  const Task& t = s.tasks[task];
  if (!task_on_rq_queued(t)) return;
  if (s.cfs[s.rq[t.cpu].cfs].nr_running == 1) return;
  if (s.rq[t.cpu].curr == task) {
    if (t.nice > old_nice) resched_curr(s, t.cpu);
  } else {
    check_preempt_curr(s, t.cpu, task, 0);
  }
}

}  // namespace cfsv
