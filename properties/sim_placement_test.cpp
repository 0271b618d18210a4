// Placement at fork and wakeup (feature kernel_placement, v5.15's
// select_task_rq_fair): hand cases with the kernel's numbers, the arithmetic
// of model/arith/placement.h, and properties: random scenarios keep every
// invariant and never place a task outside its affinity; where placement
// cannot matter (one CPU) the feature changes nothing.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <sstream>

#include "claims/sim_diff.h"
#include "model/arith/placement.h"
#include "model/balance.h"
#include "model/scenario_text.h"
#include "model/select_rq.h"
#include "model/sim.h"
#include "model/trace.h"
#include "properties/scenario_test_util.h"
#include "properties/sim_gen.h"
#include "properties/sim_test_util.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;
using simgen::kMs;

const std::filesystem::path kSourceRoot = std::filesystem::path(__FILE__).parent_path().parent_path();

CpuId cpu_of(const Sim& sim, std::string_view task) { return sim.tasks()[sim.task_index(task)].cpu; }

// Four busy tasks spawned at time 0 (forked from CPU 0) on 2 sockets x 2
// cores (v5.15 domains of CPU 0: MC {0,1} imbalance_pct 117, NUMA {0-3} with
// groups {0,1} and {2,3}, both with SD_BALANCE_FORK), by hand:
//  a: NUMA: both groups has_spare with 2 idle CPUs; allow_numa_imbalance(0+1, 2)
//     is 1 < 0, false; local idle 2 >= 2: stay. MC: {0} and {1} idle: stay. CPU 0.
//  b: NUMA: local {0,1} has_spare, 1 idle (a queued on 0); {2,3} 2 idle: local
//     1 < 2, push: find_idlest_group_cpu picks the first idle CPU of the
//     latest idle stamp (all idle since boot): CPU 2; MC of CPU 2: {2}, {3} both
//     idle: stay. CPU 2.
//  c: NUMA: 1 idle CPU each side: stay. MC of 0: {0} has_spare (1 task < ...
//     util 512 * 117 < 1024 * 100) with 0 idle, {1} 1 idle: push to CPU 1.
//  d: NUMA: local 0 idle, remote 1 idle (CPU 3): push; CPU 3.
// Without the feature, "the lowest allowed CPU with the fewest tasks": 0, 1, 2, 3.
TEST(Placement, ForksOfFourTasksOnTwoSocketsSpreadAsFindIdlestGroupDecides) {
  const std::string text =
      "kernel v5.15\ntopology sockets=2 cores=2\nfeature kernel_placement=%\n"
      "task a run=busy\ntask b run=busy\ntask c run=busy\ntask d run=busy\nrun 10ms\n";
  const auto run = [&](bool on) {
    std::string t = text;
    t.replace(t.find('%'), 1, on ? "on" : "off");
    auto sim = std::make_unique<Sim>(parse_ok(t));
    sim->run();
    return sim;
  };
  const auto on = run(true);
  EXPECT_EQ(cpu_of(*on, "a"), CpuId(0));
  EXPECT_EQ(cpu_of(*on, "b"), CpuId(2));
  EXPECT_EQ(cpu_of(*on, "c"), CpuId(1));
  EXPECT_EQ(cpu_of(*on, "d"), CpuId(3));
  for (const CpuId c : on->sched().rq.ids()) EXPECT_EQ(on->rqs()[c].forks_placed, 1u) << c.v;
  EXPECT_EQ(on->counters().migrations, 0u);  // fork placement is no migration (__set_task_cpu)
  const auto off = run(false);
  EXPECT_EQ(cpu_of(*off, "b"), CpuId(1));
  EXPECT_EQ(cpu_of(*off, "c"), CpuId(2));
}

// 1 socket, 2 cores x 2 threads (SMT {0,1}, {2,3}; sd_llc = MC {0-3}). b0 keeps
// CPU 0 busy; w starts pinned to CPU 0, is allowed everywhere from 100us and
// wakes from its sleeps on CPU 0 (prev_cpu == this_cpu == 0, so want_affine
// and the fast path). select_idle_sibling: CPU 0 busy; no CPU ever went idle,
// so has_idle_cores is false and select_idle_smt(prev) finds sibling 1. From
// then on w wakes on CPU 1, idle: it stays.
TEST(Placement, WakeupOnABusyCpuLandsOnItsIdleSmtSibling) {
  Sim sim(parse_ok(
      "kernel v5.15\ntopology sockets=1 cores=2 threads=2\nfeature kernel_placement=on\n"
      "task b0 run=busy cpus=0\ntask w run=1ms sleep=1ms cpus=0\nat 100us affinity w 0-3\nrun 20ms\n"));
  sim.run();
  EXPECT_EQ(cpu_of(sim, "w"), CpuId(1));
  EXPECT_EQ(sim.counters().wakeup_migrations, 1u);
  EXPECT_EQ(sim.tasks()[sim.task_index("w")].stats.migrations, 1u);
  EXPECT_GT(sim.counters().wakeups, 3u);
}

