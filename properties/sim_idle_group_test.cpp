// v5.15's idle cgroups (`idle /path 0|1`, cpu.idle; feature cgroup_idle;
// "sched: Cgroup SCHED_IDLE support", 304000390f88; read in v5.15.100's
// fair.c: sched_group_set_idle, enqueue/dequeue_task_fair, se_is_idle,
// set_next_buddy, check_preempt_wakeup), each against the hand reasoning.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/arith/weights.h"
#include "model/sim.h"
#include "model/sink.h"
#include "properties/scenario_test_util.h"
#include "properties/sim_lookup.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;
using namespace sim_lookup;

const TaskGroup& group(const Sim& sim, std::string_view path) { return sim.groups()[sim.group_index(path)]; }
const CfsRq& cfs(const Sim& sim, std::string_view path) { return sim.cfs_rqs()[group(sim, path).cfs_rq[CpuId{0}]]; }

// The counts by hand, on one CPU: a in /i/s, b SCHED_IDLE in /i, n in /.
// idle /i 1: /i's entity is idle (root idle_nr 1), and every task below it
// counts as idle at the root (a and b: 2); /i's own count is its SCHED_IDLE
// task (1). idle /i/s 1: /i/s's entity is idle on /i (idle_nr 2: it and b),
// a joins /i's count (2), and the walk stops at /i, idle already. idle /i 0:
// the root's idle_nr is 0 again, its idle_h_nr stays 2 (a below idle /i/s,
// b SCHED_IDLE). The shares: 3 while idle, 1024 (NICE_0_LOAD) after, not
// the 2048 written before.
TEST(IdleGroup, CpuIdleMovesTheTasksBelowIntoTheIdleCountsUpToTheFirstIdleLevel) {
  Sim sim(parse_ok("kernel v5.15\ngroup /i shares=2048\ngroup /i/s\ntask a group=/i/s run=busy\n"
                   "task b group=/i policy=idle run=busy\ntask n run=busy\n"
                   "at 10ms idle /i 1\nat 20ms idle /i/s 1\nat 30ms idle /i 0\nrun 40ms\n"));
  const LoadResolution res = sim.sched().res;
  const CfsRq& root = sim.cfs_rqs()[sim.rqs()[CpuId{0}].cfs];
  sim.run_to(5 * kMs);
  EXPECT_EQ(root.idle_h_nr_running, 1u);  // b
  EXPECT_EQ(root.idle_nr_running, 0u);
  EXPECT_EQ(group(sim, "/i").shares, scale_load<uint64_t>(2048, res));
  sim.run_to(10 * kMs);
  EXPECT_EQ(root.h_nr_running, 3u);
  EXPECT_EQ(root.idle_h_nr_running, 2u);
  EXPECT_EQ(root.idle_nr_running, 1u);
  EXPECT_EQ(cfs(sim, "/i").idle_h_nr_running, 1u);
  EXPECT_EQ(cfs(sim, "/i").idle_nr_running, 1u);
  EXPECT_EQ(group(sim, "/i").shares, scale_load<uint64_t>(kWeightIdlePrio, res));
  sim.run_to(20 * kMs);
  EXPECT_EQ(cfs(sim, "/i").idle_nr_running, 2u);
  EXPECT_EQ(cfs(sim, "/i").idle_h_nr_running, 2u);
  EXPECT_EQ(cfs(sim, "/i/s").idle_h_nr_running, 0u);
  EXPECT_EQ(root.idle_h_nr_running, 2u);
  sim.run_to(30 * kMs);
  EXPECT_EQ(root.idle_nr_running, 0u);
  EXPECT_EQ(root.idle_h_nr_running, 2u);
  EXPECT_EQ(group(sim, "/i").shares, scale_load<uint64_t>(1024, res));
  sim.run();
  EXPECT_TRUE(sim.rejected_ops().empty());
}

// cpu.idle is refused before v5.15 (no such file) and on the root (EINVAL;
// a scenario file cannot name it: ScenarioErrors); cpu.shares while the
// group is idle (sched_group_set_shares' EINVAL), not after.
TEST(IdleGroup, WritesTheKernelRefusesAreRejectedOps) {
  Sim v515(parse_ok("kernel v5.15\ngroup /i\ntask a group=/i run=busy\nat 2ms idle /i 1\n"
                    "at 3ms shares /i 512\nat 4ms idle /i 0\nat 5ms shares /i 512\nrun 10ms\n"));
  v515.run();
  ASSERT_EQ(v515.rejected_ops().size(), 1u);
  EXPECT_EQ(v515.rejected_ops()[0].reason, "group '/i' is idle: its shares cannot change (EINVAL)");
  EXPECT_EQ(v515.rejected_ops()[0].t, 3 * kMs);
  EXPECT_EQ(group(v515, "/i").shares, scale_load<uint64_t>(512, v515.sched().res));
  EXPECT_EQ(v515.apply(op::SetGroupIdle{"/", true}), ApplyResult::rejected);
  EXPECT_EQ(v515.last_error(), "idle / 1: the root group cannot be idle (EINVAL)");
  Sim v44(parse_ok("kernel v4.4\ngroup /i\ntask a group=/i run=busy\nat 1ms idle /i 1\nrun 10ms\n"));
  v44.run();
  ASSERT_EQ(v44.rejected_ops().size(), 1u);
  EXPECT_EQ(v44.rejected_ops()[0].reason, "no cpu.idle before v5.15 (feature cgroup_idle)");
  EXPECT_FALSE(group(v44, "/i").idle);
}

