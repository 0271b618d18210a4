// The reports of `cfsv run` and `cfsv diff`, end to end: wakeup latency and
// group time checked against the --perf lines and the phases, the streamed
// traces, output failures, memory over a long run, the first difference of
// two schedules, and every --json output against its schema (docs/schemas/).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "cli/tests/run.h"
#include "model/scenario_text.h"

namespace cfsv::cli {
namespace {

using test::cfsv;
using test::Output;
using test::temp_path;
using test::validate;

std::string source(const std::string& rel) { return std::string(CFSV_SOURCE_DIR) + "/" + rel; }

std::vector<std::string> scenario_files() {
  std::vector<std::string> v;
  for (const char* dir : {"examples", "regressions"})
    for (const auto& e : std::filesystem::directory_iterator(source(dir)))
      if (e.path().extension() == ".scn") v.push_back(e.path().string());
  std::sort(v.begin(), v.end());
  return v;
}

// `cfsv ARGS` must exit 0 (or `code`); its stdout is saved and returned as a file name.
std::string json_of(const std::vector<std::string>& args, int code = 0) {
  const Output r = cfsv(args);
  EXPECT_EQ(r.code, code) << args[0] << " " << r.err;
  static int n = 0;
  return test::write_temp("." + std::to_string(n++) + ".json", r.out);
}

uint64_t number(const std::string& file, const std::string& at) { return std::stoull(validate("value", file, {at})); }

// The values at several paths of a JSON file, one python run.
std::vector<std::string> values(const std::string& file, std::vector<std::string> paths) {
  paths.insert(paths.begin(), paths.front());  // two or more: one per line
  std::istringstream in(validate("value", file, paths));
  std::vector<std::string> v;
  for (std::string line; std::getline(in, line);) v.push_back(line);
  v.erase(v.begin());
  return v;
}

// ---------------------------------------------------------------------------
// Per-task wakeup latency from the perf lines: each sched_wakeup(_new) of a
// task to its next switch-in (microseconds, perf's precision).
struct PerfLatency {
  uint64_t count = 0, max_us = 0, sum_us = 0;
};
std::map<std::string, PerfLatency> latency_from_perf(const std::string& perf) {
  static const std::regex kLine(R"(\[(\d+)\]\s+(\d+)\.(\d+): sched:(\w+): (.*))");
  std::map<std::string, uint64_t> woken;
  std::map<std::string, PerfLatency> lat;
  std::istringstream in(perf);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, kLine)) continue;
    const uint64_t us = std::stoull(m[2]) * 1'000'000 + std::stoull(m[3]);
    const std::string event = m[4], fields = m[5];
    auto field = [&](const std::string& name) {
      const std::size_t at = fields.find(name + "=");
      return fields.substr(at + name.size() + 1, fields.find(' ', at) - at - name.size() - 1);
    };
    if (event == "sched_wakeup" || event == "sched_wakeup_new") woken[field("comm")] = us;
    if (event == "sched_switch") {
      const std::string next = field("next_comm");
      const auto it = woken.find(next);
      if (it == woken.end()) continue;
      PerfLatency& l = lat[next];
      ++l.count;
      l.max_us = std::max(l.max_us, us - it->second);
      l.sum_us += us - it->second;
      woken.erase(it);
    }
  }
  return lat;
}

TEST(Reports, LatencyIsWakeupToSwitchInAsThePerfLinesShowIt) {
  for (const std::string& scn : {source("examples/wakeups.scn"), source("examples/cgroup_v2.scn")}) {
    const Output perf = cfsv({"run", "--perf", scn});
    ASSERT_EQ(perf.code, 0) << perf.err;
    const auto want = latency_from_perf(perf.out);
    const std::string json = json_of({"run", "--json", scn});
    const int tasks = std::stoi(validate("value", json, {"counters.forks"}));
    for (int i = 0; i < tasks; ++i) {
      const std::string at = "tasks." + std::to_string(i) + ".";
      const std::vector<std::string> v =
          values(json, {at + "name", at + "latency.count", at + "latency.max_ns", at + "latency.avg_ns",
                        at + "latency.p50_ns", at + "latency.p99_ns"});
      const PerfLatency& w = want.count(v[0]) ? want.at(v[0]) : PerfLatency{};
      EXPECT_EQ(std::stoull(v[1]), w.count) << v[0];
      EXPECT_EQ(std::stoull(v[2]), w.max_us * 1000) << v[0];
      EXPECT_NEAR(std::stod(v[3]), w.count ? double(w.sum_us) * 1000 / double(w.count) : 0.0, 1e-6) << v[0];
      EXPECT_LE(std::stoull(v[4]), std::stoull(v[5]));
      EXPECT_LE(std::stoull(v[5]), std::stoull(v[2]));
    }
  }
  // b waits behind a once a is pinned to b's CPU (40 ms): 23 wakeups, the
  // longest 22 ms.
  const Output table = cfsv({"run", source("examples/wakeups.scn")});
  EXPECT_TRUE(std::regex_search(table.out, std::regex(R"(  wait +wakeups +lat avg +lat p50 +lat p99 +lat max\n)")))
      << table.out;
  EXPECT_TRUE(std::regex_search(table.out, std::regex(R"(\nb .* 23 +1\.913ms +0\.000ms +22\.000ms +22\.000ms\n)")))
      << table.out;
}

