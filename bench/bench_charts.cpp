// What `cfsv run --series/--svg/--heatmap` costs: seed 003 (examples/seed003.scn,
// 4 CPUs, 80 busy tasks, 1 s) run with no chart (arg 0), with every signal of
// group /g0 and of CPU 3 (34 columns) sampled every 1 ms into a CSV on a null
// stream and a LineChart (1), or with the runqueue heat map (2).
// Run: cfsv_bench --benchmark_filter=Charts
#include <benchmark/benchmark.h>

#include <filesystem>
#include <ostream>
#include <streambuf>
#include <variant>

#include "cli/heatmap.h"
#include "cli/series.h"
#include "model/scenario_text.h"

namespace cfsv::cli {
namespace {

void BM_ChartsSeed003(benchmark::State& state) {
  struct NullBuf final : std::streambuf {
    int_type overflow(int_type c) override { return traits_type::not_eof(c); }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
  } buf;
  std::ostream null(&buf);
  const auto path = std::filesystem::path(__FILE__).parent_path().parent_path() / "examples" / "seed003.scn";
  ParseResult r = load_scenario_file(path.string());
  if (auto* e = std::get_if<ParseError>(&r)) return state.SkipWithError(e->to_string().c_str());
  const Scenario sc = std::get<Scenario>(r);
  const auto columns = std::get<std::vector<SeriesColumn>>(parse_series("/g0,cpu3", sc));
  double simulated = 0;
  for (auto _ : state) {
    state.PauseTiming();
    LineChart chart(SeriesSampler::chart_lines(columns), 1'000'000);
    SeriesSampler sampler(columns, 1'000'000, &null, "null", &chart);
    RunqueueHeatmap heatmap(sc.topology.nr_cpus(), expected_end(sc));
    auto sim = std::make_unique<Sim>(sc, SimOptions{.check_every = 0, .sink = state.range(0) == 2 ? &heatmap : nullptr});
    state.ResumeTiming();
    if (state.range(0) == 1) sampler.run_to(*sim, sc.duration);
    else sim->run_to(sc.duration);
    simulated += static_cast<double>(sim->now()) / 1e9;
    state.PauseTiming();
    sim.reset();
    state.ResumeTiming();
  }
  state.counters["sim_s_per_wall_s"] = benchmark::Counter(simulated, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ChartsSeed003)->ArgName("chart")->Arg(0)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cfsv::cli
