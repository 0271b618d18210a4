// The simulator's speed (model/sim.h), with and without the invariant checker
// (arg `check`: SimOptions::check_every, 0 never, 1 after every op and event,
// N after every Nth; the trace is not recorded):
//  - simulated seconds per wall second ("sim_s_per_wall_s") on seed 003
//    (examples/seed003.scn, flat_slice off and on) and on a 64-CPU machine
//    with 1,000 tasks that run and sleep;
//  - ops/s of Sim::apply on a stream of random ops (model/ops_decoder.h);
//  - executions/s of one fuzz_ops execution (fuzz/ops_input.h).
// Run: cfsv_bench --benchmark_filter=Sim
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "fuzz/ops_input.h"
#include "model/deterministic_random.h"
#include "model/ops_decoder.h"
#include "model/scenario_text.h"
#include "model/sim.h"

namespace cfsv {
namespace {

constexpr Nanos kSecond = 1'000'000'000;

// The op decoder's reader, fed from the suite's PRNG: it never runs out.
struct RandomReader : DeterministicRandom {
  using DeterministicRandom::DeterministicRandom;
  bool exhausted() const { return false; }
};


SimOptions options(uint64_t check_every) { return SimOptions{.check_every = check_every, .record_trace = false}; }

// Runs `sc` for `sim_time` per iteration (construction not timed) and reports
// the simulated seconds per wall second (real time: run on an idle machine).
void run_for(benchmark::State& state, const Scenario& sc, Nanos sim_time, uint64_t check_every) {
  double simulated = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto sim = std::make_unique<Sim>(sc, options(check_every));
    state.ResumeTiming();
    sim->run_until(sim_time);
    simulated += double(sim_time) / double(kSecond);
    benchmark::DoNotOptimize(sim->counters().events);
    state.PauseTiming();
    sim.reset();
    state.ResumeTiming();
  }
  state.counters["sim_s_per_wall_s"] = benchmark::Counter(simulated, benchmark::Counter::kIsRate);
}

// examples/seed003.scn: 4 groups x 20 busy tasks on CPU 3; args: flat_slice, check.
void BM_SimSeed003(benchmark::State& state) {
  const auto path = std::filesystem::path(__FILE__).parent_path().parent_path() / "examples" / "seed003.scn";
  ParseResult r = load_scenario_file(path.string());
  if (auto* e = std::get_if<ParseError>(&r)) {
    state.SkipWithError(e->to_string().c_str());
    return;
  }
  Scenario sc = std::get<Scenario>(r);
  std::erase_if(sc.feature_overrides, [](const auto& f) { return f.first == Feature::flat_slice; });
  sc.feature_overrides.emplace_back(Feature::flat_slice, state.range(0) != 0);
  run_for(state, sc, kSecond, state.range(1));
}
BENCHMARK(BM_SimSeed003)->ArgNames({"flat_slice", "check"})->ArgsProduct({{0, 1}, {0, 1}})->UseRealTime()->Unit(benchmark::kMillisecond);

// 64 CPUs (2 sockets x 16 cores x 2 threads), 1,000 tasks, each run=<0.1..5ms>
// sleep=<0.1..20ms> from a fixed seed, spread by the model's placement (the
// lowest allowed CPU with the fewest runnable tasks); arg: check (0, 1 or every 64th step).
Scenario machine_64cpu_1000_tasks() {
  Scenario s;
  s.kernel = "v5.15";
  s.topology = {2, 16, 2};
  RandomReader r{2025};
  for (int i = 0; i < 1000; ++i) {
    TaskSpec t;
    t.name = "t" + std::to_string(i);
    t.nice = static_cast<int>(r.range(0, 10)) - 5;
    t.behaviour = RunPeriodic{r.range(100'000, 5'000'000), Nanos{r.range(100'000, 20'000'000)}};
    s.tasks.push_back(t);
  }
  s.duration = kSecond;
  return s;
}

void BM_Sim64Cpu1000Tasks(benchmark::State& state) {
  static const Scenario sc = machine_64cpu_1000_tasks();
  run_for(state, sc, kSecond, state.range(0));
}
BENCHMARK(BM_Sim64Cpu1000Tasks)->ArgName("check")->Arg(0)->Arg(1)->Arg(64)->UseRealTime()->Unit(benchmark::kMillisecond);

// ops/s of Sim::apply: 20,000 random ops (every kind, advances of at most
// 100 us so the simulation between ops stays small) on 4 CPUs, up to 64 tasks
// and 16 groups; arg: check.
void BM_SimApplyRandomOps(benchmark::State& state) {
  static const Scenario sc = [] {
    RandomReader r{7};
    DecodeOptions o;
    o.max_tasks = 64;
    o.max_groups = 16;
    o.max_ops = 20'000;
    o.max_advance = 100'000;
    o.max_time = UINT64_MAX / 4;
    return decode_ops_scenario(r, o);
  }();
  Scenario start = sc;
  start.ops.clear();
  for (auto _ : state) {
    state.PauseTiming();
    auto sim = std::make_unique<Sim>(start, options(state.range(0)));
    state.ResumeTiming();
    for (const TimedOp& o : sc.ops) sim->apply(o.op);
    benchmark::DoNotOptimize(sim->counters().ops);
    state.PauseTiming();
    sim.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * sc.ops.size()));
}
BENCHMARK(BM_SimApplyRandomOps)->ArgName("check")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// One fuzz_ops execution without libFuzzer or sanitizers (fuzz::run_ops, as
// the target runs it) on random inputs of 64 ops; executions/s.
void BM_SimFuzzOpsExecution(benchmark::State& state) {
  RandomReader r{11};
  OpsDecoder<RandomReader> decoder;
  Scenario setup;
  for (auto _ : state) {
    const auto sim = fuzz::run_ops(decoder, r, setup, [](const Sim&, const Op&) {});
    benchmark::DoNotOptimize(sim->checker()->ok());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SimFuzzOpsExecution);

}  // namespace
}  // namespace cfsv