// cgroup_v2.scn moves b0 from /batch to /web at 800 ms: /batch keeps b0's
// time before the move, /web gets it after; a group's time includes its
// subgroups'; the root's is every task's; the phases add up to the run.
TEST(Reports, GroupTimeFollowsMembershipAndPhasesSplitAtEachOp) {
  const std::string json = json_of({"run", "--json", "--phases", source("examples/cgroup_v2.scn")});
  std::map<std::string, uint64_t> task, group;
  std::vector<std::string> paths;
  for (int i = 0; i < 6; ++i) paths.push_back("tasks." + std::to_string(i) + ".name");
  for (int i = 0; i < 6; ++i) paths.push_back("tasks." + std::to_string(i) + ".cpu_time_ns");
  for (int i = 0; i < 4; ++i) paths.push_back("groups." + std::to_string(i) + ".path");
  for (int i = 0; i < 4; ++i) paths.push_back("groups." + std::to_string(i) + ".cpu_time_ns");
  const std::vector<std::string> v = values(json, paths);
  for (int i = 0; i < 6; ++i) task[v[i]] = std::stoull(v[6 + i]);
  for (int i = 0; i < 4; ++i) group[v[12 + i]] = std::stoull(v[16 + i]);
  uint64_t all = 0;
  for (const auto& [n, ns] : task) all += ns;
  EXPECT_EQ(group["/"], all);
  // b0 (task 2) per phase: the phases start at 0, 500, 600 and 800 ms.
  EXPECT_EQ(validate("value", json, {"phases.3.start_ns"}), "800000000");
  const std::vector<std::string> b0 =
      values(json, {"phases.0.tasks.2.cpu_time_ns", "phases.1.tasks.2.cpu_time_ns", "phases.2.tasks.2.cpu_time_ns",
                    "phases.3.tasks.2.cpu_time_ns", "phases.0.groups.1.cpu_time_ns", "phases.1.groups.1.cpu_time_ns",
                    "phases.2.groups.1.cpu_time_ns", "phases.3.groups.1.cpu_time_ns"});
  const uint64_t b0_before = std::stoull(b0[0]) + std::stoull(b0[1]) + std::stoull(b0[2]);
  const uint64_t b0_after = std::stoull(b0[3]);
  EXPECT_EQ(b0_before + b0_after, task["b0"]);
  EXPECT_GT(b0_after, 0u);
  EXPECT_EQ(group["/batch/low"], task["b1"]);
  EXPECT_EQ(group["/batch"], task["b1"] + b0_before);
  EXPECT_EQ(group["/web"], task["w0"] + task["w1"] + task["late"] + b0_after);
  EXPECT_EQ(std::stoull(b0[4]) + std::stoull(b0[5]) + std::stoull(b0[6]) + std::stoull(b0[7]), group["/web"]);

  const Output table = cfsv({"run", "--phases", source("examples/cgroup_v2.scn")});
  for (const char* line : {"\nphase 1: 0ns .. 500ms\n", "\nphase 2: 500ms .. 600ms (line 17: weight /batch 400)\n",
                           "\nphase 3: 600ms .. 800ms (line 18: spawn late)\n",
                           "\nphase 4: 800ms .. 1s (line 19: move b0 /web)\n", "\ngroup       cpu time    share\n"})
    EXPECT_NE(table.out.find(line), std::string::npos) << line << table.out;
}

