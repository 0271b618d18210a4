// The online statistics and the streamed traces (model/stats.h,
// model/trace.h), checked against what the recorded trace shows and against
// exact computations: bounded histograms, wakeup latency, group time over
// membership, phases, the decision records, the resumable run, and the
// writers' failure.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <sstream>

#include "model/deterministic_random.h"
#include "model/sim.h"
#include "model/stats.h"
#include "model/trace.h"
#include "properties/sim_gen.h"
#include "properties/sim_test_util.h"

namespace cfsv {
namespace {

using simtest::basic;
using simtest::cpus;
using simtest::task;
constexpr Nanos kMs = 1'000'000;

Nanos exact_percentile(std::vector<Nanos> v, unsigned permille) {
  std::sort(v.begin(), v.end());
  const std::size_t rank = std::max<std::size_t>((v.size() * permille + 999) / 1000, 1);
  return v[rank - 1];
}

TEST(LatencyHistogram, BucketsAreExactBelow2048AndAtMostOne1024thWideAbove) {
  DeterministicRandom r(7);
  std::vector<Nanos> values = {0, 1, 2047, 2048, 2049, 4095, 4096, ~Nanos{0}, Nanos{1} << 63};
  for (int i = 0; i < 100000; ++i) values.push_back(r.next() >> r.below(64));
  for (const Nanos v : values) {
    const uint32_t b = LatencyHistogram::bucket_of(v);
    const Nanos top = LatencyHistogram::bucket_top(b);
    ASSERT_GE(top, v);
    ASSERT_LE(top - v, v >> LatencyHistogram::kSubBits) << v;
    if (v < 2048) {
      ASSERT_EQ(top, v);
    }
    ASSERT_EQ(LatencyHistogram::bucket_of(top), b) << v;
    if (top != ~Nanos{0}) {
      ASSERT_EQ(LatencyHistogram::bucket_of(top + 1), b + 1) << v;  // buckets tile the range
    }
  }
}

TEST(LatencyHistogram, PercentilesWithinTheStatedPrecisionCountSumAndMaxExact) {
  DeterministicRandom r(11);
  for (const Nanos range : {Nanos{2000}, Nanos{50'000}, 20 * kMs, Nanos{1} << 50}) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{99}, std::size_t{100}, std::size_t{5000}}) {
      LatencyHistogram h;
      std::vector<Nanos> v;
      for (std::size_t i = 0; i < n; ++i) {
        v.push_back(r.below(range));
        h.add(v.back());
      }
      EXPECT_EQ(h.count(), n);
      EXPECT_EQ(h.sum(), std::accumulate(v.begin(), v.end(), Nanos{0}));
      EXPECT_EQ(h.max(), *std::max_element(v.begin(), v.end()));
      for (const unsigned p : {500u, 990u, 1000u}) {
        const Nanos exact = exact_percentile(v, p), got = h.percentile(p);
        EXPECT_GE(got, exact) << "p" << p << " n=" << n << " range=" << range;
        EXPECT_LE(got - exact, exact >> 10) << "p" << p << " n=" << n << " range=" << range;
        EXPECT_LE(got, h.max());
        if (range <= 2000) {
          EXPECT_EQ(got, exact);
        }
      }
    }
  }
  EXPECT_EQ(LatencyHistogram{}.percentile(500), 0u);
}

TEST(StretchHistogram, KeepsTheFirstLengthsExactlyAndCountsTheRest) {
  StretchHistogram h;
  uint64_t rest = 0;
  for (Nanos len = 100; len > 0; --len)
    for (Nanos i = 0; i < len; ++i) h.add(len);  // lengths 100, 99, ... 1, each `len` times
  for (Nanos len = 100 - StretchHistogram::kKept; len > 0; --len) rest += len;
  ASSERT_EQ(h.kept().size(), StretchHistogram::kKept);
  for (const auto& [len, n] : h.kept()) EXPECT_EQ(n, len);
  EXPECT_EQ(h.kept().front().first, 100 - StretchHistogram::kKept + 1);
  EXPECT_EQ(h.other(), rest);
  EXPECT_EQ(h.total(), 100u * 101 / 2);
  h.add(100);  // a kept length still counts exactly
  EXPECT_EQ(h.kept().back().second, 101u);
  EXPECT_NE(format_histogram(h.kept(), h.other(), 2).find(", ..., " + std::to_string(rest) + " of other lengths"),
            std::string::npos);
}

// Every wakeup and fork (sched_wakeup / sched_wakeup_new) to the task's next
// switch-in, computed the plain way: a list of every sample.
class ExactLatency final : public SchedSink {
 public:
  void sched_wakeup(const Sched& s, TaskId t, bool) override { woken[t.index()] = s.now; }
  void sched_switch(const Sched&, const SwitchEvent& e) override {
    const auto it = woken.find(e.next.index());
    if (!e.next || it == woken.end()) return;
    samples[e.next.index()].push_back(e.t - it->second);
    woken.erase(it);
  }
  std::map<std::size_t, Nanos> woken;
  std::map<std::size_t, std::vector<Nanos>> samples;
};

// The decisions the model recorded, counted by kind.
class DecisionCount final : public SchedSink {
 public:
  void decision(const Sched&, const Decision& d) override { ++by_why[d.why]; }
  std::map<Decision::Why, uint64_t> by_why;
};

struct Observed {
  Stats stats;
  ExactLatency exact;
  DecisionCount decisions;
  SinkTee tee{&stats, &exact, &decisions};
};

// On random scenarios with random ops: the online figures equal the ones
// computed from the whole recorded trace.
RC_GTEST_PROP(SimStats, OnlineFiguresEqualTheRecordedTraces, ()) {
  const Scenario sc = *simgen::gen_sim_scenario_with_ops(30);
  Observed o;
  Sim sim(sc, SimOptions{.check_every = 0, .record_trace = true, .sink = &o.tee});
  sim.run();
  const Sched& s = sim.sched();
  const Interval w = o.stats.whole(s, sim.now());
  // Stretches per CPU: the kept lengths are exact, the rest only counted.
  for (const CpuId c : sim.rqs().ids()) {
    const auto recorded = stretch_histogram(sim, c);
    const StretchHistogram h = o.stats.stretches(s, c, sim.now());
    uint64_t total = 0;
    for (const auto& [len, n] : recorded) total += n;
    RC_ASSERT(h.total() == total);
    for (const auto& [len, n] : h.kept()) RC_ASSERT(recorded.at(len) == n);
    RC_ASSERT((h.other() == 0) == (recorded.size() <= StretchHistogram::kKept));
  }
  // Latency: count, mean and max exact, percentiles within 1/1024.
  for (const TaskFigures& f : w.tasks) {
    const std::vector<Nanos>& v = o.exact.samples[f.task.index()];
    RC_ASSERT(f.latency.count == v.size());
    if (v.empty()) continue;
    RC_ASSERT(f.latency.max_ns == *std::max_element(v.begin(), v.end()));
    RC_ASSERT(f.latency.avg_ns == double(std::accumulate(v.begin(), v.end(), Nanos{0})) / double(v.size()));
    for (const auto& [p, got] : {std::pair{500u, f.latency.p50_ns}, std::pair{990u, f.latency.p99_ns}}) {
      const Nanos exact = exact_percentile(v, p);
      RC_ASSERT(got >= exact);
      RC_ASSERT(got - exact <= exact >> 10);
    }
  }
  // The root group's time is every task's and every CPU's busy time.
  Nanos tasks = 0, busy = 0;
  for (const TaskFigures& f : w.tasks) tasks += f.cpu_ns;
  for (const CpuId c : sim.rqs().ids()) busy += sim.busy_ns(c);
  RC_ASSERT(w.groups.front().cpu_ns == tasks);
  RC_ASSERT(tasks == busy);
  // Every tick and wakeup that rescheduled has its record, and vice versa.
  const auto n = [&](Decision::Why why) { return o.decisions.by_why[why]; };
  RC_ASSERT(n(Decision::tick_slice_used) + n(Decision::tick_vruntime_ahead) == sim.counters().resched_tick);
  RC_ASSERT(n(Decision::wakeup_preempt) + n(Decision::wakeup_idle_curr) + n(Decision::wakeup_idle_group) ==
            sim.counters().resched_wakeup);
}

// A task's time goes to the group it was in when it ran: moved from /p/a to
// /q at 50.5 ms while running alone on CPU 0, /p/a and /p get exactly 50.5 ms
// of it, /q the rest; a group's time includes its subgroups'.
TEST(SimStats, GroupTimeIsChargedByMembership) {
  Scenario sc = basic("v5.15", 2);
  sc.groups = {{"/p", 1024}, {"/p/a", 1024}, {"/q", 1024}};
  sc.tasks = {task("mover", 0, "/p/a"), task("other", 0, "/q")};
  sc.tasks[0].cpus = cpus({0});
  sc.tasks[1].cpus = cpus({1});
  sc.ops = {{50'500'000, op::MoveTask{"mover", "/q"}, {}}};
  sc.duration = 100 * kMs;
  Stats st;
  Sim sim(sc, SimOptions{.sink = &st});
  sim.run();
  const Interval w = st.whole(sim.sched(), sim.now());
  std::map<std::string, Nanos> g;
  for (const GroupFigures& f : w.groups) g[sim.groups()[f.group].path] = f.cpu_ns;
  EXPECT_EQ(g["/p/a"], 50'500'000u);
  EXPECT_EQ(g["/p"], 50'500'000u);
  EXPECT_EQ(g["/q"], 100 * kMs + 49'500'000u);
  EXPECT_EQ(g["/"], 200 * kMs);
}

// The phases (split at each op time) add up to the whole run.
RC_GTEST_PROP(SimStats, PhasesAddUpToTheWholeRun, ()) {
  const Scenario sc = *simgen::gen_sim_scenario_with_ops(20);
  Stats st;
  Sim sim(sc, SimOptions{.check_every = 0, .sink = &st});
  std::vector<Nanos> starts;
  for (const TimedOp& op : sc.ops)
    if (op.at && (starts.empty() || starts.back() != op.at)) starts.push_back(op.at);
  for (const Nanos t : starts) {
    sim.run_to(t - 1);
    st.close_phase(sim.sched(), std::max(t, sim.now()));
  }
  sim.run();
  st.close_phase(sim.sched(), sim.now());
  const Interval w = st.whole(sim.sched(), sim.now());
  Nanos covered = 0;
  Interval sum = w;
  for (TaskFigures& f : sum.tasks) f = {f.task, 0, 0, 0, 0, {}, f.pid};
  for (GroupFigures& g : sum.groups) g.cpu_ns = 0;
  std::vector<uint64_t> latency_count(w.tasks.size(), 0);
  std::vector<Nanos> latency_max(w.tasks.size(), 0);
  for (const Interval& p : st.phases()) {
    RC_ASSERT(p.start == covered);
    RC_ASSERT(p.end > p.start);
    covered = p.end;
    for (const TaskFigures& f : p.tasks) {
      TaskFigures& t = sum.tasks[f.task.index()];
      t.cpu_ns += f.cpu_ns;
      t.wait_ns += f.wait_ns;
      t.switches += f.switches;
      t.migrations += f.migrations;
      latency_count[f.task.index()] += f.latency.count;
      latency_max[f.task.index()] = std::max(latency_max[f.task.index()], f.latency.max_ns);
    }
    for (const GroupFigures& g : p.groups) sum.groups[g.group.index()].cpu_ns += g.cpu_ns;
  }
  RC_ASSERT(covered == sim.now());
  for (const TaskFigures& f : w.tasks) {
    const TaskFigures& t = sum.tasks[f.task.index()];
    RC_ASSERT(t.cpu_ns == f.cpu_ns);
    RC_ASSERT(t.wait_ns == f.wait_ns);
    RC_ASSERT(t.switches == f.switches);
    RC_ASSERT(t.migrations == f.migrations);
    RC_ASSERT(latency_count[f.task.index()] == f.latency.count);
    RC_ASSERT(latency_max[f.task.index()] == f.latency.max_ns);
  }
  for (const GroupFigures& g : w.groups) RC_ASSERT(sum.groups[g.group.index()].cpu_ns == g.cpu_ns);
}

// The streamed sched_switch lines are the recorded trace's, and run_to in
// steps gives the same run as run() in one go.
RC_GTEST_PROP(SimStats, StreamedLinesEqualTheRecordedOnesAndRunToResumes, ()) {
  const Scenario sc = *simgen::gen_sim_scenario_with_ops(30);
  auto streamed = [&](bool in_steps) {
    std::ostringstream perf;
    PerfScriptWriter w(perf, "perf");
    Sim sim(sc, SimOptions{.check_every = 0, .record_trace = true, .sink = &w});
    if (in_steps) {
      DeterministicRandom r(*rc::gen::arbitrary<uint64_t>());
      for (Nanos t = 0; !sim.run_to(t); t += r.below(3 * kMs)) {
      }
      sim.finish();
    } else {
      sim.run();
    }
    std::string switches, line;
    for (std::istringstream in(perf.str()); std::getline(in, line);)
      if (line.find(" sched:sched_switch: ") != std::string::npos) switches += line + "\n";
    RC_ASSERT(switches == perf_sched_switch_lines(sim));
    return perf.str();
  };
  RC_ASSERT(streamed(true) == streamed(false));
}

// The first decisions of seed 003 at its first tick: the hierarchical slice
// (562500 ns) is used up after 1 ms; the flat one (2249998 ns) is not, and
// min_granularity protects the task anyway.
TEST(SimStats, Seed003FirstTickDecisions) {
  for (const bool flat : {false, true}) {
    struct First final : SchedSink {
      void decision(const Sched& s, const Decision& d) override {
        if (!text.empty() || d.why > Decision::tick_kept) return;
        text = to_string(s, d);
        why = d.why;
      }
      std::string text;
      Decision::Why why{};
    } first;
    Sim sim(simtest::seed003(flat, 2 * kMs), SimOptions{.sink = &first});
    sim.run();
    if (!flat) {
      EXPECT_EQ(first.why, Decision::tick_slice_used);
      EXPECT_EQ(first.text, "tick on /g0: g0t0 resched: delta_exec 1000000 > ideal_runtime 562500 (its slice)");
    } else {
      EXPECT_EQ(first.why, Decision::tick_min_granularity);
      EXPECT_EQ(first.text, "tick on /g0: g0t0 kept: delta_exec 1000000 < min_granularity 2250000");
    }
  }
}

// A stream that accepts `room` bytes, then fails (a full disk).
class FullAfter final : public std::streambuf {
 public:
  explicit FullAfter(std::size_t room) : room_(room) {}

 protected:
  int_type overflow(int_type c) override {
    if (room_ == 0) return traits_type::eof();
    --room_;
    return c;
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    const auto k = std::min<std::streamsize>(n, static_cast<std::streamsize>(room_));
    room_ -= static_cast<std::size_t>(k);
    return k;
  }

 private:
  std::size_t room_;
};

TEST(SimStats, AWriterWhoseStreamFailsStopsTheRun) {
  Scenario sc = basic("v5.15", 1);
  sc.tasks = {task("a"), task("b")};
  sc.duration = 1000 * kMs;
  for (const bool perfetto : {false, true}) {
    FullAfter buf(1024);
    std::ostream out(&buf);
    PerfScriptWriter perf(out, "out");
    PerfettoWriter json(out, "out");
    Sim sim(sc, SimOptions{.sink = perfetto ? static_cast<SchedSink*>(&json) : &perf});
    EXPECT_THROW(sim.run(), TraceWriteError);
    EXPECT_LT(sim.now(), 100 * kMs);  // stopped at the first failed write, not at the end
  }
}

TEST(SimStats, TheTraceIsKeptOnlyWhenAskedFor) {
  Scenario sc = basic("v5.15", 1);
  sc.tasks = {task("a")};
  sc.duration = 10 * kMs;
  Sim off(sc);
  off.run();
  EXPECT_THROW(off.trace(), std::logic_error);
  EXPECT_THROW(perf_sched_switch_lines(off), std::logic_error);
  Sim on(sc, SimOptions{.record_trace = true});
  on.run();
  EXPECT_EQ(on.trace().switches.size(), 1u);
}

}  // namespace
}  // namespace cfsv
