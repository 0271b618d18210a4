// v5.16's smaller slices and sleeper credit for SCHED_IDLE entities (feature
// idle_min_granularity, on in profile v6.4; "sched: reduce sched slice for
// SCHED_IDLE entities", 51ce83ed523b; read in 6.1.55's fair.c: sched_slice,
// place_entity, account_entity_enqueue/dequeue, sched_idle_cfs_rq), each
// against the hand arithmetic.
#include <gtest/gtest.h>

#include <string>

#include "model/fair.h"
#include "model/sim.h"
#include "properties/scenario_test_util.h"
#include "properties/sim_lookup.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;
using namespace sim_lookup;

CfsRqId cpu0_cfs(const Sim& sim) { return sim.rqs()[CpuId{0}].cfs; }

// Four CPUs (tunables scaled by 1 + ilog2(4) = 3: latency 18 ms,
// min_granularity 2.25 ms; idle_min_granularity stays 0.75 ms), all the
// tasks on CPU 0.
std::string four_cpus(const std::string& kernel, const std::string& rest) {
  return "kernel " + kernel + "\ntopology sockets=1 cores=4 threads=1\n" + rest;
}

// sched_slice with ALT_PERIOD and BASE_SLICE: two queued tasks, period
// 18 ms; __calc_delta(18 ms, w, 1027) with inv_weight 2^32-1 / 1027 =
// 4182051: 18e6 x 1024 x 4182051 >> 32 = 17,947,415 for the nice-0 task,
// 18e6 x 3 x 4182051 >> 32 = 52,580 for the SCHED_IDLE one. The floor lifts
// the idle task's to idle_min_granularity, 750,000, with the feature (its
// cfs_rq also holds a task that is not idle), else to min_granularity,
// 2,250,000; and to min_granularity with the feature when every entity on the
// cfs_rq is idle (sched_idle_cfs_rq).
TEST(IdleMinGranularity, AnIdleTasksSliceFloorIsIdleMinGranularityAmongBusyTasks) {
  const std::string both = "task n run=busy cpus=0\ntask i policy=idle run=busy cpus=0\nrun 100ms\n";
  struct Case {
    std::string kernel, features;
    uint64_t idle_slice;
  };
  for (const Case& c : {Case{"v6.4", "", 750'000}, Case{"v6.4", "feature idle_min_granularity=off\n", 2'250'000},
                        Case{"v5.15", "", 2'250'000}, Case{"v5.15", "feature idle_min_granularity=on\n", 750'000}}) {
    Sim sim(parse_ok(four_cpus(c.kernel, c.features + both)));
    sim.run_to(50 * kMs);
    EXPECT_EQ(sim.cfs_rqs()[cpu0_cfs(sim)].idle_nr_running, 1u);
    EXPECT_EQ(sched_slice(sim.sched(), cpu0_cfs(sim), task(sim, "i").se), c.idle_slice) << c.kernel << c.features;
    EXPECT_EQ(sched_slice(sim.sched(), cpu0_cfs(sim), task(sim, "n").se), 17'947'415u) << c.kernel << c.features;
  }
  Sim only_idle(parse_ok(four_cpus("v6.4", "task i policy=idle run=busy cpus=0\ntask j policy=idle run=busy cpus=0\n"
                                           "run 100ms\n")));
  only_idle.run_to(50 * kMs);
  EXPECT_EQ(only_idle.cfs_rqs()[cpu0_cfs(only_idle)].idle_nr_running, 2u);
  // Two weight-3 tasks: 18 ms x 3 / 6 = 9 ms, above either floor.
  const uint64_t half = sched_slice(only_idle.sched(), cpu0_cfs(only_idle), task(only_idle, "i").se);
  EXPECT_GE(half, 8'999'000u);
  EXPECT_LE(half, 9'000'000u);
}

// What the floor does at the ticks (HZ=1000): check_preempt_tick ends the
// idle task's turn at the first tick past its slice: 1 ms with the feature
// (past 0.75 ms), 3 ms without (past 2.25 ms). Its share of the CPU is its
// weight's either way (vruntime), about 3/1027 of 10 s, in shorter turns.
TEST(IdleMinGranularity, AnIdleTaskRunsOneTickATurnInsteadOfThree) {
  for (const char* features : {"", "feature idle_min_granularity=off\n"}) {
    Sim sim(parse_ok(four_cpus("v6.4", std::string(features) +
                                           "task n run=busy cpus=0\ntask i policy=idle run=busy cpus=0\nrun 10s\n")));
    sim.run();
    const Nanos ran = se(sim, "i").sum_exec_runtime;
    const uint64_t turns = task(sim, "i").stats.switches;
    EXPECT_GE(ran, 25 * kMs) << features;
    EXPECT_LE(ran, 36 * kMs) << features;
    ASSERT_GT(turns, 0u);
    const Nanos turn = *features ? 3 * kMs : kMs;
    EXPECT_GE(ran / turns, turn - kMs / 4) << features;  // the first turn may start between ticks
    EXPECT_LE(ran / turns, turn) << features;
  }
}

// place_entity of a waking SCHED_IDLE task that slept long: min_vruntime less
// half a min_granularity (GENTLE_FAIR_SLEEPERS) with the feature, 1.125 ms,
// else half a latency, 9 ms. A nice-0 task that wakes gets the 9 ms either way.
TEST(IdleMinGranularity, AWakingIdleTaskGetsHalfAMinGranularityOfSleeperCredit) {
  struct Case {
    std::string kernel, features, policy;
    uint64_t credit;
  };
  for (const Case& c : {Case{"v6.4", "", "idle", 1'125'000}, Case{"v6.4", "", "normal", 9'000'000},
                        Case{"v6.4", "feature idle_min_granularity=off\n", "idle", 9'000'000},
                        Case{"v5.15", "", "idle", 9'000'000}}) {
    // i shares CPU 0 for 50 ms (vruntime ~25 ms), sleeps, takes the policy
    // and wakes at 300 ms, when min_vruntime (n's) is ~275 ms.
    Sim sim(parse_ok(four_cpus(c.kernel, c.features + "task n run=busy cpus=0\ntask i run=busy cpus=0\n"
                                                      "at 50ms sleep i\nat 60ms policy i " + c.policy +
                                                      "\nat 300ms wake i\nrun 400ms\n")));
    sim.run_to(300 * kMs);
    ASSERT_TRUE(se(sim, "i").on_rq);
    EXPECT_EQ(sim.cfs_rqs()[cpu0_cfs(sim)].min_vruntime - se(sim, "i").vruntime, c.credit)
        << c.kernel << c.features << c.policy;
    EXPECT_TRUE(sim.rejected_ops().empty());
  }
}

}  // namespace
}  // namespace cfsv