// An idle group's task beside a busy root task on one CPU for 10 s: the
// group entity weighs 3 (calc_group_shares of shares 3 on its only CPU), so
// it runs ~3/1027 of the time, as a SCHED_IDLE task would (29 ms, give or
// take the ticks at its turns); a group of 1024 shares gets half.
TEST(IdleGroup, AnIdleGroupGetsTheShareOfASchedIdleTask) {
  for (const char* features : {"", "feature cgroup_idle=off\n"}) {
    Sim sim(parse_ok(std::string("kernel v5.15\n") + features +
                     "group /i\ntask a group=/i run=busy\ntask n run=busy\nat 0 idle /i 1\nrun 10s\n"));
    sim.run();
    const Nanos ran = se(sim, "a").sum_exec_runtime;
    if (*features) {
      EXPECT_GE(ran, 4'900 * kMs);
      EXPECT_LE(ran, 5'100 * kMs);
    } else {
      EXPECT_EQ(sim.sched().se[group(sim, "/i").se[CpuId{0}]].load.weight,
                scale_load<uint64_t>(kWeightIdlePrio, sim.sched().res));
      EXPECT_GE(ran, 25 * kMs);
      EXPECT_LE(ran, 36 * kMs);
    }
  }
}

// check_preempt_wakeup where the two sides meet (the root): w (nice 19, in
// /) wakes every 10 ms while c (in /i) runs. With /i idle, each wakeup
// preempts (curr's side is idle, w's is not), though w's wakeup_gran (1 ms x
// 1024 / 15 = 68 ms of vruntime) no sleeper credit could pass; without, none
// does. The other way round (w, nice -20, in /i, idle before w forks at 1 ms;
// c in /) w never preempts, at its fork nor at its wakeups (it needs 0.1% of
// the CPU, less than its group's 3/1027).
struct Wakeups : SchedSink {
  void decision(const Sched& s, const Decision& d) override {
    if (d.why == Decision::wakeup_idle_group || d.why == Decision::wakeup_into_idle_group)
      lines.push_back(to_string(s, d));
  }
  std::vector<std::string> lines;
};
TEST(IdleGroup, AWakingTaskPreemptsAnIdleGroupAndAnIdleGroupNeverPreempts) {
  for (const char* features : {"", "feature cgroup_idle=off\n"}) {
    Wakeups sink;
    Sim sim(parse_ok(std::string("kernel v5.15\n") + features +
                     "group /i\ntask c group=/i run=busy\ntask w nice=19 run=100us sleep=10ms\nat 0 idle /i 1\n"
                     "run 1s\n"),
            SimOptions{.sink = &sink});
    sim.run();
    ASSERT_GE(sim.counters().wakeups, 80u);
    if (*features) {
      EXPECT_EQ(sim.counters().resched_wakeup, 0u);
      EXPECT_TRUE(sink.lines.empty());
    } else {
      EXPECT_EQ(sim.counters().resched_wakeup, sim.counters().wakeups);
      ASSERT_FALSE(sink.lines.empty());
      EXPECT_EQ(sink.lines.front(), "wakeup on /: w preempts group /i: group /i is idle (cpu.idle 1) and w is not");
    }
  }
  Wakeups sink;
  Sim into(parse_ok("kernel v5.15\ngroup /i\ntask c run=busy\nat 0 idle /i 1\n"
                    "task w group=/i nice=-20 run=100us sleep=100ms at=1ms\nrun 2s\n"),
           SimOptions{.sink = &sink});
  into.run();
  EXPECT_EQ(into.counters().resched_wakeup, 0u);
  ASSERT_GE(into.counters().wakeups, 15u);
  EXPECT_EQ(sink.lines.size(), into.counters().wakeups + 1);  // and the fork
  EXPECT_EQ(sink.lines.front(), "wakeup on /: group /i does not preempt c: group /i is idle (cpu.idle 1) and c is not");
}

// sched_idle_cpu (v5.4+) with an idle group: CPU 1 runs only a task of /i,
// so its rq->nr_running equals the root's idle_h_nr_running and v5.15's
// select_idle_sibling takes it as idle: w moves there at its first wakeup
// after its mask opens; with cpu.idle 0 it stays on CPU 0 with the busy task.
TEST(IdleGroup, V515WakesATaskOnACpuRunningOnlyAnIdleGroup) {
  for (const auto& [idle, want_cpu] : {std::pair{"1", 1}, {"0", 0}}) {
    Sim sim(parse_ok(std::string("kernel v5.15\ntopology sockets=1 cores=2 threads=1\nfeature kernel_placement=on\n"
                                 "group /i\ntask a run=busy cpus=0\ntask i group=/i run=busy cpus=1\n"
                                 "task w run=100us sleep=10ms cpus=0\nat 0 idle /i ") +
                     idle + "\nat 1ms affinity w all\nrun 100ms\n"));
    sim.run();
    EXPECT_EQ(task(sim, "w").cpu, CpuId(want_cpu)) << "idle " << idle;
    EXPECT_TRUE(sim.rejected_ops().empty());
  }
}

}  // namespace
}  // namespace cfsv
