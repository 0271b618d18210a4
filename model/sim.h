// The runnable CFS model: the scheduler state (sched.h) and its kernel
// functions (fair.h, core.h) driven over an event-driven clock in integer
// nanoseconds (docs/model.md).
//
// Every state change is an Op (scenario.h) or a simulator event: a tick, the
// end of a task's CPU-time burst, a wall-clock deadline, a timed wakeup. The
// invariant checker (invariants.h) runs after each step (an event, an op, or
// the whole set-up of the scenario's time-0 groups and tasks), or after every
// Nth (SimOptions::check_every). A sink (model/sink.h) is told of every event
// as it happens. run() stops early at an event limit or when asked to
// (SimOptions::max_events, stop), and reports progress as it goes.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory_resource>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "event_queue.h"
#include "invariants.h"
#include "recorder.h"
#include "scenario.h"
#include "scenario_text.h"  // describe(Op)
#include "sched.h"
#include "sink.h"

namespace cfsv {

// How often run() calls SimOptions::progress: every 16 events, so that a
// progress line still moves when each event is followed by a costly check.
constexpr uint64_t kProgressEvery = 16;

struct SimOptions {
  // The invariant checker runs after every Nth step (an op or an event): 1
  // after each, 0 never. With N > 1, run() also checks once at its end when
  // its last step was not checked.
  uint64_t check_every = 1;
  // Every Nth check looks at everything; the others only at the CPUs the
  // steps since the last check touched (Sched::touched_cpus). 1: every check
  // looks at everything. The end of a run always does.
  uint64_t full_check_every = 1;
  // Keep every stretch and switch in memory (trace(); memory grows with
  // simulated time). Off: trace() throws.
  bool record_trace = false;
  std::size_t max_violations = 100;
  SchedSink* sink = nullptr;  // told of every event, from set-up on; not owned
  std::size_t max_rejections = 100;  // rejected ops kept for the report (all are counted)
  // run() stops once this many events were handled (0: no limit).
  uint64_t max_events = 0;
  // run() stops at the next event once *stop is true (e.g. set by SIGINT).
  const std::atomic<bool>* stop = nullptr;
  // Called every kProgressEvery events (and once at the end of run()) with the Sim.
  std::function<void(const class Sim&)> progress = nullptr;
  // Reuse a reaped churn child's task slot for the next child (docs/model.md,
  // "Fork/exit churn"): memory bounded by the children alive at once. Off, or
  // with record_trace, every child keeps its slot, so that a TaskId kept
  // past the step (a trace, a log compared later) names one task.
  bool reuse_task_slots = true;
};

enum class ApplyResult { applied, rejected };

// How run() ended: at the end of the scenario, or early.
enum class RunEnd { finished, interrupted, event_limit };
std::string_view to_string(RunEnd e);

// An op the model refused (the state did not change), for the report.
struct RejectedOp {
  Nanos t = 0;
  SourceLoc loc;       // its line in the scenario file; line 0 when it has none
  std::string op;      // describe(op)
  std::string reason;  // "task 'a' has exited"
};

class Sim {
 public:
  explicit Sim(const Scenario& sc, SimOptions opt = {});
  ~Sim();
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;
  // Starts over on another scenario with the same options: afterwards the Sim
  // is what Sim(sc, options) would be, but keeps its containers' storage (the
  // tables, the timeline pool, the event queue), so that a fuzz target running
  // one scenario after another allocates little. `sc` is copied.
  void reset(const Scenario& sc);

  // Applies one op at now(). Rejected (counted and listed in rejected_ops(),
  // state unchanged) when it names a task or group that does not exist now
  // (never made, or exited) or asks for what the model cannot do; an op that
  // asks for the state its target already has is applied and changes nothing.
  // `loc`: the scenario line it came from, for the report and the sink.
  ApplyResult apply(const Op& op, SourceLoc loc = {});
  // Processes every event at or before t, then sets now() = t (unless it
  // stopped early: then now() is the time of the last event handled).
  void run_until(Nanos t);
  // The whole scenario (its time-0 tasks are in place): run_to(forever), then
  // finish(). Ends early at SimOptions::max_events or *stop.
  RunEnd run();
  // The scenario up to time t, or to its end if that comes first: its timed
  // ops at or before t (each after the events at or before its time) and the
  // events. Resumable: run_to(a) then run_to(b) is run_to(b). True once the
  // run reached its end (`run`'s length, or later when the ops went past it)
  // or stopped early.
  bool run_to(Nanos t);
  // The end of a run: the last invariant check when check_every skipped it,
  // the last progress report; how the run ended.
  RunEnd finish();
  RunEnd end() const { return run_end_; }

