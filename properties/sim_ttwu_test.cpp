// What a `ttwu` carries besides its CPU (with kernel_placement): the waker's
// and wakee's flips that wake_wide weighs (record_wakee: v4.4 in
// task_waking_fair, v5.15 in select_task_rq_fair, v3.10 neither), and WF_SYNC
// (`ttwu TASK N sync`) in each era's wake_affine. docs/placement.md.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "model/select_rq.h"
#include "model/sim.h"
#include "properties/scenario_test_util.h"
#include "properties/sim_lookup.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;
using namespace sim_lookup;

// The idle thread's record on cpu (`current` there while it idles).
const WakeeFlips& idle_wakee(const Sim& sim, int cpu) { return sim.sched().rq[CpuId(cpu)].idle_wakee; }

// One socket of 4 cores (sd_llc_size 4). p runs 5 ms on CPU 2 and, while it
// is current there, `ttwu`s c, d, c, d: p's flips are 4. Then CPU 1, idle,
// `ttwu`s e and f in turn `flips` times: its idle thread's flips. q keeps
// CPU 2 busy from 6 ms; p, asleep, may go anywhere from 7 ms; at wake_us CPU 1
// wakes p, recording it too (flips + 1). e and f may run on CPUs 0 and 3
// (`pinned`: CPU 0 only; v5.15 records no wakee of a task allowed on one CPU,
// as select_task_rq_fair is not called for it).
std::string wide_scenario(const char* kernel, int flips, bool pinned, int wake_us) {
  std::string s = std::string("kernel ") + kernel +
                  "\ntopology sockets=1 cores=4\nfeature kernel_placement=on\n"
                  "task p run=5ms sleep=10s cpus=2\n"
                  "task c run=10us sleep=10s cpus=3\ntask d run=10us sleep=10s cpus=3\n"
                  "task e run=10us sleep=10s cpus=0\ntask f run=10us sleep=10s cpus=0\n"
                  "at 500us affinity c 2-3\nat 500us affinity d 2-3\n";
  if (!pinned) s += "at 500us affinity e 0,3\nat 500us affinity f 0,3\n";
  s += "at 1ms ttwu c 2\nat 1500us ttwu d 2\nat 2ms ttwu c 2\nat 2500us ttwu d 2\n";
  for (int k = 0; k < flips; ++k)
    s += "at " + std::to_string(3000 + 100 * k) + "us ttwu " + (k % 2 ? "f" : "e") + " 1\n";
  return s + "at 6ms spawn q run=busy cpus=2\nat 7ms affinity p all\nat " + std::to_string(wake_us) +
         "us ttwu p 1\nrun " + std::to_string(wake_us + 100) + "us\n";
}

// wake_wide: with slave = min(flips) >= sd_llc_size and master >= slave x
// sd_llc_size the wakeup is not affine. p's 4 flips against CPU 1's idle
// thread's 15 (14 ttwus, then p) stay affine: v4.4's wake_affine takes idle
// CPU 1 (this_load 0: balanced), v5.15's wake_affine_idle takes it (idle,
// sharing the LLC with a busy prev). 16 (15 and p) are wide: v4.4's
// select_idle_sibling from prev_cpu 2 (busy with q) takes the first wholly
// idle group round from CPU 2's, {3}; v5.15's takes p's recent_used_cpu,
// CPU 0, where p was forked, idle. v3.10 has no wake_wide: CPU 1 either way.
TEST(Ttwu, AWakerThatSwitchesWakeesTooOftenWakesWide) {
  for (const auto& [kernel, wide_cpu] : {std::pair{"v4.4", 3}, {"v5.15", 0}, {"v3.10", 1}})
    for (const int flips : {14, 15}) {
      Sim sim(parse_ok(wide_scenario(kernel, flips, false, 10000)));
      sim.run();
      ASSERT_TRUE(sim.rejected_ops().empty()) << kernel << ": " << sim.rejected_ops()[0].reason;
      EXPECT_EQ(task(sim, "p").cpu, CpuId(flips == 15 ? wide_cpu : 1)) << kernel << ", " << flips;
      const bool v3 = std::string(kernel) == "v3.10";
      EXPECT_EQ(sim.counters().wake_wide, flips == 15 && !v3 ? 1u : 0u) << kernel;  // p's alone
      if (v3) continue;
      EXPECT_EQ(task(sim, "p").wakee.flips, 4u) << kernel;
      EXPECT_EQ(idle_wakee(sim, 1).flips, static_cast<uint32_t>(flips + 1)) << kernel;
      EXPECT_EQ(idle_wakee(sim, 1).last, sim.task_index("p")) << kernel;
    }
}

// A wakee allowed on one CPU: v4.4 records it (task_waking_fair runs for
// every wakeup), v5.15 does not (select_task_rq skips the fair class's
// select_task_rq_fair), so there CPU 1's idle thread has only p's flip.
TEST(Ttwu, PinnedWakeesCountInV44sTaskWakingFairOnly) {
  for (const auto& [kernel, want_cpu, want_flips] : {std::tuple{"v4.4", 3, 16u}, {"v5.15", 1, 1u}}) {
    Sim sim(parse_ok(wide_scenario(kernel, 15, true, 10000)));
    sim.run();
    EXPECT_EQ(task(sim, "p").cpu, CpuId(want_cpu)) << kernel;
    EXPECT_EQ(idle_wakee(sim, 1).flips, want_flips) << kernel;
  }
}

