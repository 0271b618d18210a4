// The core scheduler paths (kernel/sched/core.c), each with the kernel
// version(s) it follows, and the model's placement (no load balancing yet).
#include "core.h"

#include <algorithm>

#include "arith/placement.h"
#include "arith/weights.h"
#include "balance.h"
#include "cgroup.h"
#include "fair.h"
#include "core_change.h"
#include "fair_cpu.h"
#include "pelt.h"
#include "pelt_eras.h"
#include "select_rq.h"
#include "sink.h"

namespace cfsv {

std::string_view to_string(TaskState s) {
  switch (s) {
    case TaskState::running: return "running";
    case TaskState::runnable: return "runnable";
    case TaskState::sleeping: return "sleeping";
    case TaskState::exited: return "exited";
  }
  return "?";
}

ModelEra ModelEra::from(const FeatureSet& f) {
  ModelEra e;
  e.simple_pick = f[Feature::simple_pick];
  e.shares_on_cfs_rq = f[Feature::shares_on_cfs_rq];
  e.min_vruntime_skips_dequeued_curr = f[Feature::min_vruntime_skips_dequeued_curr];
  e.renorm_after_update_curr = f[Feature::renorm_after_update_curr];
  e.change_pattern_v5 = f[Feature::change_pattern];
  e.sysctl_recomputes_nr_latency = f[Feature::sysctl_nr_latency];
  e.pelt = f[Feature::pelt_v5];
  e.pelt_v4 = !e.pelt && f[Feature::pelt_v4_4];
  e.pelt_v3 = !e.pelt && !e.pelt_v4 && f[Feature::pelt_v3_10];
  e.tracks_pelt = e.pelt || e.pelt_v4 || e.pelt_v3;
  e.pelt_shares = e.tracks_pelt && !f[Feature::instant_shares];
  e.balance_v4 = f[Feature::balance_v4_4];
  e.balance_v3 = e.balance_v4 && f[Feature::balance_v3_10];
  e.placement_v4 = f[Feature::kernel_placement] && f[Feature::placement_v4_4];
  e.placement_v3 = e.placement_v4 && f[Feature::placement_v3_10];
  return e;
}

namespace {

// Placement without load balancing: the lowest allowed active CPU with the
// fewest runnable tasks (cfs.h_nr_running); none when no allowed CPU is active.
CpuId select_cpu(const Sched& s, const Task& t) {
  CpuId best;
  uint32_t best_nr = 0;
  for (const CpuId c : s.rq.ids()) {
    if (!cpu_usable(s, t, c)) continue;
    const uint32_t nr = s.cfs[s.rq[c].cfs].h_nr_running;
    if (!best || nr < best_nr) {
      best = c;
      best_nr = nr;
    }
  }
  return best;
}

// init_cfs_rq + the tg->cfs_rq[cpu] slot.
CfsRqId new_cfs_rq(Sched& s, GroupId tg, CpuId cpu) {
  const CfsRqId id = s.cfs.emplace_back(&s.pool);
  CfsRq& c = s.cfs[id];
  c.tg = tg;
  c.cpu = cpu;
  s.tg[tg].cfs_rq.emplace_back(id);
  return id;
}

// task_dead_fair (kernel/sched/fair.c v4.4, v5.15): the dead task's load
// leaves its cfs_rq at that cfs_rq's next update.
void task_dead_fair(Sched& s, TaskId task) {
  if (s.era.pelt) remove_entity_load_avg(s, s.tasks[task].se);
  else if (s.era.pelt_v4) pelt4::remove_entity_load_avg(s, s.tasks[task].se);
}

// migrate_task_rq_fair (kernel/sched/fair.c v3.10, v4.4, v5.15): its PELT
// part, then (v4.4..v6.2) exec_start cleared: no longer cache hot.
void migrate_task_rq_fair(Sched& s, TaskId task, bool queued) {
  if (s.era.pelt) migrate_task_rq_fair_pelt(s, task, queued);
  else if (s.era.pelt_v4) pelt4::migrate_task_rq_fair(s, task);
  else if (s.era.pelt_v3) pelt3::migrate_task_rq_fair(s, task);
  if (s.features[Feature::migrate_clears_exec_start]) s.se[s.tasks[task].se].exec_start = 0;
}

// set_task_rq (kernel/sched/sched.h v3.10..v6.5): the task's entity hangs
// under its group's cfs_rq and entity on that CPU.
void set_task_rq(Sched& s, TaskId task, CpuId cpu) {
  Task& t = s.tasks[task];
  SchedEntity& e = s.se[t.se];
  const TaskGroup& g = s.tg[t.group];
  e.cfs_rq = g.cfs_rq[cpu];
  e.parent = g.se.empty() ? EntityId{} : g.se[cpu];
  e.depth = e.parent ? s.se[e.parent].depth + 1 : 0;
  touch(s, t.cpu), touch(s, cpu);
  t.cpu = cpu;
}

// context_switch (kernel/sched/core.c): prev stops, next runs from now; the
// CPU's busy/idle time and the task states follow (trace_sched_switch), and
// finish_task_switch's task_dead for an exited prev.
void context_switch(Sched& s, CpuId cpu, TaskId prev, TaskId next) {
  Rq& r = s.rq[cpu];
  touch(s, cpu);
  const Nanos ran = s.now - r.since;
  if (prev == kIdle) r.idle_ns += ran;
  else r.busy_ns += ran;
  TaskState prev_state = TaskState::runnable;
  if (prev) {
    Task& p = s.tasks[prev];
    if (p.state == TaskState::running) p.state = TaskState::runnable;
    prev_state = p.state;
  }
  if (s.sink) s.sink->sched_switch(s, {s.now, cpu, prev, next, prev_state, prio_of(s, prev), prio_of(s, next)});
  // finish_task_switch: a dead prev's load leaves (task_dead_fair).
  if (prev_state == TaskState::exited) task_dead_fair(s, prev);
  set_rq_curr(s, cpu, next);
  r.since = s.now;
  r.stop_gen++;
  s.counters.context_switches++;
  if (next) {
    s.tasks[next].state = TaskState::running;
    s.tasks[next].stats.switches++;
  }
  // the idle task is picked once newidle balance is over (newidle_balance_done)
  if (next == kIdle && !newidle_walking(s, cpu)) set_next_task_idle(s, cpu);
  if (next == kIdle) nohz_balance_enter_idle(s, cpu);
}

}  // namespace

// The stopper (migration/N) preempts what runs on cpu: its wakeup (ttwu's
// avg_idle update when cpu was idle, and add_nr_running: rd->overload with a
// CFS task there), then put_prev_task and the switch to it. The caller
// reschedules cpu when the stopper is done.
void stopper_preempt(Sched& s, CpuId cpu) {
  const TaskId curr = s.rq[cpu].curr;
  const uint32_t prev_nr = rq_nr_running(s, cpu);
  update_avg_idle(s, cpu);
  if (curr) put_prev_task_fair(s, curr);
  context_switch(s, cpu, curr, kStopper);
  add_nr_running_overload(s, cpu, prev_nr);
}

// detach_task (kernel/sched/fair.c v5.15; move_queued_task's first half,
// kernel/sched/core.c): deactivate_task on the task's CPU, then set_task_cpu
// to dest (migrate_task_rq_fair of a migrating task).
void detach_task(Sched& s, TaskId task, CpuId dest) {
  Task& t = s.tasks[task];
  const CpuId src = t.cpu;
  dequeue_task_fair(s, src, task, kDequeueMigrating);
  if (s.sink) s.sink->sched_migrate_task(s, task, src, dest);
  migrate_task_rq_fair(s, task, true);
  set_task_rq(s, task, dest);
  t.stats.migrations++;
  s.counters.migrations++;
}

// attach_task (kernel/sched/fair.c v5.15): activate_task on the task's new
// CPU, then check_preempt_curr unless the caller is that CPU's own schedule().
void attach_task(Sched& s, TaskId task, bool check_preempt) {
  const CpuId cpu = s.tasks[task].cpu;
  // v6.3's activate_task adds ENQUEUE_MIGRATED for a migrating task (sanitize_vruntime)
  enqueue_task_fair(s, cpu, task, s.features[Feature::sanitize_vruntime] ? kEnqueueMigrated : 0);
  if (!check_preempt) return;
  note_arrival(s, cpu);
  check_preempt_curr(s, cpu, task, 0);
}

namespace {

// move_queued_task via the stopper (kernel/sched/core.c __migrate_task): a
// running task (v3.10, affinity_move_by_stopper: any queued one, unless the
// CPU is still in a newidle walk, after which it would run) is first
// preempted by migration/N, and its CPU picks again after it.
void move_queued_task(Sched& s, TaskId task, CpuId dest) {
  const CpuId src = s.tasks[task].cpu;
  const bool stopper = s.rq[src].curr == task ||
                       (s.features[Feature::affinity_move_by_stopper] && !newidle_walking(s, src));
  if (stopper) stopper_preempt(s, src);
  detach_task(s, task, dest);
  attach_task(s, task, true);
  if (stopper) resched_curr(s, src);
}

// cpumask_equal over the machine's CPUs (an empty mask is every CPU).
bool cpumask_equal(const CpuMask& a, const CpuMask& b, unsigned nr_cpus) {
  CpuMask all;
  for (unsigned c = 0; c < nr_cpus; ++c) all.set(c);
  return (a.none() ? all : a) == (b.none() ? all : b);
}

}  // namespace

// check_preempt_curr (kernel/sched/core.c v3.10..v6.5): an idle (or stopper)
// CPU always reschedules; a fair one asks check_preempt_wakeup.
void check_preempt_curr(Sched& s, CpuId cpu, TaskId task, unsigned wake_flags) {
  if (!s.rq[cpu].curr) {
    resched_curr(s, cpu);
    return;
  }
  check_preempt_wakeup(s, cpu, task, wake_flags);
}

// sched_init (kernel/sched/core.c): the runqueues and the root task group,
// ROOT_TASK_GROUP_LOAD shares, a cfs_rq per CPU and no entities.
void sched_init(Sched& s, unsigned nr_cpus) {
  s.rq.resize(nr_cpus);
  s.active = first_cpus(nr_cpus);
  TaskGroup root = s.new_task_group();
  root.path = "/";
  root.shares = scale_load<uint64_t>(kNice0Weight, s.res);
  s.tg.emplace_back(std::move(root));
  for (const CpuId c : s.rq.ids()) {
    s.rq[c].cpu = c;
    s.rq[c].cfs = new_cfs_rq(s, kRootGroup, c);
    set_rq_curr(s, c, kIdle);
    s.rq[c].avg_idle = 2 * s.tun.migration_cost_ns;
    s.rq[c].max_idle_balance_cost = s.tun.migration_cost_ns;
    s.rq[c].wake_avg_idle = s.rq[c].avg_idle;
  }
}

// sched_create_group + init_tg_cfs_entry (kernel/sched/fair.c v3.10..v6.5):
// a cfs_rq and an entity of weight NICE_0_LOAD per CPU under the parent's;
// then online_fair_sched_group (v5.15) attaches each entity's (empty) averages.
GroupId sched_create_group(Sched& s, GroupId parent, std::string path, uint64_t shares) {
  TaskGroup t = s.new_task_group();
  t.path = std::move(path);
  t.parent = parent;
  t.shares = scale_load<uint64_t>(std::clamp<uint64_t>(shares, kFairMinShares, kFairMaxShares), s.res);
  t.depth = s.tg[parent].depth + 1;
  const GroupId tg = s.tg.emplace_back(std::move(t));
  touch_all(s);
  for (const CpuId c : s.rq.ids()) {
    const CfsRqId cq = new_cfs_rq(s, tg, c);
    SchedEntity e;
    e.load = {nice_0_load<uint64_t>(s.res), 0};
    e.cfs_rq = s.tg[parent].cfs_rq[c];
    e.parent = parent == kRootGroup ? EntityId{} : s.tg[parent].se[c];
    e.depth = e.parent ? s.se[e.parent].depth + 1 : 0;
    e.my_q = cq;
    const EntityId sei = s.se.emplace_back(e);
    s.tg[tg].se.emplace_back(sei);
    s.cfs[cq].group_se = sei;
    if (s.era.pelt) {
      init_entity_runnable_average(s, sei);
      attach_entity_cfs_rq(s, sei);
    } else if (s.era.pelt_v4) {
      pelt4::init_entity_runnable_average(s, sei);  // attached at its first enqueue
    }
  }
  return tg;
}

// sched_fork (kernel/sched/core.c v3.10..v6.5): __sched_fork, set_load_weight,
// sched_cgroup_fork (v5.15; v3.10/v4.4 __set_task_cpu in task_fork_fair) and
// task_fork_fair. A parent forks on its own CPU, against its cfs_rq; then the
// model's placement stands in for wake_up_new_task's fork balancing. Without
// one the child is placed first and forks against its own cfs_rq there.
// A reused slot is as the slab hands out a freed task_struct: its old
// contents are gone but for gen, which keeps counting so that the old
// occupant's timers stay stale; the pid is new (1000 + forks so far).
TaskId sched_fork(Sched& s, const TaskSpec& spec, GroupId group, const CpuMask& allowed, TaskId parent,
                  TaskId slot) {
  const TaskId id = slot ? slot : TaskId(s.tasks.size());
  SchedEntity e;
  e.task = id;
  e.load = task_load_weight(s, spec.nice, spec.policy);
  Task t;
  t.name = spec.name;
  t.spec = spec;
  t.nice = spec.nice;
  t.policy = spec.policy;
  t.allowed = allowed;
  t.group = group;
  if (parent) t.wakee = s.tasks[parent].wakee;
  t.pid = static_cast<int32_t>(1000 + s.counters.forks);
  if (slot) {
    t.se = s.tasks[slot].se;
    t.gen = s.tasks[slot].gen;
    s.se[t.se] = e;
    s.tasks[slot] = std::move(t);
  } else {
    t.se = s.se.emplace_back(e);
    s.tasks.emplace_back(std::move(t));
  }
  s.counters.forks++;
  s.tasks[id].cgroup = group;
  sched_autogroup_fork(s, id, parent);              // copy_signal (v6.4)
  s.tasks[id].group = sched_get_task_group(s, id);  // sched_cgroup_fork (v6.4)
  if (s.era.pelt) init_entity_runnable_average(s, s.tasks[id].se);
  if (s.era.pelt_v4) pelt4::init_entity_runnable_average(s, s.tasks[id].se);  // (wake_up_new_task's)
  if (s.era.pelt_v3) pelt3::fork_entity(s, s.tasks[id].se, parent ? s.tasks[parent].se : EntityId{});
  if (s.features[Feature::kernel_placement]) {
    // v5.15: forked on the parent's CPU (without a parent, the first active
    // CPU: CPU 0 unless hotplug took it), placed by wake_up_new_task's select_task_rq.
    const CpuId cpu = parent ? s.tasks[parent].cpu : cpumask_first(s.active);
    set_task_rq(s, id, cpu);
    task_fork_fair(s, id, parent ? s.se[s.tasks[parent].se].cfs_rq : s.se[s.tasks[id].se].cfs_rq);
  } else if (parent) {
    set_task_rq(s, id, s.tasks[parent].cpu);
    task_fork_fair(s, id, s.se[s.tasks[parent].se].cfs_rq);
    const CpuId dest = select_cpu(s, s.tasks[id]);
    // v3.10's and v4.4's wake_up_new_task: set_task_cpu away from the
    // parent's CPU runs migrate_task_rq_fair on the child (v4.4: unattached,
    // fixed in v4.6; v3.10: with the decay_count it copied).
    if (!s.era.pelt && dest != s.tasks[id].cpu) migrate_task_rq_fair(s, id, false);
    if (dest != s.tasks[id].cpu) s.counters.fork_placements_away++;
    set_task_rq(s, id, dest);
  } else {
    set_task_rq(s, id, select_cpu(s, s.tasks[id]));
    task_fork_fair(s, id, s.se[s.tasks[id].se].cfs_rq);
  }
  return id;
}

// wake_up_new_task (kernel/sched/core.c v3.10..v6.5; v5.15's
// post_init_entity_util_avg before the enqueue)
void wake_up_new_task(Sched& s, TaskId task) {
  Task& t = s.tasks[task];
  t.recent_used_cpu = t.cpu;
  if (s.features[Feature::kernel_placement]) {
    // fork balancing: __set_task_cpu(p, select_task_rq(p, task_cpu(p), WF_FORK)) on
    // the forking CPU; v3.10's and v4.4's set_task_cpu (see sched_fork).
    const CpuId dest = select_task_rq(s, task, t.cpu, WakeKind::fork);
    if (!s.era.pelt && dest != t.cpu) migrate_task_rq_fair(s, task, false);
    if (dest != t.cpu) s.counters.fork_placements_away++;
    set_task_rq(s, task, dest);
  }
  s.rq[t.cpu].forks_placed++;
  t.state = TaskState::runnable;
  t.gen++;
  if (s.era.pelt) post_init_entity_util_avg(s, task);
  enqueue_task_fair(s, t.cpu, task, 0);
  note_arrival(s, t.cpu);
  if (s.sink) s.sink->sched_wakeup(s, task, true);
  check_preempt_curr(s, t.cpu, task, kWfFork);
}

// deactivate_task(DEQUEUE_SLEEP) from __schedule, or do_exit: only the
// running task blocks. After an exit nothing it still had to do is left (its
// load leaves at the switch away: context_switch).
void block_task(Sched& s, TaskId task, TaskState to) {
  Task& t = s.tasks[task];
  dequeue_task_fair(s, t.cpu, task, kDequeueSleep);
  t.state = to;
  t.gen++;
  t.deadline_passed = false;
  resched_curr(s, t.cpu);
  if (to == TaskState::exited) {
    t.deferred.clear();
    s.counters.exits++;
  } else {
    s.counters.sleeps++;
  }
}

// do_exit (kernel/exit.c v6.4): PF_EXITING (exit_signals), then with
// CONFIG_SCHED_AUTOGROUP sched_autogroup_exit_task while the task is still
// queued; v3.10's cgroup_exit moves it to the root cgroup (feature
// exit_moves_to_root); then the running task blocks for good (its load leaves at the
// switch away, task_dead_fair), while a sleeping task is simply gone. Its
// signal's autogroup reference goes last (free_signal_struct: the model reaps
// at once).
void do_exit(Sched& s, TaskId task) {
  Task& t = s.tasks[task];
  touch(s, t.cpu);
  if (t.state != TaskState::running && t.state != TaskState::sleeping) return;  // a waiting task exits when it runs
  t.exiting = true;
  if (s.features[Feature::sched_autogroup]) sched_autogroup_exit_task(s, task);
  if (t.state == TaskState::running && s.features[Feature::exit_moves_to_root]) {
    t.cgroup = kRootGroup;  // cgroup_exit: init_css_set, then cpu_cgroup_exit (v3.10)
    sched_move_task(s, task);
  }
  if (t.state == TaskState::running) {
    block_task(s, task, TaskState::exited);
  } else if (t.state == TaskState::sleeping) {
    task_dead_fair(s, task);
    t.state = TaskState::exited;
    t.gen++;
    t.deferred.clear();
    s.counters.exits++;
  }
  if (t.state == TaskState::exited) sched_autogroup_exit(s, task);
}

// set_next_task_idle (kernel/sched/idle.c v5.15): __update_idle_core.
void set_next_task_idle(Sched& s, CpuId cpu) {
  if (s.features[Feature::kernel_placement]) update_idle_core(s, cpu);
}

// ttwu_do_wakeup's idle-time update (kernel/sched/core.c v5.15): a wakeup
// ends the idle stretch newidle balance stamped; update_avg (avg += (x - avg) / 8).
void update_avg_idle(Sched& s, CpuId cpu) {
  Rq& rq = s.rq[cpu];
  if (!rq.idle_stamp) return;
  rq.avg_idle = update_avg<uint64_t>(rq.avg_idle, s.now - rq.idle_stamp);
  rq.avg_idle = std::min(rq.avg_idle, 2 * rq.max_idle_balance_cost);
  rq.wake_stamp = s.now / s.tun.tick_ns();
  rq.wake_avg_idle = rq.avg_idle / 2;
  rq.idle_stamp = 0;
}

// try_to_wake_up (kernel/sched/core.c): with kernel_placement, the era's
// select_task_rq on the waker's CPU (by default the one the task slept on,
// where its timer fires), after v4.4's task_waking_fair records the wakee
// (v5.15 records it in select_task_rq_fair); without it, on the task's CPU
// unless its affinity no longer allows it (then the model's placement). A move
// goes through task_waking_fair / migrate_task_rq_fair (vruntime normalised
// against the old cfs_rq); then enqueue, check preemption.
void wake_up_task(Sched& s, TaskId task, CpuId waker, bool sync) {
  Task& t = s.tasks[task];
  s.counters.wakeups++;
  t.gen++;
  unsigned flags = kEnqueueWakeup;
  CpuId dest = t.cpu;
  if (s.features[Feature::kernel_placement]) {
    const CpuId this_cpu = waker ? waker : t.cpu;
    if (s.era.placement_v4 && !s.era.placement_v3) record_wakee(s, this_cpu, task);
    dest = select_task_rq(s, task, this_cpu, WakeKind::ttwu, sync);
  } else if (!cpu_usable(s, t, t.cpu) && !(dest = select_cpu(s, t))) dest = select_fallback_rq(s, t.cpu, task);
  if (dest != t.cpu) {
    SchedEntity& e = s.se[t.se];
    e.vruntime -= s.cfs[e.cfs_rq].min_vruntime;
    if (s.sink) s.sink->sched_migrate_task(s, task, t.cpu, dest);
    migrate_task_rq_fair(s, task, false);
    set_task_rq(s, task, dest);
    flags |= kEnqueueMigrated;
    t.stats.migrations++;
    s.counters.migrations++;
    s.counters.wakeup_migrations++;
  }
  t.state = TaskState::runnable;
  enqueue_task_fair(s, t.cpu, task, flags);
  note_arrival(s, t.cpu);
  check_preempt_curr(s, t.cpu, task, 0);
  update_avg_idle(s, t.cpu);
  if (s.sink) s.sink->sched_wakeup(s, task, false);
}

// try_to_wake_up of a task still queued (kernel/sched/core.c: v3.10/v4.4
// ttwu_remote, v5.15 ttwu_runnable): ttwu_do_wakeup checks preemption only.
void ttwu_runnable(Sched& s, TaskId task) {
  s.counters.wakeups++;
  check_preempt_curr(s, s.tasks[task].cpu, task, 0);
  update_avg_idle(s, s.tasks[task].cpu);
}

// set_cpus_allowed_ptr (kernel/sched/core.c: v3.10 set_cpus_allowed_ptr; v4.4
// __set_cpus_allowed_ptr + do_set_cpus_allowed; v5.15
// __set_cpus_allowed_ptr_locked + __do_set_cpus_allowed + affine_move_task):
// an unchanged mask returns at once. From v4.4 on (affinity_change_pattern)
// a queued task goes through the change pattern with DEQUEUE_SAVE even when
// its CPU stays allowed, which restarts a running task's slice. A queued task
// whose CPU is no longer allowed then moves (the stopper for a running one);
// a sleeping task moves at its next wakeup.
void set_cpus_allowed_ptr(Sched& s, TaskId task, const CpuMask& allowed) {
  Task& t = s.tasks[task];
  if (cpumask_equal(allowed, t.allowed, s.nr_cpus())) return;
  touch(s, t.cpu);
  if (task_on_rq_queued(t) && s.features[Feature::affinity_change_pattern])
    change_queued_task(s, task, kDequeueSave, true, [&] { t.allowed = allowed; });
  t.allowed = allowed;
  if (!task_on_rq_queued(t) || cpu_allowed(t, t.cpu)) return;
  move_queued_task(s, task, select_cpu(s, t));  // the op refuses a mask with no active CPU
}

// sched_move_task (kernel/sched/core.c v3.10; v5.x order, see ModelEra; the
// group from sched_get_task_group, v6.4) with task_move_group_fair /
// task_change_group_fair's vruntime handling and, in v5.15, its PELT: detach
// from the old cfs_rq, attach to the new one; seed 001's early return (v6.4)
// under move_task_skip_same_group. DEQUEUE_MOVE: the dequeue updates
// min_vruntime in every era.
void sched_move_task(Sched& s, TaskId task) {
  Task& t = s.tasks[task];
  const GroupId group = sched_get_task_group(s, task);
  s.counters.move_task_calls++;
  if (group == t.group) {
    s.counters.move_task_same_group++;
    if (s.features[Feature::move_task_skip_same_group]) return void(s.counters.move_task_skips++);
  }
  if (s.sink) s.sink->group_move(s, task, group);
  const CpuId cpu = t.cpu;
  SchedEntity& e = s.se[t.se];
  const auto change_group = [&] {
    if (s.era.pelt) detach_entity_cfs_rq(s, t.se);
    if (s.era.pelt_v4) pelt4::detach_entity_load_avg(s, t.se);
    t.group = group;
    set_task_rq(s, task, cpu);
    if (s.era.pelt_v4) pelt4::attach_entity_load_avg_moved(s, t.se);
    if (s.era.pelt_v3 && t.state == TaskState::sleeping && e.sum_exec_runtime) pelt3::task_move_group_fair(s, task);
    if (!s.era.pelt) return;
    e.pelt.avg.last_update_time = 0;
    attach_entity_cfs_rq(s, t.se);
  };
  if (t.state == TaskState::sleeping) {
    const bool normalise = e.sum_exec_runtime != 0;  // !vruntime_normalized
    // detach_task_cfs_rq (v4.4+): no unlimited sleep bonus from before the move
    if (normalise && s.features[Feature::move_places_sleeper]) place_entity(s, e.cfs_rq, t.se, false);
    if (normalise) e.vruntime -= s.cfs[e.cfs_rq].min_vruntime;
    change_group();
    if (normalise) e.vruntime += s.cfs[e.cfs_rq].min_vruntime;
    return;
  }
  const bool running = s.rq[cpu].curr == task;
  s.counters.move_task_requeues++;
  change_queued_task(s, task, kDequeueSave | kDequeueMove, true, change_group);
  if (running && s.era.change_pattern_v5) resched_curr(s, cpu);
}

// __schedule (kernel/sched/core.c), the CFS part: pick, then switch if the
// pick differs from what ran.
void schedule(Sched& s, CpuId cpu) {
  Rq& r = s.rq[cpu];
  touch(s, cpu);
  r.need_resched = false;
  s.need_resched_cpus.reset(cpu.index());
  if (newidle_walking(s, cpu)) return;  // still in an earlier __schedule's newidle balance
  s.counters.schedules++;
  const TaskId prev = r.curr;
  TaskId next = pick_next_task_fair(s, cpu, prev);
  // pick_next_task_fair's idle path: newidle balance, and a new pick (prev is put) if it pulled
  if (!next && newidle_balance(s, cpu, prev != kIdle) > 0) next = pick_next_task_fair(s, cpu, kIdle);
  if (!next && s.era.pelt) update_idle_rq_clock_pelt(s, cpu);  // the rq is about to idle
  if (next != prev) context_switch(s, cpu, prev, next);
}

}  // namespace cfsv
