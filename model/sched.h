// The scheduler's state as kernel/sched keeps it: struct sched_entity and its
// timeline (include/linux/sched.h), struct cfs_rq, struct task_group and
// struct rq (kernel/sched/sched.h), the task (the parts of task_struct the
// model needs), and Sched, which holds them all with the sysctls, the
// sched_feats and the clock. The functions over it live where the kernel's
// do: fair.h (CFS), core.h (fork, wake, sleep, renice, affinity, group moves,
// schedule); sim.h runs them as a simulation.
#pragma once
#include <cstdint>
#include <memory_resource>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arith/calc_delta.h"
#include "arith/fair_math.h"
#include "balance_state.h"
#include "features.h"
#include "ids.h"
#include "pelt_state.h"
#include "scenario.h"
#include "topology.h"
#include "tunables.h"

namespace cfsv {

class SchedSink;

constexpr TaskId kIdle{-1};       // the idle task (swapper/N)
constexpr TaskId kStopper{-2};    // the migration stopper (migration/N)
constexpr GroupId kRootGroup{0};  // root_task_group
constexpr int kMaxDepth = 32;     // task groups nest at most this deep (sched_slice's chain buffer)

// Flags (kernel/sched/sched.h ENQUEUE_* / DEQUEUE_*, WF_FORK).
constexpr unsigned kEnqueueWakeup = 1, kEnqueueMigrated = 2;
constexpr unsigned kDequeueSleep = 1, kDequeueSave = 2, kDequeueMove = 4;
// The model's mark of task_on_rq_migrating(): deactivate_task without DEQUEUE_SLEEP (detach_task).
constexpr unsigned kDequeueMigrating = 8;
constexpr unsigned kWfFork = 1;

// Code-shape differences between the kernel eras that are not sched_feats:
// the features of the same names (model/features.h), read once into plain
// bools for the hot path. docs/model.md lists each with its evidence.
struct ModelEra {
  // v3.10: schedule() does put_prev_task() then a full top-down pick with
  // set_next_entity at every level. v3.15+ pick_next_task_fair only puts and
  // sets the levels where prev and next differ, and pick_next_entity weighs
  // the still-queued curr against the leftmost.
  bool simple_pick = false;
  // v3.10..v4.14: update_cfs_shares(cfs_rq) reweights the group entity that
  // owns the cfs_rq (after account_entity_enqueue, in entity_tick before
  // check_preempt_tick). v4.15+: update_cfs_group(se) reweights se itself.
  bool shares_on_cfs_rq = false;
  // v4.9+ update_min_vruntime ignores a curr that is no longer on_rq.
  bool min_vruntime_skips_dequeued_curr = true;
  // v4.6+ enqueue_entity renormalises a non-curr entity after update_curr.
  bool renorm_after_update_curr = true;
  // The v5.x "change pattern": set_user_nice does put_prev_task/set_next_task
  // around the change, and sched_move_task and do_set_cpus_allowed enqueue
  // before set_next_task (sched_move_task then reschedules). v3.10/v4.4:
  // set_user_nice leaves curr in place, the others set curr before enqueueing.
  bool change_pattern_v5 = true;
  // sched_proc_update_handler (sysctl, up to v5.12) recomputes sched_nr_latency
  // on a latency/min_granularity write; v5.13+ debugfs writes do not.
  bool sysctl_recomputes_nr_latency = false;
  // v5.15's load tracking runs (model/pelt.h: feature pelt_v5), and group
  // entities take their weight from it unless instant_shares asks for the
  // instantaneous load. Without pelt_v5 the shares are instantaneous.
  bool pelt = false;
  // v4.4's load tracking (model/pelt_eras.h: feature pelt_v4_4, when pelt_v5
  // is off); group entities take calc_cfs_shares unless instant_shares.
  bool pelt_v4 = false;
  // v3.10's runnable averages (model/pelt_eras.h: feature pelt_v3_10, when
  // neither of the above is on); group entities take its calc_cfs_shares.
  bool pelt_v3 = false;
  bool tracks_pelt = false;  // any era's load tracking runs
  // Era-1 load balancing (model/balance_v4.cpp: feature balance_v4_4):
  // v4.4's load_balance; cfs_tasks not reordered at pick (v4.16+ moves the
  // task picked to its head).
  bool balance_v4 = false;
  // v3.10's era 1 within it (feature balance_v3_10, with balance_v4_4):
  // capacity counted in CPUs, group_imb from the group's own loads, no
  // rd->overload, newidle without cost limits (model/balance_v3.cpp).
  bool balance_v3 = false;
  // Era-1 placement (model/select_rq_v4.cpp: feature placement_v4_4, with
  // kernel_placement), and v3.10's within it (placement_v3_10).
  bool placement_v4 = false;
  bool placement_v3 = false;
  bool pelt_shares = false;

