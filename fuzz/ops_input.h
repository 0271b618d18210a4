// How the ops targets turn their input bytes into scenarios
// (model/ops_decoder.h within DecodeOptions' default bounds), written once for
// the targets and for `cfsv fuzz`, which decodes a crash input the same way to
// write it back as a scenario file (fuzz/reproducer.h); and one fuzz_ops
// execution, which bench/ times too.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "claims/sim_diff.h"  // with_overrides
#include "fuzz/byte_reader.h"
#include "model/ops_decoder.h"
#include "model/sim.h"

namespace cfsv::fuzz {

// fuzz_ops' checking: after the set-up, after every op that changed the
// state (run_ops), after every 16th step (op or event) and at the end. The
// checks after ops and steps look only at the CPUs touched since the last
// check; every 8th check, the set-up's and the last look at everything.
inline const SimOptions kOpsSimOptions{.check_every = 16, .full_check_every = 8, .record_trace = false};

// One fuzz_ops execution on a reader's values: the set-up decoded into
// `setup` (kept by the caller with `decoder` and `sim`, so that their buffers
// are reused), `sim` made from it (on the first call; reset on the next ones)
// and checked, each op applied as it is decoded, as Sim::run applies a timed
// op, then `after_op(sim, op)` and a check; at the end the run to its length
// and a last check. No check follows an op that left the state as the last
// check saw it: a rejected op, or an advance during which no event happened.
template <class Reader, class AfterOp>
Sim& run_ops(OpsDecoder<Reader>& decoder, Reader& r, Scenario& setup, std::unique_ptr<Sim>& sim, AfterOp&& after_op) {
  decoder.begin(r, setup);
  if (sim) sim->reset(setup);
  else sim = std::make_unique<Sim>(setup, kOpsSimOptions);
  sim->check_now("set-up");
  for (TimedOp t; decoder.next(t);) {
    sim->run_until(t.at);
    const uint64_t events = sim->counters().events;
    const bool applied = sim->apply(t.op) == ApplyResult::applied;
    after_op(*sim, t.op);
    if (applied && (!std::holds_alternative<op::Advance>(t.op) || sim->counters().events != events))
      sim->check_touched("op");
  }
  sim->run_until(std::max(decoder.duration(), sim->now()));
  sim->check_now("end of run");
  return *sim;
}

// fuzz_ops (and fuzz_balance_ops, with its options): the whole input is one scenario.
inline Scenario ops_scenario(std::span<const uint8_t> in, DecodeOptions o = {}) {
  ByteReader r(in.data(), in.size());
  return decode_ops_scenario(r, o);
}
inline constexpr DecodeOptions kOpsOptions{.churn = true};
inline constexpr DecodeOptions kBalanceOpsOptions{.max_time = 40'000'000, .balancing = true};

// fuzz_flat_slice_diff: the first value picks the decoder's mode (any tasks /
// only run=busy / only tasks in the root group / both), the rest is the scenario.
inline DecodeOptions flat_slice_diff_options(ByteReader& r) {
  const uint64_t mode = r.range(0, 3);
  return DecodeOptions{.busy_only = (mode & 1) != 0, .root_tasks_only = (mode & 2) != 0};
}
inline Scenario flat_slice_diff_scenario(std::span<const uint8_t> in) {
  ByteReader r(in.data(), in.size());
  const DecodeOptions o = flat_slice_diff_options(r);
  return decode_ops_scenario(r, o);
}

// The scenarios an ops target runs on an input (fuzz_flat_slice_diff runs two),
// or none when `target` does not decode ops.
inline std::vector<Scenario> ops_target_scenarios(std::string_view target, std::span<const uint8_t> in) {
  if (target == "fuzz_ops") return {ops_scenario(in, kOpsOptions)};
  if (target == "fuzz_balance_ops") return {ops_scenario(in, kBalanceOpsOptions)};
  if (target == "fuzz_flat_slice_diff") {
    const Scenario s = flat_slice_diff_scenario(in);
    return {with_overrides(s, {{Feature::flat_slice, false}}), with_overrides(s, {{Feature::flat_slice, true}})};
  }
  return {};
}

}  // namespace cfsv::fuzz
