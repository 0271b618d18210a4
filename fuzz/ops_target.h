// One execution of an ops target (fuzz_ops, fuzz_balance_ops): the input
// decoded within the options' bounds and each op applied as it is decoded
// (run_ops, fuzz/ops_input.h) on one Sim reset for each input. The shared
// invariant checker runs after the set-up, after every op that changed the
// state, after every 16th step (op or event) and at the end (on the CPUs the
// steps touched; every 8th and the last on everything). Also checked after
// the run: every CPU's busy + idle + offline time is the elapsed time, and the tasks'
// CPU time adds up to the CPUs' busy time. A failure prints the reproducer (a
// scenario file for `cfsv replay`; `cfsv fuzz` writes one for every crash)
// and aborts.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>

#include "fuzz/fuzz_target.h"
#include "fuzz/ops_input.h"
#include "model/scenario_text.h"

namespace cfsv::fuzz {

inline constexpr std::size_t kMaxOpsInput = 4096;  // the decoder reads at most ~64 ops' worth

// after_op(sim, op) runs after each op (fuzz_ops' planted bug in its test build).
template <class AfterOp>
int ops_target_input(const char* target, DecodeOptions o, std::span<const uint8_t> in, AfterOp&& after_op) {
  if (in.size() > kMaxOpsInput) return -1;
  const auto reproducer = [&] { return print_scenario(ops_scenario(in, o)); };
  // CFSV_PRINT_SCENARIO=1: print each input's scenario first, e.g. to read a
  // crash input (<target>_replay crash-...); `cfsv fuzz` writes them itself.
  static const bool print_first = std::getenv("CFSV_PRINT_SCENARIO") != nullptr;
  if (print_first) std::fprintf(stderr, "%s", reproducer().c_str());
  // One decoder, one set-up and one Sim kept across inputs: their buffers are reused.
  static OpsDecoder<ByteReader> decoder(o);
  static Scenario setup;
  static std::unique_ptr<Sim> reused;
  ByteReader r(in.data(), in.size());
  const Sim& sim = run_ops(decoder, r, setup, reused, after_op);
  if (!sim.checker()->ok()) {
    const Violation& v = sim.checker()->violations().front();
    fail(target, "invariant violated: %s\n--- reproducer ---\n# expect: violation %s\n%s", v.to_string().c_str(),
         v.invariant.c_str(), reproducer().c_str());
  }
  Nanos busy = 0, cpu_time = 0;
  for (const CpuId cpu : sim.rqs().ids()) {
    if (sim.busy_ns(cpu) + sim.idle_ns(cpu) + sim.offline_ns(cpu) != sim.now())
      fail(target, "cpu%d: busy %llu + idle %llu + offline %llu != elapsed %llu\n--- scenario ---\n%s", cpu.v,
           static_cast<unsigned long long>(sim.busy_ns(cpu)), static_cast<unsigned long long>(sim.idle_ns(cpu)),
           static_cast<unsigned long long>(sim.offline_ns(cpu)), static_cast<unsigned long long>(sim.now()),
           reproducer().c_str());
    busy += sim.busy_ns(cpu);
  }
  for (const TaskId t : sim.tasks().ids()) {  // a reaped churn child's time is in its parent's children
    const Task& k = sim.tasks()[t];
    cpu_time += (churn_slot_free(k) ? 0 : sim.cpu_time(t)) + k.children.cpu_ns;
  }
  if (cpu_time != busy)
    fail(target, "the tasks' CPU time %llu != the CPUs' busy time %llu\n--- scenario ---\n%s",
         static_cast<unsigned long long>(cpu_time), static_cast<unsigned long long>(busy), reproducer().c_str());
  return 0;
}

}  // namespace cfsv::fuzz
