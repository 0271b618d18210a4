// cfsv run --series, --csv, --svg and --heatmap: the CSV's values against
// hand-computed figures, the SVGs parsed by python3 (well-formed, every
// coordinate inside the picture, a line per column, a cell per CPU and
// bucket), heat-map buckets against known runqueue lengths, bounded memory,
// and the bad flags.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "cli/chart.h"
#include "cli/series.h"
#include "cli/svg.h"
#include "cli/tests/run.h"
#include "model/scenario_text.h"

namespace cfsv::cli {
namespace {

using test::cfsv;
using test::Output;
using test::temp_path;
using test::validate;
using test::write_temp;

// The CSV as rows of cells, keyed by t_ns and column name.
std::map<uint64_t, std::map<std::string, std::string>> csv_rows(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head;
  std::istringstream h(line);
  for (std::string c; std::getline(h, c, ',');) head.push_back(c);
  EXPECT_EQ(head.at(0), "t_ns");
  std::map<uint64_t, std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::size_t start = 0;
    for (std::size_t comma; (comma = line.find(',', start)) != line.npos; start = comma + 1)
      cells.push_back(line.substr(start, comma - start));
    cells.push_back(line.substr(start));
    EXPECT_EQ(cells.size(), head.size()) << line;
    auto& row = rows[std::stoull(cells[0])];
    for (std::size_t i = 1; i < cells.size() && i < head.size(); ++i) row[head[i]] = cells[i];
  }
  return rows;
}

Scenario parse(const std::string& text) {
  auto r = parse_scenario(text, "test.scn");
  EXPECT_TRUE(std::holds_alternative<Scenario>(r));
  return std::get<Scenario>(r);
}

// One busy task alone on CPU 0, one that runs 2 ms of every 10 ms alone on
// CPU 1: their CPU time at each millisecond is known without the model.
TEST(Charts, CsvGivesEachTasksCpuTimeAndStateAtEachStep) {
  const std::string scn = write_temp(".scn",
                                     "kernel v5.15\ntopology cores=2\nset hz=1000\n"
                                     "task a cpus=0\ntask b cpus=1 run=2ms sleep=8ms\nrun 30500us\n");
  const Output r = cfsv({"run", "--series", "a:se.sum_exec_runtime,b:se.sum_exec_runtime,b:state", scn});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("t_ns,a:se.sum_exec_runtime,b:se.sum_exec_runtime,b:state\n")) << r.out;
  const auto rows = csv_rows(r.out);
  ASSERT_EQ(rows.size(), 32u);  // 0, 1ms, ..., 30ms and the end, 30.5ms
  for (const auto& [t, row] : rows) {
    EXPECT_EQ(row.at("a:se.sum_exec_runtime"), std::to_string(t)) << t;
    const uint64_t in_period = t % 10'000'000, ran = t / 10'000'000 * 2'000'000 + std::min<uint64_t>(in_period, 2'000'000);
    EXPECT_EQ(row.at("b:se.sum_exec_runtime"), std::to_string(ran)) << t;
    // Running from each wakeup (at 0, 10ms, 20ms, 30ms) until 2 ms later.
    EXPECT_EQ(row.at("b:state"), in_period < 2'000'000 ? "2" : "0") << t;
  }
  EXPECT_TRUE(rows.count(30'500'000));
}

