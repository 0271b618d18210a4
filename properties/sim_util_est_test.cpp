// UTIL_EST in v5.15 (docs/pelt.md, "UTIL_EST"): util_est_update's rules by
// hand (a rise taken at once, a fall by a quarter, changes within 1% kept,
// util_avg unchanged since the last estimate, a task too big for its CPU),
// and in a run: a task's estimate outlives the decay of its util_avg while it
// sleeps, and cpu_util reads it once the task is back; with util_est off it
// does not.
#include <gtest/gtest.h>

#include <string>

#include "model/fair_cpu.h"
#include "model/sim.h"
#include "model/util_est.h"
#include "properties/scenario_test_util.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;
constexpr Nanos kMs = 1'000'000;

// One task `t` that has not run yet on a v5.15 CPU; the cases set its
// util_avg and estimate by hand and call util_est_update as a dequeue to sleep would.
struct Bench {
  Sim sim{parse_ok("kernel v5.15\ntask t run=busy\nrun 1ms\n")};
  TaskId t = sim.task_index("t");
  UtilEst after(uint64_t util_avg, UtilEst before, unsigned capacity = 1024) {
    Sched& s = sim.mutable_sched();
    s.topo.cpu_capacity[CpuId(0)] = capacity;
    s.se[s.tasks[t].se].pelt.avg.util_avg = util_avg;
    s.se[s.tasks[t].se].pelt.util_est = before;
    util_est_update(s, CpuId(0), t, true);
    return s.se[s.tasks[t].se].pelt.util_est;
  }
};

TEST(UtilEst, UpdateFollowsTheKernelsRules) {
  Bench b;
  // UTIL_EST_FASTUP: util_avg above the ewma becomes the ewma.
  EXPECT_EQ(b.after(500, {.enqueued = 300, .ewma = 400}), (UtilEst{500 | kUtilAvgUnchanged, 500}));
  // A fall: ewma = (4 ewma + (util - ewma)) / 4 = (1600 - 200) / 4.
  EXPECT_EQ(b.after(200, {.enqueued = 300, .ewma = 400}), (UtilEst{200 | kUtilAvgUnchanged, 350}));
  // Within 1% (UTIL_EST_MARGIN 10) of the ewma and of the last sample: nothing changes.
  EXPECT_EQ(b.after(395, {.enqueued = 398, .ewma = 400}), (UtilEst{398, 400}));
  // Within 1% of the ewma only: the new sample is kept, the ewma is not.
  EXPECT_EQ(b.after(395, {.enqueued = 300, .ewma = 400}), (UtilEst{395 | kUtilAvgUnchanged, 400}));
  // util_avg has not moved since the last estimate: nothing changes.
  EXPECT_EQ(b.after(100, {.enqueued = 300 | kUtilAvgUnchanged, .ewma = 400}),
            (UtilEst{300 | kUtilAvgUnchanged, 400}));
  // A fall that the CPU's capacity does not hold (util_avg 500 > 446): no new estimate.
  EXPECT_EQ(b.after(500, {.enqueued = 300, .ewma = 900}, 446), (UtilEst{300, 900}));
  // Not a sleep: nothing.
  Sched& s = b.sim.mutable_sched();
  s.se[s.tasks[b.t].se].pelt.util_est = {.enqueued = 1, .ewma = 2};
  util_est_update(s, CpuId(0), b.t, false);
  EXPECT_EQ(s.se[s.tasks[b.t].se].pelt.util_est, (UtilEst{1, 2}));
}

// `t` runs 100 ms, sleeps 100 ms (its util_avg decays to about a tenth),
// then runs again; `u` runs now and then beside it.
std::string sleeper(const char* util_est) {
  return std::string("kernel v5.15\nfeature util_est=") + util_est +
         "\ntask t run=100ms sleep=100ms\ntask u run=1ms sleep=49ms\nrun 300ms\n";
}

TEST(UtilEst, CpuUtilReadsTheEstimateOfATaskBackFromSleep) {
  Sim on(parse_ok(sleeper("on")));
  on.run_to(150 * kMs);  // t sleeps: its estimate is its util_avg at the dequeue
  const Sched& s = on.sched();
  const TaskId t = on.task_index("t");
  const UtilEst ue = s.se[s.tasks[t].se].pelt.util_est;
  EXPECT_GT(ue.ewma, 800u);  // 100 ms of running: util_avg ~ 1024 (1 - y^100)
  EXPECT_EQ(ue.enqueued & ~kUtilAvgUnchanged, ue.ewma);  // the first sample, taken at once (FASTUP)
  for (Nanos at = 150 * kMs; s.tasks[t].state != TaskState::running && at < 300 * kMs; at += kMs) on.run_to(at);
  ASSERT_TRUE(on.checker()->ok()) << on.checker()->violations().front().to_string();
  ASSERT_EQ(s.tasks[t].state, TaskState::running);  // back, within a millisecond: its estimate counts on the CPU
  EXPECT_LT(task_util(s, t), 200u);  // util_avg decayed in 100 ms of sleep
  EXPECT_EQ(task_util_est(s, t), ue.ewma);
  EXPECT_GE(cpu_util(s, CpuId(0)), ue.ewma);
  Sim off(parse_ok(sleeper("off")));
  off.run_to(on.now());
  const Sched& o = off.sched();
  EXPECT_EQ(cpu_util(o, CpuId(0)), o.cfs[o.rq[CpuId(0)].cfs].pelt.avg.util_avg);
  EXPECT_EQ(o.cfs[o.rq[CpuId(0)].cfs].pelt.util_est_enqueued, 0u);
}

}  // namespace
}  // namespace cfsv
