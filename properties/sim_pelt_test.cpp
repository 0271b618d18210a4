// PELT in the simulator (model/pelt.h, v5.15): hand-checked cases run through
// the whole model (fork, enqueue, tick, sleep, blocked updates), the group
// shares of two CPUs worked out from calc_group_shares by hand, and seed
// 000's skip. invariants_test.cpp plants a bug for each PELT invariant.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "claims/sim_diff.h"
#include "model/arith/pelt_tables.h"
#include "model/pelt.h"
#include "model/trace.h"
#include "properties/sim_gen.h"
#include "properties/sim_pelt_test_util.h"
#include "properties/sim_test_util.h"

namespace cfsv {
namespace {

using simtest::basic;
using simtest::cpus;
using simtest::kMs;
using simtest::root_avg;
using simtest::task;
using simtest::task_avg;



TEST(SimPelt, ForkStartsWithFullLoadAndHalfTheFreeUtil) {
  Scenario sc = basic("v5.15");
  sc.tasks = {task("a"), task("b")};
  sc.duration = 0;
  Sim sim(sc);
  // init_entity_runnable_average: load_avg = the weight; post_init_entity_util_avg:
  // a's cfs_rq has util 0, so a gets (1024 - 0) / 2 = 512; b's has a's 512,
  // so b gets min(512 * 1048576 / (1024 + 1), (1024 - 512) / 2) = 256.
  EXPECT_EQ(task_avg(sim, "a").load_avg, 1024u);
  EXPECT_EQ(task_avg(sim, "a").util_avg, 512u);
  EXPECT_EQ(task_avg(sim, "b").util_avg, 256u);
  EXPECT_EQ(task_avg(sim, "b").runnable_avg, 256u);
  EXPECT_EQ(root_avg(sim, 0).load_avg, 2048u);  // both attached
  EXPECT_EQ(root_avg(sim, 0).util_avg, 768u);
}

TEST(SimPelt, Nice0TaskRunningOneSecondReaches1024) {
  Scenario sc = basic("v5.15");
  sc.tasks = {task("a")};
  sc.duration = 1000 * kMs;
  Sim sim(sc);
  sim.run();
  ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
  const SchedAvg& a = task_avg(sim, "a");
  EXPECT_GE(a.load_avg, 1023u);
  EXPECT_LE(a.load_avg, 1024u);
  EXPECT_GE(a.util_avg, 1023u);
  EXPECT_LE(a.util_avg, 1025u);
  EXPECT_GE(a.runnable_avg, 1023u);
  EXPECT_GE(root_avg(sim, 0).load_avg, 1023u);
  EXPECT_LE(root_avg(sim, 0).load_avg, 1024u);
}

TEST(SimPelt, Nice5AlwaysRunnableTaskHasItsWeightAsLoad) {
  Scenario sc = basic("v5.15");
  sc.tasks = {task("a", 5)};
  sc.duration = 1000 * kMs;
  Sim sim(sc);
  sim.run();
  // weight 335; v5.15 reaches it or stops one short (docs/pelt.md).
  EXPECT_GE(task_avg(sim, "a").load_avg, 334u);
  EXPECT_LE(task_avg(sim, "a").load_avg, 335u);
  // util does not depend on the weight.
  EXPECT_GE(task_avg(sim, "a").util_avg, 1023u);
}

// The continuous ripple of a 1 ms on / 3 ms off square wave through PELT's
// filter is 248.1 .. 264.0 (pelt_hand_test); the model's integer signal,
// sampled at its updates, stays within a few units of it.
TEST(SimPelt, QuarterDutyCycleTaskStaysNear256) {
  Scenario sc = basic("v5.15");
  sc.tasks = {task("a", 0, "/", RunPeriodic{1 * kMs, 3 * kMs})};
  sc.duration = 4000 * kMs;
  Sim sim(sc);
  sim.run_to(1000 * kMs);  // the fork's util (512) has decayed away
  for (Nanos t = 1000 * kMs; t < 3000 * kMs; t += kMs / 4) {
    sim.run_to(t);
    const SchedAvg& a = task_avg(sim, "a");
    ASSERT_GE(a.util_avg, 244u) << "t=" << t;
    ASSERT_LE(a.util_avg, 268u) << "t=" << t;
    ASSERT_GE(a.load_avg, 244u) << "t=" << t;
    ASSERT_LE(a.load_avg, 268u) << "t=" << t;
  }
  EXPECT_TRUE(sim.checker()->ok());
}

// A task runs 1 s on CPU 0, then sleeps; CPU 1 stays busy, so its tick
// updates CPU 0's blocked averages every 32 ms. The root cfs_rq's util then
// halves every 32 periods (33.55 ms): u(t) = u0 * 2^(-(t - t0) / 32 periods).
TEST(SimPelt, BlockedUtilHalvesEveryThirtyTwoPeriods) {
  simtest::expect_blocked_util_halves("v5.15", 1020, 3, 0.01L);
}

// One group, two CPUs: two busy nice-0 tasks of /g on CPU 0, one on CPU 1.
// Each task attaches with load_avg = 1024 at fork, so g's cfs_rqs contribute
// 2048 and 1024 to tg->load_avg = 3072, and stay within 1/64 of that while
// always running (their load_avg stays at 2047..2048 and 1023..1024).
// calc_group_shares, tg->shares = scale_load(1024) = 1048576:
//   CPU 0: load = max(2048, 2048) = 2048; tg_weight = 3072 - 2048 + 2048 = 3072;
//          shares = 1048576 * 2048 / 3072 = 699050 (699050.67 rounded down)
//   CPU 1: load = max(1024, 1024) = 1024; tg_weight = 3072 - 1024 + 1024 = 3072;
//          shares = 1048576 * 1024 / 3072 = 349525
// Instantaneous shares agree here (the loads are the weights); they part at
// the first sleep.
TEST(SimPelt, GroupSharesOnTwoCpusWithUnequalLoads) {
  Scenario sc = simtest::group_on_two_cpus("v5.15", 500 * kMs);
  Sim sim(sc);
  sim.run();
  ASSERT_TRUE(sim.checker()->ok());
  const TaskGroup& g = sim.groups()[sim.group_index("/g")];
  const CfsRq& q0 = sim.cfs_rqs()[g.cfs_rq[CpuId(0)]];
  const CfsRq& q1 = sim.cfs_rqs()[g.cfs_rq[CpuId(1)]];
  EXPECT_EQ(q0.pelt.tg_load_avg_contrib, 2048u);
  EXPECT_EQ(q1.pelt.tg_load_avg_contrib, 1024u);
  EXPECT_EQ(g.load_avg, 3072u);
  EXPECT_GE(q0.pelt.avg.load_avg, 2047u);
  EXPECT_LE(q0.pelt.avg.load_avg, 2048u);
  EXPECT_EQ(sim.entities()[g.se[CpuId(0)]].load.weight, 699050u);
  EXPECT_EQ(sim.entities()[g.se[CpuId(1)]].load.weight, 349525u);
  EXPECT_EQ(calc_group_shares(sim.sched(), g.cfs_rq[CpuId(0)]), 699050u);
}

// A group whose task sleeps keeps a decaying share on that CPU: PELT remembers
// the blocked load, the instantaneous share drops to MIN_SHARES at once.
TEST(SimPelt, BlockedGroupLoadKeepsItsShareUnlessInstantShares) {
  for (const bool instant : {false, true}) {
    Scenario sc = basic("v5.15", 2);
    sc.groups = {{"/g", 1024}};
    TaskSpec a = task("a", 0, "/g", RunPeriodic{100 * kMs, 50 * kMs});
    a.cpus = cpus({0});
    TaskSpec b = task("b", 0, "/g");
    b.cpus = cpus({1});
    sc.tasks = {a, b};
    sc.feature_overrides = {{Feature::instant_shares, instant}};
    sc.duration = 120 * kMs;
    Sim sim(sc);
    sim.run();
    const TaskGroup& g = sim.groups()[sim.group_index("/g")];
    // b's entity on CPU 1: the whole share (instant: 1048576 * 1024 / 1024),
    // or with PELT less, CPU 0's blocked load still counted in tg->load_avg.
    const uint64_t w1 = sim.entities()[g.se[CpuId(1)]].load.weight;
    if (instant) EXPECT_EQ(w1, 1048576u);
    else EXPECT_LT(w1, 1048576u * 3 / 4);
  }
}

// cfs_rq_is_decayed (v5.15.100) keeps a cfs_rq on the leaf list while a
// child group's cfs_rq stays there (child_cfs_rq_on_list), so the parent's
// averages go on being updated. /a decayed to nothing while /a/b still holds
// load: /a stays; once /a/b is decayed too, both leave in one walk.
TEST(SimPelt, AParentCfsRqStaysOnTheLeafListWhileAChildIsOnIt) {
  Scenario sc = basic("v5.15", 1);
  sc.groups = {{"/a", 1024}, {"/a/b", 1024}};
  sc.duration = kMs;
  Sim sim(sc);
  sim.run();
  Sched& s = sim.mutable_sched();
  const CpuId cpu(0);
  CfsRq& a = s.cfs[s.tg[sim.group_index("/a")].cfs_rq[cpu]];
  CfsRq& b = s.cfs[s.tg[sim.group_index("/a/b")].cfs_rq[cpu]];
  a.pelt = {}, b.pelt = {};
  a.pelt.on_list = b.pelt.on_list = true;
  b.pelt.avg.load_sum = 1000;  // /a/b still decaying; /a at zero
  b.pelt.avg.last_update_time = a.pelt.avg.last_update_time = rq_clock_pelt(s, cpu);
  update_blocked_averages(s, cpu);
  EXPECT_TRUE(b.pelt.on_list);
  EXPECT_TRUE(a.pelt.on_list);
  b.pelt.avg.load_sum = 0;
  update_blocked_averages(s, cpu);
  EXPECT_FALSE(b.pelt.on_list);
  EXPECT_FALSE(a.pelt.on_list);
}

TEST(SimPelt, RootTgLoadAvgSkipSavesUpdatesAndChangesNoDecision) {
  Scenario sc = basic("v5.15", 4);
  for (int i = 0; i < 8; ++i) sc.tasks.push_back(task("t" + std::to_string(i), 0, "/", RunPeriodic{3 * kMs, 2 * kMs}));
  sc.duration = 300 * kMs;
  Scenario off = sc;
  off.feature_overrides = {{Feature::root_tg_load_avg_skip, false}};
  Sim a(sc, {.record_trace = true}), b(off, {.record_trace = true});
  a.run();
  b.run();
  EXPECT_EQ(a.counters().root_tg_load_avg_updates, 0u);
  EXPECT_GT(a.counters().root_tg_load_avg_skips, 0u);
  EXPECT_GT(b.counters().root_tg_load_avg_updates, 0u);
  EXPECT_EQ(b.counters().root_tg_load_avg_skips, 0u);
  ASSERT_EQ(a.trace().switches.size(), b.trace().switches.size());
  for (std::size_t i = 0; i < a.trace().switches.size(); ++i) {
    const SwitchEvent &x = a.trace().switches[i], &y = b.trace().switches[i];
    ASSERT_TRUE(x.t == y.t && x.cpu == y.cpu && x.prev == y.prev && x.next == y.next) << "switch " << i;
  }
  // Every non-root signal is the same.
  for (const CfsRqId q : a.cfs_rqs().ids())
    EXPECT_TRUE(a.cfs_rqs()[q].pelt.avg == b.cfs_rqs()[q].pelt.avg);
}

// Seed 000 on random scenarios and ops (v5.15): with the root's
// update_tg_load_avg skipped, every sched event (switch, wakeup, placement,
// migration) is the same, and so is every PELT signal but the root group's
// tg->load_avg and its cfs_rqs' contributions to it (claims/sim_diff.h, the
// comparison the claim root-tg-load-avg-skip/unobservable runs).
RC_GTEST_PROP(SimPelt, RootTgLoadAvgSkipChangesNoDecisionAndNoOtherSignal, ()) {
  Scenario sc = *simgen::gen_sim_scenario_with_ops(30);
  sc.kernel = "v5.15";
  const SimRun off = run_with(sc, {{Feature::root_tg_load_avg_skip, false}});
  const SimRun on = run_with(sc, {{Feature::root_tg_load_avg_skip, true}});
  const std::string diff = root_tg_skip_difference(off, on);
  RC_ASSERT(diff == "");
}

}  // namespace
}  // namespace cfsv
