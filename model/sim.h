// The runnable CFS model: tasks, task groups and per-CPU runqueues over an
// event-driven clock in integer nanoseconds (docs/model.md).
//
// Every state change is an Op (scenario.h) or a simulator event (tick, the end
// of a task's CPU-time burst, a wall-clock deadline, a timed wakeup). The
// shared invariant checker (invariants.h) runs after each one when enabled.
// The member functions named after kernel functions mirror them; each says
// which kernel function, file and version it follows.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cfs_rq.h"
#include "features.h"
#include "invariants.h"
#include "scenario.h"
#include "sched_entity.h"
#include "task_group.h"
#include "tunables.h"

namespace cfsv {

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
  // around the change, and sched_move_task enqueues before set_next_task and
  // then reschedules. v3.10/v4.4: set_user_nice leaves curr in place, and
  // sched_move_task sets curr before enqueueing.
  bool change_pattern_v5 = true;
  // sched_proc_update_handler (sysctl, up to v5.12) recomputes sched_nr_latency
  // on a latency/min_granularity write; v5.13+ debugfs writes do not.
  bool sysctl_recomputes_nr_latency = false;

  static ModelEra from(const FeatureSet& f);
};

enum class TaskState : uint8_t { running, runnable, sleeping, exited };
std::string_view to_string(TaskState s);

struct TaskStats {
  Nanos wait_ns = 0;        // time runnable but not running
  uint64_t switches = 0;    // times switched onto a CPU
  uint64_t migrations = 0;  // set_task_cpu to a different CPU
};

struct Task {
  std::string name;
  int32_t pid = 0;  // 1000 + index, for perf-style output
  TaskSpec spec;
  int nice = 0;
  CpuMask allowed;  // empty = every CPU
  int32_t group = 0;
  int32_t cpu = 0;
  int32_t se = -1;
  TaskState state = TaskState::sleeping;
  uint32_t gen = 0;             // bumps on every sleep/wake: stale timers are ignored
  uint64_t burst_start_exec = 0;  // sum_exec_runtime when the current run= burst began
  Nanos deadline = 0;           // runtime=: wall-clock end of the current busy-wait
  bool deadline_passed = false; // runtime=: the deadline passed while it waited
  Nanos wait_start = 0;
  bool waiting = false;
  TaskStats stats;
};

// struct rq, the parts the CFS model needs.
struct Rq {
  int32_t cpu = 0;
  int32_t cfs = -1;       // the root cfs_rq
  int32_t curr = -1;      // running task; kIdle / kStopper otherwise
  bool need_resched = false;
  bool tick_armed = false;
  uint32_t stop_gen = 0;  // invalidates the pending end-of-burst event
  Nanos since = 0;        // when curr started
  Nanos idle_ns = 0, busy_ns = 0;
};
constexpr int32_t kIdle = -1;     // the idle task (swapper/N)
constexpr int32_t kStopper = -2;  // the migration stopper (migration/N)

struct Stretch {  // a task ran on cpu during [start, end)
  int32_t task;
  int32_t cpu;
  Nanos start, end;
};
struct SwitchEvent {  // sched:sched_switch
  Nanos t;
  int32_t cpu;
  int32_t prev, next;  // task index, kIdle or kStopper
  TaskState prev_state;
};
struct Trace {
  std::vector<Stretch> stretches;
  std::vector<SwitchEvent> switches;
};

struct Counters {
  uint64_t events = 0, ops = 0, ops_rejected = 0;
  uint64_t ticks = 0, schedules = 0, context_switches = 0;
  uint64_t resched_tick = 0, resched_wakeup = 0;
  uint64_t wakeups = 0, sleeps = 0, forks = 0, exits = 0, migrations = 0;
  uint64_t enqueues = 0, dequeues = 0, reweights = 0;
};

struct SimOptions {
  bool check_invariants = true;
  bool record_trace = true;
  uint64_t seed = 0;  // reserved: the model makes no random choices yet
  std::size_t max_violations = 100;
};

enum class ApplyResult { applied, rejected };

class Sim {
 public:
  explicit Sim(const Scenario& sc, SimOptions opt = {});
  ~Sim();
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;