// Group /g (cpu.shares 1024) has nice-0 tasks x, y and a nice-1 task z on
// CPU 0 and a nice-0 task w on CPU 1. calc_group_shares by hand, v5.15
// (tg->shares = 1024 << 10, loads in scale_load_down units):
//   CPU 0 load 1024 + 1024 + 820 = 2868, CPU 1 load 1024, tg load 3892;
//   CPU 0: 1048576 * 2868 / 3892 = 772691 (772691.6 floored) -> se.load.weight 772691 >> 10 = 754;
//   CPU 1: 1048576 * 1024 / 3892 = 275884 (275884.7 floored) -> se.load.weight 269.
// The root cfs_rq of each CPU holds just the group's entity: its load is that weight.
TEST(Charts, CsvGivesGroupWeightsAsCalcGroupSharesByHand) {
  const std::string scn = write_temp(".scn",
                                     "kernel v5.15\ntopology cores=2\nset hz=1000\ngroup /g shares=1024\n"
                                     "task x group=/g cpus=0\ntask y group=/g cpus=0\ntask z group=/g nice=1 cpus=0\n"
                                     "task w group=/g cpus=1\nrun 20ms\n");
  const Output r = cfsv({"run", "--series", "/g,cpu0:cfs_rq.load.weight,cpu1", "--series-step", "10ms", scn});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = csv_rows(r.out);
  ASSERT_EQ(rows.size(), 3u);
  for (const uint64_t t : {10'000'000ull, 20'000'000ull}) {
    const auto& row = rows.at(t);
    EXPECT_EQ(row.at("/g@cpu0:se.load.weight"), "754");
    EXPECT_EQ(row.at("/g@cpu1:se.load.weight"), "269");
    EXPECT_EQ(row.at("/g:tg.shares"), "1024");
    EXPECT_EQ(row.at("/g:tg.load"), "3892");
    EXPECT_EQ(row.at("/g@cpu0:cfs_rq.load.weight"), "2868");
    EXPECT_EQ(row.at("/g@cpu0:cfs_rq.nr_running"), "3");
    EXPECT_EQ(row.at("/g@cpu1:cfs_rq.h_nr_running"), "1");
    EXPECT_EQ(row.at("cpu0:cfs_rq.load.weight"), "754");
    EXPECT_EQ(row.at("cpu1:cfs_rq.load.weight"), "269");
    EXPECT_EQ(row.at("cpu1:cfs_rq.h_nr_running"), "1");
    EXPECT_EQ(row.count("cpu0:cfs_rq.h_nr_running"), 0u);  // not asked for: cpu0 names only its load
  }
}

// PELT signals: a busy nice-0 task from fork (init_entity_runnable_average:
// load_avg = its weight, util_avg half the CPU's spare capacity, 512) grows
// its util_avg towards 1024 (after 100 ms of running, 1024 - 512 y^100 ~ 965
// give or take the first period); its load_avg stays at its weight.
// The same columns are empty in a profile without the simulator's PELT.
TEST(Charts, PeltSignalsFollowABusyTaskAndAreEmptyWithoutPelt) {
  const std::string body = "topology cores=1\ntask a\nrun 100ms\n";
  const Output r = cfsv({"run", "--series", "a:se.load_avg,a:se.util_avg,cpu0:cfs_rq.util_avg", "--series-step",
                         "50ms", write_temp(".scn", "kernel v5.15\n" + body)});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = csv_rows(r.out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows.at(0).at("a:se.util_avg"), "512");
  const int64_t load = std::stoll(rows.at(100'000'000).at("a:se.load_avg"));
  const int64_t util = std::stoll(rows.at(100'000'000).at("a:se.util_avg"));
  EXPECT_GE(load, 1023);
  EXPECT_LE(load, 1024);
  EXPECT_GE(util, 955);
  EXPECT_LE(util, 1024);
  EXPECT_GT(util, std::stoll(rows.at(50'000'000).at("a:se.util_avg")));
  EXPECT_EQ(rows.at(100'000'000).at("cpu0:cfs_rq.util_avg"), rows.at(100'000'000).at("a:se.util_avg"));
  const Output off = cfsv({"run", "--series", "a:se.load_avg", write_temp(".scn", "kernel v4.4\nfeature pelt_v4_4=off\n" + body)});
  ASSERT_EQ(off.code, 0) << off.err;
  for (const auto& [t, row] : csv_rows(off.out)) EXPECT_EQ(row.at("a:se.load_avg"), "") << t;
  // v4.4 tracks load and util but has no runnable_avg; v3.10 has neither of
  // those two (its load_avg is load_avg_contrib).
  const Output v4 = cfsv({"run", "--series", "a:se.load_avg,a:se.runnable_avg", write_temp(".scn", "kernel v4.4\n" + body)});
  ASSERT_EQ(v4.code, 0) << v4.err;
  EXPECT_NE(csv_rows(v4.out).at(100'000'000).at("a:se.load_avg"), "");
  EXPECT_EQ(csv_rows(v4.out).at(100'000'000).at("a:se.runnable_avg"), "");
  const Output v3 = cfsv({"run", "--series", "a:se.load_avg,a:se.util_avg", write_temp(".scn", "kernel v3.10\n" + body)});
  ASSERT_EQ(v3.code, 0) << v3.err;
  EXPECT_EQ(csv_rows(v3.out).at(100'000'000).at("a:se.load_avg"), "1023");
  EXPECT_EQ(csv_rows(v3.out).at(100'000'000).at("a:se.util_avg"), "");
}