  Nanos now() const { return s_.now; }
  // Steps so far: events, timed ops, and the set-up (one step).
  uint64_t steps() const { return steps_; }
  const std::string& last_error() const { return last_error_; }
  // The last rejection was the kernel's answer to the state it found (an
  // errno such as EBUSY, a file a kernel without the feature lacks, a CPU
  // that is offline), not a name that does not exist or a value or limit
  // the model takes no further.
  bool last_rejection_refused() const { return last_refused_; }
  const std::vector<RejectedOp>& rejected_ops() const { return rejected_; }

  // Read access for tests, the checker and the outputs.
  const Scenario& scenario() const { return sc_; }
  const Sched& sched() const { return s_; }
  const FeatureSet& features() const { return s_.features; }
  const Tunables& tunables() const { return s_.tun; }
  const ModelEra& era() const { return s_.era; }
  LoadResolution resolution() const { return s_.res; }
  unsigned nr_cpus() const { return s_.nr_cpus(); }
  // Every task slot: live tasks, exited ones, and reaped churn children's
  // slots (churn_slot_free) waiting for reuse.
  const IdVec<TaskId, Task>& tasks() const { return s_.tasks; }
  const IdVec<EntityId, SchedEntity>& entities() const { return s_.se; }
  const IdVec<CfsRqId, CfsRq, StableVec<CfsRq>>& cfs_rqs() const { return s_.cfs; }
  const IdVec<GroupId, TaskGroup>& groups() const { return s_.tg; }
  const IdVec<CpuId, Rq>& rqs() const { return s_.rq; }
  // The recorded trace; throws std::logic_error without SimOptions::record_trace.
  const Trace& trace() const;
  const Counters& counters() const { return s_.counters; }
  TaskId task_index(std::string_view name) const;     // none when unknown
  GroupId group_index(std::string_view path) const;  // none when unknown
  // CPU time of a task (its sum_exec_runtime, brought up to now()).
  Nanos cpu_time(TaskId task) const;
  // Total time the task was runnable but not running, up to now().
  Nanos wait_ns(TaskId task) const;
  // The recorded stretches plus the ones still running at now() (record_trace).
  std::vector<Stretch> stretches_until_now() const;
  // Idle (online), offline (CPU hotplug) and busy ns of a CPU up to now().
  Nanos idle_ns(CpuId cpu) const;
  Nanos offline_ns(CpuId cpu) const;
  Nanos busy_ns(CpuId cpu) const;
  const InvariantChecker* checker() const { return checker_.get(); }
  // Runs the checker now on everything (whatever check_every says); false on
  // a violation.
  bool check_now(std::string_view context = "check");
  // The same on what the steps since the last check touched, or on everything
  // when full_check_every says this check is a full one.
  bool check_touched(std::string_view context);

  // For tests that deliberately break the model (the checker must notice).
  CfsRq& mutable_cfs_rq(CfsRqId i) { return s_.cfs[i]; }
  SchedEntity& mutable_entity(EntityId i) { return s_.se[i]; }
  TaskGroup& mutable_group(GroupId i) { return s_.tg[i]; }
  Task& mutable_task(TaskId i) { return s_.tasks[i]; }
  // The whole state, for benchmarks that call one kernel function (bench/).
  Sched& mutable_sched() { return s_; }
  // The sched_slice the tick would use for entity se now (for tests/tools).
  uint64_t sched_slice_of(EntityId se) const;

 private:
  struct OpHandler;  // applies each kind of Op (sim.cpp)

