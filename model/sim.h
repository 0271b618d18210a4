// The runnable CFS model: the scheduler state (sched.h) and its kernel
// functions (fair.h, core.h) driven over an event-driven clock in integer
// nanoseconds (docs/model.md).
//
// Every state change is an Op (scenario.h) or a simulator event: a tick, the
// end of a task's CPU-time burst, a wall-clock deadline, a timed wakeup. The
// invariant checker (invariants.h) runs after each one, or after every Nth
// (SimOptions::check_every).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

#include "invariants.h"
#include "scenario.h"
#include "sched.h"

namespace cfsv {

struct SimOptions {
  // The invariant checker runs after every Nth step (an op or an event): 1
  // after each, 0 never. With N > 1, run() also checks once at its end when
  // its last step was not checked.
  uint64_t check_every = 1;
  bool record_trace = true;
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

  Nanos now() const { return s_.now; }
  const std::string& last_error() const { return last_error_; }

  // Read access for tests, the checker and the outputs.
  const Scenario& scenario() const { return sc_; }
  const Sched& sched() const { return s_; }
  const FeatureSet& features() const { return s_.features; }
  const Tunables& tunables() const { return s_.tun; }
  const ModelEra& era() const { return s_.era; }
  LoadResolution resolution() const { return s_.res; }
  unsigned nr_cpus() const { return s_.nr_cpus(); }
  const IdVec<TaskId, Task>& tasks() const { return s_.tasks; }
  const IdVec<EntityId, SchedEntity>& entities() const { return s_.se; }
  const IdVec<CfsRqId, CfsRq, StableVec<CfsRq>>& cfs_rqs() const { return s_.cfs; }
  const IdVec<GroupId, TaskGroup>& groups() const { return s_.tg; }
  const IdVec<CpuId, Rq>& rqs() const { return s_.rq; }
  const Trace& trace() const { return s_.trace; }
  const Counters& counters() const { return s_.counters; }
  TaskId task_index(std::string_view name) const;     // none when unknown
  GroupId group_index(std::string_view path) const;  // none when unknown
  // CPU time of a task (its sum_exec_runtime, brought up to now()).
  Nanos cpu_time(TaskId task) const;
  // Total time the task was runnable but not running, up to now().
  Nanos wait_ns(TaskId task) const;
  // The recorded stretches plus the ones still running at now().
  std::vector<Stretch> stretches_until_now() const;
  // Idle and busy ns of a CPU up to now().
  Nanos idle_ns(CpuId cpu) const;
  Nanos busy_ns(CpuId cpu) const;
  const InvariantChecker* checker() const { return checker_.get(); }
  // Runs the checker now (whatever check_every says); false on a violation.
  bool check_now(std::string_view context = "check");

  // For tests that deliberately break the model (the checker must notice).
  CfsRq& mutable_cfs_rq(CfsRqId i) { return s_.cfs[i]; }
  SchedEntity& mutable_entity(EntityId i) { return s_.se[i]; }
  // The sched_slice the tick would use for entity se now (for tests/tools).
  uint64_t sched_slice_of(EntityId se) const;

 private:
  enum class EvKind : uint8_t { stop = 0, deadline = 1, wake = 2, tick = 3 };
  struct Event {
    Nanos t;
    EvKind kind;
    int32_t id;  // the CPU (stop, tick) or the task (deadline, wake)
    uint32_t gen;
    bool operator>(const Event& o) const {
      if (t != o.t) return t > o.t;
      if (kind != o.kind) return kind > o.kind;
      if (id != o.id) return id > o.id;
      return gen > o.gen;
    }
  };
  struct OpHandler;  // applies each kind of Op (sim.cpp)

  // Task behaviours: their bursts, deadlines and wake timers, and the tick.
  void begin_burst(TaskId task);
  void end_burst(TaskId task);  // the behaviour's run ended: sleep or exit
  void arm_stop(CpuId cpu);
  void arm_tick(CpuId cpu);
  bool handle(const Event& e);  // false: a stale event, ignored
  void resched_pending();
  void after_step(std::string_view kind, int32_t id, const Op* op);
  ApplyResult reject(std::string why);

  Scenario sc_;
  SimOptions opt_;
  Sched s_;
  std::map<std::string, TaskId, std::less<>> task_by_name_;
  std::map<std::string, GroupId, std::less<>> group_by_path_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t steps_ = 0;  // ops applied and events handled
  std::string last_error_;
  std::unique_ptr<InvariantChecker> checker_;
};

// A one-line description of an op, for violation reports ("spawn t0", ...).
std::string describe(const Op& op);

}  // namespace cfsv
