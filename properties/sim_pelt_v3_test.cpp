// v3.10's load tracking in the simulator (model/pelt_v3.cpp, feature
// pelt_v3_10): hand-checked cases through the whole model, and the group
// shares of two CPUs worked out from v3.10's calc_cfs_shares by hand. Seed
// 003 on v3.10 is sim_seed003_test.cpp's (its shares do not change).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/pelt_eras.h"
#include "properties/scenario_test_util.h"
#include "properties/sim_test_util.h"

namespace cfsv {
namespace {

using simtest::basic;
using simtest::task;

constexpr Nanos kMs = 1'000'000;

const EntityPelt& task_pelt(const Sim& sim, std::string_view name) {
  return sim.entities()[sim.tasks()[sim.task_index(name)].se].pelt;
}
uint64_t contrib(const Sim& sim, std::string_view name) { return task_pelt(sim, name).avg.load_avg; }
const CfsRq& root_cfs_rq(const Sim& sim, unsigned cpu) { return sim.cfs_rqs()[sim.rqs()[CpuId(cpu)].cfs]; }

TEST(SimPeltV3_10, ProfileTracksV3_10sRunnableAverages) {
  Sim sim(basic("v3.10"));
  EXPECT_TRUE(sim.sched().era.pelt_v3);
  EXPECT_FALSE(sim.sched().era.pelt_v4);
  EXPECT_TRUE(sim.sched().era.pelt_shares);
}

// Always runnable, runnable_avg_sum equals runnable_avg_period, so the
// contribution is sum * 1024 / (period + 1) = 1024 - ceil(1024 / (period +
// 1)): 1023 once the period passes 1023 units, never 1024.
TEST(SimPeltV3_10, Nice0TaskRunningOneSecondContributes1023) {
  Scenario sc = basic("v3.10");
  sc.tasks = {task("a")};
  sc.duration = 1000 * kMs;
  Sim sim(sc);
  EXPECT_EQ(contrib(sim, "a"), 0u);  // no parent: nothing to copy
  sim.run_to(10 * kMs);
  EXPECT_EQ(contrib(sim, "a"), 1023u);
  sim.run();
  const EntityPeltV3& v = task_pelt(sim, "a").v3;
  EXPECT_EQ(v.runnable_avg_sum, v.runnable_avg_period);
  // saturated: about 1024 y / (1 - y) = 46764 plus the position in the
  // period (period % 1024 in v3.10), below 48 x 1024 (docs/pelt.md)
  EXPECT_GE(v.runnable_avg_period, 44u * 1024);
  EXPECT_LT(v.runnable_avg_period, 48u * 1024);
  EXPECT_EQ(contrib(sim, "a"), 1023u);
  EXPECT_EQ(pelt3::cfs_rq_load_avg(root_cfs_rq(sim, 0)), 1023u);
  EXPECT_EQ(root_cfs_rq(sim, 0).pelt.runnable_load.avg, 1023u);
  // nice 5 (weight 335): 335 - ceil(335 / (period + 1)) = 334
  Scenario n5 = basic("v3.10");
  n5.tasks = {task("b", 5)};
  n5.duration = 1000 * kMs;
  Sim sim5(n5);
  sim5.run();
  EXPECT_EQ(contrib(sim5, "b"), 334u);
}

// 1 ms runnable in 4: the contribution is the runnable fraction of the
// decayed time, so it follows the same ripple as v5.15's load_avg, 248.1 ..
// 264.0 around 256 (pelt_hand_test), recomputed at each boundary.
TEST(SimPeltV3_10, QuarterDutyCycleTaskStaysNear256) {
  Scenario sc = basic("v3.10");
  sc.tasks = {task("a", 0, "/", RunPeriodic{1 * kMs, 3 * kMs})};
  sc.duration = 3000 * kMs;
  Sim sim(sc);
  sim.run_to(1000 * kMs);
  uint64_t lo = 1024, hi = 0;
  for (Nanos t = 1000 * kMs; t < 3000 * kMs; t += kMs / 4) {
    sim.run_to(t);
    lo = std::min(lo, contrib(sim, "a"));
    hi = std::max(hi, contrib(sim, "a"));
  }
  EXPECT_GE(lo, 244u);
  EXPECT_LE(hi, 268u);
  EXPECT_LT(lo, 252u);  // the ripple shows
  EXPECT_GT(hi, 260u);
  EXPECT_TRUE(sim.checker()->ok());
}

// a runs 1 s on CPU 0, then sleeps: its 1023 moves to CPU 0's blocked load,
// which update_cfs_rq_blocked_load decays by decay_load(blocked, n), n the
// decay clock's ms (2^20 ns) since; CPU 1's tick forces it every 32 ms. The
// blocked load halves every 32: within 2 + 2% of 1023 * 2^(-n / 32), the
// floors of a dozen decay_load steps. At a's wakeup its contribution,
// recomputed from its runnable sums that decayed alike, has decayed too, and
// it leaves the blocked load for the runnable load.
TEST(SimPeltV3_10, BlockedLoadHalvesEveryThirtyTwoPeriodsAndTheWakerTakesItBack) {
  Sim sim(simtest::run_then_sleep("v3.10", 1000 * kMs, 400 * kMs, 1400 * kMs));
  sim.run_to(1000 * kMs);
  ASSERT_EQ(sim.tasks()[sim.task_index("a")].state, TaskState::sleeping);
  const CfsRq& q = root_cfs_rq(sim, 0);
  ASSERT_EQ(q.pelt.v3.blocked_load_avg, 1023u);
  ASSERT_EQ(q.pelt.runnable_load.avg, 0u);
  const uint64_t decayed_at_sleep = q.pelt.v3.last_decay;
  int updates = 0;
  uint64_t seen = decayed_at_sleep;
  for (Nanos t = 1000 * kMs; t < 1400 * kMs; t += kMs) {
    sim.run_to(t);
    if (q.pelt.v3.last_decay == seen) continue;
    seen = q.pelt.v3.last_decay;
    ++updates;
    const long double n = static_cast<long double>(seen - decayed_at_sleep);
    const long double ideal = 1023 * std::pow(2.0L, -n / 32);
    EXPECT_NEAR(static_cast<long double>(q.pelt.v3.blocked_load_avg), ideal, 2 + ideal / 50) << "n=" << n;
  }
  EXPECT_GE(updates, 10);
  EXPECT_LE(q.pelt.v3.blocked_load_avg, 1023u / 256);
  sim.run_to(1400 * kMs);  // a wakes
  ASSERT_EQ(sim.tasks()[sim.task_index("a")].state, TaskState::running);
  EXPECT_LE(contrib(sim, "a"), 1023u / 256);
  EXPECT_EQ(q.pelt.v3.blocked_load_avg, 0u);
  EXPECT_EQ(q.pelt.runnable_load.avg, contrib(sim, "a"));
}

// One group of 1024 shares, two CPUs: a and b busy on CPU 0, c on CPU 1.
// They fork with contribution 0, so tg->load_avg starts at 0 and each group
// entity at calc_cfs_shares = 1024 * w / (0 - 0 + w) = 1024. After their
// first boundary each contributes 1024 - ceil(1024 / (period + 1)) = 1023,
// and entity_tick forces update_cfs_rq_blocked_load, so tg_load_contrib is
// exactly the runnable load at every tick: 2046 and 1023, tg->load_avg 3069.
// v3.10's calc_cfs_shares takes this CPU's load.weight:
//   CPU 0: 1024 * 2048 / (3069 - 2046 + 2048) = 2097152 / 3071 = 682 (682.9)
//   CPU 1: 1024 * 1024 / (3069 - 1023 + 1024) = 1048576 / 3070 = 341 (341.6)
// (instantaneous shares would give 682 and 341 too: 1024 * 2048 / 3072 = 682,
// 1024 * 1024 / 3072 = 341; they part once a load changes.)
TEST(SimPeltV3_10, GroupSharesOnTwoCpusWithUnequalLoads) {
  Scenario sc = simtest::group_on_two_cpus("v3.10", 500 * kMs);
  sc.settings = {{"hz", 1000}};
  Sim sim(sc);
  const TaskGroup& g = sim.groups()[sim.group_index("/g")];
  const auto weight = [&](unsigned cpu) { return sim.entities()[g.se[CpuId(cpu)]].load.weight; };
  EXPECT_EQ(g.load_avg, 0u);
  EXPECT_EQ(weight(0), 1024u);
  EXPECT_EQ(weight(1), 1024u);
  sim.run();
  ASSERT_TRUE(sim.checker()->ok());
  const CfsRq& q0 = sim.cfs_rqs()[g.cfs_rq[CpuId(0)]];
  const CfsRq& q1 = sim.cfs_rqs()[g.cfs_rq[CpuId(1)]];
  EXPECT_EQ(q0.pelt.tg_load_avg_contrib, 2046u);
  EXPECT_EQ(q1.pelt.tg_load_avg_contrib, 1023u);
  EXPECT_EQ(g.load_avg, 3069u);
  EXPECT_EQ(weight(0), 682u);
  EXPECT_EQ(weight(1), 341u);
  EXPECT_EQ(pelt3::calc_cfs_shares(sim.sched(), g.cfs_rq[CpuId(1)]), 341u);
  // The group entity's own contribution, __update_group_entity_contrib:
  // tg_load_contrib * shares / (tg->load_avg + 1), the group using more than
  // one CPU (tg->runnable_avg >= 1024): 1023 * 1024 / 3070 = 341.
  EXPECT_GE(g.runnable_avg, 1024u);
  EXPECT_EQ(sim.entities()[g.se[CpuId(1)]].pelt.avg.load_avg, 341u);
}

// A forked child is a copy of its parent (dup_task_struct): it starts with
// the parent's load_avg_contrib, its runnable sums zeroed by __sched_fork.
TEST(SimPeltV3_10, ForkedChildStartsWithItsParentsContribution) {
  Sim sim(scenario_test::parse_ok("kernel v3.10\ntopology cores=1\ntask p\nat 100ms spawn c parent=p\nrun 100ms\n"));
  sim.run();
  EXPECT_EQ(contrib(sim, "p"), 1023u);
  EXPECT_EQ(contrib(sim, "c"), 1023u);
  EXPECT_EQ(task_pelt(sim, "c").v3.runnable_avg_period, 0u);
  EXPECT_EQ(root_cfs_rq(sim, 0).pelt.runnable_load.avg, 2046u);
}

// v3.10's leaf list (list_add_leaf_cfs_rq): a cfs_rq goes to the head when
// its parent group's cfs_rq is on the list, else to the tail. With r (in /)
// spawned before x (in /a/b), the root is on the list first; /a/b finds /a
// off it and goes to the tail, then /a finds the root on it and goes to the
// head: update_blocked_averages walks /a before its child /a/b, so /a/b's
// update reaches /a's blocked load one walk late. Spawned the other way
// round, each goes to the tail: children first.
std::vector<std::string> leaf_list(const Sim& sim) {
  std::vector<std::string> out;
  for (CfsRqId cq = sim.rqs()[CpuId(0)].leaf_head; cq; cq = sim.cfs_rqs()[cq].pelt.v3.leaf_next)
    out.push_back(sim.groups()[sim.cfs_rqs()[cq].tg].path);
  return out;
}
TEST(SimPeltV3_10, TheLeafListPutsAParentQueuedAfterItsChildFirst) {
  const std::string groups = "kernel v3.10\ntopology cores=1\ngroup /a\ngroup /a/b\n";
  Sim root_first(scenario_test::parse_ok(groups + "task r\ntask x group=/a/b\nrun 10ms\n"));
  root_first.run();
  EXPECT_EQ(leaf_list(root_first), (std::vector<std::string>{"/a", "/", "/a/b"}));
  Sim child_first(scenario_test::parse_ok(groups + "task x group=/a/b\ntask r\nrun 10ms\n"));
  child_first.run();
  EXPECT_EQ(leaf_list(child_first), (std::vector<std::string>{"/a/b", "/a", "/"}));
}

}  // namespace
}  // namespace cfsv