// The same, but k (pinned to CPU 3) exits at 100us: CPU 3 goes idle with its
// sibling 2 idle, so update_idle_core sets has_idle_cores. w's first wakeup
// then skips select_idle_smt; select_idle_cpu scans for an idle core from
// target + 1: CPU 1's core {0,1} is not idle (CPU 0 busy), CPU 2's {2,3} is:
// CPU 2.
TEST(Placement, WakeupPrefersAnIdleCoreWhenTheLlcHasOne) {
  Sim sim(parse_ok(
      "kernel v5.15\ntopology sockets=1 cores=2 threads=2\nfeature kernel_placement=on\n"
      "task b0 run=busy cpus=0\ntask w run=1ms sleep=1ms cpus=0\ntask k run=100us cpus=3\n"
      "at 100us affinity w 0-3\nrun 20ms\n"));
  sim.run();
  EXPECT_EQ(cpu_of(sim, "w"), CpuId(2));
  EXPECT_EQ(sim.counters().wakeup_migrations, 1u);
}

// A sleeping task whose CPU its new affinity excludes: want_affine is false
// (this_cpu 0 not allowed), no v5.15 domain has SD_BALANCE_WAKE, so the fast
// path returns the idle target 0; select_task_rq sends that to
// select_fallback_rq: the first allowed CPU of CPU 0's node, 2. With one
// allowed CPU, cpumask_any: that CPU.
TEST(Placement, AWakeupNeverLeavesTheAffinity) {
  for (const auto& [mask, want] : {std::pair{"2-3", 2}, {"3", 3}, {"1,3", 1}}) {
    Sim sim(parse_ok(std::string("kernel v5.15\ntopology sockets=1 cores=2 threads=2\nfeature kernel_placement=on\n"
                                 "task w run=1ms sleep=5ms cpus=0\nat 2ms affinity w ") +
                     mask + "\nrun 6500us\n"));
    sim.run();
    EXPECT_EQ(cpu_of(sim, "w"), CpuId(want)) << mask;
    EXPECT_EQ(sim.counters().wakeup_migrations, 1u) << mask;
  }
}

// w sleeps on CPU 1 (b, from 3 ms, keeps it busy; CPUs 0, 2, 3 idle), allowed on 1-3,
// its recent_used_cpu CPU 0. select_idle_sibling(prev 1, target 1): target
// busy, prev == target, then the recent CPU: v5.15.100 tests the affinity of
// p->recent_used_cpu, already set to prev (allowed), so it returns idle CPU 0,
// which w may not run on, and select_task_rq falls back to
// select_fallback_rq(1): the first allowed CPU of the node, busy CPU 1. With
// the fix the recent CPU is refused and select_idle_cpu's scan from CPU 2
// finds it idle.
TEST(Placement, TheRecentCpusAffinityTestReadsPrevUntilItsFix) {
  for (const bool fix : {false, true}) {
    Sim sim(parse_ok(std::string("kernel v5.15\ntopology sockets=1 cores=4\nfeature kernel_placement=on\n") +
                     "feature recent_used_cpu_affinity_fix=" + (fix ? "on" : "off") +
                     "\ntask w run=1ms sleep=10ms cpus=1\nat 3ms spawn b run=busy cpus=1\nat 5ms affinity w 1-3\nrun 20ms\n"));
    sim.run_to(6 * kMs);
    Sched& s = sim.mutable_sched();
    const TaskId w = sim.task_index("w");
    ASSERT_EQ(s.tasks[w].state, TaskState::sleeping);
    ASSERT_EQ(s.tasks[w].cpu, CpuId(1));
    s.tasks[w].recent_used_cpu = CpuId(0);
    EXPECT_EQ(select_idle_sibling(s, w, CpuId(1), CpuId(1), CpuId(1)), fix ? CpuId(2) : CpuId(0)) << fix;
    EXPECT_EQ(s.tasks[w].recent_used_cpu, CpuId(1));
    s.tasks[w].recent_used_cpu = CpuId(0);
    EXPECT_EQ(select_task_rq(s, w, CpuId(1), WakeKind::ttwu), fix ? CpuId(2) : CpuId(1)) << fix;
  }
}