  static ModelEra from(const FeatureSet& f);
};

// One node of a cfs_rq's tasks_timeline. The kernel orders its rbtree with
// entity_before(), (s64)(a->vruntime - b->vruntime) < 0, and puts an entity
// that ties with others to the right of them (FIFO among equals); `seq` (a
// per-simulation insertion counter) reproduces that tie-break.
//
// Why a signed-difference comparator is a valid std::set order: an entity's
// vruntime never changes while it is in the tree (only curr's does, and curr
// is not in the tree; reweight_entity does not touch vruntime before v6.6), and
// the entities of one cfs_rq always lie within a window far smaller than 2^63
// around min_vruntime. Inside such a window (s64)(a - b) < 0 is the same total
// order as comparing the offsets a - base, b - base for any base just below the
// window, so it is a strict weak order even as vruntimes wrap past 2^64. Keying
// on (vruntime - min_vruntime) instead would NOT be stable: min_vruntime moves
// while entities sit in the tree. The `timeline-order` invariant re-checks the
// order with entity_before.
struct TimelineKey {
  uint64_t vruntime;
  uint64_t seq;
  EntityId se;
};
struct EntityBefore {
  bool operator()(const TimelineKey& a, const TimelineKey& b) const {
    const int64_t d = static_cast<int64_t>(a.vruntime - b.vruntime);
    return d < 0 || (d == 0 && a.seq < b.seq);
  }
};
// std::set's leftmost (begin()) is cached by the container, like the kernel's
// rb_root_cached; nodes come from the simulator's pool, and a dequeue keeps
// its node for the next enqueue (Sched::timeline_insert): no allocation.
using Timeline = std::pmr::set<TimelineKey, EntityBefore>;

// struct sched_entity (include/linux/sched.h).
struct SchedEntity {
  LoadWeight<uint64_t> load{0, 0};  // load.weight in the era's resolution; inv_weight 0 = lazy
  uint64_t vruntime = 0;
  Nanos exec_start = 0;
  uint64_t sum_exec_runtime = 0;
  uint64_t prev_sum_exec_runtime = 0;
  bool on_rq = false;
  bool in_timeline = false;  // the model's own bookkeeping: `node` is valid
  CfsRqId cfs_rq;            // cfs_rq_of(se)
  CfsRqId my_q;              // group_cfs_rq(se): none for a task's entity
  EntityId parent;           // parent_entity(se): none at the top level
  TaskId task;               // task_of(se); none for a group entity
  int32_t depth = 0;         // se->depth
  Timeline::iterator node{};
  EntityPelt pelt;
  bool is_task() const { return !my_q; }  // entity_is_task
};

constexpr uint64_t kNoJiffy = UINT64_MAX;  // a jiffies stamp never set

// struct cfs_rq (kernel/sched/sched.h).
struct CfsRq {
  explicit CfsRq(std::pmr::memory_resource* pool) noexcept : timeline(pool) {}
  CfsRq(const CfsRq&) = delete;
  CfsRq& operator=(const CfsRq&) = delete;
  uint64_t load_weight = 0;   // load.weight; its inv_weight is always lazy (update_load_add clears it)
  uint32_t nr_running = 0;    // entities queued here, curr included
  uint32_t h_nr_running = 0;  // tasks queued in this cfs_rq's whole subtree
  uint32_t idle_h_nr_running = 0;  // of those, SCHED_IDLE ones (v5.4+ counts them; kept in every era)
  uint32_t idle_nr_running = 0;    // entities queued here that are se_is_idle (v5.16+; kept in every era)
  uint64_t min_vruntime = kInitMinVruntime;
  EntityId curr;              // the entity running here (not in the timeline)
  EntityId next, last, skip;  // buddies
  GroupId tg;                 // the task group this cfs_rq belongs to
  CpuId cpu;
  EntityId group_se;          // tg->se[cpu]; none for the root cfs_rq
  uint64_t load_down = 0;     // scale_load_down(load_weight) as counted in the group's total
  CfsRqPelt pelt;
  Timeline timeline;
  // The hierarchical load cache task_h_load reads (v4.4, v5.15:
  // update_cfs_rq_h_load; v3.10: update_h_load, per rq): h_load, and the
  // jiffy it was computed at. The kernel writes it from paths that only read
  // otherwise, hence mutable. kNoJiffy: never computed (the kernel's jiffies
  // start at INITIAL_JIFFIES, the model's at 0, so 0 cannot mean "never").
  mutable uint64_t h_load = 0;
  mutable uint64_t last_h_load_update = kNoJiffy;