// --phases stops the run before each timed op; the samples are the same.
TEST(Charts, PhasesDoNotChangeTheSamples) {
  const std::string scn = std::string(CFSV_SOURCE_DIR) + "/examples/cgroup_v2.scn";
  const std::string plain = temp_path(".plain.csv"), phased = temp_path(".phased.csv");
  ASSERT_EQ(cfsv({"run", scn, "--series", "b0,/batch", "--csv", plain}).code, 0);
  const Output r = cfsv({"run", scn, "--series", "b0,/batch", "--csv", phased, "--phases"});
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("\nphase 4: 800ms .. 1s (line 19: move b0 /web)\n"), r.out.npos);
  const std::string text = test::read_file(plain);
  EXPECT_EQ(csv_rows(text).size(), 1001u);
  EXPECT_EQ(test::read_file(phased), text);
}

TEST(Charts, SeriesItemsExpandToTheirColumns) {
  const Scenario sc = parse("topology cores=2\ngroup /g\ntask a group=/g\nat 5ms spawn b\nrun 10ms\n");
  auto labels = [&](const std::string& spec) {
    auto r = parse_series(spec, sc);
    std::string out;
    if (auto* why = std::get_if<std::string>(&r)) return "error: " + *why;
    for (const SeriesColumn& c : std::get<std::vector<SeriesColumn>>(r)) out += c.label + " ";
    return out;
  };
  EXPECT_EQ(labels("b:se.load.weight,a:state"), "b:se.load.weight a:state ");
  EXPECT_EQ(labels("/g@cpu1:se.load.weight,/g:tg.shares"), "/g@cpu1:se.load.weight /g:tg.shares ");
  EXPECT_EQ(labels("/g:cfs_rq.nr_running"), "/g@cpu0:cfs_rq.nr_running /g@cpu1:cfs_rq.nr_running ");
  EXPECT_EQ(labels("/:cfs_rq.load.weight,cpu0:cfs_rq.load.weight"), "cpu0:cfs_rq.load.weight cpu1:cfs_rq.load.weight ");
  std::size_t per_task = 0, per_cfs_rq = 0, per_group = 0, per_entity = 0;
  for (const Signal& g : all_signals()) {
    per_task += ((g.on & on_task) != 0) + ((g.on & on_entity) != 0);
    per_entity += (g.on & on_entity) != 0;
    per_cfs_rq += (g.on & on_cfs_rq) != 0;
    per_group += (g.on & on_group) != 0;
  }
  EXPECT_EQ(std::get<std::vector<SeriesColumn>>(parse_series("a", sc)).size(), per_task);
  EXPECT_EQ(std::get<std::vector<SeriesColumn>>(parse_series("/g", sc)).size(), per_group + 2 * (per_entity + per_cfs_rq));
  EXPECT_EQ(std::get<std::vector<SeriesColumn>>(parse_series("cpu1", sc)).size(), per_cfs_rq);
  EXPECT_EQ(labels("nope"), "error: 'nope': no task, group or CPU 'nope' in the scenario");
  EXPECT_EQ(labels("/h"), "error: '/h': no group '/h' in the scenario");
  EXPECT_EQ(labels("cpu2"), "error: 'cpu2': the scenario has 2 CPUs (cpu0..cpu1)");
  EXPECT_EQ(labels("a@cpu0"), "error: 'a@cpu0': @cpuN is for a group, not for a task");
  EXPECT_EQ(labels("/g@x"), "error: '/g@x': 'x' is not cpuN");
  EXPECT_TRUE(labels("a:cfs_rq.load.weight").starts_with("error: 'a:cfs_rq.load.weight': 'cfs_rq.load.weight' is not one of its signals: state, "))
      << labels("a:cfs_rq.load.weight");
  EXPECT_TRUE(labels("a:bogus").starts_with("error: 'a:bogus'")) << labels("a:bogus");
  EXPECT_EQ(labels("a,"), "error: empty entity in '' (a task, a group path or cpuN)");
}

