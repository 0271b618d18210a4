// v4.4's load tracking in the simulator (model/pelt_v4.cpp, feature
// pelt_v4_4): hand-checked cases through the whole model, as
// sim_pelt_test.cpp does for v5.15, and the group shares of two CPUs worked
// out from v4.4's calc_cfs_shares by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "model/arith/pelt_tables.h"
#include "model/pelt_eras.h"
#include "properties/scenario_test_util.h"
#include "properties/sim_pelt_test_util.h"
#include "properties/sim_test_util.h"

namespace cfsv {
namespace {

using simtest::basic;
using simtest::kMs;
using simtest::root_avg;
using simtest::task;
using simtest::task_avg;

constexpr uint64_t kLoadAvgMax = 47742;

TEST(SimPeltV4_4, ProfileTracksV4_4sPelt) {
  Sim sim(basic("v4.4"));
  EXPECT_TRUE(sim.sched().era.pelt_v4);
  EXPECT_FALSE(sim.sched().era.pelt);
  EXPECT_TRUE(sim.sched().era.pelt_shares);
}

// init_entity_runnable_average (v4.4): load_avg = the weight and util_avg =
// 1024, as if the task had always run (v4.4 has no post_init_entity_util_avg);
// the first enqueue attaches both to the cfs_rq, whose util_avg can then
// exceed 1024.
TEST(SimPeltV4_4, ForkStartsWithFullLoadAndFullUtil) {
  Scenario sc = basic("v4.4");
  sc.tasks = {task("a"), task("b", 5)};
  sc.duration = 0;
  Sim sim(sc);
  EXPECT_EQ(task_avg(sim, "a").load_avg, 1024u);
  EXPECT_EQ(task_avg(sim, "a").util_avg, 1024u);
  EXPECT_EQ(task_avg(sim, "a").load_sum, 1024u * kLoadAvgMax);
  EXPECT_EQ(task_avg(sim, "b").load_avg, 335u);
  EXPECT_EQ(task_avg(sim, "b").util_avg, 1024u);
  EXPECT_EQ(root_avg(sim, 0).load_avg, 1024u + 335u);
  EXPECT_EQ(root_avg(sim, 0).util_avg, 2048u);
  EXPECT_EQ(task_avg(sim, "a").runnable_avg, 0u);  // v4.4 has none
}

// Always running, v4.4's sum after a boundary is w (46718 + p) (the full
// periods, LOAD_AVG_MAX y, plus the p units of the current one), over
// LOAD_AVG_MAX: the load_avg moves between w 46718 / 47742 (1002 for nice 0)
// and w 47741 / 47742 with the phase of the update, and never reaches w. The
// averages are recomputed only when a boundary is crossed: with HZ 1000 a
// tick is 976 units, so a tick crosses one exactly when period_contrib drops.
TEST(SimPeltV4_4, Nice0TaskRunningOneSecondFollowsThePeriodPhase) {
  Scenario sc = basic("v4.4");
  sc.settings = {{"hz", 1000}};
  sc.tasks = {task("a")};
  sc.duration = 1000 * kMs;
  Sim sim(sc);
  sim.run_to(500 * kMs);
  uint64_t last_p = task_avg(sim, "a").period_contrib;
  int crossed = 0;
  for (Nanos t = 500 * kMs; t <= 1000 * kMs; t += kMs) {
    sim.run_to(t);
    const SchedAvg& a = task_avg(sim, "a");
    ASSERT_GE(a.load_avg, 1002u) << "t=" << t;
    ASSERT_LT(a.load_avg, 1024u) << "t=" << t;
    const bool recomputed = a.period_contrib < last_p;
    last_p = a.period_contrib;
    if (!recomputed) continue;
    ++crossed;
    const long double ideal = 1024.0L * (kLoadAvgMax - 1024 + a.period_contrib) / kLoadAvgMax;
    ASSERT_NEAR(static_cast<long double>(a.load_avg), ideal, 2) << "t=" << t << " p=" << a.period_contrib;
    ASSERT_NEAR(static_cast<long double>(a.util_avg), ideal, 2) << "t=" << t;
  }
  EXPECT_GE(crossed, 450);  // 500 ms of 0.954-period ticks: all but one in 21
  EXPECT_NEAR(static_cast<long double>(root_avg(sim, 0).load_avg), task_avg(sim, "a").load_avg, 2);
  EXPECT_TRUE(sim.checker()->ok());
}

// v4.4 scales util by arch_scale_cpu_capacity(NULL, cpu) (scale_cpu in
// __update_load_avg): always running on a CPU of capacity 512, util_sum
// accrues 512 a unit, so util_avg = 512 (46718 + p) / 47742 once the fork's
// 1024 has decayed (y^1000 of it: nothing), 501 .. 511; load is not scaled.
TEST(SimPeltV4_4, UtilOfATaskAlwaysRunningOnAHalfCapacityCpuTendsTo512) {
  Scenario sc = basic("v4.4");
  sc.topology.capacity = {512};
  sc.tasks = {task("a")};
  sc.duration = 1000 * kMs;
  Sim sim(sc);
  EXPECT_EQ(sim.sched().topo.arch_capacity[CpuId(0)], 512u);
  sim.run();
  const SchedAvg& a = task_avg(sim, "a");
  EXPECT_NEAR(static_cast<long double>(a.util_avg), 512.0L * (kLoadAvgMax - 1024 + a.period_contrib) / kLoadAvgMax, 1);
  EXPECT_GE(a.util_avg, 512u * 46718 / kLoadAvgMax);
  EXPECT_LT(a.util_avg, 512u);
  EXPECT_GE(a.load_avg, 1002u);  // nice 0's 1024, unscaled
  EXPECT_TRUE(sim.checker()->ok());
}

// A nice-5 task always runnable: the same phase-dependent fraction of its
// weight, 335.
TEST(SimPeltV4_4, Nice5AlwaysRunnableTaskStaysJustBelowItsWeight) {
  Scenario sc = basic("v4.4");
  sc.tasks = {task("a", 5)};
  sc.duration = 1000 * kMs;
  Sim sim(sc);
  sim.run();
  const SchedAvg& a = task_avg(sim, "a");
  EXPECT_NEAR(static_cast<long double>(a.load_avg), 335.0L * (kLoadAvgMax - 1024 + a.period_contrib) / kLoadAvgMax, 2);
  EXPECT_GE(a.load_avg, 335u * 46718 / kLoadAvgMax);
  EXPECT_LT(a.load_avg, 335u);
}

// 1 ms on, 3 ms off: v5.15's continuous ripple 248.1 .. 264.0 times v4.4's
// (46718 + p) / 47742, 0.9786 .. 1: 242.8 .. 264.0; the model's integer
// signal, sampled every 0.25 ms, stays within a few units of it.
TEST(SimPeltV4_4, QuarterDutyCycleTaskStaysNear256) {
  Scenario sc = basic("v4.4");
  sc.tasks = {task("a", 0, "/", RunPeriodic{1 * kMs, 3 * kMs})};
  sc.duration = 3000 * kMs;
  Sim sim(sc);
  sim.run_to(1000 * kMs);  // the fork's 1024 has decayed away
  uint64_t lo = 1024, hi = 0;
  for (Nanos t = 1000 * kMs; t < 3000 * kMs; t += kMs / 4) {
    sim.run_to(t);
    const SchedAvg& a = task_avg(sim, "a");
    lo = std::min(lo, a.util_avg);
    hi = std::max(hi, a.util_avg);
    ASSERT_GE(a.load_avg, 239u) << "t=" << t;
    ASSERT_LE(a.load_avg, 268u) << "t=" << t;
  }
  EXPECT_GE(lo, 239u);
  EXPECT_LE(hi, 268u);
  EXPECT_LT(lo, 250u);  // the phase factor shows: below v5.15's 248 at times
  EXPECT_TRUE(sim.checker()->ok());
}

// After 1 s of running on CPU 0, a sleeps; CPU 1's tick runs v4.4's
// update_blocked_averages every 32 ms. The root cfs_rq's util_sum decays by
// y per boundary crossed, so util_avg halves every 32 periods, within one
// period's decay (2.2%) of the ideal u0 2^(-t / 32 periods) as the boundaries
// fall where the phase puts them.
TEST(SimPeltV4_4, BlockedUtilHalvesEveryThirtyTwoPeriods) {
  simtest::expect_blocked_util_halves("v4.4", 1000, 2, 0.023L);
}

// One group of 1024 shares, two CPUs: a and b busy on CPU 0, c on CPU 1,
// forked in that order at 0. Each attaches with its init load_avg 1024 and
// update_tg_load_avg passes it on (the contribution moves by more than
// 1/64), so the contributions are 2048 and 1024 and tg->load_avg = 3072.
// v4.4's calc_cfs_shares takes this CPU's load.weight (scale_load is the
// identity in v4.4) and tg->load_avg less this cfs_rq's contribution:
//   at c's fork, on CPU 1: 1024 * 1024 / (3072 - 1024 + 1024) = 341 (341.33)
//   CPU 0's group entity was last reweighted at b's fork, before c's load
//   existed: 1024 * 2048 / (2048 - 2048 + 2048) = 1024; only an event on
//   CPU 0 reweights it (update_cfs_shares runs on the CPU's own cfs_rq).
//   at the first tick (1 ms, HZ 1000; the contributions have not moved by
//   1/64 yet): CPU 0: 1024 * 2048 / (3072 - 2048 + 2048) = 682 (682.67),
//   CPU 1: 341 again.
TEST(SimPeltV4_4, GroupSharesOnTwoCpusWithUnequalLoads) {
  Scenario sc = simtest::group_on_two_cpus("v4.4", 100 * kMs);
  sc.settings = {{"hz", 1000}};
  Sim sim(sc);
  const TaskGroup& g = sim.groups()[sim.group_index("/g")];
  const CfsRq& q0 = sim.cfs_rqs()[g.cfs_rq[CpuId(0)]];
  const CfsRq& q1 = sim.cfs_rqs()[g.cfs_rq[CpuId(1)]];
  const auto weight = [&](unsigned cpu) { return sim.entities()[g.se[CpuId(cpu)]].load.weight; };
  EXPECT_EQ(q0.pelt.tg_load_avg_contrib, 2048u);
  EXPECT_EQ(q1.pelt.tg_load_avg_contrib, 1024u);
  EXPECT_EQ(g.load_avg, 3072u);
  EXPECT_EQ(weight(1), 341u);
  EXPECT_EQ(weight(0), 1024u);
  sim.run_to(1 * kMs);
  EXPECT_EQ(q0.pelt.tg_load_avg_contrib, 2048u);
  EXPECT_EQ(q1.pelt.tg_load_avg_contrib, 1024u);
  EXPECT_EQ(weight(0), 682u);
  EXPECT_EQ(weight(1), 341u);
  EXPECT_EQ(pelt4::calc_cfs_shares(sim.sched(), g.cfs_rq[CpuId(0)]), 682u);
  sim.run();
  EXPECT_TRUE(sim.checker()->ok());
  // Later the contributions follow the loads within 1/64, below the weights
  // (v4.4's averages stay under them), and the shares still weigh this CPU's
  // load.weight, not its load_avg: 1024 * 2048 / (tg->load_avg - c0 + 2048).
  const uint64_t c0 = q0.pelt.tg_load_avg_contrib;
  EXPECT_LE(c0, 2048u);
  EXPECT_GE(c0, 2048u * 46718 / kLoadAvgMax - 2048 / 64);
  EXPECT_EQ(g.load_avg, c0 + q1.pelt.tg_load_avg_contrib);
  ASSERT_LT(q0.pelt.avg.load_avg, 2048u);
  EXPECT_EQ(pelt4::calc_cfs_shares(sim.sched(), g.cfs_rq[CpuId(0)]), 1024 * 2048 / (g.load_avg - c0 + 2048));
}

// v4.4's wake_up_new_task runs set_task_cpu after init_entity_runnable_average:
// a child placed away from its parent's CPU goes through migrate_task_rq_fair,
// whose remove_entity_load_avg ages the unattached child from
// last_update_time 0 to its old cfs_rq's clock, seconds: its load and util
// decay to 0 before it is attached on the new CPU (fixed in v4.6). A child
// that stays on its parent's CPU keeps its 1024.
TEST(SimPeltV4_4, ForkBalancedChildLosesItsInitialLoad) {
  Sim sim(scenario_test::parse_ok("kernel v4.4\ntopology cores=2\ntask p cpus=0\n"
                                  "at 10ms spawn far parent=p cpus=1\nat 10ms spawn near parent=p cpus=0\nrun 10ms\n"));
  sim.run();
  EXPECT_EQ(task_avg(sim, "far").load_avg, 0u);
  EXPECT_EQ(task_avg(sim, "far").util_avg, 0u);
  EXPECT_EQ(task_avg(sim, "near").load_avg, 1024u);
  EXPECT_EQ(task_avg(sim, "near").util_avg, 1024u);
  EXPECT_TRUE(sim.checker()->ok());
}

}  // namespace
}  // namespace cfsv