  LoadWeight<uint64_t> load() const { return {load_weight, 0}; }
  // __pick_first_entity: the leftmost entity, none when the tree is empty.
  EntityId first() const { return timeline.empty() ? EntityId{} : timeline.begin()->se; }
};

// struct task_group (kernel/sched/sched.h): one cfs_rq and one group entity
// per CPU; the root group has no entities.
struct TaskGroup {
  std::string path;               // "/" for the root, "/g0", "/a/b"
  GroupId parent;                 // none for the root
  uint64_t shares = 0;            // tg->shares, in the era's resolution (scale_load(cpu.shares))
  IdVec<CpuId, CfsRqId> cfs_rq;   // tg->cfs_rq[cpu]
  IdVec<CpuId, EntityId> se;      // tg->se[cpu]; empty for the root
  uint64_t load_down_sum = 0;     // sum over CPUs of scale_load_down(cfs_rq load): the instantaneous tg load
  int32_t depth = 0;              // 0 for the root
  uint64_t load_avg = 0;          // tg->load_avg: the sum of its cfs_rqs' tg_load_avg_contrib
  uint64_t load_avg_updates = 0;  // times update_tg_load_avg changed it
  uint64_t runnable_avg = 0;      // v3.10: tg->runnable_avg, the sum of its cfs_rqs' tg_runnable_contrib
  // Group lifecycle (model/cgroup.h): destroyed (its cfs_rqs and entities stay
  // in the tables, unreferenced); an autogroup's tg (autogroup_create), and
  // the live tasks whose signal->autogroup it is (its kref, the model's count).
  bool dead = false;
  bool autogroup = false;
  uint32_t autogroup_refs = 0;
  bool idle = false;  // tg->idle: cpu.idle (v5.15+), and so each of its cfs_rqs' cfs_rq->idle
};

enum class TaskState : uint8_t { running, runnable, sleeping, exited };
std::string_view to_string(TaskState s);

struct TaskStats {
  Nanos wait_ns = 0;        // time runnable but not running
  uint64_t switches = 0;    // times switched onto a CPU
  uint64_t migrations = 0;  // set_task_cpu to a different CPU
};

// The children a churning task forked (TaskSpec::churn), the model's own
// statistics: how many were forked and have exited, and the exited ones'
// figures, folded in as each is reaped (its slot freed for reuse).
struct ChurnChildren {
  uint64_t forked = 0, exited = 0;
  Nanos cpu_ns = 0, wait_ns = 0;
  uint64_t switches = 0, migrations = 0;
};

// A task: the parts of task_struct the model needs, and its behaviour.
// A task_struct's waker/wakee record (include/linux/sched.h v4.4, v5.15):
// wakee_flips, the jiffy they last decayed, and last_wakee (a task id; a
// reused slot matches as a freed and reallocated task_struct would).
// record_wakee and wake_wide (model/select_rq.h) keep and read it.
struct WakeeFlips {
  uint32_t flips = 0;
  uint64_t decay_ts = 0;  // jiffies
  TaskId last;
};

struct Task {
  std::string name;
  int32_t pid = 0;  // 1000 + index, for perf-style output
  TaskSpec spec;
  int nice = 0;
  Policy policy = Policy::normal;  // p->policy
  // v5.15's set_load_weight gave it a new weight without reweight_task (a
  // `policy` op to SCHED_IDLE, before v6.11's reweight_idle_task): its PELT
  // load keeps the old weight's scale, so pelt-load-avg-bound skips it.
  bool load_unscaled = false;
  CpuMask allowed;  // empty = every CPU
  GroupId group = kRootGroup;      // p->sched_task_group
  GroupId cgroup = kRootGroup;     // its cpu cgroup (task_css): what `move` writes
  GroupId autogroup = kRootGroup;  // p->signal->autogroup's tg; the root: autogroup_default
  bool exiting = false;            // PF_EXITING (do_exit)
  bool session_leader = false;     // it called setsid (a second one fails: EPERM)
  CpuId cpu{0};
  EntityId se;
  TaskState state = TaskState::sleeping;
  uint32_t gen = 0;               // bumps on every sleep/wake: stale timers are ignored
  uint64_t burst_start_exec = 0;  // sum_exec_runtime when the current run= burst began
  Nanos deadline = 0;             // runtime=: wall-clock end of the current busy-wait
  bool deadline_passed = false;   // runtime=: the deadline passed while it waited
  Nanos wait_start = 0;
  bool waiting = false;
  // A task acts only while it runs: the sleep and exit ops that named it, and
  // the spawns it is to fork, while it was not running. They take effect when
  // it next runs (sim.cpp; docs/model.md).
  std::vector<Op> deferred;
  TaskStats stats;
  WakeeFlips wakee;       // copied from the parent at fork (dup_task_struct)
  CpuId recent_used_cpu;  // p->recent_used_cpu (v5.15 select_idle_sibling); set at wake_up_new_task
  TaskId lb_prev, lb_next;  // se.group_node: its neighbours on its rq's cfs_tasks (model/cfs_tasks.h)
  TaskId churn_parent;      // a churn child: the task that forked it; none otherwise
  uint32_t next_wakee = 0;  // wakes=: the index of the task it wakes next
  bool wake_pending = false;  // sleep=wait: woken while awake; its next wait returns at once
  bool waits_first = false;   // sleep=wait: it waits from the start (its first burst is empty)
  ChurnChildren children;   // a churning task: its children's figures
};

// A churn child that has exited and been reaped: its slot is free for the
// next churn child (model/sim.h), and it is no longer reported on its own.
inline bool churn_slot_free(const Task& t) { return t.churn_parent && t.state == TaskState::exited; }

// task_on_rq_queued (kernel/sched/sched.h): running or waiting to run.
inline bool task_on_rq_queued(const Task& t) { return t.state == TaskState::running || t.state == TaskState::runnable; }
// cpumask_test_cpu(cpu, p->cpus_ptr): the task may run on cpu.
inline bool cpu_allowed(const Task& t, CpuId cpu) { return t.allowed.none() || t.allowed.test(cpu.index()); }

// struct rq (kernel/sched/sched.h), the parts the CFS model needs.
struct Rq {
  CpuId cpu;
  CfsRqId cfs;            // the root cfs_rq
  CfsRqId leaf_head, leaf_tail;  // v3.10: rq->leaf_cfs_rq_list in its order (CfsRqPelt::V3's links)
  TaskId curr = kIdle;    // the running task; kIdle / kStopper otherwise
  bool need_resched = false;
  bool tick_armed = false;
  uint32_t stop_gen = 0;  // invalidates the pending end-of-burst event
  // With load_balance (v5.15): rq->has_blocked_load (set entering nohz idle,
  // then whether update_blocked_averages left averages to decay) and
  // rq->last_blocked_load_update_tick (jiffies).
  bool has_blocked_load = false;
  uint64_t last_blocked_load_update_tick = 0;
  uint64_t blocked_walks = 0;  // v5.15's update_blocked_averages walks so far (CfsRqPelt::child_on_list_walk)
  Nanos since = 0;        // when curr started
  Nanos idle_ns = 0, busy_ns = 0;      // idle_ns counts offline time too
  Nanos offline_ns = 0, offline_since = 0;  // hotplug: time offline before the last online, the last offline
  // The idle-time estimate (v5.15 struct rq): avg_idle, the running average of
  // the idle stretches a wakeup ends (ttwu_do_wakeup), capped at twice
  // max_idle_balance_cost; idle_stamp, when newidle balance found the CPU idle
  // (0: not idle since). Newidle balance reads avg_idle; select_idle_cpu's
  // SIS_PROP reads wake_avg_idle, halved every jiffy after wake_stamp.
  Nanos avg_idle = 0, idle_stamp = 0, max_idle_balance_cost = 0;
  Nanos wake_avg_idle = 0;
  uint64_t wake_stamp = 0;  // jiffies
  // Placement (model/select_rq.h): sd_llc->avg_scan_cost of this CPU's LLC
  // domain; sd_llc_shared->has_idle_cores, kept at the LLC's first CPU.
  Nanos avg_scan_cost = 0;
  bool has_idle_cores = false;
  // The idle and stopper threads' waker records, for a wakeup that runs on
  // this CPU while neither a task runs (model/select_rq.h current_wakee).
  WakeeFlips idle_wakee, stopper_wakee;
  uint64_t forks_placed = 0;  // the model's own: new tasks wake_up_new_task put here
  TaskId cfs_tasks_head, cfs_tasks_tail;  // rq->cfs_tasks (model/cfs_tasks.h)
  uint64_t next_balance = 0;  // rq->next_balance (jiffies): when rebalance_domains is next due (model/balance.h)
  uint64_t h_load_throttle = kNoJiffy;  // v3.10: the jiffy update_h_load last ran for this rq
  // v5.15's PELT clock (model/pelt.h): rq->clock_pelt as of clock_pelt_at,
  // and rq->lost_idle_time.
  uint64_t clock_pelt = 0, lost_idle_time = 0;
  Nanos clock_pelt_at = 0;
  // rq->misfit_task_load (v5.15, asymmetric capacities): the h_load of the
  // running task when it does not fit the CPU (update_misfit_status), else 0.
  uint64_t misfit_task_load = 0;
};

struct Counters {
  uint64_t events = 0, ops = 0, ops_rejected = 0;
  uint64_t ticks = 0, schedules = 0, context_switches = 0;
  uint64_t resched_tick = 0, resched_wakeup = 0;
  uint64_t wakeups = 0, sleeps = 0, forks = 0, exits = 0, migrations = 0;
  uint64_t wakeup_migrations = 0;  // wakeups that moved the task to another CPU
  // Placement at wakeups (model/select_rq.h): WF_SYNC wakeups (nr_wakeups_sync);
  // wake_affine calls (this_cpu != prev_cpu: nr_wakeups_affine_attempts) and
  // those that chose the waking CPU; wakeups wake_wide made not affine.
  uint64_t wakeups_sync = 0, wake_affine_calls = 0, wake_affine_pulls = 0, wake_wide = 0;
  // Load balancing's migrations (model/balance.h), counted in migrations too:
  // periodic (rebalance_domains: busy CPUs and nohz idle balance), newidle,
  // and active (the stopper pushing a running task). fork_placements: new
  // tasks placed away from the CPU they were forked on (__set_task_cpu, not a
  // migration in the kernel's counts).
  uint64_t periodic_migrations = 0, newidle_migrations = 0, active_migrations = 0, fork_placements_away = 0;
  // Newidle balance (model/balance.h): walks that balanced a domain, the
  // domains balanced, tasks that arrived on a CPU during its walk, and the
  // time from each walk's first arrival to the walk's end (sum and max).
  uint64_t newidle_walks = 0, newidle_domains = 0, newidle_arrivals = 0;
  Nanos newidle_arrival_wait_ns = 0, newidle_arrival_wait_max_ns = 0;
  uint64_t enqueues = 0, dequeues = 0, reweights = 0;
  // update_tg_load_avg: the updates of tg->load_avg of every group but the
  // root, of the root, and the root's calls skipped (root_tg_load_avg_skip).
  uint64_t tg_load_avg_updates = 0, root_tg_load_avg_updates = 0, root_tg_load_avg_skips = 0;
  // sched_move_task (model/cgroup.h): calls; those that dequeued and enqueued
  // a queued task; those whose group was already the task's (seed 001's case);
  // those that returned early for it (move_task_skip_same_group).
  uint64_t move_task_calls = 0, move_task_requeues = 0, move_task_same_group = 0, move_task_skips = 0;
  // CPU hotplug (model/hotplug.h): the tasks moved off a CPU going offline
  // (counted in migrations too), and the tasks whose affinity the cpuset
  // fallback widened ("no longer affine to cpuN").
  uint64_t hotplug_migrations = 0, affinity_broken = 0;
};

// Everything the kernel functions read and write: the per-CPU runqueues, the
// task groups, the tasks and their entities, the sysctls and sched_feats in
// force, and the clock.
struct Sched {
  FeatureSet features;
  ModelEra era;
  LoadResolution res;
  Tunables tun;
  Nanos now = 0;              // rq_clock, the same on every CPU
  CpuMask need_resched_cpus;     // the runqueues whose need_resched is set
  CpuMask touched_cpus;          // the runqueues changed since the last invariant check (touch())
  CpuMask idle_curr_cpus;        // the runqueues whose curr is the idle task (set_rq_curr)
  CpuMask active;                // cpu_active_mask (and cpu_online_mask): every CPU but those hotplug took offline
  uint64_t seq = 0;           // timeline insertion counter (entity_before's tie-break)
  Nanos next_blocked = 0;     // when the blocked averages are next updated (model/pelt.h)
  SchedSink* sink = nullptr;  // told of every event (model/sink.h); none: nothing is told
  // The sched domains and groups of every CPU (model/topology.h), built at
  // boot for the scenario's topology in the profile's era. clear() keeps it:
  // Sim::reset builds it only for a machine or era it has not kept (sim.h).
  SchedTopology topo;
  BalanceState lb;  // load balancing's running state (model/balance.h), set by init_balance