// M4: at most four points per column whatever the number of samples, the
// extremes of each column kept; every sample kept while they fit.
TEST(Charts, LineChartKeepsBoundedPointsAndTheExtremes) {
  LineChart few({{"x", "ns"}}, 1000);
  for (Nanos t = 0; t < 100 * 1000; t += 1000) few.add(0, t, static_cast<int64_t>(t % 7));
  EXPECT_EQ(few.points(), 100u);
  LineChart many({{"x", "ns"}, {"y", "weight"}}, 1000);
  for (Nanos t = 0; t < 1'000'000 * 1000ull; t += 1000) {
    many.add(0, t, t == 123'456'000 ? -5 : static_cast<int64_t>(t / 1000 % 100));
    many.add(1, t, 1);
  }
  EXPECT_LE(many.points(), 2 * 4 * LineChart::kColumns);
  EXPECT_GE(many.column_width(), 1'000'000 * 1000ull / LineChart::kColumns);
  const std::string svg_file = temp_path(".svg");
  {
    std::ofstream f(svg_file);
    many.write_svg(f, "title <&>");
  }
  const std::string out = validate("svg", svg_file);
  EXPECT_NE(out.find("panel ns\npanel weight\npolylines 2\n"), std::string::npos) << out;
  // The one negative sample (-5 among 0..99) was kept: the ns panel's axis
  // goes down to the tick below it, -50 (ticks every 50 for a span of 104).
  const std::string text = test::read_file(svg_file);
  EXPECT_NE(text.find(">-50ns</text>"), text.npos);
  EXPECT_NE(text.find("<title>title &lt;&amp;&gt;</title>"), text.npos);
}

TEST(Charts, DocsListEverySignal) {
  const std::string doc = test::read_file(std::string(CFSV_SOURCE_DIR) + "/docs/cli.md");
  for (const Signal& g : all_signals())
    for (const SignalOn kind : kSignalKinds)
      if (g.on & kind) {
        EXPECT_NE(doc.find("| `" + full_name(g, kind) + "` | " + std::string(g.unit) + " |"), doc.npos)
            << full_name(g, kind);
      }
}

