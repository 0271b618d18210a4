// The CFS model's core behaviour: invariants under op sequences, fairness by
// weight and by shares, placement, exact burst ends, wrap-around, determinism,
// and the checker catching a deliberately broken model.
#include <gtest/gtest.h>

#include <memory_resource>

#include "model/arith/fair_math.h"
#include "model/deterministic_random.h"
#include "model/invariants.h"
#include "model/sim.h"
#include "model/arith/weights.h"
#include "properties/sim_test_util.h"

namespace cfsv {
namespace {

using simtest::basic;
using simtest::cpus;
using simtest::task;
constexpr Nanos kMs = 1'000'000;

std::string first_violation(const Sim& sim) {
  return sim.checker()->violations().empty() ? "" : sim.checker()->violations().front().to_string();
}

TEST(SimCore, RandomOpSequencesKeepEveryInvariant) {
  for (const Profile& p : all_profiles()) {
    const std::string profile(p.name);
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      Scenario sc = basic(profile, 3);
      sc.groups = {{"/a", 1024}, {"/a/b", 512}, {"/c", 3000}};
      Sim sim(sc);
      DeterministicRandom r{seed};
      const auto cpu = [&] { return cpus({unsigned(r.below(3))}); };
      const std::vector<std::string> groups = {"/", "/a", "/a/b", "/c"};
      int spawned = 0;
      for (int step = 0; step < 400; ++step) {
        const std::string name = "t" + std::to_string(spawned ? r.below(spawned) : 0);
        Op op;
        switch (r.below(10)) {
          case 0:
          case 1: {
            TaskSpec t = task("t" + std::to_string(spawned++), int(r.below(40)) - 20, groups[r.below(4)]);
            if (r.below(3) == 0) t.behaviour = RunPeriodic{(1 + r.below(5)) * 300'000, Nanos{(1 + r.below(5)) * 700'000}};
            else if (r.below(3) == 0) t.behaviour = RunWallclock{(1 + r.below(4)) * kMs, Nanos{3 * kMs}};
            if (r.below(3) == 0) t.cpus = cpu();
            op = op::Spawn{t};
            break;
          }
          case 2: op = op::Sleep{name}; break;
          case 3: op = op::Wake{name}; break;
          case 4: op = op::SetNice{name, int(r.below(40)) - 20}; break;
          case 5: op = op::SetAffinity{name, r.below(2) ? cpu() : CpuMask{}}; break;
          case 6: op = op::MoveTask{name, groups[r.below(4)]}; break;
          case 7: op = op::SetShares{groups[1 + r.below(3)], 2 + r.below(4000)}; break;
          case 8: op = op::Exit{name}; break;
          default: op = op::Advance{r.below(3 * kMs)}; break;
        }
        sim.apply(op);
        ASSERT_TRUE(sim.checker()->ok()) << profile << " seed " << seed << ": " << first_violation(sim);
      }
      sim.run_until(sim.now() + 50 * kMs);
      EXPECT_TRUE(sim.checker()->ok()) << profile << " seed " << seed << ": " << first_violation(sim);
      EXPECT_GT(sim.checker()->checks(), 400u);
    }
  }
}

