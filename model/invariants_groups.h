// The invariant checks of PELT and of the task-group lifecycle (destroyed
// groups, autogroups, tg->load_avg), each for one kind of object; the
// registry in model/invariants.cpp lists them.
#pragma once
#include "arith/pelt_tables.h"
#include "arith/weights.h"
#include "cgroup.h"
#include "invariant_ctx.h"

namespace cfsv::inv {

// PELT (model/pelt.h), when the era tracks it.

// The largest util_avg / runnable_avg of a task in v5.15: 1025, not 1024
// (docs/pelt.md, "v5.15 util_avg can reach 1025").
constexpr uint64_t kPeltTaskAvgMax = 1025;

// v4.4's largest average for weight w (util: 1024): load_sum <= w (LOAD_AVG_MAX
// + 64 + 1023) over LOAD_AVG_MAX, from its n >= 345 case (docs/pelt.md).
[[gnu::always_inline]] inline uint64_t pelt_v4_avg_max(uint64_t w) {
  const uint64_t max = pelt_tables().load_avg_max;
  return w * (max + 64 + kPeltPeriodUs - 1) / max;
}

[[gnu::always_inline]] inline void pelt_util_avg_bound(Ctx& x, TaskId, const Task& t) {
  const SchedAvg& a = x.s.se[t.se].pelt.avg;
  const uint64_t bound = x.util_bound;
  if (x.s.era.tracks_pelt && a.util_avg > bound)
    x.fail(fmt("task %s: util_avg %" PRIu64 " > %" PRIu64, t.name.c_str(), a.util_avg, bound));
}

[[gnu::always_inline]] inline void pelt_runnable_avg_bound(Ctx& x, TaskId, const Task& t) {
  const SchedAvg& a = x.s.se[t.se].pelt.avg;
  if (x.s.era.pelt && a.runnable_avg > kPeltTaskAvgMax)
    x.fail(fmt("task %s: runnable_avg %" PRIu64 " > %" PRIu64, t.name.c_str(), a.runnable_avg, kPeltTaskAvgMax));
}

// v3.10's and v4.4's reweight_entity leave load_avg (v3.10: load_avg_contrib)
// alone (v5.15's recomputes it), so after a renice it moves towards the new
// weight only at the next update, and a v3.10 child starts with its parent's:
// their bound is that of the largest weight, nice -20's. v5.15's bound does
// not hold for a task whose weight set_load_weight changed without
// reweight_task (Task::load_unscaled: made SCHED_IDLE before v6.11): its
// load_avg keeps the old scale, and an attach multiplies it by the old
// weight / 3 (docs/policies.md), so such a task is not checked.
[[gnu::always_inline]] inline void pelt_load_avg_bound(Ctx& x, TaskId, const Task& t) {
  if (t.load_unscaled) return;
  const SchedEntity& e = x.s.se[t.se];
  const uint64_t w = scale_load_down<uint64_t>(e.load.weight, x.s.res);
  const uint64_t bound = x.s.era.pelt ? w : x.v4_load_bound;
  if (x.s.era.tracks_pelt && e.pelt.avg.load_avg > bound)
    x.fail(fmt("task %s: load_avg %" PRIu64 " > %" PRIu64 " (its weight %" PRIu64 ")", t.name.c_str(),
               e.pelt.avg.load_avg, bound, w));
}

[[gnu::always_inline]] inline void group_shares_bound(Ctx& x, CfsRqId q, const CfsRq& c) {
  if (!c.group_se || !x.s.se[c.group_se].on_rq) return;
  const uint64_t w = x.s.se[c.group_se].load.weight, shares = x.s.tg[c.tg].shares;
  if (w < kFairMinShares || w > shares)
    x.fail(fmt("group entity of %s: weight %" PRIu64 " outside [%" PRIu64 ", %" PRIu64 "]", x.cfs_rq(q).c_str(), w,
               kFairMinShares, shares));
}

// v4.4: an entity without a clock (a group entity before its first enqueue,
// a task moved to a cfs_rq never updated) attaches at its next enqueue.
[[gnu::always_inline]] inline bool pelt_v4_clockless(const Sched& s, const EntityPelt& p) {
  return s.era.pelt_v4 && !p.attached && !p.avg.last_update_time;
}

[[gnu::always_inline]] inline void pelt_attached_count(Ctx& x, CfsRqId q, const CfsRq& c) {
  if (!x.attaches) return;  // v3.10 attaches nothing
  if (c.pelt.nr_attached != x.c.queue[q].attached)
    x.fail(fmt("cfs_rq %s: %u attached, %u entities say so", x.cfs_rq(q).c_str(), c.pelt.nr_attached,
               x.c.queue[q].attached));
  if (!c.group_se || x.s.tg[c.tg].dead) return;  // a destroyed group's entities left (destroyed-group-unreferenced)
  const EntityPelt& g = x.s.se[c.group_se].pelt;
  if (g.attached != x.s.se[c.group_se].cfs_rq && !pelt_v4_clockless(x.s, g))
    x.fail(fmt("group entity of %s is not attached to its cfs_rq", x.cfs_rq(q).c_str()));
}

[[gnu::always_inline]] inline void pelt_task_attached(Ctx& x, TaskId, const Task& t) {
  if (!x.attaches) return;
  const SchedEntity& e = x.s.se[t.se];
  const CfsRqId want = t.state == TaskState::exited ? CfsRqId{} : e.cfs_rq;
  if (e.pelt.attached != want && !pelt_v4_clockless(x.s, e.pelt))
    x.fail(fmt("%s task %s: attached to cfs_rq %d, not %d", state_name(t.state).c_str(), t.name.c_str(),
               e.pelt.attached.v, want.v));
}

[[gnu::always_inline]] inline void pelt_removed_once(Ctx& x, CfsRqId q, const CfsRq& c) {
  const CfsRqPelt& p = c.pelt;
  const bool empty = p.removed.load_avg == 0 && p.removed.util_avg == 0 && p.removed.runnable_avg == 0;
  if (p.removals_queued != p.removals_applied + p.removed.nr || (p.removed.nr == 0 && !empty))
    x.fail(fmt("cfs_rq %s: %" PRIu64 " removals queued, %" PRIu64 " applied, %u pending (load %" PRIu64 ")",
               x.cfs_rq(q).c_str(), p.removals_queued, p.removals_applied, p.removed.nr, p.removed.load_avg));
}

// A destroyed group's cfs_rqs hold nothing and are off the leaf list; its
// entities are neither queued nor attached anywhere.
[[gnu::always_inline]] inline void destroyed_cfs_rq_unused(Ctx& x, CfsRqId q, const CfsRq& c) {
  if (!x.c.dead_groups || !x.s.tg[c.tg].dead) return;
  const EntityId se = c.group_se;
  if (c.nr_running || c.curr || c.pelt.on_list || c.pelt.nr_attached || x.s.se[se].on_rq || x.s.se[se].pelt.attached)
    x.fail(fmt("cfs_rq %s of a destroyed group: nr_running %u, curr %s, on the leaf list %d, %u attached; its entity "
               "queued %d, attached %d",
               x.cfs_rq(q).c_str(), c.nr_running, x.entity(c.curr).c_str(), c.pelt.on_list, c.pelt.nr_attached,
               x.s.se[se].on_rq, bool(x.s.se[se].pelt.attached)));
}

// No live task names a destroyed group: not its sched_task_group, cgroup or
// autogroup, nor the cfs_rq its entity hangs under.
[[gnu::always_inline]] inline void destroyed_group_unreferenced(Ctx& x, TaskId, const Task& t) {
  if (t.state == TaskState::exited || !x.c.dead_groups) return;  // none to refer to
  const Sched& s = x.s;
  const GroupId under = s.cfs[s.se[t.se].cfs_rq].tg;
  for (const GroupId g : {t.group, t.cgroup, t.autogroup, under})
    if (s.tg[g].dead)
      x.fail(fmt("%s task %s refers to destroyed group %s", state_name(t.state).c_str(), t.name.c_str(),
                 s.tg[g].path.c_str()));
}

// A live task is in the group sched_get_task_group names (its cgroup's, or
// its autogroup's), and its entity hangs under that group's cfs_rq on its CPU.
[[gnu::always_inline]] inline void task_in_its_group(Ctx& x, TaskId id, const Task& t) {
  if (t.state == TaskState::exited) return;
  const Sched& s = x.s;
  const GroupId want = sched_get_task_group(s, id);
  if (t.group != want || s.se[t.se].cfs_rq != s.tg[t.group].cfs_rq[t.cpu])
    x.fail(fmt("task %s: in group %s, under cfs_rq %s; sched_get_task_group says %s", t.name.c_str(),
               s.tg[t.group].path.c_str(), x.cfs_rq(s.se[t.se].cfs_rq).c_str(), s.tg[want].path.c_str()));
}

[[gnu::always_inline]] inline void tg_load_avg_sum(Ctx& x) {
  for (const GroupId id : x.s.tg.ids()) {
    const TaskGroup& g = x.s.tg[id];
    const uint64_t sum = x.c.tg_contrib_sum[id];
    if (sum != g.load_avg)
      x.fail(fmt("group %s: tg->load_avg %" PRIu64 " != sum of contributions %" PRIu64, g.path.c_str(), g.load_avg,
                 sum));
  }
}

}  // namespace cfsv::inv
