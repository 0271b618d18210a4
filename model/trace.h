// Traces of a simulation, streamed as it runs: `perf script`-style lines and
// Chrome trace events (Perfetto). Both are sinks (model/sink.h) that write
// each event when it happens, so memory does not grow with the run; each
// throws TraceWriteError when its stream fails. Also: sched_switch lines and
// stretch counts from a recorded trace (SimOptions::record_trace; tests).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim.h"
#include "stats.h"

namespace cfsv {

struct TraceWriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Throws TraceWriteError "cannot write <name>: <strerror(errno)>" (errno as
// the failed write left it; set it to 0 before writing).
[[noreturn]] void write_failed(const std::string& name);

// One line per event, as `perf script` prints sched tracepoints (v4.3+ field
// lists, include/trace/events/sched.h):
//   "              sh  2724 [003]   152.528010: sched:sched_switch: prev_comm=sh
//    prev_pid=2724 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=2779 next_prio=120"
//   "... sched:sched_wakeup: comm=sh pid=2779 prio=120 target_cpu=003" (and sched_wakeup_new)
//   "... sched:sched_migrate_task: comm=sh pid=2779 prio=120 orig_cpu=3 dest_cpu=1"
// The head (comm, pid, [cpu]) is the task running on the CPU where the event
// happens: a switch's CPU, a wakeup's target CPU, a migration's orig CPU. The
// idle task is swapper/N (pid 0), the stopper migration/N (pid 10 + N).
class PerfScriptWriter final : public SchedSink {
 public:
  // `name` names the stream in errors ("cannot write <name>: ...").
  PerfScriptWriter(std::ostream& out, std::string name);
  void sched_switch(const Sched& s, const SwitchEvent& e) override;
  void sched_wakeup(const Sched& s, TaskId task, bool new_task) override;
  void sched_migrate_task(const Sched& s, TaskId task, CpuId orig, CpuId dest) override;
  void finish();  // flushes; throws when the stream failed

 private:
  void put(const std::string& line);
  std::ostream& out_;
  std::string name_;
};

// Chrome trace-event JSON (opens in ui.perfetto.dev), events in the order
// they happen (viewers sort by time):
//  - process "CPUs" (pid 0), a track per CPU (tid = CPU): one "ph":"X" event
//    per stretch a task ran, named by the task, "args":{"cpu":N,"pid":P};
//    and a counter track per CPU ("ph":"C", "name":"CPU N", "args":{"nr_running":K});
//  - process "tasks" (pid 1), a track per task (tid = its pid, named by the
//    task): the same stretches, named "CPU N"; instant events ("ph":"i") for
//    its sched_wakeup / sched_wakeup_new ("args":{"target_cpu":N}) and
//    sched_migrate_task ("args":{"orig_cpu":A,"dest_cpu":B});
//  - a global instant event per op, named as describe(op) says, with
//    "args":{"line":L,"result":"applied" or "rejected: <why>"}.
// "ts"/"dur" in microseconds with ns precision. finish() writes the stretches
// still running and closes the JSON.
class PerfettoWriter final : public SchedSink {
 public:
  PerfettoWriter(std::ostream& out, std::string name);
  void sched_switch(const Sched& s, const SwitchEvent& e) override;
  void sched_wakeup(const Sched& s, TaskId task, bool new_task) override;
  void sched_migrate_task(const Sched& s, TaskId task, CpuId orig, CpuId dest) override;
  void nr_running(const Sched& s, CpuId cpu) override;
  void op(const Sched& s, const Op& op, unsigned line, std::string_view why) override;
  void finish(const Sched& s, Nanos at);

 private:
  struct Counter {
    Nanos t = 0;
    uint32_t value = 0, written = 0;
    bool pending = false;
  };
  void start(const Sched& s);  // the head, once
  void name_task(const Sched& s, TaskId task);
  void stretch(const Sched& s, TaskId task, CpuId cpu, Nanos start, Nanos end);
  void flush_counter(CpuId cpu);
  void put(const std::string& event);
  std::ostream& out_;
  std::string name_;
  bool started_ = false, finished_ = false;
  std::vector<int32_t> named_;  // per task slot: the pid whose track has its name (0: none; a reused slot's pid is new)
  std::vector<Counter> counters_;  // per CPU: the last value written and one pending
};

// sched_switch lines (PerfScriptWriter's) of the recorded trace; no cpu:
// every CPU's, otherwise only that CPU's (perf script -C N).
std::string perf_sched_switch_lines(const Sim& sim, CpuId cpu = {});

// Stretch lengths (ns) -> how many stretches had that length, for one CPU
// (no cpu: all), from the recorded trace; the stretches running at now() included.
std::map<Nanos, uint64_t> stretch_histogram(const Sim& sim, CpuId cpu = {});

// The name perf shows for a task, kIdle or kStopper on a CPU.
std::string comm_of(const Sched& s, TaskId who, CpuId cpu);

}  // namespace cfsv
