// The CFS model on decoded op sequences: bytes become a scenario on 1..4 CPUs
// (model/ops_decoder.h: random profile, features, groups nested up to depth
// 3, tasks, then up to 64 timed ops within 10 ms), each op applied as it is
// decoded (fuzz/ops_input.h, run_ops) on one Sim reset for each input. The
// shared invariant checker runs after the set-up, after every op that changed
// the state, after every 16th step (op or event) and at the end (on the CPUs
// the steps touched; every 8th and the last on everything). Its libFuzzer
// flags: fuzz_ops.options. Also
// checked after the run: every CPU's busy + idle time is the elapsed time,
// and the tasks' CPU time adds up to the CPUs' busy time. A failure prints the
// reproducer (a scenario file for `cfsv replay`; `cfsv fuzz` writes one for
// every crash) and aborts.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "fuzz/fuzz_target.h"
#include "fuzz/ops_input.h"
#include "model/scenario_text.h"

namespace {
constexpr const char* kTarget = "fuzz_ops";
constexpr std::size_t kMaxInput = 4096;  // the decoder reads at most ~64 ops' worth

#ifdef CFSV_FUZZ_PLANTED
// Test builds only (fuzz/CMakeLists.txt builds this file so into
// fuzz/planted/ for the end-to-end test of `cfsv fuzz`): a heap-buffer-overflow
// once a task in a group nested two deep is reniced to 19 while it runs, a
// state the fuzzer has to find. The model itself is untouched.
void planted_bug(const cfsv::Sim& sim, const cfsv::Op& op) {
  using namespace cfsv;
  const auto* n = std::get_if<op::SetNice>(&op);
  if (!n || n->nice != 19) return;
  const TaskId t = sim.task_index(n->task);
  if (!t || sim.tasks()[t].state != TaskState::running || sim.groups()[sim.tasks()[t].group].depth < 3) return;
  const std::vector<char> one(1);
  volatile char past_the_end = one.data()[1];
  (void)past_the_end;
}
#else
void planted_bug(const cfsv::Sim&, const cfsv::Op&) {}
#endif
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace cfsv;
  if (size > kMaxInput) return -1;
  // CFSV_PRINT_SCENARIO=1: print each input's scenario first, e.g. to read a
  // crash input (<target>_replay crash-...); `cfsv fuzz` writes them itself.
  static const bool print_first = std::getenv("CFSV_PRINT_SCENARIO") != nullptr;
  if (print_first) std::fprintf(stderr, "%s", print_scenario(fuzz::ops_scenario({data, size})).c_str());
  // One decoder, one set-up and one Sim kept across inputs: their buffers are reused.
  static OpsDecoder<fuzz::ByteReader> decoder;
  static Scenario setup;
  static std::unique_ptr<Sim> reused;
  fuzz::ByteReader r(data, size);
  const Sim& sim = fuzz::run_ops(decoder, r, setup, reused, planted_bug);
  if (!sim.checker()->ok()) {
    const Violation& v = sim.checker()->violations().front();
    fuzz::fail(kTarget, "invariant violated: %s\n--- reproducer ---\n# expect: violation %s\n%s", v.to_string().c_str(),
               v.invariant.c_str(), print_scenario(fuzz::ops_scenario({data, size})).c_str());
  }
  Nanos busy = 0, cpu_time = 0;
  for (const CpuId cpu : sim.rqs().ids()) {
    if (sim.busy_ns(cpu) + sim.idle_ns(cpu) != sim.now())
      fuzz::fail(kTarget, "cpu%d: busy %llu + idle %llu != elapsed %llu\n--- scenario ---\n%s", cpu.v,
                 static_cast<unsigned long long>(sim.busy_ns(cpu)), static_cast<unsigned long long>(sim.idle_ns(cpu)),
                 static_cast<unsigned long long>(sim.now()), print_scenario(fuzz::ops_scenario({data, size})).c_str());
    busy += sim.busy_ns(cpu);
  }
  for (const TaskId t : sim.tasks().ids()) cpu_time += sim.cpu_time(t);
  if (cpu_time != busy)
    fuzz::fail(kTarget, "the tasks' CPU time %llu != the CPUs' busy time %llu\n--- scenario ---\n%s",
               static_cast<unsigned long long>(cpu_time), static_cast<unsigned long long>(busy),
               print_scenario(fuzz::ops_scenario({data, size})).c_str());
  return 0;
}
