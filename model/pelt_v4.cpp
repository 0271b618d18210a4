// The load-tracking paths of kernel/sched/fair.c v4.4 (read in
// AnTuanHa/linux-stable-v4.4.121) over the arithmetic of arith/pelt_v4.h and
// arith/pelt_shares.h. v4.4's struct sched_avg is v5.15's without the
// runnable fields, so it is kept in the same storage (pelt_state.h).
#include <algorithm>

#include "arith/pelt_shares.h"
#include "arith/pelt_v4.h"
#include "pelt.h"
#include "pelt_eras.h"

namespace cfsv::pelt4 {

namespace {

using Avg4 = pelt_v4_4::SchedAvg<uint64_t>;
using RunnableLoad = pelt_v4_4::RunnableLoad<uint64_t>;

uint64_t load_avg_max() { return pelt_tables().load_avg_max; }
uint64_t to_u32(uint64_t v) { return static_cast<uint32_t>(v); }
uint64_t se_weight(const Sched& s, const SchedEntity& e) { return scale_load_down<uint64_t>(e.load.weight, s.res); }

// sub_positive (kernel/sched/fair.c v4.4): subtract, clamping at 0.
void sub_positive(uint64_t& v, uint64_t d) { v = d > v ? 0 : v - d; }

// __update_load_avg (kernel/sched/fair.c v4.4) on the model's storage, for
// the CPU of cfs_rq cq; true when a period boundary was crossed. Skipped when
// less than one 1024 ns unit has passed (it would leave sa alone). scale_freq
// is SCHED_CAPACITY_SCALE (no frequency scaling modelled), scale_cpu
// arch_scale_cpu_capacity(NULL, cpu): the util of a task running on a CPU of
// capacity 512 tends to 512.
bool update_avg(const Sched& s, CfsRqId cq, uint64_t now, SchedAvg& a, uint64_t weight, bool running,
                RunnableLoad* runnable) {
  if (now - a.last_update_time < (uint64_t{1} << kPeltUnitShift)) return false;
  Avg4 v{a.last_update_time, a.load_sum, a.util_sum, a.period_contrib, a.load_avg, a.util_avg};
  const uint64_t crossed = pelt_v4_4::update_load_avg<uint64_t>(now, v, weight, running, runnable, kSchedCapacityScale,
                                                                s.topo.arch_capacity[s.cfs[cq].cpu]);
  a.last_update_time = v.last_update_time;
  a.load_sum = v.load_sum;
  a.util_sum = v.util_sum;
  a.period_contrib = v.period_contrib;
  a.load_avg = v.load_avg;
  a.util_avg = v.util_avg;
  return crossed != 0;
}

// The entity's own __update_load_avg: weight se->on_rq * scale_load_down(weight),
// running when it is its cfs_rq's curr.
void update_entity_avg(Sched& s, uint64_t now, EntityId sei) {
  SchedEntity& e = s.se[sei];
  update_avg(s, e.cfs_rq, now, e.pelt.avg, e.on_rq ? se_weight(s, e) : 0, s.cfs[e.cfs_rq].curr == sei, nullptr);
}

// The model's bookkeeping: e's averages are no longer part of a cfs_rq's.
void unattach(Sched& s, SchedEntity& e) {
  if (e.pelt.attached) s.cfs[e.pelt.attached].pelt.nr_attached--;
  e.pelt.attached = CfsRqId{};
}

// update_cfs_rq_load_avg (kernel/sched/fair.c v4.4): removed_load_avg and
// removed_util_avg first (their sums as avg * LOAD_AVG_MAX), then the
// cfs_rq's sums with its runnable_load; true when either changed it.
bool update_cfs_rq_load_avg(Sched& s, uint64_t now, CfsRqId cq) {
  CfsRq& c = s.cfs[cq];
  CfsRqPelt& p = c.pelt;
  SchedAvg& sa = p.avg;
  bool removed = false;
  if (p.removed.nr) {
    const CfsRqPelt::Removed r = p.removed;
    p.removals_applied += r.nr;
    p.removed = {};
    if (r.load_avg) {
      sub_positive(sa.load_avg, r.load_avg);
      sub_positive(sa.load_sum, r.load_avg * load_avg_max());
      removed = true;
    }
    if (r.util_avg) {
      sub_positive(sa.util_avg, r.util_avg);
      sub_positive(sa.util_sum, to_u32(r.util_avg * load_avg_max()));
    }
  }
  const bool decayed = update_avg(s, cq, now, sa, scale_load_down<uint64_t>(c.load_weight, s.res), bool(c.curr),
                                  &p.runnable_load);
  return decayed || removed;
}

// attach_entity_load_avg (kernel/sched/fair.c v4.4; ATTACH_AGE_LOAD on): an
// entity still carrying a clock is first aged, not runnable, to the cfs_rq's
// last update; its sums and averages are added as they are (no alignment of
// period_contrib in v4.4). To a cfs_rq never updated (a group's on a CPU it
// has not run on) it takes no clock: the cfs_rq's first update, from 0,
// decays what it added to nothing, and the enqueue attaches it again; the
// model's bookkeeping counts only that second attachment.
void attach_entity_load_avg(Sched& s, CfsRqId cq, EntityId sei) {
  SchedEntity& e = s.se[sei];
  CfsRqPelt& p = s.cfs[cq].pelt;
  SchedAvg& sa = e.pelt.avg;
  if (sa.last_update_time) update_avg(s, cq, p.avg.last_update_time, sa, 0, false, nullptr);
  sa.last_update_time = p.avg.last_update_time;
  p.avg.load_avg += sa.load_avg;
  p.avg.load_sum += sa.load_sum;
  p.avg.util_avg += sa.util_avg;
  p.avg.util_sum = to_u32(p.avg.util_sum + sa.util_sum);
  if (!sa.last_update_time) return;
  e.pelt.attached = cq;
  p.nr_attached++;
}

}  // namespace

// update_load_avg (kernel/sched/fair.c v4.4): the entity, then its cfs_rq,
// then the tg load_avg when asked and the cfs_rq changed.
void update_load_avg(Sched& s, EntityId sei, bool update_tg) {
  const CfsRqId cq = s.se[sei].cfs_rq;
  const uint64_t now = cfs_rq_clock_pelt(s);
  update_entity_avg(s, now, sei);
  if (update_cfs_rq_load_avg(s, now, cq) && update_tg) cfsv::update_tg_load_avg(s, cq);
}

// enqueue_entity_load_avg (kernel/sched/fair.c v4.4): an entity without a
// clock (new, or migrated: last_update_time 0) is attached; either way its
// load joins runnable_load, and the tg load_avg follows.
void enqueue_entity_load_avg(Sched& s, CfsRqId cq, EntityId sei) {
  const uint64_t now = cfs_rq_clock_pelt(s);
  const bool migrated = !s.se[sei].pelt.avg.last_update_time;
  if (!migrated) update_entity_avg(s, now, sei);
  const bool decayed = update_cfs_rq_load_avg(s, now, cq);
  const SchedAvg& sa = s.se[sei].pelt.avg;
  RunnableLoad& rl = s.cfs[cq].pelt.runnable_load;
  rl.avg += sa.load_avg;
  rl.sum += sa.load_sum;
  if (migrated) attach_entity_load_avg(s, cq, sei);
  if (decayed || migrated) cfsv::update_tg_load_avg(s, cq);
}

// dequeue_entity_load_avg (kernel/sched/fair.c v4.4): update_load_avg(se, 1),
// then the entity's load leaves runnable_load (clamped at 0).
void dequeue_entity_load_avg(Sched& s, CfsRqId cq, EntityId sei) {
  update_load_avg(s, sei, true);
  const SchedAvg& sa = s.se[sei].pelt.avg;
  RunnableLoad& rl = s.cfs[cq].pelt.runnable_load;
  sub_positive(rl.avg, sa.load_avg);
  sub_positive(rl.sum, sa.load_sum);
}

// init_entity_runnable_average (kernel/sched/fair.c v4.4): the full weight
// and full utilisation, as if it had always run, period_contrib 1023, no
// clock (the first enqueue attaches it).
void init_entity_runnable_average(Sched& s, EntityId sei) {
  SchedEntity& e = s.se[sei];
  SchedAvg& sa = e.pelt.avg;
  sa = {};
  sa.period_contrib = kPeltPeriodUs - 1;
  sa.load_avg = se_weight(s, e);
  sa.load_sum = sa.load_avg * load_avg_max();
  sa.util_avg = kSchedCapacityScale;
  sa.util_sum = sa.util_avg * load_avg_max();
}

// remove_entity_load_avg (kernel/sched/fair.c v4.4): aged, not runnable, to
// the cfs_rq's last update, then queued in removed_load_avg/removed_util_avg.
void remove_entity_load_avg(Sched& s, EntityId sei) {
  SchedEntity& e = s.se[sei];
  CfsRqPelt& p = s.cfs[e.cfs_rq].pelt;
  update_avg(s, e.cfs_rq, p.avg.last_update_time, e.pelt.avg, 0, false, nullptr);
  p.removed.nr++;
  p.removed.load_avg += e.pelt.avg.load_avg;
  p.removed.util_avg += e.pelt.avg.util_avg;
  p.removals_queued++;
  unattach(s, e);
}

// migrate_task_rq_fair (kernel/sched/fair.c v4.4): queued or waking alike.
void migrate_task_rq_fair(Sched& s, TaskId task) {
  const EntityId sei = s.tasks[task].se;
  pelt4::remove_entity_load_avg(s, sei);
  s.se[sei].pelt.avg.last_update_time = 0;
}

// detach_entity_load_avg (kernel/sched/fair.c v4.4, from detach_task_cfs_rq):
// the entity up to the cfs_rq's last update, its averages and sums subtracted.
void detach_entity_load_avg(Sched& s, EntityId sei) {
  SchedEntity& e = s.se[sei];
  CfsRq& c = s.cfs[e.cfs_rq];
  SchedAvg& ca = c.pelt.avg;
  update_avg(s, e.cfs_rq, ca.last_update_time, e.pelt.avg, e.on_rq ? se_weight(s, e) : 0, c.curr == sei, nullptr);
  sub_positive(ca.load_avg, e.pelt.avg.load_avg);
  sub_positive(ca.load_sum, e.pelt.avg.load_sum);
  sub_positive(ca.util_avg, e.pelt.avg.util_avg);
  sub_positive(ca.util_sum, e.pelt.avg.util_sum);
  unattach(s, e);
}

// task_move_group_fair after set_task_rq (kernel/sched/fair.c v4.4):
// last_update_time = 0, then attach_task_cfs_rq's attach_entity_load_avg.
void attach_entity_load_avg_moved(Sched& s, EntityId sei) {
  s.se[sei].pelt.avg.last_update_time = 0;
  attach_entity_load_avg(s, s.se[sei].cfs_rq, sei);
}

// calc_cfs_shares with calc_tg_weight (kernel/sched/fair.c v4.4): from this
// CPU's load.weight and tg->load_avg less this cfs_rq's contribution.
uint64_t calc_cfs_shares(const Sched& s, CfsRqId gcq) {
  const CfsRq& g = s.cfs[gcq];
  const TaskGroup& tg = s.tg[g.tg];
  return cfsv::calc_cfs_shares<uint64_t>(tg.shares, g.load_weight, tg.load_avg, g.pelt.tg_load_avg_contrib);
}

// update_blocked_averages (kernel/sched/fair.c v4.4): every cfs_rq on the
// leaf list up to now, and its tg load_avg when it changed. v4.4 updates no
// group entity here and keeps a cfs_rq on the list once added.
void update_blocked_averages(Sched& s, CpuId cpu) {
  const uint64_t now = cfs_rq_clock_pelt(s);
  for (std::size_t g = s.tg.size(); g-- > 0;) {
    const CfsRqId cq = s.tg[GroupId(static_cast<int32_t>(g))].cfs_rq[cpu];
    if (s.cfs[cq].pelt.on_list && update_cfs_rq_load_avg(s, now, cq)) cfsv::update_tg_load_avg(s, cq);
  }
}

}  // namespace cfsv::pelt4
