// The whole trace in memory, for callers that ask for it
// (SimOptions::record_trace; tests): every stretch a task ran and every
// sched_switch. Its memory grows with simulated time; the reports and the
// trace writers do without it (model/stats.h, model/trace.h).
#pragma once
#include <vector>

#include "sink.h"

namespace cfsv {

struct Stretch {  // a task ran on cpu during [start, end)
  TaskId task;
  CpuId cpu;
  Nanos start, end;
};

struct Trace {
  std::vector<Stretch> stretches;
  std::vector<SwitchEvent> switches;  // with the prios in force at each switch
};

class TraceRecorder final : public SchedSink {
 public:
  void sched_switch(const Sched& s, const SwitchEvent& e) override;
  const Trace& trace() const { return trace_; }

 private:
  Trace trace_;
};

}  // namespace cfsv
