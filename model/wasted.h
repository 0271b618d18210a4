// Wasted-core time (Lozi et al., "The Linux Scheduler: a Decade of Wasted
// Cores", EuroSys 2016): the time a CPU sits idle while another CPU has a
// task waiting (queued, not running) that the idle CPU is allowed to run. A
// sink (model/sink.h) that re-reads the runqueues at the end of each step and
// charges the time since the last step to every wasted CPU, in total and per
// sched-domain level: the lowest domain of the idle CPU whose span holds the
// nearest such waiting task (where a balance at that level could have fixed
// it), or none when no domain holds both (no balance can: the Missing
// Scheduling Domains bug). An offline CPU wastes nothing. Memory: per CPU
// and per level, whatever the run's length.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "sink.h"

namespace cfsv {

struct WastedLevel {
  int level = 0;          // sd->level, as built (model/topology.h); -1: no domain holds both CPUs
  std::string_view name;  // its domain's name: SMT, MC, DIE, NUMA, ...; "no domain" for -1
  Nanos ns = 0;           // CPU-time wasted whose nearest waiting task was at this level
};

class WastedCores final : public SchedSink {
 public:
  void step_end(const Sched& s) override;
  // The wasted CPU-time up to `at` (>= the last step's time), in all and per
  // level (the levels with wasted time, lowest first).
  Nanos total(Nanos at) const;
  std::vector<WastedLevel> levels(Nanos at) const;

 private:
  // The lowest domain level of idle CPU `idle` spanning `busy`; kUnshared when
  // none does (they share no domain).
  unsigned level_between(const Sched& s, CpuId idle, CpuId busy) const;
  static constexpr unsigned kNoLevel = ~0u;       // wasted_: not wasted
  static constexpr unsigned kUnshared = ~0u - 1;  // wasted_: wasted, no domain holds both CPUs
  void charge(unsigned lv, Nanos ns, std::vector<Nanos>& by_level, Nanos& unshared) const;

  Nanos last_ = 0;                 // the time of the last step
  std::vector<unsigned> wasted_;   // per CPU: the level its idleness wastes now, or kNoLevel
  std::vector<Nanos> by_level_;    // per level: the CPU-time charged so far
  Nanos unshared_ = 0;             // the CPU-time charged with no domain holding both CPUs
  std::vector<std::string_view> names_;  // per level
  std::vector<CpuMask> waiting_on_;      // scratch: per CPU, the CPUs its waiting tasks may run on
};

}  // namespace cfsv
