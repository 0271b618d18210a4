// The CFS model on decoded op sequences: bytes become a scenario on 1..4 CPUs
// (model/ops_decoder.h: random profile, features, groups nested up to depth
// 3, tasks, then up to 64 timed ops), which Sim::run applies with the shared
// invariant checker after every op and event. Also checked after the run:
// every CPU's busy + idle time is the elapsed time, and the tasks' CPU time
// adds up to the CPUs' busy time. A failure prints the reproducer (a scenario
// file for `cfsv replay`) and aborts.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/byte_reader.h"
#include "fuzz/fuzz_target.h"
#include "model/ops_decoder.h"
#include "model/scenario_text.h"
#include "model/sim.h"

namespace {
constexpr const char* kTarget = "fuzz_ops";
constexpr std::size_t kMaxInput = 4096;  // the decoder reads at most ~64 ops' worth
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace cfsv;
  if (size > kMaxInput) return -1;
  fuzz::ByteReader r(data, size);
  const Scenario sc = decode_ops_scenario(r);
  // CFSV_PRINT_SCENARIO=1: print each input's scenario first, e.g. to turn a
  // sanitizer crash input into a scenario file (<target>_replay crash-...).
  static const bool print_first = std::getenv("CFSV_PRINT_SCENARIO") != nullptr;
  if (print_first) std::fprintf(stderr, "%s", print_scenario(sc).c_str());
  Sim sim(sc, SimOptions{.record_trace = false});
  sim.run();
  if (!sim.checker()->ok()) {
    const Violation& v = sim.checker()->violations().front();
    fuzz::fail(kTarget, "invariant violated: %s\n--- reproducer ---\n# expect: violation %s\n%s", v.to_string().c_str(),
               v.invariant.c_str(), print_scenario(sc).c_str());
  }
  Nanos busy = 0, cpu_time = 0;
  for (const CpuId cpu : sim.rqs().ids()) {
    if (sim.busy_ns(cpu) + sim.idle_ns(cpu) != sim.now())
      fuzz::fail(kTarget, "cpu%d: busy %llu + idle %llu != elapsed %llu\n--- scenario ---\n%s", cpu.v,
                 static_cast<unsigned long long>(sim.busy_ns(cpu)), static_cast<unsigned long long>(sim.idle_ns(cpu)),
                 static_cast<unsigned long long>(sim.now()), print_scenario(sc).c_str());
    busy += sim.busy_ns(cpu);
  }
  for (const TaskId t : sim.tasks().ids()) cpu_time += sim.cpu_time(t);
  if (cpu_time != busy)
    fuzz::fail(kTarget, "the tasks' CPU time %llu != the CPUs' busy time %llu\n--- scenario ---\n%s",
               static_cast<unsigned long long>(cpu_time), static_cast<unsigned long long>(busy),
               print_scenario(sc).c_str());
  return 0;
}
