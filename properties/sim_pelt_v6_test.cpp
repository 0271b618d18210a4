// v6.0..v6.1's PELT changes of profile v6.4 (read in v6.4's
// kernel/sched/fair.c; docs/pelt-sum-sync.md): attach at enqueue and detach at
// dequeue (pelt_attach_at_enqueue: e1f078f50478, d6531ab6e501): a migrating
// task's averages leave in dequeue_entity's update_load_avg(DO_DETACH), where
// v5.15.100's migrate_task_rq_fair runs detach_entity_cfs_rq after the
// dequeue; a woken task's lag on an idle CPU (pelt_migrate_lag: e2f3e35f1f5a).
#include <gtest/gtest.h>

#include "model/core.h"
#include "properties/sim_pelt_test_util.h"

namespace cfsv {
namespace {

using simtest::kMs;

// Two busy root tasks on CPU 0 of two; at 5.5 ms the one waiting is pulled
// to CPU 1 as load balancing pulls it (detach_task, attach_task). CPU 0's root
// was last updated at the 5-ms tick, so v5.15.100 calls update_tg_load_avg
// on it twice for the move (the dequeue's UPDATE_TG, its PELT having decayed,
// then detach_entity_cfs_rq's), v6.1 once (after DO_DETACH); seed 000's skip
// counts each call on a root. Both end with the task attached to CPU 1 and
// CPU 0's root without its load.
TEST(SimPeltV6, AMigratingTaskDetachesInItsDequeueWithOneTgUpdateInsteadOfTwo) {
  uint64_t calls[2] = {};
  for (const bool v6 : {false, true}) {
    Scenario sc = simtest::basic("v5.15", 2);
    sc.feature_overrides = {{Feature::pelt_attach_at_enqueue, v6}};
    TaskSpec a = simtest::task("a"), b = simtest::task("b");
    a.cpus = b.cpus = simtest::cpus({0});  // started on CPU 0, then allowed on both (no balancing moves them)
    sc.tasks = {a, b};
    sc.ops = {{kMs / 2, op::SetAffinity{"a", simtest::cpus({0, 1})}, {}},
              {kMs / 2, op::SetAffinity{"b", simtest::cpus({0, 1})}, {}}};
    sc.duration = 10 * kMs;
    Sim sim(sc);
    sim.run_to(5 * kMs + kMs / 2);
    const std::string waiting = sim.rqs()[CpuId(0)].curr == TaskId(sim.task_index("a")) ? "b" : "a";
    const TaskId moved(sim.task_index(waiting));
    ASSERT_EQ(sim.tasks()[moved].state, TaskState::runnable);
    ASSERT_GE(simtest::root_avg(sim, 0).load_avg, 2040u);
    const uint64_t before = sim.counters().root_tg_load_avg_skips;
    detach_task(sim.mutable_sched(), moved, CpuId(1));
    calls[v6] = sim.counters().root_tg_load_avg_skips - before;
    attach_task(sim.mutable_sched(), moved, true);
    sim.run_to(6 * kMs - 1);
    ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
    EXPECT_EQ(sim.tasks()[moved].cpu, CpuId(1));
    EXPECT_EQ(sim.entities()[sim.tasks()[moved].se].pelt.attached, sim.rqs()[CpuId(1)].cfs);
    EXPECT_LE(simtest::root_avg(sim, 0).load_avg, 1025u);  // one task's: v5.15's rounding reaches 1025
    EXPECT_GE(simtest::root_avg(sim, 1).load_avg, 1000u);
  }
  EXPECT_EQ(calls[false], calls[true] + 1) << "v5.15.100 " << calls[false] << ", v6.1 " << calls[true];
}

// a runs 2 ms on CPU 0, then sleeps 20 ms; b keeps CPU 1 busy. At 5 ms a
// may run on CPU 1 only, so its wakeup at 22 ms moves it there. CPU 0 has
// been idle since 2 ms and its root was last updated then (the blocked
// updates come every 32 ms). v5.15.100 carries a's averages as of 2 ms;
// v6.0's migrate_se_pelt_lag decays them to CPU 0's PELT time at 22 ms,
// 20 ms (19.5 periods) later: util_avg by y^19.5, about 0.66.
TEST(SimPeltV6, ATaskWokenOffAnIdleCpuDecaysItsLagBeforeItMoves) {
  cfsv::SchedAvg arrived[2], slept;
  for (const bool lag : {false, true}) {
    Scenario sc = simtest::run_then_sleep("v5.15", 2 * kMs, 20 * kMs, 30 * kMs);
    sc.feature_overrides = {{Feature::pelt_migrate_lag, lag}};
    sc.ops.push_back({5 * kMs, op::SetAffinity{"a", simtest::cpus({1})}, {}});
    Sim sim(sc);
    sim.run_to(22 * kMs - 1);
    ASSERT_EQ(sim.tasks()[sim.task_index("a")].state, TaskState::sleeping);
    ASSERT_LE(simtest::root_avg(sim, 0).last_update_time, 2 * kMs + kPeltClockStart);  // in 1024-ns units
    ASSERT_GT(simtest::root_avg(sim, 0).last_update_time + 1024, 2 * kMs + kPeltClockStart);
    slept = simtest::task_avg(sim, "a");
    sim.run_to(22 * kMs);
    ASSERT_EQ(sim.tasks()[sim.task_index("a")].cpu, CpuId(1));
    ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
    arrived[lag] = simtest::task_avg(sim, "a");
  }
  EXPECT_EQ(arrived[false].util_avg, slept.util_avg);
  cfsv::SchedAvg decayed = slept;
  pelt_v5_15::update_load_avg_blocked_se<uint64_t>(22 * kMs + kPeltClockStart, decayed, 1024 << 10,
                                                   kLoadResolutionV5_7);
  EXPECT_EQ(arrived[true].util_avg, decayed.util_avg);
  EXPECT_EQ(arrived[true].load_avg, decayed.load_avg);
  EXPECT_NEAR(static_cast<double>(arrived[true].util_avg) / arrived[false].util_avg, 0.66, 0.03);
}

}  // namespace
}  // namespace cfsv