// Fork balancing at the top level of 2 sockets x 2 CPUs, groups {0,1} and
// {2,3}: p busy on CPU 0, x on CPU 2, CPUs 1 and 3 idle. Both groups
// has_spare with one idle CPU: find_idlest_group keeps the fork local. Two
// states it reads differently:
//  - CPU 1 in a newidle walk after a task blocked there: its rq->curr is still
//    that task, so idle_cpu_without counts it busy and the other group, one
//    idle CPU against none, wins;
//  - the other group's sgc->imbalance set by load balancing (pinned tasks):
//    group_classify makes it group_imbalanced, worse than has_spare, and the
//    fork stays local even with CPU 1's walk.
TEST(Placement, ForkBalancingCountsACpuInANewidleWalkBusyAndReadsSgcImbalance) {
  Sim sim(parse_ok("kernel v5.15\ntopology sockets=2 cores=2\nfeature kernel_placement=on\nfeature load_balance=on\n"
                   "task p run=busy cpus=0\ntask x run=busy cpus=2\ntask z run=100us sleep=1s\nrun 5ms\n"));
  sim.run_to(2 * kMs);
  Sched& s = sim.mutable_sched();
  for (const int c : {1, 3}) ASSERT_EQ(s.rq[CpuId(c)].curr, kIdle) << c;
  ASSERT_EQ(s.lb.walk[CpuId(1)].at, 0u);
  const SchedDomain& top = s.topo.sd[CpuId(0)].back();
  ASSERT_EQ(top.groups.size(), 2u);
  const TaskId z = sim.task_index("z");
  EXPECT_EQ(find_idlest_group(s, top, z, CpuId(0)), nullptr);
  s.lb.walk[CpuId(1)].at = s.now + 1000;
  s.lb.walk[CpuId(1)].from_task = true;
  const SchedGroup* remote = find_idlest_group(s, top, z, CpuId(0));
  ASSERT_NE(remote, nullptr);
  EXPECT_TRUE(remote->span.test(2) && remote->span.test(3));
  s.lb.group_imbalance.at(top.level * s.nr_cpus() + remote->id.index()) = 1;
  EXPECT_EQ(find_idlest_group(s, top, z, CpuId(0)), nullptr);
}

// A child forks on its parent's CPU: with everything else idle on one
// socket, find_idlest_group keeps it in the parent's LLC (MC groups are
// single CPUs: the parent's is busy, the next idle one wins).
TEST(Placement, AChildForkedByABusyParentGoesToAnIdleCpu) {
  Sim sim(parse_ok("kernel v5.15\ntopology sockets=1 cores=4\nfeature kernel_placement=on\n"
                   "task p run=busy cpus=2\nat 1ms affinity p all\nat 2ms spawn c run=busy parent=p\nrun 3ms\n"));
  sim.run();
  EXPECT_EQ(cpu_of(sim, "p"), CpuId(2));
  EXPECT_NE(cpu_of(sim, "c"), CpuId(2));
  EXPECT_EQ(sim.rqs()[cpu_of(sim, "c")].forks_placed, 1u);
}

// wake_affine_weight's comparison, WA_BIAS on, imbalance_pct 117 (bias 108):
// this = (1024 + 1024) * 100 * 1024 = 209715200;
// prev = (2048 - 1024) * 108 * 1024 = 113246208: stay on prev;
// prev = (3072 - 1024) * 108 * 1024 = 226492416: this CPU;
// prev = (0 - 1024) * ...: negative (s64), stay.
TEST(PlacementArith, WakeAffineWeightWithTheKernelsNumbers) {
  using V = uint64_t;
  EXPECT_FALSE(wake_affine_weight_this<V>(1024, 2048, 1024, 1024, 1024, 117, false, 0));
  EXPECT_TRUE(wake_affine_weight_this<V>(1024, 3072, 1024, 1024, 1024, 117, false, 0));
  EXPECT_FALSE(wake_affine_weight_this<V>(0, 0, 1024, 1024, 1024, 117, false, 0));
  // sync (`ttwu TASK N sync`): the waker's load comes off, and a tie goes to
  // this CPU: (2048 - 1024 + 1024) x 100 x 1024 < (3072 - 1024) x 100 x 1024 + 1.
  EXPECT_TRUE(wake_affine_weight_this<V>(2048, 2048 + 1024, 1024, 1024, 1024, 100, true, 1024));
  // Without sync that tie stays on prev.
  EXPECT_FALSE(wake_affine_weight_this<V>(1024, 2048 + 1024, 1024, 1024, 1024, 100, false, 0));
  // A waker heavier than this CPU's load: this CPU at once, however busy prev is not.
  EXPECT_TRUE(wake_affine_weight_this<V>(1000, 0, 1024, 1024, 1024, 117, true, 1024));
  EXPECT_FALSE(wake_affine_weight_this<V>(1024, 0, 1024, 1024, 1024, 117, true, 1024));
}

