// The weights of group entities (kernel/sched/fair.c): a cfs_rq's share of
// its group, reweight_entity, and the cpu.shares write. Split from fair.cpp;
// the versions each function follows are at each one.
#include "fair_group.h"

#include <algorithm>

#include "arith/fair_math.h"
#include "arith/weights.h"
#include "fair.h"
#include "pelt.h"
#include "pelt_eras.h"
#include "sink.h"

namespace cfsv {

// The group's instantaneous load follows each change of a cfs_rq's weight.
void cfs_load_changed(Sched& s, CfsRqId cq) {
  CfsRq& c = s.cfs[cq];
  const uint64_t down = scale_load_down<uint64_t>(c.load_weight, s.res);
  TaskGroup& g = s.tg[c.tg];
  g.load_down_sum = g.load_down_sum - c.load_down + down;
  c.load_down = down;
}

namespace {

// reweight_entity (kernel/sched/fair.c v3.10..v6.5; v5.15's PELT parts: the
// load_avg leaves the cfs_rq's, is recomputed for the new weight and comes
// back, whether or not se is queued). Counts the changes of weight.
void reweight_entity(Sched& s, CfsRqId cq, EntityId sei, LoadWeight<uint64_t> load) {
  SchedEntity& e = s.se[sei];
  CfsRq& c = s.cfs[cq];
  if (e.on_rq) {
    if (c.curr == sei) update_curr(s, cq);
    c.load_weight -= e.load.weight;
  }
  if (s.era.pelt) dequeue_load_avg(s, cq, sei);
  s.counters.reweights += e.load.weight != load.weight;
  e.load = load;
  if (s.era.pelt) reweight_load_avg(s, cq, sei);
  if (e.on_rq) c.load_weight += load.weight;
  cfs_load_changed(s, cq);
}

}  // namespace

// update_cfs_group (kernel/sched/fair.c v4.15..v6.5): with PELT shares,
// calc_group_shares (v3.10, v4.4: calc_cfs_shares) and an unconditional
// reweight_entity (SMP); with instant_shares (or no PELT) the instantaneous
// share of fair_math.h's calc_group_shares_instant, reweighting only on a change.
void update_cfs_group(Sched& s, EntityId sei) {
  if (!sei) return;
  const SchedEntity& e = s.se[sei];
  if (!e.my_q) return;
  if (s.era.pelt_shares) {
    const uint64_t shares = s.era.pelt_v4   ? pelt4::calc_cfs_shares(s, e.my_q)
                            : s.era.pelt_v3 ? pelt3::calc_cfs_shares(s, e.my_q)
                                            : calc_group_shares(s, e.my_q);
    return reweight_entity(s, e.cfs_rq, sei, {shares, 0});
  }
  const CfsRq& gq = s.cfs[e.my_q];
  const TaskGroup& g = s.tg[gq.tg];
  const uint64_t shares = calc_group_shares_instant<uint64_t>(g.shares, gq.load_down, g.load_down_sum);
  if (e.load.weight != shares) reweight_entity(s, e.cfs_rq, sei, {shares, 0});
}

// update_cfs_shares (kernel/sched/fair.c v3.10..v4.14): reweight the group
// entity that owns cfs_rq (none for the root).
void update_cfs_shares(Sched& s, CfsRqId cq) { update_cfs_group(s, s.cfs[cq].group_se); }

// reweight_task (kernel/sched/fair.c v5.15): a task's new weight through
// reweight_entity, queued or not.
void reweight_task(Sched& s, TaskId task, LoadWeight<uint64_t> load) {
  touch_task(s, task);
  const EntityId sei = s.tasks[task].se;
  reweight_entity(s, s.se[sei].cfs_rq, sei, load);
}

// sched_group_set_shares (kernel/sched/fair.c v3.10..v6.5): nothing when
// unchanged; v5.15 brings each level's load_avg up to date before
// update_cfs_group.
void sched_group_set_shares(Sched& s, GroupId tg, uint64_t shares) {
  TaskGroup& g = s.tg[tg];
  const uint64_t scaled = scale_load<uint64_t>(std::clamp<uint64_t>(shares, kFairMinShares, kFairMaxShares), s.res);
  if (g.shares == scaled) return;
  touch_all(s);
  g.shares = scaled;
  for (const CpuId c : s.rq.ids())
    for (EntityId x = g.se[c]; x; x = s.se[x].parent) {
      if (s.era.pelt) update_load_avg(s, s.se[x].cfs_rq, x, kUpdateTg);
      update_cfs_group(s, x);
    }
}

// sched_group_set_idle (kernel/sched/fair.c v5.15..v6.5; the parent's
// idle_nr_running is v5.16's): tg->idle and so each cfs_rq->idle; on each
// CPU the tasks below a queued group entity that were not idle become idle
// (or back) in its ancestors' idle_h_nr_running, up to the first idle
// cfs_rq; then the shares: WEIGHT_IDLEPRIO while idle, NICE_0_LOAD after.
void sched_group_set_idle(Sched& s, GroupId tg, bool idle) {
  TaskGroup& g = s.tg[tg];
  if (g.idle == idle) return;
  touch_all(s);
  g.idle = idle;
  const int sign = idle ? 1 : -1;
  for (const CpuId c : s.rq.ids()) {
    const EntityId gse = g.se[c];
    const CfsRq& gq = s.cfs[g.cfs_rq[c]];
    if (s.se[gse].on_rq) s.cfs[s.se[gse].cfs_rq].idle_nr_running += sign;
    const int delta = sign * static_cast<int>(gq.h_nr_running - gq.idle_h_nr_running);
    for (EntityId x = gse; x && s.se[x].on_rq; x = s.se[x].parent) {
      const CfsRqId cq = s.se[x].cfs_rq;
      s.cfs[cq].idle_h_nr_running += delta;
      if (cfs_rq_is_idle(s, cq)) break;
    }
  }
  sched_group_set_shares(s, tg, idle ? kWeightIdlePrio : kNice0Weight);
}

}  // namespace cfsv