  std::pmr::unsynchronized_pool_resource pool;  // timeline nodes
  IdVec<EntityId, SchedEntity> se;
  IdVec<CfsRqId, CfsRq, StableVec<CfsRq>> cfs;  // stable: timeline iterators held by entities stay valid
  IdVec<GroupId, TaskGroup> tg;
  IdVec<TaskId, Task> tasks;
  IdVec<CpuId, Rq> rq;
  Counters counters;

  unsigned nr_cpus() const { return static_cast<unsigned>(rq.size()); }
  // Back to a new Sched's state (every field above but topo), keeping the
  // tables' storage and the pool's memory for the next simulation, and the
  // task groups' per-CPU arrays for the next ones (new_task_group).
  void clear() {
    features = {}, era = {}, res = {}, tun = {};
    now = 0, need_resched_cpus = {}, touched_cpus = {}, idle_curr_cpus = {}, active = {}, seq = 0, next_blocked = 0;
    sink = nullptr;
    lb.clear();
    for (TaskGroup& g : tg) spare_tg.push_back(std::move(g));
    se.clear(), cfs.clear(), tg.clear(), tasks.clear(), rq.clear();
    spare_nodes.clear();
    counters = {};
  }
  // __enqueue_entity's and __dequeue_entity's rb_add / rb_erase: a node a
  // dequeue left is reused by the next enqueue (no allocation).
  Timeline::iterator timeline_insert(Timeline& tl, const TimelineKey& key) {
    if (spare_nodes.empty()) return tl.insert(key).first;
    spare_nodes.back().value() = key;
    const Timeline::iterator it = tl.insert(std::move(spare_nodes.back())).position;
    spare_nodes.pop_back();
    return it;
  }
  void timeline_erase(Timeline& tl, Timeline::iterator it) { spare_nodes.push_back(tl.extract(it)); }
  // A TaskGroup{}, in the storage of one a clear() left when there is one.
  TaskGroup new_task_group() {
    if (spare_tg.empty()) return {};
    TaskGroup g = std::move(spare_tg.back());
    spare_tg.pop_back();
    auto cfs_rq = std::move(g.cfs_rq);
    auto ses = std::move(g.se);
    g = TaskGroup{};
    g.cfs_rq = std::move(cfs_rq), g.cfs_rq.clear();
    g.se = std::move(ses), g.se.clear();
    return g;
  }