// The flips halve once a second at most: at 1.5 s CPU 1's idle thread has
// not recorded since 4.4 ms (its decay stamp is still 0), so 15 become 7,
// then p's wakeup makes 8: below 4 x 4, the wakeup is affine again.
TEST(Ttwu, TheFlipsHalveAfterASecond) {
  for (const char* kernel : {"v4.4", "v5.15"}) {
    Sim sim(parse_ok(wide_scenario(kernel, 15, false, 1500000)));
    sim.run();
    EXPECT_EQ(idle_wakee(sim, 1).flips, 8u) << kernel;
    EXPECT_EQ(idle_wakee(sim, 1).decay_ts, 1500u) << kernel;  // jiffies at HZ=1000
    EXPECT_EQ(task(sim, "p").cpu, CpuId(1)) << kernel;
  }
}

// dup_task_struct copies the parent's record into the child.
TEST(Ttwu, AChildStartsWithItsParentsFlips) {
  Sim sim(parse_ok("kernel v5.15\ntopology sockets=1 cores=4\nfeature kernel_placement=on\n"
                   "task p run=busy cpus=2\ntask c run=10us sleep=10s cpus=3\ntask d run=10us sleep=10s cpus=3\n"
                   "at 500us affinity c 2-3\nat 500us affinity d 2-3\n"
                   "at 1ms ttwu c 2\nat 1500us ttwu d 2\nat 2ms ttwu c 2\n"
                   "at 3ms spawn k run=busy parent=p\nrun 4ms\n"));
  sim.run();
  const Task &p = task(sim, "p"), &k = task(sim, "k");
  EXPECT_EQ(p.wakee.flips, 3u);
  EXPECT_EQ(k.wakee.flips, 3u);
  EXPECT_EQ(k.wakee.last, sim.task_index("c"));
}

// WF_SYNC. w runs alone on CPU 1, q on CPU 2, where p (allowed on CPUs 1
// and 2 only, so that select_idle_sibling has no idle CPU to offer; x keeps
// CPU 0, p's recent_used_cpu, busy) slept after running 5 ms beside q. At 25
// ms CPU 1 wakes p:
//  - plain: v5.15's wake_affine_weight compares (load(1) + p) x 100 with
//    (load(2) - p) x 108: w's 1024 plus p's ~1023 (its load as of its sleep
//    at 14 ms) against CPU 2's ~1850 (q's and p's blocked load) less p's:
//    prev_cpu 2.
//    v4.4 and v3.10: this_load is w's load, load q's: 100 x (w + p) >
//    108 x q, not balanced; v3.10 and this_load + load over one task: 2.
//  - sync: v5.15's wake_affine_idle takes CPU 1, where the waker runs
//    alone; v4.4 and v3.10 take w's weight off CPU 1 (effective_load in the
//    root: all of it), leaving this_load <= 0: balanced, CPU 1.
TEST(Ttwu, ASyncWakeupTakesTheWakersCpuWhereAPlainOneDoesNot) {
  for (const char* kernel : {"v5.15", "v4.4", "v3.10"})
    for (const bool sync : {false, true}) {
      Sim sim(parse_ok(std::string("kernel ") + kernel +
                       "\ntopology sockets=1 cores=4\nfeature kernel_placement=on\n"
                       "task x run=busy cpus=0\ntask w run=busy cpus=1\ntask q run=busy cpus=2\ntask p run=5ms sleep=10s cpus=2\n"
                       "at 20ms affinity p 1-2\nat 25ms ttwu p 1" + (sync ? " sync" : "") + "\nrun 25100us\n"));
      sim.run();
      ASSERT_TRUE(sim.rejected_ops().empty()) << kernel;
      EXPECT_EQ(task(sim, "p").cpu, CpuId(sync ? 1 : 2)) << kernel << (sync ? " sync" : "");
      // The one wakeup: wake_affine asked once, choosing CPU 1 only with sync.
      EXPECT_EQ(sim.counters().wakeups_sync, sync ? 1u : 0u) << kernel;
      EXPECT_EQ(sim.counters().wake_affine_calls, 1u) << kernel;
      EXPECT_EQ(sim.counters().wake_affine_pulls, sync ? 1u : 0u) << kernel;
    }
}

// A ttwu that cannot run is rejected and changes nothing (p sleeps on): from
// an offline CPU (no code runs there), or sync from a CPU running no task
// (the waker WF_SYNC names is the task running there).
TEST(Ttwu, IsRejectedFromAnOfflineCpuAndSyncFromACpuRunningNoTask) {
  for (const auto& [kernel, op, reason] :
       {std::tuple{"v4.4", "at 2ms cpu offline 1\nat 5ms ttwu p 1", "CPU 1 is offline"},
        {"v5.15", "at 5ms ttwu p 1 sync", "sync: no task runs on CPU 1 to be the waker"}}) {
    Sim sim(parse_ok(std::string("kernel ") + kernel + "\ntopology sockets=1 cores=4\nfeature kernel_placement=on\n" +
                     "task p run=1ms sleep=10s cpus=2\n" + op + "\nrun 6ms\n"));
    sim.run();
    ASSERT_EQ(sim.rejected_ops().size(), 1u) << kernel;
    EXPECT_EQ(sim.rejected_ops()[0].reason, reason);
    EXPECT_EQ(task(sim, "p").state, TaskState::sleeping) << kernel;
  }
}

}  // namespace
}  // namespace cfsv