TEST(Charts, TicksAreNiceSteps) {
  EXPECT_EQ(svg::nice_step(0), 1u);
  EXPECT_EQ(svg::nice_step(3), 5u);
  EXPECT_EQ(svg::nice_step(250000), 500000u);
  EXPECT_EQ(svg::ticks(-7, 12, 4), (std::vector<int64_t>{-5, 0, 5, 10}));
  EXPECT_EQ(svg::ticks(0, 1'000'000'000, 5), (std::vector<int64_t>{0, 200'000'000, 400'000'000, 600'000'000,
                                                                    800'000'000, 1'000'000'000}));
  EXPECT_EQ(svg::duration(-1'500'000), "-1.5ms");
}

TEST(Charts, SvgHasALinePerColumnInAPanelPerUnit) {
  const std::string scn = std::string(CFSV_SOURCE_DIR) + "/examples/cgroup_v2.scn", svg_file = temp_path(".svg");
  const Output r = cfsv({"run", "--series", "w0,/web:se.load.weight", "--svg", svg_file, scn});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("invariants: all"), std::string::npos) << "the table stays on stdout";
  const std::string out = validate("svg", svg_file);
  // A task's 8 signals (PELT's in a capacity panel) and one group weight.
  EXPECT_NE(out.find("panel state\npanel cpu\npanel count\npanel ns\npanel weight\npanel capacity\n"
                     "polylines 13\n"),
            out.npos)
      << out;
  // 1 s in 1 ms steps: 1001 samples, more than the 800 columns; late spawns
  // and the like aside, each line has at most 4 points per column.
  for (const char* line : {"line w0:state ", "line /web@cpu1:se.load.weight "}) {
    const std::size_t at = out.find(line);
    ASSERT_NE(at, out.npos) << line;
    const int n = std::stoi(out.substr(at + std::strlen(line)));
    EXPECT_GT(n, 100);
    EXPECT_LE(n, 4 * static_cast<int>(LineChart::kColumns));
  }
}

// CPU 0 has three busy tasks from 0; CPU 1 one, and a second from 50.25ms;
// CPU 2 none (its cells are the white background: no rects).
// Expected end 100 ms: buckets of 500 us (the smallest 1/2/5 step giving at
// most 400), 200 of them. Bucket [50ms, 50.5ms) of CPU 1: 0.25 ms at 1, 0.25
// ms at 2, a mean of 1.5.
TEST(Charts, HeatmapCellsAreTimeWeightedMeanRunqueueLengths) {
  const std::string scn = write_temp(".scn",
                                     "kernel v5.15\ntopology cores=3\nset hz=1000\ntask a cpus=0\ntask b cpus=0\n"
                                     "task c cpus=0\ntask d cpus=1\nat 50250us spawn e cpus=1\nrun 100ms\n");
  const std::string svg_file = temp_path(".svg");
  const Output r = cfsv({"run", "--heatmap", svg_file, scn});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string out = validate("svg", svg_file);
  EXPECT_NE(out.find("cells 400\n"), out.npos) << out.substr(0, 200);
  for (const char* cell : {"cell CPU 0, 0ns..500us: 3.000\n", "cell CPU 0, 99.5ms..100ms: 3.000\n",
                           "cell CPU 1, 49.5ms..50ms: 1.000\n", "cell CPU 1, 50ms..50.5ms: 1.500\n",
                           "cell CPU 1, 50.5ms..51ms: 2.000\n", "cell CPU 1, 99.5ms..100ms: 2.000\n"})
    EXPECT_NE(out.find(cell), out.npos) << cell;
}

// CSV streamed, the chart's points and the heat map's buckets bounded: the
// peak RSS of 1000 s of simulated time is that of 10 s.
TEST(Charts, MemoryDoesNotGrowWithSimulatedTime) {
  const std::string short_run = write_temp(".10s.scn", "topology cores=2\ntask a\ntask b\nrun 10s\n");
  const std::string long_run = write_temp(".1000s.scn", "topology cores=2\ntask a\ntask b\nrun 1000s\n");
  const auto rss = [&](const std::string& scn) {
    return test::max_rss_kb({CFSV_BIN, "run", scn, "--check-every", "0", "--series", "a,b,/,cpu0", "--series-step",
                             "10ms", "--csv", "/dev/null", "--svg", "/dev/null", "--heatmap", "/dev/null"});
  };
  const long at10 = rss(short_run), at1000 = rss(long_run);
  EXPECT_LT(at1000, at10 + 2048) << at10 << " KB for 10 s, " << at1000 << " KB for 1000 s";
}

TEST(Charts, BadFlagsExit2WithAMessage) {
  const std::string scn = std::string(CFSV_SOURCE_DIR) + "/examples/wakeups.scn";
  const std::map<std::vector<std::string>, std::string> bad = {
      {{"--csv", "x.csv"}, "--csv needs --series (what to sample)"},
      {{"--svg", "x.svg"}, "--svg needs --series (what to draw; --heatmap draws runqueue lengths)"},
      {{"--series-step", "1ms"}, "--series-step needs --series"},
      {{"--series", "a", "--series-step", "0"}, "--series-step: the step must be more than 0"},
      {{"--series", "a", "--json"}, "--series without --csv or --svg prints CSV on stdout, and so do --json and "
                                    "--perf; choose one, or give --csv FILE"},
      {{"--series", "zz"}, "--series: 'zz': no task, group or CPU 'zz' in the scenario"},
      {{"--series", ""}, "--series: needs at least one ENTITY"},
      {{"--series", "a", "--csv", "/nonexistent-dir/x.csv"}, "--csv: cannot write '/nonexistent-dir/x.csv'"},
      {{"--heatmap", "/nonexistent-dir/h.svg"}, "--heatmap: cannot write '/nonexistent-dir/h.svg'"},
      {{"--series", "a", "--svg", "same.svg", "--heatmap", "same.svg"}, "'same.svg' is named by two outputs"},
  };
  for (const auto& [flags, message] : bad) {
    std::vector<std::string> args = {"run", scn};
    args.insert(args.end(), flags.begin(), flags.end());
    const Output r = cfsv(args);
    EXPECT_EQ(r.code, 2) << flags[0];
    EXPECT_EQ(r.err, "cfsv run: " + message + "\n") << flags[0];
    EXPECT_EQ(r.out, "") << flags[0];
  }
  EXPECT_FALSE(std::ifstream("same.svg")) << "nothing is written on bad input";
  const Output full = cfsv({"run", scn, "--series", "a", "--csv", "/dev/full"});
  EXPECT_EQ(full.code, 2);
  EXPECT_EQ(full.err, "cfsv run: cannot write '/dev/full': No space left on device\n");
  const Output svg_full = cfsv({"run", scn, "--heatmap", "/dev/full"});
  EXPECT_EQ(svg_full.code, 2);
  EXPECT_EQ(svg_full.err, "cfsv run: cannot write '/dev/full': No space left on device\n");
}

}  // namespace
}  // namespace cfsv::cli