 private:
  std::vector<TaskGroup> spare_tg;  // the groups of the last simulation, for their storage
  std::vector<Timeline::node_type> spare_nodes;  // dequeued entities' timeline nodes (before pool goes)
};

// resched_curr (kernel/sched/core.c): the CPU reschedules after this step.
inline void resched_curr(Sched& s, CpuId cpu) {
  s.rq[cpu].need_resched = true;
  s.need_resched_cpus[cpu.index()] = true;
}
// The model's own bookkeeping for the invariant checker, which can check only
// what changed: the kernel functions that change a CPU's runqueue (its
// cfs_rqs, their entities, its tasks) say so, as the kernel takes that rq's
// lock (a task's CPU: task_rq_lock; sched_create_group, shares: every CPU).
// (bitset's operator[]: set() would check the index and is not inlined.)
inline void touch(Sched& s, CpuId cpu) { s.touched_cpus[cpu.index()] = true; }
inline void touch_task(Sched& s, TaskId task) { touch(s, s.tasks[task].cpu); }
inline void touch_all(Sched& s) { s.touched_cpus.set(); }
// cpu_active(cpu): hotplug has not taken it offline.
inline bool cpu_active(const Sched& s, CpuId cpu) { return s.active[cpu.index()]; }
// is_cpu_allowed (kernel/sched/core.c v5.15; v4.4's select_task_rq tests
// cpu_online too): the task may run on cpu, and cpu is active.
inline bool cpu_usable(const Sched& s, const Task& t, CpuId cpu) { return cpu_allowed(t, cpu) && cpu_active(s, cpu); }
// cfs_rq_is_idle (kernel/sched/fair.c v5.15+): a cfs_rq of a group whose
// cpu.idle is set (never the root's).
inline bool cfs_rq_is_idle(const Sched& s, CfsRqId cq) { return s.tg[s.cfs[cq].tg].idle; }
// se_is_idle (kernel/sched/fair.c v5.15+): a SCHED_IDLE task's entity, or an idle group's.
inline bool se_is_idle(const Sched& s, EntityId sei) {
  const SchedEntity& e = s.se[sei];
  return e.is_task() ? s.tasks[e.task].policy == Policy::idle : cfs_rq_is_idle(s, e.my_q);
}
// sched_idle_cfs_rq (kernel/sched/fair.c v5.16+): entities queued, all se_is_idle.
inline bool sched_idle_cfs_rq(const Sched& s, CfsRqId cq) {
  return s.cfs[cq].nr_running && s.cfs[cq].nr_running == s.cfs[cq].idle_nr_running;
}
// jiffies at the simulated clock (the model boots at jiffy 0).
inline uint64_t jiffies(const Sched& s) { return s.now / s.tun.tick_ns(); }
// The PELT clocks start here, 4096 PELT periods (4.3 s), so that they are
// never 0 (last_update_time 0 means "not attached") without moving the
// period boundaries, and so that v4.4's updates of a sum from a
// last_update_time of 0 decay it away (past 2016 periods) as a kernel's
// clock, seconds after boot, does.
constexpr uint64_t kPeltClockStart = uint64_t{4096} * 1024 * 1024;

// update_rq_clock_pelt (kernel/sched/pelt.h v5.15), up to now: while a task
// runs, clock_pelt advances at the CPU's capacity (cap_scale; the frequency at
// its maximum), so at full capacity it is clock_task; while the idle task
// runs it is clock_task. The model brings it up to date before each read and
// each change of rq->curr (the kernel: at every update_rq_clock), so the
// rounding at a lower capacity, under 1 ns an update, may differ.
inline void update_rq_clock_pelt(Sched& s, CpuId cpu) {
  Rq& r = s.rq[cpu];
  if (r.curr != kIdle && s.topo.cpu_capacity[cpu] < kSchedCapacityScale)
    r.clock_pelt += pelt_v4_4::cap_scale<uint64_t>(s.now - r.clock_pelt_at, s.topo.cpu_capacity[cpu]);
  else
    r.clock_pelt = s.now + kPeltClockStart;  // idle, or at full capacity: clock_task
  r.clock_pelt_at = s.now;
}

// rq->curr = task, with the mask of idle runqueues kept (nohz_idle_cpus).
inline void set_rq_curr(Sched& s, CpuId cpu, TaskId task) {
  update_rq_clock_pelt(s, cpu);
  s.rq[cpu].curr = task;
  s.idle_curr_cpus[cpu.index()] = task == kIdle;
}

// check_preempt_curr (kernel/sched/core.c; core.cpp): whether a task just
// queued on cpu preempts what runs there.
void check_preempt_curr(Sched& s, CpuId cpu, TaskId task, unsigned wake_flags);

}  // namespace cfsv
