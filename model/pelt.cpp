// The PELT paths of kernel/sched/fair.c, v5.15 (read in zcjie1/linux-5.15.100),
// over the arithmetic of arith/pelt.h (pelt.c) and arith/pelt_shares.h.
// Names are the kernel's; each function says which one it follows.
#include "pelt.h"

#include <algorithm>

#include "arith/pelt_attach.h"
#include "arith/pelt_shares.h"
#include "fair_cpu.h"
#include "pelt_eras.h"

namespace cfsv {

namespace {

using pelt_v5_15::get_pelt_divider;

using pelt_v5_15::floor_sum_u32;
using pelt_v5_15::pelt_min_divider;
using pelt_v5_15::sum_after_leave;

uint64_t se_weight(const Sched& s, const SchedEntity& e) { return scale_load_down<uint64_t>(e.load.weight, s.res); }

// se_runnable (kernel/sched/sched.h v5.15): on_rq for a task, the group
// cfs_rq's h_nr_running as last read by se_update_runnable for a group.
uint64_t se_runnable(const SchedEntity& e) { return e.is_task() ? uint64_t{e.on_rq} : e.pelt.runnable_weight; }

// sub_positive (kernel/sched/fair.c v5.15) on a field (arith/pelt_attach.h).
void sub_positive(uint64_t& v, uint64_t d) { v = pelt_v5_15::sub_positive<uint64_t>(v, d); }

// The kernel's u32 fields (util_sum).
uint64_t to_u32(uint64_t v) { return static_cast<uint32_t>(v); }

// add_positive (kernel/sched/fair.c v5.15, v6.4): add a signed delta to a
// field of `bits` (64, or 32 for util_sum), clamping at 0.
template <int bits = 64> void add_positive(uint64_t& v, int64_t d) {
  uint64_t r = v + static_cast<uint64_t>(d);
  if constexpr (bits == 32) r = to_u32(r);
  v = (d < 0 && r > v) ? 0 : r;
}

// Whether v5.17's relaxed sum syncs run (feature pelt_relaxed_sum_sync).
bool relaxed_sums(const Sched& s) { return s.features[Feature::pelt_relaxed_sum_sync]; }

// The relaxed syncs' update of a cfs_rq's sum by an entity's change (the
// tails of v6.4's update_tg_cfs_util/runnable/load): add_positive, then the floor.
template <int bits = 64> void add_floored(uint64_t& sum, int64_t delta, uint64_t avg) {
  add_positive<bits>(sum, delta);
  sum = floor_sum_u32(sum, avg);
}

// The model's bookkeeping: e's averages are no longer part of a cfs_rq's.
void unattach(Sched& s, SchedEntity& e) {
  if (e.pelt.attached) s.cfs[e.pelt.attached].pelt.nr_attached--;
  e.pelt.attached = CfsRqId{};
}

// Whether ___update_load_sum can change sa at now: not when less than one
// 1024 ns unit has passed (it returns 0 and leaves sa alone), so the
// branch-free templates are skipped then (most updates of a step share a time).
bool pelt_due(uint64_t now, const SchedAvg& sa) { return now - sa.last_update_time >= (uint64_t{1} << kPeltUnitShift); }

// __update_load_avg_se (kernel/sched/pelt.c v5.15)
bool update_load_avg_se(Sched& s, uint64_t now, CfsRqId cq, EntityId sei) {
  SchedEntity& e = s.se[sei];
  if (!pelt_due(now, e.pelt.avg)) return false;
  if (!pelt_v5_15::update_load_avg_se<uint64_t>(now, e.pelt.avg, e.load.weight, e.on_rq, se_runnable(e),
                                                s.cfs[cq].curr == sei, s.res))
    return false;
  cfs_se_util_change(s, e.pelt.util_est);
  return true;
}

}  // namespace

// update_tg_load_avg (kernel/sched/fair.c v4.4 without force, which v4.4
// never passes, and v5.15; the root skip is seed 000's
// root_tg_load_avg_skip): counts the updates per group, the root's apart.
void update_tg_load_avg(Sched& s, CfsRqId cq) {
  CfsRqPelt& p = s.cfs[cq].pelt;
  TaskGroup& g = s.tg[s.cfs[cq].tg];
  const bool root = s.cfs[cq].tg == kRootGroup;
  const bool skip = root && s.features[Feature::root_tg_load_avg_skip];
  // "rq has been offline and doesn't contribute anymore to the share"
  if (!skip && s.features[Feature::tg_load_offline_clear] && !cpu_active(s, s.cfs[cq].cpu)) return;
  const uint64_t updated = cfsv::update_tg_load_avg<uint64_t>(p.avg.load_avg, p.tg_load_avg_contrib, g.load_avg, 0, skip);
  if (skip) s.counters.root_tg_load_avg_skips++;
  if (!updated) return;
  g.load_avg_updates++;
  if (root) s.counters.root_tg_load_avg_updates++;
  else s.counters.tg_load_avg_updates++;
}

void clear_tg_offline_cfs_rqs(Sched& s, CpuId cpu) {
  for (const GroupId id : s.tg.ids()) {
    TaskGroup& g = s.tg[id];
    if (id == kRootGroup || g.dead) continue;  // task_groups holds the live ones; the root's is unused
    CfsRqPelt& p = s.cfs[g.cfs_rq[cpu]].pelt;
    g.load_avg -= p.tg_load_avg_contrib;
    p.tg_load_avg_contrib = 0;
  }
}

namespace {

// add_tg_cfs_propagate (kernel/sched/fair.c v5.15)
void add_tg_cfs_propagate(CfsRqPelt& p, int64_t runnable_sum) {
  p.propagate = true;
  p.prop_runnable_sum += runnable_sum;
}

// update_cfs_rq_load_avg (kernel/sched/fair.c v5.15.100; v6.4 with
// relaxed_sums): the removed averages first, then the cfs_rq's own sums;
// true when anything changed.
bool update_cfs_rq_load_avg(Sched& s, uint64_t now, CfsRqId cq) {
  CfsRq& c = s.cfs[cq];
  CfsRqPelt& p = c.pelt;
  SchedAvg& sa = p.avg;
  bool decayed = false;
  if (p.removed.nr) {
    const uint64_t divider = get_pelt_divider(sa);
    const CfsRqPelt::Removed r = p.removed;
    p.removals_applied += r.nr;
    p.removed = {};
    const bool relaxed = relaxed_sums(s);
    sub_positive(sa.load_avg, r.load_avg);
    sa.load_sum = sum_after_leave(sa.load_sum, r.load_avg * divider, sa.load_avg, divider, relaxed);
    sub_positive(sa.util_avg, r.util_avg);
    sub_positive(sa.util_sum, to_u32(r.util_avg * divider));
    sa.util_sum = floor_sum_u32(sa.util_sum, sa.util_avg);
    sub_positive(sa.runnable_avg, r.runnable_avg);
    sa.runnable_sum = sum_after_leave(sa.runnable_sum, r.runnable_avg * divider, sa.runnable_avg, divider, relaxed);
    add_tg_cfs_propagate(p, (-static_cast<int64_t>(r.runnable_avg * divider)) >> kSchedCapacityShift);
    decayed = true;
  }
  if (pelt_due(now, sa))
    decayed |= pelt_v5_15::update_load_avg_cfs_rq<uint64_t>(now, sa, c.load_weight, c.h_nr_running, bool(c.curr),
                                                            s.res) != 0;
  return decayed;
}

// enqueue_load_avg (kernel/sched/fair.c v5.15)
void enqueue_load_avg(Sched& s, CfsRqId cq, EntityId sei) {
  const SchedEntity& e = s.se[sei];
  pelt_v5_15::enqueue_load_avg<uint64_t>(s.cfs[cq].pelt.avg, e.pelt.avg, se_weight(s, e));
}

// update_tg_cfs_util and update_tg_cfs_runnable (kernel/sched/fair.c v5.15),
// one shape over the average and its sum: the group entity takes its group
// cfs_rq's average, the parent cfs_rq the difference, both sums rebuilt with
// the parent's divider (util_sum is a u32). Relaxed (v6.4): the entity's new
// sum is a u32 for both; the parent's sum takes the entity's change, floored.
template <uint64_t SchedAvg::*avg, uint64_t SchedAvg::*sum, bool u32>
void update_tg_cfs_signal(Sched& s, CfsRqId cq, EntityId sei, CfsRqId gcq) {
  SchedAvg& se = s.se[sei].pelt.avg;
  SchedAvg& ca = s.cfs[cq].pelt.avg;
  const int64_t delta = static_cast<int64_t>(s.cfs[gcq].pelt.avg.*avg - se.*avg);
  if (!delta) return;
  const uint64_t divider = get_pelt_divider(ca);
  const auto width = [](uint64_t v) { return u32 ? to_u32(v) : v; };
  se.*avg = s.cfs[gcq].pelt.avg.*avg;
  add_positive(ca.*avg, delta);
  if (relaxed_sums(s)) {
    const uint64_t new_sum = to_u32(se.*avg * divider);
    const int64_t delta_sum = static_cast<int64_t>(new_sum) - static_cast<int64_t>(se.*sum);
    se.*sum = new_sum;
    add_floored<u32 ? 32 : 64>(ca.*sum, delta_sum, ca.*avg);
    return;
  }
  se.*sum = width(se.*avg * divider);
  ca.*sum = width(ca.*avg * divider);
}

// update_tg_cfs_load (kernel/sched/fair.c v5.15; v6.4 with relaxed_sums:
// the entity's load_sum is left alone when its load_avg does not change, and
// the parent's load_sum takes the entity's change, floored)
void update_tg_cfs_load(Sched& s, CfsRqId cq, EntityId sei, CfsRqId gcq) {
  CfsRq& g = s.cfs[gcq];
  int64_t runnable_sum = g.pelt.prop_runnable_sum;
  if (!runnable_sum) return;
  g.pelt.prop_runnable_sum = 0;
  SchedAvg& se = s.se[sei].pelt.avg;
  SchedAvg& ca = s.cfs[cq].pelt.avg;
  const auto divider = static_cast<int64_t>(get_pelt_divider(ca));
  if (runnable_sum >= 0) {
    runnable_sum += static_cast<int64_t>(se.load_sum);
    runnable_sum = std::min(runnable_sum, divider);
  } else {
    int64_t load_sum = 0;
    if (const uint64_t w = scale_load_down<uint64_t>(g.load_weight, s.res))
      load_sum = static_cast<int64_t>(g.pelt.avg.load_sum / w);
    runnable_sum = std::min(static_cast<int64_t>(se.load_sum), load_sum);
  }
  const auto running_sum = static_cast<int64_t>(se.util_sum >> kSchedCapacityShift);
  runnable_sum = std::max(runnable_sum, running_sum);
  const auto weight = static_cast<int64_t>(se_weight(s, s.se[sei]));
  const int64_t load_sum = weight * runnable_sum;
  const int64_t load_avg = load_sum / divider;
  const bool relaxed = relaxed_sums(s);
  if (!relaxed) se.load_sum = static_cast<uint64_t>(runnable_sum);
  const int64_t delta = load_avg - static_cast<int64_t>(se.load_avg);
  if (!delta) return;
  const int64_t delta_sum = load_sum - weight * static_cast<int64_t>(se.load_sum);
  se.load_sum = static_cast<uint64_t>(runnable_sum);
  se.load_avg = static_cast<uint64_t>(load_avg);
  add_positive(ca.load_avg, delta);
  if (relaxed) add_floored(ca.load_sum, delta_sum, ca.load_avg);
  else ca.load_sum = ca.load_avg * static_cast<uint64_t>(divider);
}

// propagate_entity_load_avg (kernel/sched/fair.c v5.15): a group entity
// takes on what changed in its cfs_rq and passes it on to its parent's.
// Below, its part past the early returns (kept out of line: most calls are
// a task's, which return at once).
[[gnu::noinline]] void propagate_group_entity_load_avg(Sched& s, EntityId sei);
bool propagate_entity_load_avg(Sched& s, EntityId sei) {
  const SchedEntity& e = s.se[sei];
  if (e.is_task() || !s.cfs[e.my_q].pelt.propagate) return false;
  propagate_group_entity_load_avg(s, sei);
  return true;
}

void propagate_group_entity_load_avg(Sched& s, EntityId sei) {
  const SchedEntity& e = s.se[sei];
  CfsRqPelt& gp = s.cfs[e.my_q].pelt;
  gp.propagate = false;
  const CfsRqId cq = e.cfs_rq;
  add_tg_cfs_propagate(s.cfs[cq].pelt, gp.prop_runnable_sum);
  update_tg_cfs_signal<&SchedAvg::util_avg, &SchedAvg::util_sum, true>(s, cq, sei, e.my_q);  // update_tg_cfs_util
  update_tg_cfs_signal<&SchedAvg::runnable_avg, &SchedAvg::runnable_sum, false>(s, cq, sei, e.my_q);  // _runnable
  update_tg_cfs_load(s, cq, sei, e.my_q);
}

// attach_entity_load_avg (kernel/sched/fair.c v5.15): the entity joins the
// cfs_rq's averages, its window aligned with the cfs_rq's.
// The arithmetic is arith/pelt_attach.h's.
void attach_entity_load_avg(Sched& s, CfsRqId cq, EntityId sei) {
  SchedEntity& e = s.se[sei];
  CfsRqPelt& p = s.cfs[cq].pelt;
  const uint64_t load_sum = pelt_v5_15::attach_entity_load_avg<uint64_t>(p.avg, e.pelt.avg, se_weight(s, e));
  add_tg_cfs_propagate(p, static_cast<int64_t>(load_sum));
  e.pelt.attached = cq;
  p.nr_attached++;
}

// detach_entity_load_avg (kernel/sched/fair.c v5.15), the arithmetic arith/pelt_attach.h's.
void detach_entity_load_avg(Sched& s, CfsRqId cq, EntityId sei) {
  SchedEntity& e = s.se[sei];
  CfsRqPelt& p = s.cfs[cq].pelt;
  const uint64_t load_sum = pelt_v5_15::detach_entity_load_avg<uint64_t>(p.avg, e.pelt.avg, se_weight(s, e), relaxed_sums(s));
  add_tg_cfs_propagate(p, -static_cast<int64_t>(load_sum));
  unattach(s, e);
}

// propagate_entity_cfs_rq (kernel/sched/fair.c v5.15, no bandwidth control)
void propagate_entity_cfs_rq(Sched& s, EntityId sei) {
  list_add_leaf_cfs_rq(s, s.se[sei].cfs_rq);
  for (EntityId x = s.se[sei].parent; x; x = s.se[x].parent) {
    update_load_avg(s, s.se[x].cfs_rq, x, kUpdateTg);
    list_add_leaf_cfs_rq(s, s.se[x].cfs_rq);
  }
}

// skip_blocked_update (kernel/sched/fair.c v5.15)
bool skip_blocked_update(const Sched& s, EntityId sei) {
  const SchedEntity& e = s.se[sei];
  if (e.pelt.avg.load_avg || e.pelt.avg.util_avg) return false;
  return !s.cfs[e.my_q].pelt.propagate;
}

// cfs_rq_is_decayed (kernel/sched/fair.c v5.15.100), given whether
// child_cfs_rq_on_list holds: the cfs_rq before this one on the leaf list is
// a child group's (the list keeps a child right before its parent).
bool cfs_rq_is_decayed(const CfsRq& c, bool child_on_list) {
  const SchedAvg& a = c.pelt.avg;
  return !c.load_weight && !a.load_sum && !a.util_sum && !a.runnable_sum && !child_on_list;
}

}  // namespace

// update_load_avg (kernel/sched/fair.c v5.15; v6.4's DO_DETACH): the entity
// and its cfs_rq up to now, a pending propagation, then attach (DO_ATTACH
// after a migration), detach (DO_DETACH: a migrating task's dequeue) or the
// tg load_avg (UPDATE_TG) when something changed.
void update_load_avg(Sched& s, CfsRqId cq, EntityId sei, unsigned flags) {
  const uint64_t now = rq_clock_pelt(s, s.cfs[cq].cpu);
  if (s.se[sei].pelt.avg.last_update_time && !(flags & kSkipAgeLoad)) update_load_avg_se(s, now, cq, sei);
  bool decayed = update_cfs_rq_load_avg(s, now, cq);
  decayed |= propagate_entity_load_avg(s, sei);
  if (!s.se[sei].pelt.avg.last_update_time && (flags & kDoAttach)) {
    attach_entity_load_avg(s, cq, sei);
    update_tg_load_avg(s, cq);
  } else if (flags & kDoDetach) {
    detach_entity_load_avg(s, cq, sei);
    update_tg_load_avg(s, cq);
  } else if (decayed && (flags & kUpdateTg)) {
    update_tg_load_avg(s, cq);
  }
}

// se_update_runnable (kernel/sched/fair.c v5.15)
void se_update_runnable(Sched& s, EntityId sei) {
  SchedEntity& e = s.se[sei];
  if (!e.is_task()) e.pelt.runnable_weight = s.cfs[e.my_q].h_nr_running;
}

// dequeue_load_avg (kernel/sched/fair.c v5.15; v6.4 relaxed), arith/pelt_attach.h's.
void dequeue_load_avg(Sched& s, CfsRqId cq, EntityId sei) {
  const SchedEntity& e = s.se[sei];
  pelt_v5_15::dequeue_load_avg<uint64_t>(s.cfs[cq].pelt.avg, e.pelt.avg, se_weight(s, e), relaxed_sums(s));
}

// reweight_entity's PELT part after update_load_set (kernel/sched/fair.c v5.15)
void reweight_load_avg(Sched& s, CfsRqId cq, EntityId sei) {
  SchedEntity& e = s.se[sei];
  pelt_v5_15::reweight_load_avg<uint64_t>(e.pelt.avg, se_weight(s, e));
  enqueue_load_avg(s, cq, sei);
}

// calc_group_shares (kernel/sched/fair.c v4.15+, read in v5.15)
uint64_t calc_group_shares(const Sched& s, CfsRqId gcq) {
  const CfsRq& g = s.cfs[gcq];
  const TaskGroup& tg = s.tg[g.tg];
  return cfsv::calc_group_shares<uint64_t>(tg.shares, g.load_weight, g.pelt.avg.load_avg, tg.load_avg,
                                           g.pelt.tg_load_avg_contrib, s.res);
}

// list_add_leaf_cfs_rq (kernel/sched/fair.c v5.15): the list's order is the
// model's fixed bottom-up order (update_blocked_averages), so only membership.
void list_add_leaf_cfs_rq(Sched& s, CfsRqId cq) { s.cfs[cq].pelt.on_list = true; }

// init_entity_runnable_average (kernel/sched/fair.c v5.15): a new task starts
// with its full weight as load_avg, a group entity with nothing.
void init_entity_runnable_average(Sched& s, EntityId sei) {
  SchedEntity& e = s.se[sei];
  e.pelt.avg = {};
  if (e.is_task()) e.pelt.avg.load_avg = se_weight(s, e);
}

// post_init_entity_util_avg (kernel/sched/fair.c v5.15): util_avg from the
// cfs_rq's (times se->load.weight, unscaled as the kernel has it), at most
// half the CPU's capacity (arch_scale_cpu_capacity) left; then
// attach_entity_cfs_rq (v6.4, pelt_attach_at_enqueue: enqueue_entity's
// DO_ATTACH attaches it).
void post_init_entity_util_avg(Sched& s, TaskId task) {
  const EntityId sei = s.tasks[task].se;
  SchedEntity& e = s.se[sei];
  const SchedAvg& ca = s.cfs[e.cfs_rq].pelt.avg;
  SchedAvg& sa = e.pelt.avg;
  const auto cpu_scale = static_cast<int64_t>(capacity_orig_of(s, s.cfs[e.cfs_rq].cpu));
  const int64_t cap = (cpu_scale - static_cast<int64_t>(ca.util_avg)) / 2;
  if (cap > 0) {
    if (ca.util_avg != 0) {
      sa.util_avg = ca.util_avg * e.load.weight / (ca.load_avg + 1);
      sa.util_avg = std::min(sa.util_avg, static_cast<uint64_t>(cap));
    } else {
      sa.util_avg = static_cast<uint64_t>(cap);
    }
  }
  sa.runnable_avg = sa.util_avg;
  if (!s.features[Feature::pelt_attach_at_enqueue]) attach_entity_cfs_rq(s, sei);
}

// attach_entity_cfs_rq (kernel/sched/fair.c v5.15; ATTACH_AGE_LOAD on)
void attach_entity_cfs_rq(Sched& s, EntityId sei) {
  const CfsRqId cq = s.se[sei].cfs_rq;
  update_load_avg(s, cq, sei, 0);
  attach_entity_load_avg(s, cq, sei);
  update_tg_load_avg(s, cq);
  propagate_entity_cfs_rq(s, sei);
}

// detach_entity_cfs_rq (kernel/sched/fair.c v5.15)
void detach_entity_cfs_rq(Sched& s, EntityId sei) {
  const CfsRqId cq = s.se[sei].cfs_rq;
  update_load_avg(s, cq, sei, 0);
  detach_entity_load_avg(s, cq, sei);
  update_tg_load_avg(s, cq);
  propagate_entity_cfs_rq(s, sei);
}

void update_idle_rq_clock_pelt(Sched& s, CpuId cpu) {
  const uint64_t divider = (pelt_min_divider<uint64_t>() << kSchedCapacityShift) - pelt_tables().load_avg_max;
  update_rq_clock_pelt(s, cpu);
  Rq& r = s.rq[cpu];
  if (s.cfs[r.cfs].pelt.avg.util_sum >= divider) r.lost_idle_time += s.now + kPeltClockStart - r.clock_pelt;
}

// sync_entity_load_avg (kernel/sched/fair.c v5.15): decay to the cfs_rq's last update.
void sync_entity_load_avg(Sched& s, EntityId sei) {
  SchedEntity& e = s.se[sei];
  pelt_v5_15::update_load_avg_blocked_se<uint64_t>(s.cfs[e.cfs_rq].pelt.avg.last_update_time, e.pelt.avg,
                                                   e.load.weight, s.res);
}

// remove_entity_load_avg (kernel/sched/fair.c v5.15): sync_entity_load_avg,
// then queue the averages as removed.
void remove_entity_load_avg(Sched& s, EntityId sei) {
  SchedEntity& e = s.se[sei];
  CfsRqPelt& p = s.cfs[e.cfs_rq].pelt;
  sync_entity_load_avg(s, sei);
  p.removed.nr++;
  p.removed.util_avg += e.pelt.avg.util_avg;
  p.removed.load_avg += e.pelt.avg.load_avg;
  p.removed.runnable_avg += e.pelt.avg.runnable_avg;
  p.removals_queued++;
  unattach(s, e);
}

namespace {

// migrate_se_pelt_lag (kernel/sched/fair.c v6.0..v6.4, pelt_migrate_lag):
// a woken task leaving an idle CPU decays its averages to that CPU's PELT time
// now. The kernel estimates it as rq->clock_pelt_idle plus sched_clock_cpu()
// less rq->clock_idle (no less than the cfs_rq's last update): the PELT clock
// of an idle rq runs at clock_task, so the estimate is rq_clock_pelt at now,
// which the model has exactly. Nothing to do when every sum is 0
// (load_avg_is_decayed).
void migrate_se_pelt_lag(Sched& s, EntityId sei) {
  SchedEntity& e = s.se[sei];
  const SchedAvg& a = e.pelt.avg;
  const CpuId cpu = s.cfs[e.cfs_rq].cpu;
  if (!(a.load_sum || a.util_sum || a.runnable_sum) || s.rq[cpu].curr) return;
  const uint64_t now = std::max(rq_clock_pelt(s, cpu), s.cfs[e.cfs_rq].pelt.avg.last_update_time);
  pelt_v5_15::update_load_avg_blocked_se<uint64_t>(now, e.pelt.avg, e.load.weight, s.res);
}

}  // namespace

// migrate_task_rq_fair (kernel/sched/fair.c v5.15), its PELT part; v6.4
// (pelt_attach_at_enqueue): a queued task was detached by its dequeue;
// (pelt_migrate_lag) a woken one's lag on an idle CPU decayed.
void migrate_task_rq_fair_pelt(Sched& s, TaskId task, bool queued) {
  const EntityId sei = s.tasks[task].se;
  if (!queued) {
    remove_entity_load_avg(s, sei);
    if (s.features[Feature::pelt_migrate_lag]) migrate_se_pelt_lag(s, sei);
  } else if (!s.features[Feature::pelt_attach_at_enqueue]) {
    detach_entity_cfs_rq(s, sei);
  }
  s.se[sei].pelt.avg.last_update_time = 0;
}

// update_blocked_averages + __update_blocked_fair (kernel/sched/fair.c
// v5.15): the CPU's cfs_rqs on the leaf list, children before parents (the
// model's groups in reverse creation order: a child is created after its
// parent), each brought up to now with its group entity; one that stays on
// the list keeps its parent there (child_cfs_rq_on_list).
void update_blocked_averages(Sched& s, CpuId cpu) {
  const uint64_t now = rq_clock_pelt(s, cpu), walk = ++s.rq[cpu].blocked_walks;
  bool blocked = false;
  for (std::size_t g = s.tg.size(); g-- > 0;) {
    const CfsRqId cq = s.tg[GroupId(static_cast<int32_t>(g))].cfs_rq[cpu];
    if (!s.cfs[cq].pelt.on_list) continue;
    if (update_cfs_rq_load_avg(s, now, cq)) update_tg_load_avg(s, cq);
    const EntityId se = s.cfs[cq].group_se;
    if (se && !skip_blocked_update(s, se)) update_load_avg(s, s.se[se].cfs_rq, se, kUpdateTg);
    CfsRq& c = s.cfs[cq];
    if (cfs_rq_is_decayed(c, c.pelt.child_on_list_walk == walk)) c.pelt.on_list = false;
    else if (const GroupId parent = s.tg[c.tg].parent) s.cfs[s.tg[parent].cfs_rq[cpu]].pelt.child_on_list_walk = walk;
    blocked = blocked || s.cfs[cq].pelt.avg.load_avg || s.cfs[cq].pelt.avg.util_avg;  // cfs_rq_has_blocked
  }
  s.rq[cpu].last_blocked_load_update_tick = jiffies(s);  // update_blocked_load_tick
  s.rq[cpu].has_blocked_load = blocked;                  // update_blocked_load_status
}

void update_blocked_averages_of_era(Sched& s, CpuId cpu) {
  touch(s, cpu);
  if (s.era.pelt_v4) pelt4::update_blocked_averages(s, cpu);
  else if (s.era.pelt_v3) pelt3::update_blocked_averages(s, cpu);
  else if (s.era.pelt) update_blocked_averages(s, cpu);
}

// The blocked averages of every CPU, every LOAD_AVG_PERIOD ms
// (msecs_to_jiffies(LOAD_AVG_PERIOD), nohz.next_blocked), at a busy CPU's tick.
void blocked_averages_tick(Sched& s) {
  if (s.now < s.next_blocked) return;
  for (const CpuId c : s.rq.ids())
    if (cpu_active(s, c)) update_blocked_averages_of_era(s, c);  // an offline CPU balances nothing: its blocked load stays
  const uint64_t tick = s.tun.tick_ns();
  const uint64_t period_ns = kLoadAvgPeriod * 1000000;
  s.next_blocked = s.now + (period_ns + tick - 1) / tick * tick;
}

}  // namespace cfsv
