// Outputs of a simulation: `perf script`-style sched_switch lines, Chrome
// trace events (Perfetto), and stretch statistics.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "sim.h"

namespace cfsv {

// One sched_switch line per context switch, as `perf script` prints them:
//   "              sh  2724 [003]   152.528010: sched:sched_switch: prev_comm=sh
//    prev_pid=2724 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=2779 next_prio=120"
// (one line). The idle task is swapper/N (pid 0), the stopper migration/N.
// No cpu: every CPU; otherwise only that CPU's switches (perf script -C N).
std::string perf_sched_switch_lines(const Sim& sim, CpuId cpu = {});

// Chrome trace-event JSON (opens in ui.perfetto.dev): one "ph":"X" event per
// stretch a task ran, named by the task, on a track per CPU (pid 0, tid =
// CPU), "ts"/"dur" in microseconds with ns precision, "args":{"cpu":N,"pid":P}.
void write_perfetto_json(const Sim& sim, std::ostream& out);

// Stretch lengths (ns) -> how many stretches had that length, for one CPU
// (no cpu: all). Stretches still running at now() are included.
std::map<Nanos, uint64_t> stretch_histogram(const Sim& sim, CpuId cpu = {});

// "1.000ms x 950, 2.000ms x 10, ..." most common first (at most `top`).
std::string format_histogram(const std::map<Nanos, uint64_t>& h, std::size_t top = 8);

// The name perf shows for a task, kIdle or kStopper on a CPU.
std::string comm_of(const Sim& sim, TaskId who, CpuId cpu);

}  // namespace cfsv