// The perf lines of every kind, in perf script's format, and the Perfetto
// trace agrees with them: a stretch per switch-out of a task (and one per
// task still running), an instant per wakeup and migration, one per op.
TEST(Reports, PerfAndPerfettoTracesAgree) {
  const std::string scn = source("examples/wakeups.scn"), trace = temp_path(".trace.json");
  const Output perf = cfsv({"run", "--perf", scn});
  ASSERT_EQ(perf.code, 0);
  for (const char* line :
       {"       swapper/0     0 [000]     0.000000: sched:sched_wakeup_new: comm=a pid=1000 prio=115 target_cpu=000\n",
        "       swapper/1     0 [001]     0.002000: sched:sched_wakeup: comm=b pid=1001 prio=120 target_cpu=001\n",
        "     migration/0    10 [000]     0.040000: sched:sched_migrate_task: comm=a pid=1000 prio=115 orig_cpu=0 "
        "dest_cpu=1\n"})
    EXPECT_NE(perf.out.find(line), std::string::npos) << line;
  std::map<std::string, int> n;
  std::map<std::string, std::pair<uint64_t, bool>> cpu_since;  // per CPU: last switch (us), a task runs
  std::istringstream in(perf.out);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    ASSERT_TRUE(std::regex_search(line, m, std::regex(R"(\[(\d+)\]\s+(\d+)\.(\d+): sched:(\w+): )"))) << line;
    ++n[m[4]];
    if (m[4] != "sched_switch") continue;
    const uint64_t us = std::stoull(m[2]) * 1'000'000 + std::stoull(m[3]);
    auto& [since, task] = cpu_since[m[1]];
    if (task && us > since) ++n["stretches"];
    since = us;
    task = line.find(" next_pid=0 ") == std::string::npos && line.find("next_comm=migration/") == std::string::npos;
  }
  for (const auto& [cpu, s] : cpu_since) n["stretches"] += s.second && s.first < 100'000;  // running at the end
  ASSERT_EQ(cfsv({"run", "--perfetto", trace, scn}).code, 0);
  const std::string json = json_of({"run", "--json", scn});
  std::ostringstream want;
  want << "counter_tracks 8\nop " << number(json, "counters.ops") + number(json, "counters.ops_rejected")
       << "\nsched_migrate_task " << n["sched_migrate_task"] << "\nsched_wakeup " << n["sched_wakeup"]
       << "\nsched_wakeup_new " << n["sched_wakeup_new"] << "\nstretches " << n["stretches"] << "\ntask_tracks 3\n";
  EXPECT_EQ(validate("perfetto", trace), want.str());
}

TEST(Reports, AnOutputThatCannotBeWrittenExits2WithAMessage) {
  const std::string scn = source("examples/seed003.scn");
  const Output full = cfsv({"run", "--perfetto", "/dev/full", scn});
  EXPECT_EQ(full.code, 2);
  EXPECT_EQ(full.err, "cfsv run: cannot write '/dev/full': No space left on device\n");
  EXPECT_EQ(full.out, "");
  const Output dir = cfsv({"run", "--perfetto", "/nonexistent-dir/x.json", scn});
  EXPECT_EQ(dir.code, 2);
  EXPECT_EQ(dir.err, "cfsv run: --perfetto: cannot write '/nonexistent-dir/x.json'\n");
  const Output stdout_full = test::run({"sh", "-c", std::string(CFSV_BIN) + " run --perf " + scn + " >/dev/full"});
  EXPECT_EQ(stdout_full.code, 2);
  EXPECT_EQ(stdout_full.err, "cfsv run: cannot write stdout: No space left on device\n");
}

// The peak RSS of `cfsv run` on two busy tasks, Perfetto trace and perf lines
// included, is the same for 1000 s of simulated time as for 10 s.
TEST(Reports, MemoryDoesNotGrowWithSimulatedTime) {
  const std::string short_run = test::write_temp(".10s.scn", "task a\ntask b\nrun 10s\n");
  const std::string long_run = test::write_temp(".1000s.scn", "task a\ntask b\nrun 1000s\n");
  for (const char* mode : {"--perf", "--json"}) {
    const auto rss = [&](const std::string& scn) {
      return test::max_rss_kb({CFSV_BIN, "run", scn, "--check-every", "0", mode, "--perfetto", "/dev/null"});
    };
    const long at10 = rss(short_run), at1000 = rss(long_run);
    EXPECT_LT(at1000, at10 + 2048) << mode << ": " << at10 << " KB for 10 s, " << at1000 << " KB for 1000 s";
  }
}

// ---------------------------------------------------------------------------
// cfsv diff