  // Task behaviours: their bursts, deadlines and wake timers, and the tick.
  void begin_burst(TaskId task);
  void end_burst(TaskId task);  // the behaviour's run ended: wake its wakes=, then sleep or exit
  // try_to_wake_up of task run on waker (none: the task's own CPU, its
  // timer's): a sleeping task wakes and begins a burst; a queued one whose
  // deferred sleep is still to come keeps running instead (ttwu_runnable).
  void try_to_wake_up(TaskId task, CpuId waker, bool sync);
  void run_deferred_ops(TaskId task);  // Task::deferred, now that the task runs
  // Fork/exit churn (TaskSpec::churn; docs/model.md, "Fork/exit churn").
  struct Churner {
    TaskId parent;
    Nanos next = 0;       // its next fork
    uint64_t forked = 0;  // forks so far (the next child is <parent>/c<forked>)
  };
  Nanos next_churn_fork() const;  // the first churner's next fork; max when none
  void churn_fork();              // the first churner forks its next child (deferred while it waits)
  void reap_children();           // exited churn children switched away from: folded, slots freed
  void arm_stop(CpuId cpu);
  void arm_tick(CpuId cpu);
  bool handle(const Event& e);  // false: a stale event, ignored
  void resched_pending();
  void after_step(std::string_view kind, int32_t id, const Op* op);  // reschedules, then count_step
  void count_step(std::string_view kind, int32_t id, const Op* op);  // a step: the checker's turn
  std::size_t run_check(const Step& step, bool full);  // the checker, then touched_cpus cleared
  ApplyResult reject(std::string why, bool refused = false);
  ApplyResult refuse(std::string why) { return reject(std::move(why), true); }
  bool halted();  // run() must stop now: the event limit or *stop; sets end_

  Scenario sc_;
  SimOptions opt_;
  Sched s_;
  // Names to ids, hashed: a lookup compares one name, not a tree path's worth
  // (each a memcmp, which libFuzzer intercepts). Never iterated: no output
  // depends on their order.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <class Id> using NameMap = std::pmr::unordered_map<std::string, Id, NameHash, std::equal_to<>>;
  std::pmr::unsynchronized_pool_resource names_pool_;  // the two maps' nodes and buckets, kept by reset()
  NameMap<TaskId> task_by_name_{&names_pool_};
  NameMap<GroupId> group_by_path_{&names_pool_};
  EventQueue events_;
  // The machine s_.topo was built for, and up to kTopologiesKept small ones
  // built before it, set aside: a reset (or a CPU hotplug: the domains over
  // the CPUs online) for one of those swaps it back in instead of building it
  // again (a fuzz target goes round a few dozen machines of 1 to 8 CPUs, in
  // three eras, taking CPUs offline and back). Small: at most kKeptCpus CPUs,
  // so what is kept stays a few hundred KB.
  static constexpr std::size_t kTopologiesKept = 32;
  static constexpr unsigned kKeptCpus = 16;
  struct BuiltTopology {
    Topology spec;
    SchedTopology topo;
  };
  std::optional<Topology> topo_for_;
  std::vector<BuiltTopology> topologies_kept_;
  std::size_t next_replaced_ = 0;  // the kept one a new build replaces when all are in use
  void use_topology(TopologyEra te, bool own_group_first, const CpuMask& cpu_map = {}, bool numa_levels = true,
                    const CpuMask& dying = {});
  void set_cpu_online(CpuId cpu, bool online);  // `cpu offline|online N` (sim_ops.cpp)
  Tunables normalized_;  // normalized_sysctl_*: what update_sysctl scales at a CPU hotplug
  uint64_t steps_ = 0;  // ops applied and events handled (the set-up counts as one)
  bool in_setup_ = false;
  RunEnd run_end_ = RunEnd::finished;
  std::string last_error_;
  bool last_refused_ = false;
  const Op* applying_ = nullptr;  // the op being applied, and its line, for rejections
  SourceLoc applying_loc_;
  std::vector<RejectedOp> rejected_;
  std::unique_ptr<InvariantChecker> checker_;
  std::unique_ptr<TraceRecorder> recorder_;  // with record_trace
  SinkTee sinks_;                            // the recorder and SimOptions::sink
  std::vector<const TimedOp*> ops_;          // the scenario's timed ops in time order
  std::size_t next_op_ = 0;                  // the first not yet applied
  std::optional<Nanos> end_time_;            // the run's end, known once every op is applied
  std::vector<Churner> churners_;            // the churning tasks, in the order they were forked
  std::vector<TaskId> exited_children_;      // churn children that exited, not yet reaped
  std::vector<TaskId> free_slots_;           // reaped churn children's slots, reused LIFO
};

}  // namespace cfsv