// Two busy tasks, nice 0 and nice 5, on one CPU: CPU time in the ratio of
// their weights, 1024 : 335, within 1% over 10 s.
TEST(SimCore, BusyTasksShareOneCpuByWeight) {
  for (const Profile& p : all_profiles()) {
    const std::string profile(p.name);
    Scenario sc = basic(profile, 1);
    sc.tasks = {task("n0", 0), task("n5", 5)};
    sc.duration = 10'000 * kMs;
    Sim sim(sc);
    sim.run();
    ASSERT_TRUE(sim.checker()->ok()) << first_violation(sim);
    const double a = double(sim.cpu_time(TaskId(0))), b = double(sim.cpu_time(TaskId(1)));
    EXPECT_EQ(a + b, 10'000.0 * kMs);
    EXPECT_NEAR(a / b, 1024.0 / 335.0, 0.01 * 1024.0 / 335.0) << profile;
  }
}

// Two groups with shares 2048 and 1024, two busy tasks each, one CPU: the
// groups get 2/3 and 1/3 within 1%, and tasks inside a group split evenly.
TEST(SimCore, GroupsShareOneCpuByShares) {
  for (const Profile& p : all_profiles()) {
    const std::string profile(p.name);
    Scenario sc = basic(profile, 1);
    sc.groups = {{"/big", 2048}, {"/small", 1024}};
    sc.tasks = {task("b0", 0, "/big"), task("b1", 0, "/big"), task("s0", 0, "/small"), task("s1", 0, "/small")};
    sc.duration = 6'000 * kMs;
    Sim sim(sc);
    sim.run();
    ASSERT_TRUE(sim.checker()->ok()) << first_violation(sim);
    const auto cpu = [&](int t) { return double(sim.cpu_time(TaskId(t))); };
    const double big = cpu(0) + cpu(1), small = cpu(2) + cpu(3);
    EXPECT_NEAR(big / (big + small), 2.0 / 3.0, 0.01) << profile;
    EXPECT_NEAR(cpu(0) / cpu(1), 1.0, 0.02) << profile;
    EXPECT_NEAR(cpu(2) / cpu(3), 1.0, 0.02) << profile;
  }
}

// With the instantaneous share (instant_shares: v3.10's own calc_cfs_shares
// weighs the averaged loads, sim_pelt_v3_test.cpp), a group's weight on a CPU
// is its shares times that CPU's fraction of the group's load.
TEST(SimCore, GroupEntityWeightFollowsTheLoadSplitAcrossCpus) {
  Scenario sc = basic("v3.10", 2);
  sc.feature_overrides = {{Feature::instant_shares, true}};
  sc.groups = {{"/g", 1024}};
  sc.tasks = {task("x", 0, "/g"), task("y", 0, "/g"), task("z", 0, "/g")};
  sc.tasks[0].cpus = cpus({0});
  sc.tasks[1].cpus = cpus({1});
  sc.tasks[2].cpus = cpus({1});
  Sim sim(sc);
  const TaskGroup& g = sim.groups()[sim.group_index("/g")];
  // Only local events reweight: CPU 0's entity still has the weight it got
  // when x was enqueued alone, until CPU 0's next tick (update_cfs_shares).
  const CpuId c0(0), c1(1);
  EXPECT_EQ(sim.entities()[g.se[c0]].load.weight, 1024u);
  sim.run_until(kMs);
  EXPECT_EQ(sim.entities()[g.se[c0]].load.weight, 1024u / 3);  // 1024 * 1024 / 3072
  EXPECT_EQ(sim.entities()[g.se[c1]].load.weight, 2048u / 3);
  EXPECT_EQ(calc_group_shares_instant<uint64_t>(1024, 0, 0), kFairMinShares);
}

// place_entity on wakeup: a long sleeper comes back at min_vruntime minus half
// the latency (GENTLE_FAIR_SLEEPERS) or a whole latency (off); a short
// sleeper keeps its own vruntime.
TEST(SimCore, PlaceEntityOfAWakingTask) {
  for (bool gentle : {true, false}) {
    Scenario sc = basic("v5.15", 1);
    sc.feature_overrides = {{Feature::gentle_fair_sleepers, gentle}};
    sc.tasks = {task("busy"), task("sleeper")};
    Sim sim(sc);
    const TaskId s = sim.task_index("sleeper");
    const EntityId se = sim.tasks()[s].se;
    sim.run_until(5 * kMs);
    sim.apply(op::Sleep{"sleeper"});
    sim.run_until(500 * kMs);
    const CfsRq& root = sim.cfs_rqs()[sim.rqs()[CpuId(0)].cfs];
    sim.apply(op::Wake{"sleeper"});
    const uint64_t thresh = gentle ? sim.tunables().latency_ns / 2 : sim.tunables().latency_ns;
    // Waking preempts the busy task (it is far ahead), so the sleeper now runs
    // with exactly the placed vruntime (no time passed).
    EXPECT_EQ(sim.entities()[se].vruntime, root.min_vruntime - thresh) << "gentle=" << gentle;
    EXPECT_EQ(sim.rqs()[CpuId(0)].curr, s);
    // A short sleep: it keeps its vruntime, which is ahead of the placement bound.
    sim.run_until(sim.now() + 40 * kMs);
    sim.apply(op::Sleep{"sleeper"});
    const uint64_t before = sim.entities()[se].vruntime;
    sim.run_until(sim.now() + 100'000);
    sim.apply(op::Wake{"sleeper"});
    EXPECT_EQ(sim.entities()[se].vruntime, before);
    EXPECT_TRUE(sim.checker()->ok()) << first_violation(sim);
  }
}

// A new task is placed one vslice after min_vruntime with START_DEBIT, and at
// its parent cfs_rq's curr (here: min_vruntime) without it.
TEST(SimCore, ForkPlacementFollowsStartDebit) {
  for (bool debit : {true, false}) {
    Scenario sc = basic("v5.15", 1);
    sc.feature_overrides = {{Feature::start_debit, debit}};
    sc.groups = {{"/g", 1024}};
    sc.tasks = {task("a", 0, "/g")};
    Sim sim(sc);
    sim.run_until(20 * kMs);  // a alone: /g's min_vruntime follows it
    const CfsRqId gq = sim.groups()[GroupId(1)].cfs_rq[CpuId(0)];
    const uint64_t base = sim.cfs_rqs()[gq].min_vruntime;
    sim.apply(op::Spawn{task("b", 0, "/g")});
    const SchedEntity& b = sim.entities()[sim.tasks()[TaskId(1)].se];
    // vslice: period = latency 6 ms (2 tasks), 1/2 of it on /g, all of it
    // above; the kernel's fixed point gives 2999997 ns.
    EXPECT_EQ(int64_t(b.vruntime - base), debit ? 2'999'997 : 0) << "debit=" << debit;
    EXPECT_TRUE(sim.checker()->ok()) << first_violation(sim);
  }
}

// The quirk of a fresh cfs_rq: a child with no curr to copy keeps the 0 that
// __sched_fork gave it, which is 2^20 ns ahead of the initial min_vruntime.
TEST(SimCore, ForkOnAFreshCfsRqKeepsVruntimeZero) {
  Scenario sc = basic("v5.15", 1);
  sc.feature_overrides = {{Feature::start_debit, false}};
  sc.tasks = {task("a")};
  Sim sim(sc);
  EXPECT_EQ(sim.entities()[sim.tasks()[TaskId(0)].se].vruntime, 0u);
}

// A run= burst ends at its exact nanosecond, between ticks.
TEST(SimCore, BurstEndsAtTheExactNanosecond) {
  Scenario sc = basic("v5.15", 1);
  sc.tasks = {task("p", 0, "/", RunPeriodic{1'234'567, Nanos{3 * kMs}})};
  sc.duration = 20 * kMs;
  Sim sim(sc, SimOptions{.record_trace = true});
  sim.run();
  const auto st = sim.stretches_until_now();
  ASSERT_GE(st.size(), 4u);
  EXPECT_EQ(st[0].start, 0u);
  EXPECT_EQ(st[0].end, 1'234'567u);
  EXPECT_EQ(st[1].start, 1'234'567u + 3 * kMs);
  EXPECT_EQ(st[1].end, 2 * 1'234'567u + 3 * kMs);
  // A run= without sleep= exits after its burst.
  Scenario once = basic("v5.15", 1);
  once.tasks = {task("o", 0, "/", RunPeriodic{777, std::nullopt})};
  once.duration = 5 * kMs;
  Sim s2(once);
  s2.run();
  EXPECT_EQ(s2.tasks()[TaskId(0)].state, TaskState::exited);
  EXPECT_EQ(s2.cpu_time(TaskId(0)), 777u);
  EXPECT_TRUE(s2.checker()->ok()) << first_violation(s2);
}

// runtime= busy-waits in wall-clock time: with a competitor it gets less CPU
// than its runtime, and still sleeps at t0 + runtime.
TEST(SimCore, WallclockRuntimeEndsOnTheWallClock) {
  Scenario sc = basic("v5.15", 1);
  sc.tasks = {task("hog"), task("w", 0, "/", RunWallclock{10 * kMs, Nanos{90 * kMs}})};
  sc.duration = 100 * kMs;
  Sim sim(sc);
  sim.run_until(10 * kMs);
  const TaskId w = sim.task_index("w");
  const Nanos got = sim.cpu_time(w);
  EXPECT_LT(got, 10 * kMs);
  EXPECT_GT(got, 2 * kMs);
  sim.run_until(10 * kMs + 1);
  EXPECT_EQ(sim.tasks()[w].state, TaskState::sleeping);
  sim.run_until(100 * kMs + 1);
  EXPECT_NE(sim.tasks()[w].state, TaskState::sleeping);  // woke at 100 ms
  EXPECT_TRUE(sim.checker()->ok()) << first_violation(sim);
}

// min_vruntime starts at (u64)-(1 << 20): the first pick wraps it past zero,
// and the monotonicity check (signed difference) accepts the wrap.
TEST(SimCore, MinVruntimeWrapsFromItsInitialValue) {
  Scenario sc = basic("v3.10", 1);
  sc.settings = {{"hz", 10000}};  // 100 us ticks: many steps across the wrap
  sc.tasks = {task("a"), task("b", 3), task("c", -3), task("d", 7)};
  Sim sim(sc);
  const CfsRq& root = sim.cfs_rqs()[sim.rqs()[CpuId(0)].cfs];
  EXPECT_GT(root.min_vruntime, uint64_t{1} << 63);  // still "negative"
  sim.run_until(100'000);
  sim.run_until(200 * kMs);
  EXPECT_LT(root.min_vruntime, uint64_t{1} << 40);  // wrapped to small positive values
  EXPECT_TRUE(sim.checker()->ok()) << first_violation(sim);
  EXPECT_GT(sim.checker()->checks(), 1000u);
}

// The timeline's order is entity_before's, also across 2^64.
TEST(SimCore, TimelineOrdersAcrossTheWrap) {
  std::pmr::unsynchronized_pool_resource pool;
  Timeline t(&pool);
  const uint64_t base = kInitMinVruntime;
  const int64_t offsets[] = {3'000'000, -5, 0, 1'048'575, 1'048'576, 2'000'000, 0};
  uint64_t seq = 0;
  for (int64_t o : offsets) t.insert({base + uint64_t(o), seq++, EntityId(seq)});
  std::vector<int64_t> got;
  for (const TimelineKey& k : t) got.push_back(int64_t(k.vruntime - base));
  EXPECT_EQ(got, (std::vector<int64_t>{-5, 0, 0, 1'048'575, 1'048'576, 2'000'000, 3'000'000}));
  EXPECT_EQ(t.begin()->vruntime, base - 5);
  // Equal keys keep insertion order (the kernel puts a tie to the right).
  auto it = std::next(t.begin());
  EXPECT_LT(it->seq, std::next(it)->seq);
  EXPECT_TRUE(vruntime_before(base + 1'048'575, base + 1'048'576));  // -1 before 0 as u64
}

// The same scenario gives byte-identical traces.
TEST(SimCore, SameScenarioSameTrace) {
  Scenario sc = basic("v5.15", 4);
  sc.groups = {{"/a", 1024}, {"/b", 300}};
  for (int i = 0; i < 12; ++i) {
    TaskSpec t = task("t" + std::to_string(i), i % 7 - 3, i % 3 == 0 ? "/" : (i % 3 == 1 ? "/a" : "/b"));
    if (i % 2) t.behaviour = RunPeriodic{Nanos(300'000 + 10'000 * i), Nanos{Nanos(900'000 + 1'000 * i)}};
    sc.tasks.push_back(t);
  }
  sc.ops = {{30 * kMs, op::MoveTask{"t0", "/b"}, {}},
            {40 * kMs, op::SetAffinity{"t2", cpus({3})}, {}},
            {50 * kMs, op::SetNice{"t4", -10}, {}},
            {60 * kMs, op::SetShares{"/a", 4096}, {}}};
  sc.duration = 200 * kMs;
  const std::string a = simtest::traces(sc), b = simtest::traces(sc);
  EXPECT_GT(a.size(), 10'000u);
  EXPECT_EQ(a, b);
}

// A deliberately broken model is caught, with the invariant's name, the step
// and the time.
TEST(SimCore, CheckerCatchesACorruptedModel) {
  Scenario sc = basic("v5.15", 2);
  sc.groups = {{"/g", 1024}};
  sc.tasks = {task("a", 0, "/g"), task("b", 0, "/g"), task("c")};
  Sim sim(sc);
  sim.run_until(3 * kMs);
  ASSERT_TRUE(sim.checker()->ok());
  const CfsRqId gq = sim.groups()[sim.group_index("/g")].cfs_rq[CpuId(0)];
  sim.mutable_cfs_rq(gq).load_weight += 1;  // corrupt a load
  sim.run_until(4 * kMs);                    // the next tick notices
  ASSERT_FALSE(sim.checker()->ok());
  const Violation& v = sim.checker()->violations().front();
  EXPECT_EQ(v.invariant, "load-equals-sum");
  EXPECT_EQ(v.t, 4 * kMs);
  EXPECT_NE(v.step.find("tick cpu"), std::string::npos) << v.step;
  EXPECT_NE(v.detail.find("/g@cpu0"), std::string::npos) << v.detail;
  EXPECT_NE(invariant_by_name(v.invariant), nullptr);

  Sim s2(sc);
  s2.mutable_cfs_rq(s2.rqs()[CpuId(1)].cfs).min_vruntime -= 5;  // min_vruntime goes backwards
  EXPECT_FALSE(s2.check_now("corrupt"));
  EXPECT_EQ(s2.checker()->violations().front().invariant, "min-vruntime-monotonic");

  Sim s3(sc);
  s3.mutable_cfs_rq(s3.rqs()[CpuId(0)].cfs).h_nr_running += 1;
  EXPECT_FALSE(s3.check_now("corrupt"));
  EXPECT_EQ(s3.checker()->violations().front().invariant, "nr-running-consistent");
}

// Tunables: scaled with the CPU count, then sysctl writes; in the sysctl era
// a latency/min_granularity write recomputes sched_nr_latency.
TEST(SimCore, TunablesScaleAndSysctlWritesRecomputeNrLatency) {
  Scenario sc = basic("v3.10", 4);
  Sim a(sc);
  EXPECT_EQ(a.tunables().latency_ns, 18 * kMs);
  EXPECT_EQ(a.tunables().min_granularity_ns, 2'250'000u);
  EXPECT_EQ(a.tunables().nr_latency, 8u);
  sc.settings = {{"latency", 20 * kMs}, {"min_granularity", 3 * kMs}};
  Sim b(sc);
  EXPECT_EQ(b.tunables().nr_latency, 7u);  // DIV_ROUND_UP(20, 3)
  sc.kernel = "v5.15";
  Sim c(sc);
  EXPECT_EQ(c.tunables().nr_latency, 8u);  // debugfs writes leave it alone
}

// Wakeup preemption: a task woken far behind preempts at once; with
// wakeup_preemption off it waits for the tick.
TEST(SimCore, WakeupPreemption) {
  for (bool on : {true, false}) {
    Scenario sc = basic("v5.15", 1);
    sc.feature_overrides = {{Feature::wakeup_preemption, on}};
    sc.tasks = {task("hog"), task("w", 0, "/", RunPeriodic{100'000, Nanos{20 * kMs}})};
    Sim sim(sc, SimOptions{.record_trace = true});
    sim.run_until(100 * kMs);
    // w's stretches: its wakeups come 20 ms after each burst ends; with
    // preemption it runs at that very ns (it is placed latency/2 behind the hog).
    std::vector<Stretch> w;
    for (const Stretch& s : sim.stretches_until_now())
      if (s.task == TaskId(1)) w.push_back(s);
    ASSERT_GE(w.size(), 2u);
    const bool woke_at_once = w[1].start == w[0].end + 20 * kMs;
    EXPECT_EQ(sim.counters().resched_wakeup > 0, on);
    EXPECT_EQ(woke_at_once, on);
    EXPECT_TRUE(sim.checker()->ok()) << first_violation(sim);
  }
}

// Placement without balancing: lowest allowed CPU with the fewest runnable tasks.
TEST(SimCore, PlacementIsLowestAllowedCpuWithFewestTasks) {
  Scenario sc = basic("v5.15", 4);
  sc.tasks = {task("a"), task("b"), task("c"), task("d"), task("e"), task("f")};
  sc.tasks[5].cpus = cpus({2, 3});
  Sim sim(sc);
  const int want[] = {0, 1, 2, 3, 0, 2};
  for (const TaskId i : sim.tasks().ids()) EXPECT_EQ(sim.tasks()[i].cpu, CpuId(want[i.index()])) << sim.tasks()[i].name;
  sim.apply(op::SetAffinity{"a", cpus({1})});
  const Task& a = sim.tasks()[sim.task_index("a")];
  EXPECT_EQ(a.cpu, CpuId(1));
  EXPECT_EQ(a.stats.migrations, 1u);
  EXPECT_TRUE(sim.checker()->ok()) << first_violation(sim);
}

}  // namespace
}  // namespace cfsv