TEST(Reports, DiffShowsWhereSeed003sSchedulesPartAndWhy) {
  const std::string scn = source("examples/seed003.scn");
  const Output r = cfsv({"diff", scn, "--feature", "flat_slice=on"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string want =
      "the schedules part at 1ms on CPU 3 (81 events in common before):\n"
      "  before: sched_switch on CPU 3: g0t0 (R) ==> g1t16\n"
      "          tick on /g0: g0t0 resched: delta_exec 1000000 > ideal_runtime 562500 (its slice)\n"
      "          tick on /: group /g0 kept: delta_exec 1000000 < min_granularity 2250000\n"
      "          pick on /: group /g1, the leftmost (vruntime min_vruntime+0)\n"
      "          pick on /g1: g1t16, the leftmost (vruntime min_vruntime+1124996)\n"
      "  after:  no event at this time\n"
      "          tick on /g0: g0t0 kept: delta_exec 1000000 < min_granularity 2250000\n"
      "          tick on /: group /g0 kept: delta_exec 1000000 < min_granularity 2250000\n";
  EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n/g0    250.000ms -> 252.000ms (+2.000ms)"), std::string::npos) << r.out;
  EXPECT_EQ(cfsv({"diff", scn, "--feature", "flat_slice=on", "--exit-code"}).code, 1);
  // Each side's figures are `cfsv run`'s under that side's features.
  const std::string diff = json_of({"diff", "--json", scn, "--feature", "flat_slice=on"});
  const std::string before = json_of({"run", "--json", scn});
  const std::string after = json_of({"run", "--json", scn, "--feature", "flat_slice=on"});
  const std::vector<std::string> fields = {"cpu_time_ns", "switches", "wait_ns", "latency.max_ns"};
  const auto of = [&](const std::string& file, const std::string& prefix) {
    std::vector<std::string> paths;
    for (const std::string& f : fields) paths.push_back(prefix + f);
    return values(file, paths);
  };
  EXPECT_EQ(of(diff, "tasks.5.before."), of(before, "tasks.5."));
  EXPECT_EQ(of(diff, "tasks.5.after."), of(after, "tasks.5."));
  EXPECT_NE(of(diff, "tasks.5.before."), of(diff, "tasks.5.after."));
  EXPECT_EQ(validate("value", diff, {"first_difference.after.event"}), "null");
}

TEST(Reports, DiffOfAWakeupPreemptionChangeShowsTheWakeupDecisions) {
  const std::string scn = test::write_temp(".scn", "kernel v5.15\ntask hog\ntask w run=100us sleep=20ms\nrun 100ms\n");
  const Output r = cfsv({"diff", scn, "--feature", "wakeup_preemption=off"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  before: sched_switch on CPU 0: hog (R) ==> w\n"
                       "          wakeup on /: w preempts hog: vdiff 3000000 > wakeup_gran 1000000\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  after:  no event at this time\n"
                       "          wakeup on /: w does not preempt hog: wakeup_preemption off\n"),
            std::string::npos)
      << r.out;
}

// diff says "identical" exactly when the two feature sets give the same
// --perf lines.
// Whether the file has at most 1,000 timed ops: --phases makes a phase per op
// time, so a file of thousands of `at` lines is checked without it
// (examples/seed001.scn forks its 10,001 children with fork=, not ops).
bool few_ops(const std::string& scn) {
  const ParseResult r = load_scenario_file(scn);
  const auto* s = std::get_if<Scenario>(&r);
  return s && s->ops.size() <= 1000;
}

// (Files of thousands of ops are left out: twelve runs of one take minutes in
// a Debug build, and its size adds nothing to this check.)
TEST(Reports, DiffIsIdenticalExactlyWhenThePerfLinesAre) {
  for (const std::string& scn : scenario_files())
    for (const char* feature : {"flat_slice=on", "move_task_skip_same_group=on", "wakeup_preemption=off"}) {
      if (!few_ops(scn)) continue;
      const Output diff = cfsv({"diff", scn, "--feature", feature, "--exit-code"});
      ASSERT_TRUE(diff.code == 0 || diff.code == 1) << scn << " " << feature << diff.err;
      const bool same = cfsv({"run", "--perf", scn}).out == cfsv({"run", "--perf", scn, "--feature", feature}).out;
      EXPECT_EQ(diff.code == 0, same) << scn << " " << feature;
      EXPECT_EQ(diff.out.find("the schedules are identical") != std::string::npos, same) << scn << " " << feature;
    }
}

TEST(Reports, DiffBadInput) {
  const std::string scn = source("examples/seed003.scn");
  const Output none = cfsv({"diff", scn});
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.err, "cfsv diff: give at least one --feature NAME=on|off to compare against\n");
  EXPECT_EQ(cfsv({"diff", scn, "--feature", "nope=on"}).code, 2);
  EXPECT_EQ(cfsv({"diff", "/nonexistent.scn", "--feature", "flat_slice=on"}).code, 2);
}

// ---------------------------------------------------------------------------
// JSON schemas


TEST(Reports, EveryJsonOutputMatchesItsSchema) {
  for (const std::string& scn : scenario_files()) {
    EXPECT_EQ(validate("schema", json_of({"run", "--json", scn}), {"run"}), "ok\n") << scn;
    if (few_ops(scn)) {
      EXPECT_EQ(validate("schema", json_of({"run", "--json", "--phases", scn}), {"run"}), "ok\n") << scn;
    }
  }
  const std::string seed003 = source("examples/seed003.scn");
  EXPECT_EQ(validate("schema", json_of({"diff", "--json", seed003, "--feature", "flat_slice=on"}), {"diff"}), "ok\n");
  EXPECT_EQ(validate("schema", json_of({"diff", "--json", seed003, "--feature", "next_buddy=off"}), {"diff"}), "ok\n");
  const std::string verify = json_of({"verify", "--json", "--engine", "properties", "--budget", "smoke"});
  EXPECT_EQ(validate("schema", verify, {"verify"}), "ok\n");
  EXPECT_EQ(validate("schema", json_of({"claims", "--json"}), {"claims"}), "ok\n");
  EXPECT_EQ(validate("schema", json_of({"features", "--json"}), {"features"}), "ok\n");
  // A proof and a refutation (its counterexample has every value of the slice case).
  EXPECT_EQ(validate("schema",
                     json_of({"prove", "--json", "--budget", "smoke", "calc-delta/loop-equals-fls",
                              "slice-min-granularity/flat-equal-weights-exact-set-v3.10"}),
                     {"prove"}),
            "ok\n");
}

// The check fails on a key too many, a key missing, a key twice, and on a
// schema that is not closed.
TEST(Reports, TheSchemaCheckCanFail) {
  const Output run = cfsv({"run", "--json", source("examples/cgroup_v2.scn")});
  const auto fails = [](const std::string& text, const std::vector<std::string>& env = {}) {
    const std::string file = test::write_temp(".mutant.json", text);
    std::vector<std::string> argv = env;
    for (const std::string& a : {std::string(CFSV_PYTHON), std::string(CFSV_VALIDATE), std::string("schema"), file,
                                 std::string("run")})
      argv.push_back(a);
    return test::run(argv).code != 0;
  };
  EXPECT_FALSE(fails(run.out));
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = run.out;
    const std::size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  EXPECT_TRUE(fails(replaced("\"switches\": ", "\"extra\": 1, \"switches\": ")));  // undeclared, in a task
  EXPECT_TRUE(fails(replaced("\"p99_ns\": ", "\"p98_ns\": ")));                   // a required key gone
  EXPECT_TRUE(fails(replaced("\"nr_cpus\": ", "\"cpus\": ")));                    // "cpus" twice, as it was
  // A schema copy whose CPU objects are open, or whose tasks miss a required key.
  const std::string dir = temp_path(".schemas");
  using Edit = std::pair<std::string, std::string>;
  for (const auto& [from, to] :
       {Edit{R"("required": ["cpu", "idle_ns", "busy_ns", "offline_ns", "forks_placed", "stretches"],)",
             R"("required": ["cpu", "idle_ns", "busy_ns", "offline_ns", "forks_placed"],)"},
        Edit{"\"additionalProperties\": false,\n            \"required\": [\"lengths\", \"other\"],",
             R"("required": ["lengths", "other"],)"}}) {
    std::filesystem::remove_all(dir);
    std::filesystem::copy(source("docs/schemas"), dir);
    std::string schema = test::read_file(dir + "/run.schema.json");
    const std::size_t at = schema.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    std::ofstream(dir + "/run.schema.json") << schema.replace(at, from.size(), to);
    EXPECT_TRUE(fails(run.out, {"env", "CFSV_SCHEMAS=" + dir})) << to;
  }
}

}  // namespace
}  // namespace cfsv::cli
