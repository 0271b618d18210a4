// The CFS pick, buddies and preemption (kernel/sched/fair.c), each with the
// kernel version(s) it follows: pick_next_entity and pick_next_task_fair,
// put_prev/set_next, the next/last/skip buddies, check_preempt_tick and
// check_preempt_wakeup, yield. Enqueue, dequeue and ticks are in fair.cpp.
#include <iterator>

#include "arith/fair_math.h"
#include "balance.h"
#include "cfs_tasks.h"
#include "fair.h"
#include "fair_cpu.h"
#include "fair_entity.h"
#include "fair_group.h"
#include "pelt.h"
#include "pelt_eras.h"
#include "sink.h"

namespace cfsv {

namespace fair {

// check_preempt_tick (kernel/sched/fair.c v3.10..v6.5)
void check_preempt_tick(Sched& s, CfsRqId cq, EntityId curr) {
  const uint64_t ideal_runtime = sched_slice(s, cq, curr);
  const SchedEntity& e = s.se[curr];
  const uint64_t delta_exec = e.sum_exec_runtime - e.prev_sum_exec_runtime;
  const CpuId cpu = s.cfs[cq].cpu;
  const EntityId left = s.cfs[cq].first();
  const auto note = [&](Decision::Why why, int64_t a, uint64_t b) {
    note_decision(s, {why, cq, curr, left, a, static_cast<int64_t>(b)});
  };
  if (delta_exec > ideal_runtime) {
    note(Decision::tick_slice_used, delta_exec, ideal_runtime);
    resched_curr(s, cpu);
    s.counters.resched_tick++;
    clear_buddies(s, cq, curr);
    return;
  }
  if (delta_exec < s.tun.min_granularity_ns)
    return note(Decision::tick_min_granularity, delta_exec, s.tun.min_granularity_ns);
  const int64_t delta = left ? static_cast<int64_t>(e.vruntime - s.se[left].vruntime) : 0;
  if (!left || delta < 0 || static_cast<uint64_t>(delta) <= ideal_runtime)
    return note(Decision::tick_kept, delta_exec, ideal_runtime);
  note(Decision::tick_vruntime_ahead, delta, ideal_runtime);
  resched_curr(s, cpu);
  s.counters.resched_tick++;
}

// set_next_buddy (kernel/sched/fair.c v3.10..v6.5; the on_rq guard is v5.x's):
// never a SCHED_IDLE task, nor (v5.15+) an idle group's entity or above it.
void set_next_buddy(Sched& s, EntityId sei) {
  for (; sei; sei = s.se[sei].parent) {
    if (!s.se[sei].on_rq || se_is_idle(s, sei)) return;
    s.cfs[s.se[sei].cfs_rq].next = sei;
  }
}

// clear_buddies + __clear_buddies_{last,next,skip} (kernel/sched/fair.c v3.10..v6.5)
void clear_buddies(Sched& s, CfsRqId cq, EntityId sei) {
  auto clear_up = [&](EntityId CfsRq::*which) {
    for (EntityId x = sei; x; x = s.se[x].parent) {
      CfsRq& c = s.cfs[s.se[x].cfs_rq];
      if (c.*which != x) break;
      c.*which = EntityId{};
    }
  };
  if (s.cfs[cq].last == sei) clear_up(&CfsRq::last);
  if (s.cfs[cq].next == sei) clear_up(&CfsRq::next);
  if (s.cfs[cq].skip == sei) clear_up(&CfsRq::skip);
}

}  // namespace fair

using namespace fair;

namespace {

// wakeup_preempt_entity (kernel/sched/fair.c v3.10..v6.5): 1 when se is more
// than wakeup_gran ahead of curr in virtual time, -1 when not ahead at all.
int wakeup_preempt_entity(const Sched& s, EntityId curr, EntityId sei) {
  const int64_t vdiff = static_cast<int64_t>(s.se[curr].vruntime - s.se[sei].vruntime);
  if (vdiff <= 0) return -1;
  const uint64_t gran = wakeup_gran<uint64_t>(s.tun.wakeup_granularity_ns, s.se[sei].load, s.res);
  if (vdiff > static_cast<int64_t>(gran)) return 1;
  return 0;
}

// set_last_buddy (kernel/sched/fair.c v3.10..v6.5): as set_next_buddy.
void set_last_buddy(Sched& s, EntityId sei) {
  for (; sei; sei = s.se[sei].parent) {
    if (!s.se[sei].on_rq || se_is_idle(s, sei)) return;
    s.cfs[s.se[sei].cfs_rq].last = sei;
  }
}

// pick_next_entity (kernel/sched/fair.c v3.10: leftmost; v3.15+: the
// still-queued curr competes with the leftmost); not the skip buddy (a task
// that yielded) when the entity after it is within wakeup_gran of it; then
// the next and last buddies when they are within wakeup_gran of the leftmost.
// v3.10..v5.4 clear the picked entity's buddies here; v5.15 in set_next_entity.
EntityId pick_next_entity(Sched& s, CfsRqId cq, EntityId curr) {
  CfsRq& c = s.cfs[cq];
  EntityId left = c.first();
  if (!left || (curr && vruntime_before(s.se[curr].vruntime, s.se[left].vruntime))) left = curr;
  EntityId se = left;
  if (c.skip && c.skip == se) {
    EntityId second;
    if (se == curr) {
      second = c.first();
    } else {
      const auto next = std::next(s.se[se].node);  // __pick_next_entity
      second = next == c.timeline.end() ? EntityId{} : next->se;
      if (!second || (curr && vruntime_before(s.se[curr].vruntime, s.se[second].vruntime))) second = curr;
    }
    if (second && wakeup_preempt_entity(s, second, left) < 1) se = second;
  }
  if (c.next && wakeup_preempt_entity(s, c.next, left) < 1) se = c.next;
  else if (c.last && wakeup_preempt_entity(s, c.last, left) < 1) se = c.last;
  if (s.sink) note_pick(s, cq, se, left, curr);
  if (!s.features[Feature::clear_buddies_on_set_next]) clear_buddies(s, cq, se);
  return se;
}

// put_prev_entity (kernel/sched/fair.c v3.10..v6.5; the era's update_load_avg)
void put_prev_entity(Sched& s, CfsRqId cq, EntityId prev) {
  if (s.se[prev].on_rq) {
    update_curr(s, cq);
    if (s.se[prev].is_task()) wait_begin(s, s.se[prev].task);
    enqueue_entity_tree(s, cq, prev);
    if (s.era.pelt) update_load_avg(s, cq, prev, 0);
    else if (s.era.pelt_v4) pelt4::update_load_avg(s, prev, false);
    else if (s.era.pelt_v3) pelt3::update_entity_load_avg(s, prev, true);
  }
  s.cfs[cq].curr = EntityId{};
}

// set_next_entity (kernel/sched/fair.c v3.10..v6.5; v5.15 clears se's
// buddies first, v3.10..v5.4 leave that to pick_next_entity; v4.4's and
// v5.15's update_load_avg)
void set_next_entity(Sched& s, CfsRqId cq, EntityId sei) {
  if (s.features[Feature::clear_buddies_on_set_next]) clear_buddies(s, cq, sei);
  SchedEntity& e = s.se[sei];
  if (e.on_rq) {
    if (e.is_task()) wait_end(s, e.task);
    dequeue_entity_tree(s, cq, sei);
    if (s.era.pelt) update_load_avg(s, cq, sei, kUpdateTg);
    else if (s.era.pelt_v4) pelt4::update_load_avg(s, sei, true);
  }
  e.exec_start = s.now;
  s.cfs[cq].curr = sei;
  e.prev_sum_exec_runtime = e.sum_exec_runtime;
}

}  // namespace

// find_matching_se + check_preempt_wakeup (kernel/sched/fair.c v3.10..v6.5):
// a SCHED_IDLE curr is preempted by any other woken task; a SCHED_BATCH or
// SCHED_IDLE wakee never preempts; v5.15+: where the two sides meet, an idle
// group's entity is preempted by one that is not idle, and never preempts it.
void check_preempt_wakeup(Sched& s, CpuId cpu, TaskId task, unsigned wake_flags) {
  touch(s, cpu);
  Rq& r = s.rq[cpu];
  EntityId se = s.tasks[r.curr].se;
  EntityId pse = s.tasks[task].se;
  const CfsRqId cq = s.se[se].cfs_rq;
  const bool scale = s.cfs[cq].nr_running >= s.tun.nr_latency;
  bool next_buddy_marked = false;
  if (se == pse) return;
  if (s.features[Feature::next_buddy] && scale && !(wake_flags & kWfFork)) {
    set_next_buddy(s, pse);
    next_buddy_marked = true;
  }
  // The kernel's `preempt:` label: reschedule, and make the still-queued
  // curr the last buddy (set_last_buddy passes over a SCHED_IDLE one).
  const auto preempt_curr = [&] {
    resched_curr(s, cpu);
    s.counters.resched_wakeup++;
    if (!s.se[se].on_rq) return;
    if (s.features[Feature::last_buddy] && scale && s.se[se].is_task()) set_last_buddy(s, se);
  };
  if (r.need_resched) return;
  const Policy policy = s.tasks[task].policy;
  if (s.tasks[r.curr].policy == Policy::idle && policy != Policy::idle) {
    note_decision(s, {Decision::wakeup_idle_curr, s.se[pse].cfs_rq, pse, se});
    return preempt_curr();
  }
  if (policy != Policy::normal)  // a: the wakee's policy, as it was then
    return note_decision(s, {Decision::wakeup_not_normal, s.se[pse].cfs_rq, pse, se, static_cast<int64_t>(policy)});
  if (!s.features[Feature::wakeup_preemption])
    return note_decision(s, {Decision::wakeup_feature_off, s.se[pse].cfs_rq, pse, se});
  // find_matching_se
  while (s.se[se].depth > s.se[pse].depth) se = s.se[se].parent;
  while (s.se[pse].depth > s.se[se].depth) pse = s.se[pse].parent;
  while (s.se[se].cfs_rq != s.se[pse].cfs_rq) {
    se = s.se[se].parent;
    pse = s.se[pse].parent;
  }
  if (const bool cse_idle = se_is_idle(s, se), pse_idle = se_is_idle(s, pse); cse_idle != pse_idle) {
    note_decision(s, {cse_idle ? Decision::wakeup_idle_group : Decision::wakeup_into_idle_group, s.se[pse].cfs_rq,
                      pse, se});
    if (cse_idle) preempt_curr();
    return;
  }
  update_curr(s, s.se[se].cfs_rq);
  const bool preempt = wakeup_preempt_entity(s, se, pse) == 1;
  if (s.sink) note_wakeup(s, se, pse, preempt);
  if (!preempt) return;
  if (!next_buddy_marked) set_next_buddy(s, pse);
  preempt_curr();
}

// put_prev_task_fair (kernel/sched/fair.c v3.10..v6.5)
void put_prev_task_fair(Sched& s, TaskId task) {
  touch_task(s, task);
  for (EntityId x = s.tasks[task].se; x; x = s.se[x].parent) put_prev_entity(s, s.se[x].cfs_rq, x);
}

// set_curr_task_fair (v3.10) / set_next_task_fair (v5.x), kernel/sched/fair.c;
// v5.15 moves a queued task to the head of cfs_tasks (not one that v3.10's
// change order sets before it is enqueued).
void set_next_task_fair(Sched& s, TaskId task) {
  touch_task(s, task);
  if (s.se[s.tasks[task].se].on_rq && !s.era.balance_v4)  // queued (on the list); v4.4 leaves the list alone
    cfs_tasks_move_to_head(s, s.tasks[task].cpu, task);
  for (EntityId x = s.tasks[task].se; x; x = s.se[x].parent) set_next_entity(s, s.se[x].cfs_rq, x);
}

// The pick itself, for pick_next_task_fair.
static TaskId pick_task(Sched& s, CpuId cpu, TaskId prev) {
  const CfsRqId root = s.rq[cpu].cfs;
  if (s.era.simple_pick && prev) put_prev_task_fair(s, prev);
  if (s.cfs[root].nr_running == 0) {
    if (!s.era.simple_pick && prev) put_prev_task_fair(s, prev);
    return kIdle;
  }
  CfsRqId cq = root;
  EntityId se;
  if (s.era.simple_pick || !prev) {
    do {
      se = pick_next_entity(s, cq, EntityId{});
      set_next_entity(s, cq, se);
      cq = s.se[se].my_q;
    } while (cq);
    return s.se[se].task;
  }
  do {
    EntityId curr = s.cfs[cq].curr;
    if (curr) {
      if (s.se[curr].on_rq) update_curr(s, cq);
      else curr = EntityId{};
    }
    se = pick_next_entity(s, cq, curr);
    cq = s.se[se].my_q;
  } while (cq);
  const TaskId p = s.se[se].task;
  if (p != prev) {
    EntityId pse = s.tasks[prev].se;
    while (s.se[se].cfs_rq != s.se[pse].cfs_rq) {
      const int32_t se_depth = s.se[se].depth, pse_depth = s.se[pse].depth;
      if (se_depth <= pse_depth) {
        put_prev_entity(s, s.se[pse].cfs_rq, pse);
        pse = s.se[pse].parent;
      }
      if (se_depth >= pse_depth) {
        set_next_entity(s, s.se[se].cfs_rq, se);
        se = s.se[se].parent;
      }
    }
    put_prev_entity(s, s.se[se].cfs_rq, pse);
    set_next_entity(s, s.se[se].cfs_rq, se);
  }
  return p;
}

// pick_next_task_fair (kernel/sched/fair.c): v3.10's simple top-down pick
// (after put_prev_task), or v3.15+'s, which only puts and sets the levels
// where prev and next differ. Returns the task, or kIdle. v5.15's `done:`
// moves the task picked to the head of cfs_tasks (pick_task below) and
// updates the misfit status (its idle path: newidle_balance's first step).
TaskId pick_next_task_fair(Sched& s, CpuId cpu, TaskId prev) {
  const TaskId p = pick_task(s, cpu, prev);
  if (p && !s.era.balance_v4) cfs_tasks_move_to_head(s, cpu, p);  // v4.16+; era 1 (v4.4) does not
  update_misfit_status(s, p, cpu);
  return p;
}

// yield_task_fair (kernel/sched/fair.c v3.10, v5.15): with another task on
// the rq, the running task's buddies are cleared, its runtime accounted (not
// a SCHED_BATCH task's), and it becomes the skip buddy of each cfs_rq up its
// hierarchy (set_skip_buddy).
void yield_task_fair(Sched& s, CpuId cpu) {
  if (rq_nr_running(s, cpu) == 1) return;
  const EntityId se = s.tasks[s.rq[cpu].curr].se;
  const CfsRqId cq = s.se[se].cfs_rq;
  clear_buddies(s, cq, se);
  if (s.tasks[s.rq[cpu].curr].policy != Policy::batch) update_curr(s, cq);
  for (EntityId x = se; x; x = s.se[x].parent) s.cfs[s.se[x].cfs_rq].skip = x;
}

}  // namespace cfsv