  // Applies one op at now(); rejected (counted, state unchanged) when it names
  // an unknown task or group or is otherwise impossible; last_error() says why.
  ApplyResult apply(const Op& op);
  // Processes every event at or before t, then sets now() = t.
  void run_until(Nanos t);
  // The whole scenario: its tasks at time 0, its timed ops, then `run`.
  void run();

  Nanos now() const { return now_; }
  const std::string& last_error() const { return last_error_; }

  // Read access for tests, the checker and the outputs.
  const Scenario& scenario() const { return sc_; }
  const FeatureSet& features() const { return features_; }
  const Tunables& tunables() const { return tun_; }
  const ModelEra& era() const { return era_; }
  LoadResolution resolution() const { return res_; }
  unsigned nr_cpus() const { return static_cast<unsigned>(rqs_.size()); }
  std::span<const Task> tasks() const { return tasks_; }
  std::span<const SchedEntity> entities() const { return se_; }
  // A deque: cfs_rqs never move, so timeline iterators held by entities stay valid.
  const std::deque<CfsRq>& cfs_rqs() const { return cfs_; }
  std::span<const TaskGroup> groups() const { return tgs_; }
  std::span<const Rq> rqs() const { return rqs_; }
  const Trace& trace() const { return trace_; }
  const Counters& counters() const { return counters_; }
  int32_t task_index(std::string_view name) const;
  int32_t group_index(std::string_view path) const;
  // CPU time of a task (its sum_exec_runtime, brought up to now()).
  Nanos cpu_time(int32_t task) const;
  // Total time the task was runnable but not running, up to now().
  Nanos wait_ns(int32_t task) const;
  // The recorded stretches plus the ones still running at now().
  std::vector<Stretch> stretches_until_now() const;
  // Idle and busy ns of a CPU up to now().
  Nanos idle_ns(int32_t cpu) const;
  Nanos busy_ns(int32_t cpu) const;
  const InvariantChecker* checker() const { return checker_.get(); }
  // Runs the checker now (whatever check_invariants says); false on a violation.
  bool check_now(std::string_view context = "check");

  // For tests that deliberately break the model (the checker must notice).
  CfsRq& mutable_cfs_rq(int32_t i) { return cfs_[i]; }
  SchedEntity& mutable_entity(int32_t i) { return se_[i]; }
  // The sched_slice the tick would use for entity se now (for tests/tools).
  uint64_t sched_slice_of(int32_t se) const;

 private:
  // Flags (kernel/sched/sched.h ENQUEUE_* / DEQUEUE_*, WF_FORK).
  static constexpr unsigned kEnqueueWakeup = 1, kEnqueueMigrated = 2;
  static constexpr unsigned kDequeueSleep = 1;
  static constexpr unsigned kWfFork = 1;

  enum class EvKind : uint8_t { stop = 0, deadline = 1, wake = 2, tick = 3 };
  struct Event {
    Nanos t;
    EvKind kind;
    int32_t id;
    uint32_t gen;
    bool operator>(const Event& o) const {
      if (t != o.t) return t > o.t;
      if (kind != o.kind) return kind > o.kind;
      if (id != o.id) return id > o.id;
      return gen > o.gen;
    }
  };

  // --- set-up ---
  void init_tunables();
  void apply_setting(const Setting& s, uint64_t& factor, Tunables& normalized);
  int32_t create_group(const GroupSpec& g);
  int32_t new_cfs_rq(int32_t tg, int32_t cpu);

