// The simulator's speed (model/sim.h), with and without the invariant checker
// (arg `check`: SimOptions::check_every, 0 never, 1 after every op and event,
// N after every Nth; the trace is not recorded):
//  - simulated seconds per wall second ("sim_s_per_wall_s") on seed 003
//    (examples/seed003.scn, flat_slice off and on) and on a 64-CPU machine
//    with 1,000 tasks that run and sleep;
//  - ops/s of Sim::apply on a stream of random ops (model/ops_decoder.h);
//  - executions/s of one fuzz_ops execution (fuzz/ops_input.h);
//  - the set-up of N tasks and G groups on C CPUs (parse + the Sim's time 0).
// Run: cfsv_bench --benchmark_filter=Sim
#include <benchmark/benchmark.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <variant>
#include <vector>

#include "fuzz/ops_input.h"
#include "model/deterministic_random.h"
#include "model/ops_decoder.h"
#include "model/scenario_text.h"
#include "model/sim.h"
#include "model/stats.h"
#include "model/trace.h"

namespace cfsv {
namespace {

constexpr Nanos kSecond = 1'000'000'000;

// The op decoder's reader, fed from the suite's PRNG: it never runs out.
struct RandomReader : DeterministicRandom {
  using DeterministicRandom::DeterministicRandom;
  bool exhausted() const { return false; }
};


SimOptions options(uint64_t check_every, SchedSink* sink = nullptr) {
  return SimOptions{.check_every = check_every, .record_trace = false, .sink = sink};
}

// Runs `sc` for `sim_time` per iteration (construction not timed) and reports
// the simulated seconds per wall second (real time: run on an idle machine).
void run_for(benchmark::State& state, const Scenario& sc, Nanos sim_time, uint64_t check_every,
             const std::function<std::unique_ptr<SchedSink>()>& make_sink = {}) {
  double simulated = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const std::unique_ptr<SchedSink> sink = make_sink ? make_sink() : nullptr;
    auto sim = std::make_unique<Sim>(sc, options(check_every, sink.get()));
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

// examples/seed003.scn with flat_slice on or off (nullopt: a parse error, reported).
std::optional<Scenario> seed003(benchmark::State& state, bool flat_slice) {
  const auto path = std::filesystem::path(__FILE__).parent_path().parent_path() / "examples" / "seed003.scn";
  ParseResult r = load_scenario_file(path.string());
  if (auto* e = std::get_if<ParseError>(&r)) {
    state.SkipWithError(e->to_string().c_str());
    return std::nullopt;
  }
  Scenario sc = std::get<Scenario>(r);
  std::erase_if(sc.feature_overrides, [](const auto& f) { return f.first == Feature::flat_slice; });
  sc.feature_overrides.emplace_back(Feature::flat_slice, flat_slice);
  return sc;
}

// examples/seed003.scn: 4 groups x 20 busy tasks on CPU 3; args: flat_slice, check.
void BM_SimSeed003(benchmark::State& state) {
  if (const auto sc = seed003(state, state.range(0) != 0)) run_for(state, *sc, kSecond, state.range(1));
}
BENCHMARK(BM_SimSeed003)->ArgNames({"flat_slice", "check"})->ArgsProduct({{0, 1}, {0, 1}})->UseRealTime()->Unit(benchmark::kMillisecond);

// Seed 003's machine on the v5.15 profile, where PELT runs: arg pelt 0
// (pelt_v5 off: the instantaneous shares, no load tracking) or 1; no checks.
void BM_SimSeed003V5_15(benchmark::State& state) {
  if (auto sc = seed003(state, false)) {
    sc->kernel = "v5.15";
    sc->feature_overrides.emplace_back(Feature::pelt_v5, state.range(0) != 0);
    run_for(state, *sc, kSecond, 0);
  }
}
BENCHMARK(BM_SimSeed003V5_15)->ArgName("pelt")->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);

// What cfsv run adds: seed003 (flat_slice off, no checks) with the statistics
// (sinks 1) or the statistics and both trace writers into a null stream (2).
void BM_SimSeed003Reports(benchmark::State& state) {
  struct NullBuf final : std::streambuf {
    int_type overflow(int_type c) override { return traits_type::not_eof(c); }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
  };
  struct Reports final : SinkTee {
    explicit Reports(bool traces) {
      add(&stats);
      if (traces) add(&perf), add(&perfetto);
    }
    NullBuf buf;
    std::ostream null{&buf};
    Stats stats;
    PerfScriptWriter perf{null, "null"};
    PerfettoWriter perfetto{null, "null"};
  };
  const bool traces = state.range(0) == 2;
  if (const auto sc = seed003(state, false))
    run_for(state, *sc, kSecond, 0, [traces] { return std::make_unique<Reports>(traces); });
}
BENCHMARK(BM_SimSeed003Reports)->ArgName("sinks")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// 64 CPUs (2 sockets x 16 cores x 2 threads), 1,000 tasks, each run=<0.1..5ms>
// sleep=<0.1..20ms> from a fixed seed, spread by the model's placement (the
// lowest allowed CPU with the fewest runnable tasks); args: check (0, 1 or
// every Nth step), pelt (0: pelt_v5 off; 1: on, the v5.15 profile as it is).
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
  Scenario with = sc;
  with.feature_overrides.emplace_back(Feature::pelt_v5, state.range(1) != 0);
  run_for(state, with, kSecond, state.range(0));
}
BENCHMARK(BM_Sim64Cpu1000Tasks)
    ->ArgNames({"check", "pelt"})
    ->ArgsProduct({{0, 1, 64, 1000}, {0, 1}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The same machine and tasks with PELT, load balancing and the kernel's
// placement on (issue 9's yardstick: 100x real time with checks every 1,000
// events); arg: check.
void BM_Sim64Cpu1000TasksBalancing(benchmark::State& state) {
  static const Scenario sc = [] {
    Scenario s = machine_64cpu_1000_tasks();
    for (const Feature f : {Feature::pelt_v5, Feature::load_balance, Feature::kernel_placement})
      s.feature_overrides.emplace_back(f, true);
    return s;
  }();
  run_for(state, sc, kSecond, state.range(0));
}
BENCHMARK(BM_Sim64Cpu1000TasksBalancing)->ArgName("check")->Arg(0)->Arg(1000)->UseRealTime()->Unit(benchmark::kMillisecond);

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
  std::unique_ptr<Sim> reused;
  for (auto _ : state) {
    const Sim& sim = fuzz::run_ops(decoder, r, setup, reused, [](const Sim&, const Op&) {});
    benchmark::DoNotOptimize(sim.checker()->ok());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SimFuzzOpsExecution);

// Set-up: what `cfsv run` does before the first event, parsing the text and
// building the Sim (the time-0 groups and tasks, one invariant check) for N
// busy tasks, each in one of G groups (none: the root) on C CPUs; args:
// tasks, groups, cpus. It grows linearly in tasks + groups x CPUs.
void BM_SimSetup(benchmark::State& state) {
  const auto tasks = state.range(0), groups = state.range(1), cpus = state.range(2);
  std::string text = "topology cores=" + std::to_string(cpus) + "\n";
  for (int64_t g = 0; g < groups; ++g) text += "group /g" + std::to_string(g) + "\n";
  for (int64_t t = 0; t < tasks; ++t)
    text += "task t" + std::to_string(t) + (groups ? " group=/g" + std::to_string(t % groups) : "") + "\n";
  text += "run 1ms\n";
  for (auto _ : state) {
    ParseResult r = parse_scenario(text);
    if (auto* e = std::get_if<ParseError>(&r)) {
      state.SkipWithError(e->to_string().c_str());
      return;
    }
    Sim sim(std::get<Scenario>(r), SimOptions{.check_every = 1, .record_trace = false});
    benchmark::DoNotOptimize(sim.checker()->checks());
  }
  state.SetItemsProcessed(state.iterations() * (tasks + groups * cpus));
}
BENCHMARK(BM_SimSetup)
    ->ArgNames({"tasks", "groups", "cpus"})
    ->Args({10'000, 0, 1})
    ->Args({20'000, 0, 1})
    ->Args({40'000, 0, 1})
    ->Args({100'000, 0, 256})
    ->Args({0, 1'000, 256})
    ->Args({0, 2'000, 256})
    ->Args({0, 4'000, 256})
    ->Args({0, 100'000, 1})
    ->Args({10'000, 1'000, 64})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cfsv
