// The load-tracking paths of kernel/sched/fair.c v3.10 (read in
// gq213/linux-3.10.105), the 3.8-era per-entity runnable averages, over the
// arithmetic of arith/pelt_v3.h and arith/pelt_shares.h. An entity's
// load_avg_contrib is kept in its avg.load_avg, the rest of its sched_avg in
// EntityPeltV3 (pelt_state.h). rq->avg (update_rq_runnable_avg), which only
// feeds the root group's runnable_avg that no group entity reads, is left out.
#include "arith/pelt_shares.h"
#include "arith/pelt_v3.h"
#include "id_list.h"
#include "pelt.h"
#include "pelt_eras.h"

namespace cfsv::pelt3 {

namespace {

using Avg3 = pelt_v3_10::SchedAvg<uint64_t>;

// The clock the decay counters count in: cfs_rq_clock_task >> 20 (about ms).
uint64_t decay_clock(const Sched& s) { return cfs_rq_clock_pelt(s) >> 20; }

Avg3 load(const EntityPelt& p) {
  return {p.v3.runnable_avg_sum, p.v3.runnable_avg_period, p.v3.last_runnable_update, p.avg.load_avg};
}
void store(EntityPelt& p, const Avg3& a) {
  p.v3.runnable_avg_sum = a.runnable_avg_sum;
  p.v3.runnable_avg_period = a.runnable_avg_period;
  p.v3.last_runnable_update = a.last_runnable_update;
  p.avg.load_avg = a.load_avg_contrib;
}

// The tg load updates, counted as update_tg_load_avg's are (per group, the root apart).
void count_tg_update(Sched& s, CfsRqId cq) {
  s.tg[s.cfs[cq].tg].load_avg_updates++;
  if (s.cfs[cq].tg == kRootGroup) s.counters.root_tg_load_avg_updates++;
  else s.counters.tg_load_avg_updates++;
}

// subtract_blocked_load_contrib (kernel/sched/fair.c v3.10): the signed
// contribution is compared unsigned, so a negative one clears the blocked load.
void subtract_blocked_load_contrib(CfsRq& c, uint64_t load_contrib) {
  uint64_t& blocked = c.pelt.v3.blocked_load_avg;
  blocked = load_contrib < blocked ? blocked - load_contrib : 0;
}

// __synchronize_entity_decay (kernel/sched/fair.c v3.10): the decays the
// entity's cfs_rq counted since it slept, applied to its contribution.
uint64_t synchronize_entity_decay(Sched& s, EntityId sei) {
  EntityPelt& p = s.se[sei].pelt;
  const uint64_t decays = s.cfs[s.se[sei].cfs_rq].pelt.v3.decay_counter - static_cast<uint64_t>(p.v3.decay_count);
  if (!decays) return 0;
  p.avg.load_avg = pelt_v3_10::decay_load<uint64_t>(p.avg.load_avg, decays);
  p.v3.decay_count = 0;
  return decays;
}

// __update_cfs_rq_tg_load_contrib (kernel/sched/fair.c v3.10): runnable +
// blocked load into tg->load_avg when forced or past 1/8.
void update_cfs_rq_tg_load_contrib(Sched& s, CfsRqId cq, bool force) {
  CfsRqPelt& p = s.cfs[cq].pelt;
  TaskGroup& g = s.tg[s.cfs[cq].tg];
  pelt_v3_10::GroupCfsRqAvg<uint64_t> gq{p.tg_load_avg_contrib, p.v3.tg_runnable_contrib};
  pelt_v3_10::TaskGroupAvg<uint64_t> tg{g.load_avg, g.runnable_avg, g.shares};
  if (pelt_v3_10::update_cfs_rq_tg_load_contrib<uint64_t>(p.runnable_load.avg, p.v3.blocked_load_avg, gq, tg, force))
    count_tg_update(s, cq);
  p.tg_load_avg_contrib = gq.tg_load_contrib;
  g.load_avg = tg.load_avg;
}

}  // namespace

// update_entity_load_avg (kernel/sched/fair.c v3.10): the entity's runnable
// averages (runnable = on_rq); at a period boundary its contribution (a
// task's: sum * weight / (period + 1); a group entity's: after
// __update_tg_runnable_avg, its cfs_rq's share of the group), whose change
// goes to its cfs_rq's runnable or blocked load when asked.
void update_entity_load_avg(Sched& s, EntityId sei, bool update_cfs_rq) {
  SchedEntity& e = s.se[sei];
  Avg3 a = load(e.pelt);
  const bool crossed = pelt_v3_10::update_entity_runnable_avg<uint64_t>(cfs_rq_clock_pelt(s), a, e.on_rq) != 0;
  uint64_t delta = 0;
  if (crossed && e.is_task()) {
    delta = pelt_v3_10::update_entity_load_avg_contrib<uint64_t>(a, e.load.weight, s.res);
  } else if (crossed) {
    CfsRqPelt& q = s.cfs[e.my_q].pelt;
    TaskGroup& g = s.tg[s.cfs[e.my_q].tg];
    pelt_v3_10::GroupCfsRqAvg<uint64_t> gq{q.tg_load_avg_contrib, q.v3.tg_runnable_contrib};
    pelt_v3_10::TaskGroupAvg<uint64_t> tg{g.load_avg, g.runnable_avg, g.shares};
    delta = pelt_v3_10::update_entity_load_avg_contrib<uint64_t>(a, gq, tg);
    q.v3.tg_runnable_contrib = gq.tg_runnable_contrib;
    g.runnable_avg = tg.runnable_avg;
  }
  store(e.pelt, a);
  if (!crossed || !update_cfs_rq) return;
  CfsRq& c = s.cfs[e.cfs_rq];
  if (e.on_rq) c.pelt.runnable_load.avg += delta;
  else subtract_blocked_load_contrib(c, 0 - delta);
}

// update_cfs_rq_blocked_load (kernel/sched/fair.c v3.10): once per ms of the
// decay clock (or when forced) the removed load leaves the blocked load,
// which decays by the ms passed, counted in decay_counter; then the tg load.
void update_cfs_rq_blocked_load(Sched& s, CfsRqId cq, bool force) {
  CfsRq& c = s.cfs[cq];
  CfsRqPelt::V3& v = c.pelt.v3;
  const uint64_t now = decay_clock(s);
  const uint64_t decays = now - v.last_decay;
  if (!decays && !force) return;
  if (c.pelt.removed.nr) {
    const CfsRqPelt::Removed r = c.pelt.removed;
    c.pelt.removals_applied += r.nr;
    c.pelt.removed = {};
    subtract_blocked_load_contrib(c, r.load_avg);
  }
  if (decays) {
    v.blocked_load_avg = pelt_v3_10::decay_load<uint64_t>(v.blocked_load_avg, decays);
    v.decay_counter += decays;
    v.last_decay = now;
  }
  update_cfs_rq_tg_load_contrib(s, cq, force);
}

// enqueue_entity_load_avg (kernel/sched/fair.c v3.10): a new or migrated
// entity (decay_count <= 0) restarts its clock now, less the decays a wakeup
// migration carried; a sleeper catches up with its cfs_rq's decays and leaves
// the blocked load. Its contribution joins the runnable load.
void enqueue_entity_load_avg(Sched& s, CfsRqId cq, EntityId sei, bool wakeup) {
  EntityPelt& p = s.se[sei].pelt;
  if (p.v3.decay_count <= 0) {
    p.v3.last_runnable_update = cfs_rq_clock_pelt(s);
    if (p.v3.decay_count) {
      p.v3.last_runnable_update -= static_cast<uint64_t>(-p.v3.decay_count) << 20;
      update_entity_load_avg(s, sei, false);
      p.v3.decay_count = 0;
    }
    wakeup = false;
  } else {
    synchronize_entity_decay(s, sei);
  }
  if (wakeup) {
    subtract_blocked_load_contrib(s.cfs[cq], p.avg.load_avg);
    update_entity_load_avg(s, sei, false);
  }
  s.cfs[cq].pelt.runnable_load.avg += p.avg.load_avg;
  update_cfs_rq_blocked_load(s, cq, !wakeup);
}

// dequeue_entity_load_avg (kernel/sched/fair.c v3.10): a sleeper's
// contribution moves to the blocked load, remembering the decay counter.
void dequeue_entity_load_avg(Sched& s, CfsRqId cq, EntityId sei, bool sleep) {
  update_entity_load_avg(s, sei, true);
  update_cfs_rq_blocked_load(s, cq, !sleep);
  CfsRqPelt& c = s.cfs[cq].pelt;
  EntityPelt& p = s.se[sei].pelt;
  c.runnable_load.avg -= p.avg.load_avg;
  if (!sleep) return;
  c.v3.blocked_load_avg += p.avg.load_avg;
  p.v3.decay_count = static_cast<int64_t>(c.v3.decay_counter);
}

namespace {
// A cfs_rq's links on its rq's leaf list.
auto leaf_links(Sched& s) {
  return [&s](CfsRqId q) { return IdLinks<CfsRqId>{s.cfs[q].pelt.v3.leaf_prev, s.cfs[q].pelt.v3.leaf_next}; };
}
}  // namespace

// list_add_leaf_cfs_rq (kernel/sched/fair.c v3.10): at the list's head when
// the parent group's cfs_rq is on it, so that it comes first; else at the
// tail. A child put on the list before its parent thus walks after it when
// the parent then goes to the head (the order v5.1's 9c2791f936ef fixed).
// Then update_cfs_rq_blocked_load(cfs_rq, 0) brings last_decay up.
void list_add_leaf_cfs_rq(Sched& s, CfsRqId cq) {
  CfsRq& c = s.cfs[cq];
  if (c.pelt.on_list) return;
  c.pelt.on_list = true;
  Rq& rq = s.rq[c.cpu];
  const GroupId parent = s.tg[c.tg].parent;
  if (parent && s.cfs[s.tg[parent].cfs_rq[c.cpu]].pelt.on_list) id_list_add(rq.leaf_head, rq.leaf_tail, cq, leaf_links(s));
  else id_list_add_tail(rq.leaf_head, rq.leaf_tail, cq, leaf_links(s));
  update_cfs_rq_blocked_load(s, cq, false);
}

// list_del_leaf_cfs_rq (kernel/sched/fair.c v3.10)
void list_del_leaf_cfs_rq(Sched& s, CfsRqId cq) {
  CfsRq& c = s.cfs[cq];
  if (!c.pelt.on_list) return;
  c.pelt.on_list = false;
  Rq& rq = s.rq[c.cpu];
  id_list_del(rq.leaf_head, rq.leaf_tail, cq, leaf_links(s));
}

// sched_fork's copy of the parent (dup_task_struct, then __sched_fork zeroes
// the sums, kernel/sched/core.c v3.10): the child starts with its parent's
// load_avg_contrib, decay_count and clock; without a parent, with nothing.
void fork_entity(Sched& s, EntityId child, EntityId parent) {
  EntityPelt& c = s.se[child].pelt;
  c.avg = {};
  c.v3 = {};
  if (!parent) return;
  const EntityPelt& p = s.se[parent].pelt;
  c.avg.load_avg = p.avg.load_avg;
  c.v3.decay_count = p.v3.decay_count;
  c.v3.last_runnable_update = p.v3.last_runnable_update;
}

// migrate_task_rq_fair (kernel/sched/fair.c v3.10): a sleeper's
// contribution, decayed to now, is queued in removed_load, and the decays
// are carried (negative decay_count) to the enqueue on the new CPU. A queued
// task (decay_count 0) left its runnable load at the dequeue.
void migrate_task_rq_fair(Sched& s, TaskId task) {
  const EntityId sei = s.tasks[task].se;
  EntityPelt& p = s.se[sei].pelt;
  if (!p.v3.decay_count) return;
  p.v3.decay_count = -static_cast<int64_t>(synchronize_entity_decay(s, sei));
  CfsRqPelt& c = s.cfs[s.se[sei].cfs_rq].pelt;
  c.removed.nr++;
  c.removed.load_avg += p.avg.load_avg;
  c.removals_queued++;
}

// task_move_group_fair for a task that slept after running (kernel/sched/
// fair.c v3.10), after set_task_rq: its contribution joins the new cfs_rq's
// blocked load with that cfs_rq's decay counter. The old cfs_rq keeps it in
// its blocked load (no migrate_task_rq_fair runs for a group move).
void task_move_group_fair(Sched& s, TaskId task) {
  EntityPelt& p = s.se[s.tasks[task].se].pelt;
  CfsRqPelt& c = s.cfs[s.se[s.tasks[task].se].cfs_rq].pelt;
  p.v3.decay_count = static_cast<int64_t>(c.v3.decay_counter);
  c.v3.blocked_load_avg += p.avg.load_avg;
}

// calc_cfs_shares with calc_tg_weight (kernel/sched/fair.c v3.10): this
// CPU's load.weight against tg->load_avg less this cfs_rq's tg_load_contrib.
uint64_t calc_cfs_shares(const Sched& s, CfsRqId gcq) {
  const CfsRq& g = s.cfs[gcq];
  const TaskGroup& tg = s.tg[g.tg];
  return cfsv::calc_cfs_shares<uint64_t>(tg.shares, g.load_weight, tg.load_avg, g.pelt.tg_load_avg_contrib);
}

// update_blocked_averages + __update_blocked_averages_cpu (kernel/sched/
// fair.c v3.10): each cfs_rq in the leaf list's order, forced, then its group
// entity; a cfs_rq whose entity's runnable sum decayed to 0 with nothing
// queued leaves the list. A parent walked before its child passes the
// child's update on to its own parent only at the next walk.
void update_blocked_averages(Sched& s, CpuId cpu) {
  for (CfsRqId cq = s.rq[cpu].leaf_head; cq;) {
    CfsRq& c = s.cfs[cq];
    const CfsRqId next = c.pelt.v3.leaf_next;
    update_cfs_rq_blocked_load(s, cq, true);
    if (c.group_se) {
      update_entity_load_avg(s, c.group_se, true);
      if (!s.se[c.group_se].pelt.v3.runnable_avg_sum && !c.nr_running) list_del_leaf_cfs_rq(s, cq);
    }
    cq = next;
  }
}

}  // namespace cfsv::pelt3
