// Differential: seed 003's flat_slice off and on, on the same decoded op
// sequence (fuzz/ops_input.h: the first byte picks the decoder's mode, any
// tasks / only run=busy tasks / only tasks in the root group / both).
// What must hold:
//  1. both runs keep every invariant (the shared checker, after every op and event);
//  2. flat_slice only drops the levels above a task's own cfs_rq from
//     sched_slice. While no task is ever in a non-root group there are no such
//     levels, so the two runs are identical: the same sched_switch lines and
//     the same counters;
//  3. when every task is run=busy and no op puts one to sleep or ends it,
//     exits and CPU placement are all decided by the ops (placement counts
//     queued tasks, and the queued set of each CPU does not depend on who
//     runs), and a CPU with a queued task is never idle. So both runs end with
//     every task in the same state (sleeping / exited / queued) on the same
//     CPU, reject the same ops, and every CPU has the same busy and idle time,
//     to the ns.
// (With run=/runtime= tasks none of 2..3 holds in general: how much CPU a task
// gets decides when it sleeps. Nor does 3 with sleep or exit ops: a waiting
// task blocks only when it next runs.) A failure prints both scenarios and aborts.
#include <sstream>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_target.h"
#include "fuzz/ops_input.h"
#include "model/scenario_text.h"
#include "model/sim.h"
#include "model/trace.h"

namespace {
constexpr const char* kTarget = "fuzz_flat_slice_diff";
constexpr std::size_t kMaxInput = 4096;

using namespace cfsv;

bool every_task_in_root(const Scenario& s) {
  for (const TaskSpec& t : s.tasks)
    if (t.group != "/") return false;
  for (const TimedOp& o : s.ops) {
    if (const auto* sp = std::get_if<op::Spawn>(&o.op); sp && sp->task.group != "/") return false;
    if (const auto* mv = std::get_if<op::MoveTask>(&o.op); mv && mv->group != "/") return false;
  }
  return true;
}

// Every task run=busy, and no sleep or exit op.
bool every_task_busy(const Scenario& s) {
  for (const TaskSpec& t : s.tasks)
    if (!std::holds_alternative<RunBusy>(t.behaviour)) return false;
  for (const TimedOp& o : s.ops) {
    if (const auto* sp = std::get_if<op::Spawn>(&o.op); sp && !std::holds_alternative<RunBusy>(sp->task.behaviour))
      return false;
    if (std::holds_alternative<op::Sleep>(o.op) || std::holds_alternative<op::Exit>(o.op)) return false;
  }
  return true;
}

// No op still waits for its task to run (Task::deferred) at the end: an op
// such as setsid is the task's own call, so how many were applied, and so
// rejected, by the end depends on the schedule.
bool every_op_applied(const Sim& sim) {
  for (const TaskId i : sim.tasks().ids())
    if (!sim.tasks()[i].deferred.empty()) return false;
  return true;
}

int queued_class(TaskState s) { return s == TaskState::running || s == TaskState::runnable ? 0 : int(s); }

std::string counters_text(const Counters& c) {
  std::ostringstream o;
  o << c.events << ' ' << c.ops << ' ' << c.ops_rejected << ' ' << c.ticks << ' ' << c.schedules << ' '
    << c.context_switches << ' ' << c.resched_tick << ' ' << c.resched_wakeup << ' ' << c.wakeups << ' ' << c.sleeps
    << ' ' << c.forks << ' ' << c.exits << ' ' << c.migrations << ' ' << c.enqueues << ' ' << c.dequeues << ' '
    << c.reweights;
  return o.str();
}

[[noreturn]] void differ(const Scenario& off, const char* what, const std::string& detail) {
  fuzz::fail(kTarget, "flat_slice off vs on: %s: %s\n--- scenario (flat_slice=off; the other run has =on) ---\n%s",
             what, detail.c_str(), print_scenario(off).c_str());
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size > kMaxInput) return -1;
  const Scenario decoded = fuzz::flat_slice_diff_scenario({data, size});
  // CFSV_PRINT_SCENARIO=1: print each input's scenario first, e.g. to turn a
  // sanitizer crash input into a scenario file (<target>_replay crash-...).
  static const bool print_first = std::getenv("CFSV_PRINT_SCENARIO") != nullptr;
  if (print_first) std::fprintf(stderr, "%s", print_scenario(decoded).c_str());
  const Scenario off_sc = with_overrides(decoded, {{Feature::flat_slice, false}}),
                 on_sc = with_overrides(decoded, {{Feature::flat_slice, true}});
  const bool in_root = every_task_in_root(decoded);
  const SimOptions so{.record_trace = in_root};  // the trace is compared only then
  Sim off(off_sc, so), on(on_sc, so);
  off.run();
  on.run();
  for (const Sim* s : {&off, &on}) {
    if (s->checker()->ok()) continue;
    const Violation& v = s->checker()->violations().front();
    fuzz::fail(kTarget, "invariant violated: %s\n--- reproducer ---\n# expect: violation %s\n%s", v.to_string().c_str(),
               v.invariant.c_str(), print_scenario(s->scenario()).c_str());
  }
  if (in_root) {
    if (perf_sched_switch_lines(off) != perf_sched_switch_lines(on))
      differ(off_sc, "every task in the root group, yet the sched_switch lines differ", "");
    if (counters_text(off.counters()) != counters_text(on.counters()))
      differ(off_sc, "every task in the root group, yet the counters differ",
             counters_text(off.counters()) + " vs " + counters_text(on.counters()));
  }
  if (every_task_busy(decoded)) {
    if (every_op_applied(off) && every_op_applied(on) && off.counters().ops_rejected != on.counters().ops_rejected)
      differ(off_sc, "every task busy, yet the rejected ops differ",
             std::to_string(off.counters().ops_rejected) + " vs " + std::to_string(on.counters().ops_rejected));
    for (const TaskId i : off.tasks().ids()) {
      const Task &a = off.tasks()[i], &b = on.tasks()[i];
      if (queued_class(a.state) != queued_class(b.state) || a.cpu != b.cpu)
        differ(off_sc, "every task busy, yet a task ends differently",
               a.name + ": " + std::string(to_string(a.state)) + " on cpu" + std::to_string(a.cpu.v) + " vs " +
                   std::string(to_string(b.state)) + " on cpu" + std::to_string(b.cpu.v));
    }
    for (const CpuId cpu : off.rqs().ids()) {
      if (off.busy_ns(cpu) != on.busy_ns(cpu) || off.idle_ns(cpu) != on.idle_ns(cpu))
        differ(off_sc, "every task busy, yet a CPU's busy time differs",
               "cpu" + std::to_string(cpu.v) + ": busy " + std::to_string(off.busy_ns(cpu)) + " vs " +
                   std::to_string(on.busy_ns(cpu)));
    }
  }
  return 0;
}
