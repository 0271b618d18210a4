// Profile v6.4's changes to v5.15.100 beyond seed 001's (read in v6.4's
// kernel/sched/fair.c and core.c; docs/model.md, "Profile v6.4"), each a
// feature run on and off: attach at enqueue and detach at dequeue
// (pelt_attach_at_enqueue: e1f078f50478, d6531ab6e501): a migrating task's
// averages leave in dequeue_entity's update_load_avg(DO_DETACH), where
// v5.15.100's migrate_task_rq_fair runs detach_entity_cfs_rq after the
// dequeue; a woken task's lag on an idle CPU (pelt_migrate_lag:
// e2f3e35f1f5a); vruntime sanitising (sanitize_vruntime: 829c1651e9c4,
// a53ce18cacb4). The relaxed sum syncs: pelt_sum_sync_test.cpp.
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

// The waiting task of two on CPU 0 pulled to CPU 1 at 9.5 ms (detach_task,
// attach_task). task_hot reads now - exec_start: v4.4's and v5.15.100's
// migrate_task_rq_fair zero exec_start as the task leaves (feature
// migrate_clears_exec_start); v6.3 moved that to enqueue_entity under
// ENQUEUE_MIGRATED, which its activate_task sets (sanitize_vruntime); v3.10
// keeps the time it last ran on CPU 0.
TEST(MigratedTask, IsNotCacheHotUntilItRunsExceptInV3_10) {
  struct Era {
    const char* profile;
    bool zero_after_detach, zero_after_attach;
  };
  for (const Era e : {Era{"v3.10", false, false}, Era{"v4.4", true, true}, Era{"v5.15", true, true},
                      Era{"v6.4", false, true}}) {
    Scenario sc = simtest::basic(e.profile, 2);
    TaskSpec a = simtest::task("a"), b = simtest::task("b");
    a.cpus = b.cpus = simtest::cpus({0});
    sc.tasks = {a, b};
    sc.ops = {{kMs / 2, op::SetAffinity{"a", simtest::cpus({0, 1})}, {}},
              {kMs / 2, op::SetAffinity{"b", simtest::cpus({0, 1})}, {}}};
    sc.duration = 20 * kMs;
    Sim sim(sc);
    sim.run_to(9 * kMs + kMs / 2);  // each has run by then
    const TaskId waiting(sim.task_index(sim.rqs()[CpuId(0)].curr == TaskId(sim.task_index("a")) ? "b" : "a"));
    const Nanos ran = sim.entities()[sim.tasks()[waiting].se].exec_start;
    ASSERT_GT(ran, 0u);
    detach_task(sim.mutable_sched(), waiting, CpuId(1));
    EXPECT_EQ(sim.entities()[sim.tasks()[waiting].se].exec_start, e.zero_after_detach ? 0 : ran) << e.profile;
    attach_task(sim.mutable_sched(), waiting, false);
    EXPECT_EQ(sim.entities()[sim.tasks()[waiting].se].exec_start, e.zero_after_attach ? 0 : ran) << e.profile;
  }
}

// a runs 1 ms alone, then sleeps `sleep`. Before it wakes, its vruntime is
// set 2^62 ahead of min_vruntime (what an s64 wrap of a very old vruntime
// looks like). Past 2^63 / 1024 ns (104.25 days) of sleep v6.3's
// place_entity puts it at min_vruntime - latency / 2 (GENTLE_FAIR_SLEEPERS);
// below that, and in v5.15.100 always, it keeps the larger vruntime.
TEST(SanitizeVruntime, ALongSleepersOldVruntimeIsReplacedNotKept) {
  constexpr Nanos kDay = 86'400'000'000'000;
  for (const bool v6 : {false, true})
    for (const Nanos sleep : {100 * kDay, 105 * kDay}) {
      Scenario sc = simtest::basic("v5.15");
      sc.feature_overrides = {{Feature::sanitize_vruntime, v6}};
      sc.tasks = {simtest::task("a", 0, "/", RunPeriodic{kMs, sleep})};
      sc.duration = sleep + 2 * kMs;
      Sim sim(sc);
      sim.run_to(sleep);
      const TaskId a(sim.task_index("a"));
      ASSERT_EQ(sim.tasks()[a].state, TaskState::sleeping);
      const uint64_t min_vruntime = sim.cfs_rqs()[sim.rqs()[CpuId(0)].cfs].min_vruntime;
      const uint64_t ahead = min_vruntime + (uint64_t{1} << 62);
      sim.mutable_sched().se[sim.tasks()[a].se].vruntime = ahead;
      sim.run_to(sleep + kMs + kMs / 2);  // woken at 1 ms + sleep
      ASSERT_NE(sim.tasks()[a].state, TaskState::sleeping);
      const uint64_t placed = min_vruntime - sim.sched().tun.latency_ns / 2;
      const bool replaced = v6 && sleep > kDay * 104;
      // the vruntime at the wakeup; it has run up to 0.5 ms since
      const uint64_t v = sim.entities()[sim.tasks()[a].se].vruntime;
      EXPECT_GE(v, replaced ? placed : ahead) << "v6.3 " << v6 << ", sleep " << sleep;
      EXPECT_LE(v, (replaced ? placed : ahead) + kMs) << "v6.3 " << v6 << ", sleep " << sleep;
    }
}

}  // namespace
}  // namespace cfsv
