// sched_yield (`at T yield TASK`, model/sim_ops.cpp): yield_task_fair makes
// the running task its cfs_rqs' skip buddy, and pick_next_entity passes over
// the skip buddy when the entity after it is within wakeup_gran of it.
#include <gtest/gtest.h>

#include <cstdint>

#include "properties/sim_test_util.h"

namespace cfsv {
namespace {

using simtest::basic;
using simtest::task;
constexpr Nanos kUs = 1'000, kMs = 1'000'000;
const CpuId kCpu0(0);

Scenario two_busy(const char* kernel) {
  Scenario sc = basic(kernel);
  sc.tasks = {task("a"), task("b")};
  sc.duration = 20 * kMs;
  return sc;
}

// At each of 60 times, the running task of two busy nice-0 tasks yields: the
// other runs next exactly when its vruntime is at most wakeup_gran (the
// wakeup granularity, for nice 0) above the yielder's; otherwise the yielder
// goes on. Both happen, in every era.
TEST(SimYield, TheOtherTaskRunsNextWhenThatIsWithinWakeupGranularity) {
  for (const char* kernel : {"v3.10", "v4.4", "v5.15"}) {
    SCOPED_TRACE(kernel);
    unsigned passed_over = 0, kept = 0;
    for (Nanos at = 100 * kUs; at <= 12 * kMs; at += 200 * kUs) {
      Sim sim(two_busy(kernel));
      sim.run_to(at);
      const TaskId y = sim.rqs()[kCpu0].curr;
      ASSERT_TRUE(y);
      const TaskId w = y == sim.task_index("a") ? sim.task_index("b") : sim.task_index("a");
      ASSERT_EQ(sim.apply(op::Yield{sim.tasks()[y].spec.name}), ApplyResult::applied);
      // After the op (its update_curr), as pick_next_entity compares them.
      const Sched& s = sim.sched();
      const auto lead = static_cast<int64_t>(s.se[sim.tasks()[w].se].vruntime - s.se[sim.tasks()[y].se].vruntime);
      const bool fair_enough = lead <= static_cast<int64_t>(s.tun.wakeup_granularity_ns);
      EXPECT_EQ(sim.rqs()[kCpu0].curr, fair_enough ? w : y) << "at " << at << ", lead " << lead;
      (fair_enough ? passed_over : kept)++;
      ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
    }
    EXPECT_GT(passed_over, 0u);
    EXPECT_GT(kept, 0u);
  }
}

// Alone on its CPU a task's yield changes nothing (yield_task_fair returns at
// once: no skip buddy); a sleeping task cannot yield.
TEST(SimYield, AloneOrAsleepAYieldChangesNothing) {
  Scenario sc = basic("v5.15");
  sc.tasks = {task("a"), task("s", 0, "/", RunPeriodic{kMs, 10 * kMs})};
  sc.duration = 20 * kMs;
  Sim sim(sc);
  sim.run_to(5 * kMs);  // s sleeps (1 ms of 11)
  ASSERT_EQ(sim.tasks()[sim.task_index("s")].state, TaskState::sleeping);
  ASSERT_EQ(sim.rqs()[kCpu0].curr, sim.task_index("a"));
  EXPECT_EQ(sim.apply(op::Yield{"a"}), ApplyResult::applied);
  EXPECT_EQ(sim.apply(op::Yield{"s"}), ApplyResult::applied);
  EXPECT_FALSE(sim.sched().cfs[sim.rqs()[kCpu0].cfs].skip);
  EXPECT_EQ(sim.rqs()[kCpu0].curr, sim.task_index("a"));
  EXPECT_EQ(sim.tasks()[sim.task_index("s")].state, TaskState::sleeping);
}

// A waiting task yields when it next runs (the task calls sched_yield), and
// a task that is gone is rejected as for every op.
TEST(SimYield, AWaitingTaskYieldsWhenItNextRuns) {
  // a runs from 6 ms (v5.15); at 7 ms b, waiting, is to yield, then a yields:
  // b runs, yields at once, and a (within wakeup_gran of it) runs again.
  Scenario sc = two_busy("v5.15");
  sc.ops = {{7 * kMs, op::Yield{"b"}, {}}, {7 * kMs, op::Yield{"a"}, {}}};
  Sim plain(two_busy("v5.15")), sim(sc);
  plain.run_to(7 * kMs);
  sim.run_to(7 * kMs);
  EXPECT_EQ(plain.rqs()[kCpu0].curr, plain.task_index("a"));
  EXPECT_EQ(sim.rqs()[kCpu0].curr, sim.task_index("a"));
  EXPECT_TRUE(sim.tasks()[sim.task_index("b")].deferred.empty());
  EXPECT_EQ(sim.counters().context_switches, plain.counters().context_switches + 2);  // a -> b -> a at 7 ms
  EXPECT_EQ(sim.apply(op::Yield{"nobody"}), ApplyResult::rejected);
  EXPECT_EQ(sim.last_error(), "yield nobody: no task 'nobody'");
}

}  // namespace
}  // namespace cfsv