  // --- kernel functions (sim.cpp says which version each follows) ---
  void update_curr(int32_t cfs_rq);
  void update_min_vruntime(int32_t cfs_rq);
  void enqueue_entity_tree(int32_t cfs_rq, int32_t se);  // __enqueue_entity
  void dequeue_entity_tree(int32_t cfs_rq, int32_t se);  // __dequeue_entity
  void account_entity_enqueue(int32_t cfs_rq, int32_t se);
  void account_entity_dequeue(int32_t cfs_rq, int32_t se);
  void cfs_load_changed(int32_t cfs_rq);
  uint64_t sched_slice(int32_t cfs_rq, int32_t se) const;
  uint64_t sched_vslice(int32_t cfs_rq, int32_t se) const;
  void place_entity(int32_t cfs_rq, int32_t se, bool initial);
  void enqueue_entity(int32_t cfs_rq, int32_t se, unsigned flags);
  void dequeue_entity(int32_t cfs_rq, int32_t se, unsigned flags);
  void enqueue_task_fair(int32_t cpu, int32_t task, unsigned flags);
  void dequeue_task_fair(int32_t cpu, int32_t task, unsigned flags);
  void reweight_entity(int32_t cfs_rq, int32_t se, uint64_t weight);
  void update_cfs_group(int32_t se);
  void update_cfs_shares(int32_t cfs_rq);
  void shares_after_enqueue_or_tick(int32_t cfs_rq, int32_t se);
  void check_preempt_tick(int32_t cfs_rq, int32_t curr);
  void entity_tick(int32_t cfs_rq, int32_t curr);
  void task_tick_fair(int32_t cpu);
  int wakeup_preempt_entity(int32_t curr, int32_t se) const;
  void check_preempt_wakeup(int32_t cpu, int32_t task, unsigned wake_flags);
  void check_preempt_curr(int32_t cpu, int32_t task, unsigned wake_flags);
  void set_next_buddy(int32_t se);
  void set_last_buddy(int32_t se);
  void clear_buddies(int32_t cfs_rq, int32_t se);
  int32_t pick_next_entity(int32_t cfs_rq, int32_t curr);
  void put_prev_entity(int32_t cfs_rq, int32_t prev);
  void set_next_entity(int32_t cfs_rq, int32_t se);
  void put_prev_task_fair(int32_t task);
  void set_next_task_fair(int32_t task);
  int32_t pick_next_task_fair(int32_t cpu, int32_t prev);
  void schedule(int32_t cpu);
  void task_fork_fair(int32_t task);
  void set_task_rq(int32_t task, int32_t cpu);
  void resched_curr(int32_t cpu) { rqs_[cpu].need_resched = true; }

  // --- simulation ---
  int32_t select_cpu(const Task& t) const;
  bool cpu_allowed(const Task& t, int32_t cpu) const;
  void context_switch(int32_t cpu, int32_t prev, int32_t next);
  void arm_stop(int32_t cpu);
  void arm_tick(int32_t cpu);
  void begin_burst(int32_t task);
  void end_burst(int32_t task);  // the behaviour's run ended: sleep or exit
  void block_task(int32_t task, TaskState to);
  void wake_up_task(int32_t task);
  void move_queued_task(int32_t task, int32_t dest);
  void wait_begin(int32_t task);
  void wait_end(int32_t task);
  bool handle(const Event& e);  // false: a stale event, ignored
  void resched_pending();
  void after_step(std::string_view kind, int32_t id, const Op* op);
  void push(Event e) { events_.push(e); }

  ApplyResult op_spawn(const TaskSpec& spec);
  ApplyResult op_exit(const std::string& name);
  ApplyResult op_sleep(const std::string& name);
  ApplyResult op_wake(const std::string& name);
  ApplyResult op_set_nice(const std::string& name, int nice);
  ApplyResult op_set_affinity(const std::string& name, const CpuMask& cpus);
  ApplyResult op_create_group(const GroupSpec& g);
  ApplyResult op_set_shares(const std::string& group, uint64_t shares);
  ApplyResult op_move_task(const std::string& name, const std::string& group);
  ApplyResult reject(std::string why);

  Scenario sc_;
  SimOptions opt_;
  FeatureSet features_;
  Tunables tun_;
  ModelEra era_;
  LoadResolution res_;
  Nanos now_ = 0;
  uint64_t seq_ = 0;

  std::pmr::unsynchronized_pool_resource pool_;
  std::vector<SchedEntity> se_;
  std::deque<CfsRq> cfs_;
  std::vector<TaskGroup> tgs_;
  std::vector<Task> tasks_;
  std::vector<Rq> rqs_;
  std::map<std::string, int32_t, std::less<>> task_by_name_;
  std::map<std::string, int32_t, std::less<>> group_by_path_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  Trace trace_;
  Counters counters_;
  std::string last_error_;
  std::unique_ptr<InvariantChecker> checker_;
};

// A one-line description of an op, for violation reports ("spawn t0", ...).
std::string describe(const Op& op);

}  // namespace cfsv
