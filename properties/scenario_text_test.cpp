// Scenario files: every statement (the errors: scenario_errors_test.cpp), the
// canonical printer, and the round trips parse(print(s)) == s and
// print(parse(print(s))) == print(s) over generated scenarios.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>

#include "model/op_table.h"
#include "model/ops_decoder.h"
#include "model/overloaded.h"
#include "model/scenario_text.h"
#include "properties/scenario_test_util.h"
#include "properties/source_text.h"

namespace cfsv {
namespace {

using scenario_test::parse_err;
using scenario_test::parse_ok;

TaskSpec busy(std::string name) { return {std::move(name), "/", 0, {}, RunBusy{}, ""}; }

CpuMask cpus(std::initializer_list<unsigned> list) {
  CpuMask m;
  for (unsigned c : list) m.set(c);
  return m;
}

// ---- durations and CPU lists ----------------------------------------------

TEST(ScenarioDurations, ParseUnitsAndExactDecimals) {
  EXPECT_EQ(parse_duration("0"), 0u);
  EXPECT_EQ(parse_duration("0ns"), 0u);
  EXPECT_EQ(parse_duration("7ns"), 7u);
  EXPECT_EQ(parse_duration("3us"), 3000u);
  EXPECT_EQ(parse_duration("18ms"), 18'000'000u);
  EXPECT_EQ(parse_duration("2.25ms"), 2'250'000u);
  EXPECT_EQ(parse_duration("2.2500000ms"), 2'250'000u);  // trailing zeros past 1 ns are exact
  EXPECT_EQ(parse_duration("1.000000001s"), 1'000'000'001u);
  EXPECT_EQ(parse_duration("0.5us"), 500u);
  EXPECT_EQ(parse_duration("18446744073709551615ns"), UINT64_MAX);
  EXPECT_EQ(parse_duration("18446744073.709551615s"), UINT64_MAX);
}

TEST(ScenarioDurations, RejectBadOrInexactOrOverflowing) {
  for (const char* bad : {"", "5", "ms", "1.5ns", "2.2500001ms", "0.0000000001s", ".5ms", "5.ms", "1e3ms", "-1ms",
                          "1msx", "1 ms", "18446744073709551616ns", "18446744074s", "18446744073.709551616s", "1.2.3s",
                          "1h"}) {
    std::string why;
    EXPECT_EQ(parse_duration(bad, &why), std::nullopt) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(ScenarioDurations, CanonicalFormIsTheLargestUnitReachedWithAnExactDecimal) {
  EXPECT_EQ(format_duration(0), "0ns");
  EXPECT_EQ(format_duration(999), "999ns");
  EXPECT_EQ(format_duration(1000), "1us");
  EXPECT_EQ(format_duration(1500), "1.5us");
  EXPECT_EQ(format_duration(2'250'000), "2.25ms");
  EXPECT_EQ(format_duration(2'249'996), "2.249996ms");
  EXPECT_EQ(format_duration(1'000'000'000), "1s");
  EXPECT_EQ(format_duration(1'000'000'001), "1.000000001s");
  EXPECT_EQ(format_duration(UINT64_MAX), "18446744073.709551615s");
}

RC_GTEST_PROP(ScenarioDurations, FormatThenParseIsTheIdentity, (uint64_t v)) {
  RC_ASSERT(parse_duration(format_duration(v)) == std::optional<Nanos>(v));
}

TEST(ScenarioCpuLists, PrintsTheKernelsCpulistForm) {
  EXPECT_EQ(format_cpu_list(CpuMask{}), "all");
  EXPECT_EQ(format_cpu_list(cpus({3})), "3");
  EXPECT_EQ(format_cpu_list(cpus({0, 1})), "0-1");
  EXPECT_EQ(format_cpu_list(cpus({0, 2, 4, 5, 6, 7, 255})), "0,2,4-7,255");
}

// ---- statements ----------------------------------------------------------

TEST(ScenarioStatements, MinimalFileTakesTheDefaults) {
  const Scenario s = parse_ok("run 1s\n");
  Scenario expected;
  expected.duration = 1'000'000'000;
  EXPECT_EQ(s, expected);
  EXPECT_EQ(s.kernel, "v5.15");
  EXPECT_EQ(s.topology.nr_cpus(), 1u);
}

TEST(ScenarioStatements, CommentsBlankLinesCrlfAndTabs) {
  const Scenario s = parse_ok("# a comment\n\n  \t\r\nkernel\tv4.4   # trailing comment\r\nrun 5ms#no space needed");
  EXPECT_EQ(s.kernel, "v4.4");
  EXPECT_EQ(s.duration, 5'000'000u);
}

TEST(ScenarioStatements, KernelTopologySetFeature) {
  const Scenario s = parse_ok(
      "kernel v3.10\n"
      "topology sockets=2 cores=4 threads=2\n"
      "set hz=1000 min_granularity=2.25ms latency=18ms\n"
      "set wakeup_granularity=1ms idle_min_granularity=750us migration_cost=0.5ms nr_latency=8 nr_migrate=32\n"
      "set scaling=none\nset scaling=log\nset scaling=linear\n"
      "feature flat_slice=on start_debit=off\n"
      "feature flat_slice=off\n"
      "run 200ms\n");
  EXPECT_EQ(s.kernel, "v3.10");
  EXPECT_EQ(s.topology, (Topology{2, 4, 2}));
  const std::vector<Setting> settings = {
      {"hz", 1000},           {"min_granularity", 2'250'000}, {"latency", 18'000'000},
      {"wakeup_granularity", 1'000'000}, {"idle_min_granularity", 750'000}, {"migration_cost", 500'000},
      {"nr_latency", 8},      {"nr_migrate", 32},
      {"scaling", uint64_t(TunableScaling::none)}, {"scaling", uint64_t(TunableScaling::log)},
      {"scaling", uint64_t(TunableScaling::linear)}};
  EXPECT_EQ(s.settings, settings);
  const std::vector<std::pair<Feature, bool>> features = {
      {Feature::flat_slice, true}, {Feature::start_debit, false}, {Feature::flat_slice, false}};
  EXPECT_EQ(s.feature_overrides, features);
  EXPECT_EQ(s.duration, 200'000'000u);
}

TEST(ScenarioStatements, TopologyKeysDefaultToOne) {
  EXPECT_EQ(parse_ok("topology cores=4\nrun 1s").topology, (Topology{1, 4, 1}));
}

TEST(ScenarioStatements, GroupsBySharesOrCgroupV2Weight) {
  const Scenario s = parse_ok(
      "group /a shares=2048\n"
      "group /a/b weight=200\n"
      "group /c\n"
      "group /w1 weight=1\n"
      "group /w3 weight=3\n"
      "group /wmax weight=10000\n"
      "group /smin shares=2\n"
      "group /smax shares=262144\n"
      "run 1s\n");
  ASSERT_EQ(s.groups.size(), 8u);
  EXPECT_EQ(s.groups[0], (GroupSpec{"/a", 2048}));
  EXPECT_EQ(s.groups[1], (GroupSpec{"/a/b", 2048, 200}));
  EXPECT_EQ(s.groups[2], (GroupSpec{"/c", 1024}));
  EXPECT_EQ(s.groups[3], (GroupSpec{"/w1", 10, 1}));       // 10.24 rounds to 10
  EXPECT_EQ(s.groups[4], (GroupSpec{"/w3", 31, 3}));       // 30.72 rounds to 31
  EXPECT_EQ(s.groups[5], (GroupSpec{"/wmax", 102400, 10000}));
  EXPECT_EQ(s.groups[6].shares, 2u);
  EXPECT_EQ(s.groups[7].shares, 262144u);
}

TEST(ScenarioStatements, WeightToSharesIsTheKernelsDivRoundClosest) {
  EXPECT_EQ(sched_weight_from_cgroup(100), 1024u);
  for (uint64_t w = 1; w <= 10000; ++w) {
    const uint64_t exact_x100 = w * 1024;  // shares * 100
    const uint64_t s = sched_weight_from_cgroup(w);
    EXPECT_LE(s * 100 > exact_x100 ? s * 100 - exact_x100 : exact_x100 - s * 100, 50u) << w;
  }
  EXPECT_EQ(sched_weight_from_cgroup(5), 51u);  // 51.2
  EXPECT_EQ(sched_weight_from_cgroup(25), 256u);
  EXPECT_EQ(sched_weight_from_cgroup(50), 512u);
}

TEST(ScenarioStatements, TasksAndTheirBehaviours) {
  const Scenario s = parse_ok(
      "topology cores=8\n"
      "group /g0\n"
      "task busy0 group=/g0 nice=0 cpus=3 run=busy\n"
      "task dflt\n"
      "task per nice=-20 cpus=0,2,4-7 run=1ms sleep=9ms\n"
      "task once nice=19 run=2.5ms\n"
      "task wall runtime=3ms sleep=7ms cpus=all\n"
      "task wall2 runtime=3ms\n"
      "task zero run=1ms sleep=0\n"
      "run 1s\n");
  ASSERT_EQ(s.tasks.size(), 7u);
  EXPECT_EQ(s.tasks[0], (TaskSpec{"busy0", "/g0", 0, cpus({3}), RunBusy{}, ""}));
  EXPECT_EQ(s.tasks[1], (TaskSpec{"dflt", "/", 0, {}, RunBusy{}, ""}));
  EXPECT_EQ(s.tasks[2], (TaskSpec{"per", "/", -20, cpus({0, 2, 4, 5, 6, 7}), RunPeriodic{1'000'000, 9'000'000}, ""}));
  EXPECT_EQ(s.tasks[3], (TaskSpec{"once", "/", 19, {}, RunPeriodic{2'500'000, std::nullopt}, ""}));
  EXPECT_EQ(s.tasks[4], (TaskSpec{"wall", "/", 0, {}, RunWallclock{3'000'000, 7'000'000}, ""}));
  EXPECT_EQ(s.tasks[5], (TaskSpec{"wall2", "/", 0, {}, RunWallclock{3'000'000, std::nullopt}, ""}));
  EXPECT_EQ(s.tasks[6].behaviour, Behaviour(RunPeriodic{1'000'000, 0}));
}

// parent=: the forking task. Without group=, the child's group is left empty
// (the parent's, when it forks) and printed back without group=.
TEST(ScenarioStatements, TasksWithAParent) {
  const std::string text =
      "kernel v5.15\ntopology sockets=1 cores=1 threads=1\n"
      "group /g shares=1024\n"
      "task p group=/g nice=0 run=busy\n"
      "task c parent=p nice=0 run=busy\n"
      "at 1ms spawn d group=/ parent=c nice=0 run=busy\n"
      "run 10ms\n";
  const Scenario s = parse_ok(text);
  ASSERT_EQ(s.tasks.size(), 2u);
  EXPECT_EQ(s.tasks[1], (TaskSpec{"c", "", 0, {}, RunBusy{}, "p"}));
  ASSERT_EQ(s.ops.size(), 1u);
  EXPECT_EQ(s.ops[0].op, Op(op::Spawn{TaskSpec{"d", "/", 0, {}, RunBusy{}, "c"}}));
  EXPECT_EQ(print_scenario(s), text);
  // The key may come before or after group=; group= always wins.
  EXPECT_EQ(parse_ok("task p\ntask c group=/ parent=p\nrun 1s").tasks[1].group, "/");
  EXPECT_EQ(parse_ok("task p\ntask c parent=p group=/\nrun 1s").tasks[1].group, "/");
}

TEST(ScenarioStatements, EveryTimedOp) {
  const Scenario s = parse_ok(
      "topology cores=4\n"
      "group /a\n"
      "task t group=/a\n"
      "at 1ms spawn u group=/a nice=3 cpus=1-2 run=1ms sleep=2ms\n"
      "at 2ms exit u\n"
      "at 3ms sleep t\n"
      "at 4ms wake t\n"
      "at 5ms nice t -7\n"
      "at 6ms affinity t 0,3\n"
      "at 6ms affinity t all\n"
      "at 7ms group /a/b shares=300\n"
      "at 7ms group /a/c weight=50\n"
      "at 7ms group /a/d\n"
      "at 8ms shares /a/b 4096\n"
      "at 8ms weight /a 250\n"
      "at 9ms move t /a/b\n"
      "at 9ms move t /\n"
      "at 10ms advance 1.5ms\n"
      "task v at=0.5ms runtime=1ms\n"
      "run 11.5ms\n");
  const std::vector<Op> ops = {
      op::Spawn{TaskSpec{"v", "/", 0, {}, RunWallclock{1'000'000, std::nullopt}, ""}},
      op::Spawn{TaskSpec{"u", "/a", 3, cpus({1, 2}), RunPeriodic{1'000'000, 2'000'000}, ""}},
      op::Exit{"u"},
      op::Sleep{"t"},
      op::Wake{"t"},
      op::SetNice{"t", -7},
      op::SetAffinity{"t", cpus({0, 3})},
      op::SetAffinity{"t", {}},
      op::CreateGroup{{"/a/b", 300}},
      op::CreateGroup{{"/a/c", 512, 50}},
      op::CreateGroup{{"/a/d", 1024}},
      op::SetShares{"/a/b", 4096},
      op::SetShares{"/a", 2560, 250},
      op::MoveTask{"t", "/a/b"},
      op::MoveTask{"t", "/"},
      op::Advance{1'500'000},
  };
  const std::vector<Nanos> at = {500'000, 1, 2, 3, 4, 5, 6, 6, 7, 7, 7, 8, 8, 9, 9, 10};
  ASSERT_EQ(s.ops.size(), ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(s.ops[i].op, ops[i]) << i;
    EXPECT_EQ(s.ops[i].at, i == 0 ? at[i] : at[i] * 1'000'000) << i;
  }
  EXPECT_EQ(s.ops[0].loc.line, 19u);  // the task line with at=
  EXPECT_EQ(s.ops[1].loc.line, 4u);
}

TEST(ScenarioStatements, AtTimesMaySkipBackAndAreSortedStably) {
  const Scenario s = parse_ok(
      "at 30ms spawn c\n"
      "at 10ms spawn a\n"
      "at 30ms exit a\n"
      "at 10ms spawn b\n"
      "run 30ms\n");
  ASSERT_EQ(s.ops.size(), 4u);
  EXPECT_EQ(s.ops[0].op, Op(op::Spawn{busy("a")}));
  EXPECT_EQ(s.ops[1].op, Op(op::Spawn{busy("b")}));
  EXPECT_EQ(s.ops[2].op, Op(op::Spawn{busy("c")}));
  EXPECT_EQ(s.ops[3].op, Op(op::Exit{"a"}));
  // Names resolve in time order: a group created at 5ms may be used by a line above it.
  parse_ok("at 6ms move t /g\nat 5ms group /g\ntask t\nrun 6ms\n");
}

TEST(ScenarioStatements, CanonicalPrint) {
  const Scenario s = parse_ok(
      "# seed 003\n"
      "run 200ms\n"
      "set min_granularity=2250000ns scaling=linear\n"
      "feature flat_slice=on\n"
      "group /g0 weight=100\n"
      "task t0 group=/g0 cpus=3,2 run=busy  # pinned\n"
      "task t1 at=50ms run=1000us sleep=0\n"
      "at 50ms shares /g0 2048\n"
      "topology cores=4\n");
  EXPECT_EQ(print_scenario(s),
            "kernel v5.15\n"
            "topology sockets=1 cores=4 threads=1\n"
            "set min_granularity=2.25ms scaling=linear\n"
            "feature flat_slice=on\n"
            "group /g0 weight=100\n"
            "task t0 group=/g0 nice=0 cpus=2-3 run=busy\n"
            "at 50ms spawn t1 group=/ nice=0 run=1ms sleep=0ns\n"
            "at 50ms shares /g0 2048\n"
            "run 200ms\n");
}

TEST(ScenarioStatements, RepeatedSettingsAndFeaturesKeepTheirOrderOnSeparateLines) {
  const std::string text =
      "set hz=100 latency=6ms\nset hz=250\nfeature flat_slice=on\nfeature flat_slice=off start_debit=on\nrun 1s\n";
  const Scenario s = parse_ok(text);
  ASSERT_EQ(s.settings.size(), 3u);
  EXPECT_EQ(s.settings[2], (Setting{"hz", 250}));
  EXPECT_EQ(print_scenario(s),
            "kernel v5.15\ntopology sockets=1 cores=1 threads=1\n"
            "set hz=100 latency=6ms\nset hz=250\n"
            "feature flat_slice=on\nfeature flat_slice=off start_debit=on\n"
            "run 1s\n");
}


// ---- files ---------------------------------------------------------------

const std::filesystem::path kSourceRoot = std::filesystem::path(__FILE__).parent_path().parent_path();

TEST(ScenarioFiles, MissingFileIsALineZeroError) {
  const ParseResult r = load_scenario_file("/nonexistent/dir/x.scn");
  ASSERT_TRUE(std::holds_alternative<ParseError>(r));
  const ParseError& e = std::get<ParseError>(r);
  EXPECT_EQ(e.line, 0u);
  EXPECT_EQ(e.file, "/nonexistent/dir/x.scn");
  EXPECT_EQ(e.to_string(), "/nonexistent/dir/x.scn: error: cannot open: No such file or directory");
}

TEST(ScenarioFiles, ErrorsNameTheFile) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() / "cfsv_scenario_text_test.scn";
  std::ofstream(p) << "run 1s\nkernel v9\n";
  const ParseResult r = load_scenario_file(p.string());
  std::filesystem::remove(p);
  ASSERT_TRUE(std::holds_alternative<ParseError>(r));
  EXPECT_EQ(std::get<ParseError>(r).to_string(),
            p.string() + ":2:8: error: unknown kernel profile 'v9' (known: v3.10, v4.4, v5.15, v6.4)");
}

TEST(ScenarioFiles, EveryExampleAndValidCorpusFileParsesAndRoundTrips) {
  int n = 0;
  for (const auto& dir : {kSourceRoot / "examples", kSourceRoot / "fuzz/corpus/fuzz_scenario_parser"}) {
    if (!std::filesystem::exists(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() != ".scn" || name.rfind("bad_", 0) == 0) continue;
      const ParseResult r = load_scenario_file(entry.path().string());
      if (const auto* e = std::get_if<ParseError>(&r)) {
        ADD_FAILURE() << e->to_string();
        continue;
      }
      ++n;
      const Scenario& s = std::get<Scenario>(r);
      const std::string printed = print_scenario(s);
      EXPECT_EQ(parse_ok(printed), s) << entry.path();
      EXPECT_EQ(print_scenario(parse_ok(printed)), printed) << entry.path();
    }
  }
  EXPECT_GE(n, 3);
}

// ---- round trips over generated scenarios --------------------------------

Nanos any_duration(Nanos lo, Nanos hi) {
  // A mix of round values (the common case) and arbitrary nanoseconds.
  const Nanos v = *rc::gen::oneOf(rc::gen::just(lo), rc::gen::just(hi),
                                  rc::gen::map(rc::gen::inRange<Nanos>(0, 1000), [](Nanos k) { return k * 250'000; }),
                                  rc::gen::arbitrary<Nanos>());
  return lo + v % (hi - lo + 1);
}

CpuMask any_cpus(unsigned nr_cpus) {
  CpuMask m;
  if (*rc::gen::inRange(0, 3) == 0) return m;  // all
  for (unsigned c = 0; c < nr_cpus; ++c)
    if (*rc::gen::arbitrary<bool>()) m.set(c);
  if (m.none()) m.set(*rc::gen::inRange(0u, nr_cpus));
  return m;
}

// parents: the tasks that may fork it (spawned before it).
TaskSpec any_task(std::string name, const std::vector<std::string>& groups, unsigned nr_cpus,
                  const std::vector<std::string>& parents) {
  TaskSpec t;
  t.name = std::move(name);
  t.group = *rc::gen::elementOf(groups);
  if (!parents.empty() && *rc::gen::inRange(0, 3) == 0) {
    t.parent = *rc::gen::elementOf(parents);
    if (*rc::gen::arbitrary<bool>()) t.group.clear();  // the parent's group
  }
  t.nice = *rc::gen::inRange(-20, 20);
  t.policy = *rc::gen::element(Policy::normal, Policy::batch, Policy::idle);
  t.cpus = any_cpus(nr_cpus);
  // A task that sleeps repeats at least every kMinPeriod.
  const Nanos run = any_duration(1, kMaxScenarioTime);
  const std::optional<Nanos> sleep = *rc::gen::arbitrary<bool>()
                                         ? std::optional<Nanos>(any_duration(run < kMinPeriod ? kMinPeriod - run : 0,
                                                                             kMaxScenarioTime))
                                         : std::nullopt;
  switch (*rc::gen::inRange(0, 3)) {
    case 0: t.behaviour = RunBusy{}; break;
    case 1: t.behaviour = RunPeriodic{run, sleep}; break;
    default: t.behaviour = RunWallclock{run, sleep}; break;
  }
  return t;
}

GroupSpec any_group(std::string path) {
  GroupSpec g{std::move(path)};
  if (*rc::gen::arbitrary<bool>()) {
    g.weight = *rc::gen::inRange<uint32_t>(1, 10001);
    g.shares = sched_weight_from_cgroup(*g.weight);
  } else {
    g.shares = *rc::gen::inRange<uint64_t>(2, 262145);
  }
  return g;
}

// Valid scenarios only: names declared before use (in time order), CPUs in the
// topology, values in range, ops sorted by time and within the run.
rc::Gen<Scenario> any_scenario() {
  return rc::gen::exec([] {
    Scenario s;
    s.kernel = std::string(*rc::gen::elementOf(std::vector<std::string_view>{"v3.10", "v4.4", "v5.15"}));
    s.topology = {*rc::gen::inRange(1u, 5u), *rc::gen::inRange(1u, 9u), *rc::gen::inRange(1u, 3u)};
    const unsigned nr_cpus = s.topology.nr_cpus();
    for (int i = 0, n = *rc::gen::inRange(0, 6); i < n; ++i) {
      const std::vector<std::pair<std::string, std::pair<Nanos, Nanos>>> keys = {
          {"hz", {1, 10000}},
          {"latency", {100'000, 1'000'000'000}},
          {"min_granularity", {100'000, 1'000'000'000}},
          {"wakeup_granularity", {0, 1'000'000'000}},
          {"idle_min_granularity", {0, 1'000'000'000}},
          {"migration_cost", {0, 1'000'000'000}},
          {"nr_latency", {1, 1 << 20}},
          {"nr_migrate", {0, 1 << 20}},
          {"scaling", {0, 2}},
          {"autogroup", {0, 1}}};
      const auto& [key, range] = *rc::gen::elementOf(keys);
      s.settings.push_back({key, any_duration(range.first, range.second)});
    }
    for (int i = 0, n = *rc::gen::inRange(0, 4); i < n; ++i)
      s.feature_overrides.emplace_back(static_cast<Feature>(*rc::gen::inRange<unsigned>(0, kFeatureCount)),
                                       *rc::gen::arbitrary<bool>());

    std::vector<std::string> groups = {"/"};
    auto new_group = [&](std::string name) {
      const std::string& parent = *rc::gen::elementOf(groups);
      const std::string path = (parent == "/" ? "" : parent) + "/" + name;
      groups.push_back(path);
      return any_group(path);
    };
    for (int i = 0, n = *rc::gen::inRange(0, 5); i < n; ++i) s.groups.push_back(new_group("g" + std::to_string(i)));
    std::vector<std::string> tasks;
    for (int i = 0, n = *rc::gen::inRange(0, 6); i < n; ++i) {
      s.tasks.push_back(any_task("t" + std::to_string(i), groups, nr_cpus, tasks));
      tasks.push_back(s.tasks.back().name);
    }

    std::vector<Nanos> times = *rc::gen::container<std::vector<Nanos>>(
        *rc::gen::inRange(0, 12), rc::gen::map(rc::gen::arbitrary<Nanos>(), [](Nanos v) { return v % kMaxScenarioTime; }));
    std::sort(times.begin(), times.end());
    Nanos clock = 0;  // where the ops so far leave the simulation: no op before it
    for (std::size_t i = 0; i < times.size(); ++i) {
      times[i] = clock = std::max(times[i], clock);
      // An argument of each kind (model/op_table.h) over its whole range;
      // false when none can be named here.
      auto any_arg = [&](const auto& a, auto& v) {
        using op_table::Arg;
        constexpr Arg kind = std::decay_t<decltype(a)>::kind;
        if constexpr (kind == Arg::task) {
          if (tasks.empty()) return false;
          v = *rc::gen::elementOf(tasks);
        } else if constexpr (kind == Arg::any_group) {
          v = *rc::gen::elementOf(groups);
        } else if constexpr (kind == Arg::group) {  // not the root, groups[0]
          if (groups.size() == 1) return false;
          v = groups[*rc::gen::inRange<std::size_t>(1, groups.size())];
        } else if constexpr (kind == Arg::leaf_group) {  // the last group made has no child group; then it is gone
          if (groups.size() == 1) return false;
          v = groups.back();
          groups.pop_back();
        } else if constexpr (kind == Arg::nice) {
          v = *rc::gen::inRange(-20, 20);
        } else if constexpr (kind == Arg::cpus) {
          v = any_cpus(nr_cpus);
        } else if constexpr (kind == Arg::cpu) {
          v = *rc::gen::inRange(0u, nr_cpus);
        } else if constexpr (kind == Arg::span) {
          v = any_duration(0, kMaxScenarioTime - clock);
        } else if constexpr (kind == Arg::policy) {
          v = *rc::gen::element(Policy::normal, Policy::batch, Policy::idle);
        } else {
          v = *rc::gen::arbitrary<bool>();
        }
        return true;
      };
      Op o = default_op(*rc::gen::inRange<std::size_t>(0, std::variant_size_v<Op>));
      const bool formed = op_table::visit(
          Overloaded{
              [&](const auto&, op::Spawn& sp) {
                sp.task = any_task("s" + std::to_string(i), groups, nr_cpus, tasks);
                tasks.push_back(sp.task.name);
                return true;
              },
              [&](const auto&, op::CreateGroup& g) { return g.group = new_group("c" + std::to_string(i)), true; },
              [&](const auto&, op::SetShares& sh) {
                if (groups.size() == 1) return false;
                const GroupSpec g = any_group(groups[*rc::gen::inRange<std::size_t>(1, groups.size())]);
                sh = op::SetShares{g.path, g.shares, g.weight};
                return true;
              },
              [&](const auto& row, auto& x) {
                bool ok = true;
                if constexpr (!std::decay_t<decltype(row)>::custom)
                  op_table::for_each_arg(row, [&](const auto& a) { ok = ok && any_arg(a, x.*a.field); });
                return ok;
              },
          },
          o);
      if (!formed) o = op::Advance{clock < kMaxScenarioTime ? 1u : 0u};  // not past the longest run
      if (const auto* a = std::get_if<op::Advance>(&o)) clock += a->by;
      s.ops.push_back({times[i], std::move(o), {}});
    }
    s.duration = std::max<Nanos>(std::max<Nanos>(clock, 1), any_duration(1, kMaxScenarioTime));
    return s;
  });
}

RC_GTEST_PROP(ScenarioRoundTrip, ParseOfPrintIsTheScenario, ()) {
  const Scenario s = *any_scenario();
  const std::string printed = print_scenario(s);
  const ParseResult r = parse_scenario(printed, "printed.scn");
  if (const auto* e = std::get_if<ParseError>(&r)) RC_FAIL(e->to_string() + "\n" + printed);
  RC_ASSERT(std::get<Scenario>(r) == s);
}

RC_GTEST_PROP(ScenarioRoundTrip, PrintIsAFixedPoint, ()) {
  const std::string printed = print_scenario(*any_scenario());
  const ParseResult r = parse_scenario(printed, "printed.scn");
  RC_ASSERT(std::holds_alternative<Scenario>(r));
  RC_ASSERT(print_scenario(std::get<Scenario>(r)) == printed);
}

// Every line-level mutation of a valid file either parses (and round-trips)
// or fails with a position inside the file.
RC_GTEST_PROP(ScenarioRoundTrip, MutatedFilesFailCleanly, ()) {
  std::string text = print_scenario(*any_scenario());
  const std::size_t at = *rc::gen::inRange<std::size_t>(0, text.size());
  const std::string junk = *rc::gen::elementOf(std::vector<std::string>{
      "", "=", "/", "-", ",", "#", "\n", " ", "x", "99999999999999999999", ".5", "at ", "ms", "\r"});
  text.replace(at, *rc::gen::inRange<std::size_t>(0, 4), junk);
  const ParseResult r = parse_scenario(text, "m.scn");
  if (const auto* e = std::get_if<ParseError>(&r)) {
    RC_ASSERT(e->line >= 1u);
    RC_ASSERT(e->col >= 1u);
    RC_ASSERT(!e->message.empty());
  } else {
    const Scenario& s = std::get<Scenario>(r);
    RC_ASSERT(parse_ok(print_scenario(s)) == s);
  }
}

}  // namespace
}  // namespace cfsv

namespace cfsv {
namespace {

// Each op of the table (model/op_table.h) has its row in the op table of
// docs/scenario-format.md, in the form the parser's errors give
// ("nice TASK N"); an op with a form of its own, by its first words.
TEST(OpTable, EveryOpIsDocumentedInTheFormTheParserGives) {
  const std::string doc = testing_files::source_text("docs/scenario-format.md");
  ASSERT_FALSE(doc.empty());
  auto cell = [](std::string_view form) {  // a Markdown table cell's code: '|' escaped
    std::string c = "| `";
    for (char ch : form) c += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return c;
  };
  std::size_t rows = 0;
  op_table::any_row([&](const auto& row) {
    ++rows;
    if constexpr (std::decay_t<decltype(row)>::custom) {
      for (std::string_view w = row.words; !w.empty();) {
        const std::size_t bar = std::min(w.find('|'), w.size());
        EXPECT_NE(doc.find(cell(w.substr(0, bar)) + " "), std::string::npos) << w.substr(0, bar);
        w.remove_prefix(std::min(bar + 1, w.size()));
      }
    } else {
      EXPECT_NE(doc.find(cell(op_table::usage(row)) + "` |"), std::string::npos) << op_table::usage(row);
    }
    return false;
  });
  EXPECT_EQ(rows, std::variant_size_v<Op>);
}

}  // namespace
}  // namespace cfsv
