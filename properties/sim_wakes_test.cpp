// Tasks that wake tasks (`wakes=NAME[,NAME...] [sync=on]`, `sleep=wait`):
// the pipe and futex pattern, each burst's end waking the next wakee from the
// waker's CPU while it still runs there; what try_to_wake_up then decides
// (wake_affine, WF_SYNC) per era. docs/scenario-format.md, docs/placement.md.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "model/sim.h"
#include "properties/scenario_test_util.h"
#include "properties/sim_gen.h"
#include "properties/sim_lookup.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;
using namespace sim_lookup;

// A pipe ping-pong on one CPU: a and b each wait from the start, and each
// run 100 us when woken, wake the other and wait. `wake a` starts it (a,
// not yet run, keeps the wakeup for its first wait). They alternate for the
// rest of the 10 ms, each with half the CPU.
TEST(Wakes, APipePairPingPongsForTheWholeRun) {
  Sim sim(parse_ok("task a run=100us wakes=b sleep=wait\ntask b run=100us wakes=a sleep=wait\nat 0ns wake a\nrun 10ms\n"));
  sim.run();
  const Sched& s = sim.sched();
  EXPECT_EQ(s.se[task(sim, "a").se].sum_exec_runtime, 5'000'000u);
  EXPECT_EQ(s.se[task(sim, "b").se].sum_exec_runtime, 5'000'000u);
  // Both block at their first run (two sleeps), then `wake a` and 100 bursts,
  // each ending in a wakeup of the other and a sleep.
  EXPECT_EQ(sim.counters().wakeups, 101u);
  EXPECT_EQ(sim.counters().sleeps, 102u);
}

// A wakeup that finds the task awake is not lost: b, busy for 1 ms at a
// time once a first wakes it at 100 us, is woken by a every 300 us while it
// runs, so each of its waits returns at once and it never sleeps again; a
// sleeps 200 us after each burst.
TEST(Wakes, AWakeupWhileAwakeMakesTheNextWaitReturnAtOnce) {
  Sim sim(parse_ok("topology sockets=1 cores=2\ntask a run=100us sleep=200us wakes=b cpus=0\n"
                   "task b run=1ms sleep=wait cpus=1\nrun 10ms\n"));
  sim.run();
  EXPECT_EQ(sim.sched().se[task(sim, "b").se].sum_exec_runtime, 9'900'000u);
  EXPECT_EQ(task(sim, "b").state, TaskState::running);
  EXPECT_EQ(sim.counters().sleeps, 35u);  // b's first, then a's: bursts end at 100 us + 300 us k, k = 0..33
}

// Without a waker a waiting task never runs a burst: it blocks at once.
TEST(Wakes, AWaitingTaskNobodyWakesNeverRuns) {
  Sim sim(parse_ok("task a run=1ms sleep=wait\ntask b run=busy\nrun 10ms\n"));
  sim.run();
  EXPECT_EQ(task(sim, "a").state, TaskState::sleeping);
  EXPECT_EQ(sim.sched().se[task(sim, "a").se].sum_exec_runtime, 0u);
}

// A pipe pair across two sockets (a on CPU 0, b on CPU 2, free to move from
// 1 ms; kernel_placement; b forked there by p, so that under v4.4 it does not
// start with load_avg 0, as a task forked onto another CPU does: v4.4's
// migrate_task_rq_fair decays a new task's averages over the whole uptime,
// fixed in v4.6, and an unloaded waker's CPU draws any wakee). Plain wakeups leave each where it is: the wakee's
// CPU is idle (v5.15's wake_affine_idle takes prev_cpu; era 1's wake_affine
// finds the waker's CPU busier). With sync=on the waker's load does not
// count: v5.15's wake_affine_idle takes the waking CPU, where the waker runs
// alone, and v4.4's effective_load leaves this_load 0; select_idle_sibling
// then puts the wakee on the idle core beside the waker (prev_cpu, on the
// other socket, shares no cache): the pair ends on one socket. (v3.10 too:
// its NUMA level is SD_WAKE_AFFINE at distance 20, within RECLAIM_DISTANCE.)
TEST(Wakes, SyncWakeupsBringAPipePairOntoTheWakersSocket) {
  for (const auto& [kernel, sync_joins] : {std::pair{"v5.15", true}, {"v4.4", true}, {"v3.10", true}})
    for (const bool sync : {false, true}) {
      const std::string sy = sync ? " sync=on" : "";
      Sim sim(parse_ok(std::string("kernel ") + kernel +
                       "\ntopology sockets=2 cores=2\nfeature kernel_placement=on\n"
                       "task a run=100us wakes=b sleep=wait cpus=0" + sy + "\ntask p run=10us cpus=2\n"
                       "task b run=100us wakes=a sleep=wait cpus=2 parent=p" + sy + "\n"
                       "at 1ms affinity a all\nat 1ms affinity b all\nat 2ms wake a\nrun 20ms\n"));
      sim.run();
      const unsigned sa = task(sim, "a").cpu.index() / 2, sb = task(sim, "b").cpu.index() / 2;
      EXPECT_EQ(sa == sb, sync && sync_joins) << kernel << (sync ? " sync" : "");
      EXPECT_EQ(sim.counters().wakeups_sync > 0, sync) << kernel;
    }
}

// Random scenarios whose tasks wake one another (the generators make
// wakes= and sleep=wait too; here every periodic task wakes one, on 2 to 8
// CPUs with the kernel's placement): every invariant after every step.
RC_GTEST_PROP(WakesProperties, TasksWakingTasksKeepEveryInvariant, ()) {
  Scenario s = *simgen::gen_sim_scenario_with_ops(20);
  s.topology = {*rc::gen::inRange(1u, 3u), 2, *rc::gen::inRange(1u, 3u)};
  s.feature_overrides.emplace_back(Feature::kernel_placement, *rc::gen::arbitrary<bool>());
  RC_PRE(s.tasks.size() >= 2 && s.duration > 0);
  for (std::size_t i = 0; i < s.tasks.size(); ++i) {
    TaskSpec& t = s.tasks[i];
    if (std::holds_alternative<RunBusy>(t.behaviour) || !t.wakes.empty()) continue;
    t.wakes = {s.tasks[(i + 1) % s.tasks.size()].name};
    t.wake_sync = *rc::gen::arbitrary<bool>();
  }
  Sim sim(s, SimOptions{.check_every = 1});
  sim.run();
  RC_ASSERT(sim.checker()->ok());
}

}  // namespace
}  // namespace cfsv