// find_idlest_group's busy case: imbalance = 1024 * 17 / 100 = 174.
TEST(PlacementArith, IdlestBusyGroupNeedsImbalancePctAndNumaAllowance) {
  using V = uint64_t;
  EXPECT_TRUE(idlest_busy_group_wins<V>(1200, 1000, 117, false));   // 1000 < 1374, 120000 > 117000
  EXPECT_FALSE(idlest_busy_group_wins<V>(1150, 1000, 117, false));  // 115000 <= 117000
  EXPECT_FALSE(idlest_busy_group_wins<V>(1300, 1200, 117, false));  // ratio 130000 <= 140400
  EXPECT_TRUE(idlest_busy_group_wins<V>(1200, 1000, 117, true));    // 1174 < 1200
  EXPECT_TRUE(idlest_busy_group_wins<V>(1174, 1000, 117, false));   // 117400 > 117000
  EXPECT_FALSE(idlest_busy_group_wins<V>(1174, 1000, 117, true));   // across NUMA: 1000 + 174 >= 1174, stay
  EXPECT_TRUE(allow_numa_imbalance<V>(1, 8));
  EXPECT_FALSE(allow_numa_imbalance<V>(2, 8));
  EXPECT_EQ(sis_prop_nr<V>(4, 1000, 0), 4000u);
  EXPECT_EQ(sis_prop_nr<V>(4, 0, 0), 4u);
  EXPECT_EQ(sis_prop_nr<V>(8, 100, 199), 4u);  // 800 > 4 * 200 is false
  EXPECT_EQ(update_avg<V>(800, 0), 700u);
  EXPECT_EQ(update_avg<V>(0, 800), 100u);
}

// wake_affine on state set by a run, asked directly (the simulator asks it
// only for a `ttwu` from another CPU): CPU 0 wakes a task last on CPU 2.
TEST(Placement, WakeAffineIdleThenWeight) {
  Sim sim(parse_ok("kernel v5.15\ntopology sockets=1 cores=4\nfeature kernel_placement=on\n"
                   "task x run=busy cpus=0\ntask y run=busy cpus=2\ntask p run=1ms sleep=100ms cpus=2\nrun 1500us\n"));
  sim.run();
  const Sched& s = sim.sched();
  const TaskId p = sim.task_index("p");
  const SchedDomain& mc = s.topo.sd[CpuId(0)][0];
  // Both busy: wake_affine_idle declines; the weights decide.
  const uint64_t l0 = s.cfs[s.rq[CpuId(0)].cfs].pelt.avg.load_avg, l2 = s.cfs[s.rq[CpuId(2)].cfs].pelt.avg.load_avg;
  const uint64_t tl = task_h_load(s, p);
  const bool affine = wake_affine_weight_this<uint64_t>(l0, l2, tl, 1024, 1024, mc.imbalance_pct, false, 0);
  EXPECT_EQ(wake_affine(s, mc, p, CpuId(0), CpuId(2)), affine ? CpuId(0) : CpuId(2));
  // An idle prev_cpu wins outright (CPU 1 never ran anything).
  EXPECT_EQ(wake_affine(s, mc, p, CpuId(0), CpuId(1)), CpuId(1));
  // An idle waker CPU sharing the LLC with a busy prev: the waker's CPU.
  EXPECT_EQ(wake_affine(s, mc, p, CpuId(3), CpuId(2)), CpuId(3));
}

using simtest::traces;

Scenario with_placement(const Scenario& s, bool on) { return with_overrides(s, {{Feature::kernel_placement, on}}); }

// On one CPU there is nowhere else to go: the examples, run on one CPU, give
// the same traces with the feature on and off.
TEST(Placement, OnOneCpuTheExamplesRunTheSameWithTheFeatureOnAndOff) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSourceRoot / "examples")) {
    if (entry.path().extension() != ".scn") continue;
    const ParseResult r = load_scenario_file(entry.path().string());
    ASSERT_TRUE(std::holds_alternative<Scenario>(r)) << entry.path();
    Scenario s = std::get<Scenario>(r);
    s.topology = {1, 1, 1};
    s.duration = std::min<Nanos>(s.duration, 200 * kMs);
    EXPECT_EQ(traces(with_placement(s, true)), traces(with_placement(s, false))) << entry.path();
    ++n;
  }
  EXPECT_GE(n, 4);
}

RC_GTEST_PROP(PlacementProperties, OnOneCpuTheFeatureChangesNothing, ()) {
  Scenario s = *simgen::gen_sim_scenario_with_ops(30);
  s.topology = {1, 1, 1};
  RC_ASSERT(traces(with_placement(s, true)) == traces(with_placement(s, false)));
}

// Every wakeup and fork lands on an allowed CPU (checked as the task is woken).
// SMT siblings 0 and 1 go idle 100 ns apart, each through a newidle walk (c
// and d, pinned to CPU 3, keep rd->overload set; nothing can be pulled).
// update_idle_core runs when the idle task is picked, after the walk
// (set_next_task_idle): the second walk's end sees both siblings idle and
// marks the LLC as having an idle core. At each walk's start the sibling was
// not idle (busy, or in its own walk with its task still rq->curr).
TEST(Placement, ACoreWhoseSiblingsIdleThroughNewidleWalksIsAnIdleCore) {
  Sim sim(parse_ok("kernel v5.15\ntopology sockets=1 cores=2 threads=2\nfeature kernel_placement=on load_balance=on\n"
                   "task a run=1ms sleep=1s cpus=0\ntask b run=1000100ns sleep=1s cpus=1\n"
                   "task c run=busy cpus=3\ntask d run=busy cpus=3\nrun 2ms\n"));
  sim.run_to(kMs + 50);
  ASSERT_TRUE(newidle_walking(sim.sched(), CpuId(0)));
  EXPECT_FALSE(sim.rqs()[CpuId(0)].has_idle_cores);
  sim.run_to(kMs + 20'000);
  EXPECT_EQ(sim.counters().newidle_walks, 2u);
  EXPECT_FALSE(newidle_walking(sim.sched(), CpuId(1)));
  EXPECT_TRUE(sim.rqs()[CpuId(0)].has_idle_cores);  // sd_llc_shared, kept at the LLC's first CPU
}

// The Wasted Cores wakeup fix (wasted_cores_wakeup_idle) takes only CPUs the
// task may run on: w slept on CPU 0, which its new affinity (1-3) excludes;
// b keeps CPU 1 busy. The longest-idle allowed CPU is 2 or 3, not the idle
// prev (whose select_fallback_rq would give busy CPU 1).
TEST(Placement, TheWakeupIdleFixPicksOnlyAllowedCpus) {
  Sim sim(parse_ok("kernel v5.15\ntopology sockets=1 cores=4\nfeature kernel_placement=on wasted_cores_wakeup_idle=on\n"
                   "task b run=busy cpus=1\ntask w run=1ms sleep=5ms cpus=0\nat 2ms affinity w 1-3\nrun 6500us\n"));
  sim.run();
  const CpuId c = cpu_of(sim, "w");
  EXPECT_TRUE(c == CpuId(2) || c == CpuId(3)) << c.v;
}

struct AffinityWatch : SchedSink {
  uint64_t outside = 0, placed = 0;
  void sched_wakeup(const Sched& s, TaskId t, bool) override {
    ++placed;
    if (!cpu_allowed(s.tasks[t], s.tasks[t].cpu)) ++outside;
  }
};

// Random scenarios (any profile, each with its era's placement), on their
// own topology or on 2 sockets with SMT, with kernel_placement on (and the
// Wasted Cores wakeup fix on or off): every invariant holds after every step
// and no task is placed outside its affinity.
RC_GTEST_PROP(PlacementProperties, RandomScenariosKeepEveryInvariantAndTheAffinity, ()) {
  Scenario s = with_overrides(with_placement(*simgen::gen_sim_scenario_with_ops(40), true),
                              {{Feature::wasted_cores_wakeup_idle, *rc::gen::arbitrary<bool>()}});
  if (*rc::gen::arbitrary<bool>()) s.topology = {2, *rc::gen::inRange(1u, 4u), 2};  // >= 4 CPUs: masks stay valid
  AffinityWatch watch;
  Sim sim(s, SimOptions{.check_every = 1, .sink = &watch});
  sim.run();
  RC_ASSERT(sim.checker()->ok());
  RC_ASSERT(watch.outside == 0u);
}

}  // namespace
}  // namespace cfsv
