// Era-1 placement (features placement_v4_4, placement_v3_10 with
// kernel_placement; model/select_rq_v4.cpp): fork placement walked by hand
// through find_idlest_group / find_idlest_cpu of v4.4 and v3.10, the old
// select_idle_sibling, wake_affine on state set by a run and through `ttwu`
// (a wakeup from another CPU; a timer's runs on prev_cpu and never asks it),
// and effective_load on the worked example of its comment in kernel/sched/fair.c.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "model/arith/placement.h"
#include "model/balance_lb.h"
#include "model/select_rq.h"
#include "model/sim.h"
#include "properties/scenario_test_util.h"
#include "properties/sim_gen.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;

CpuId cpu_of(const Sim& sim, std::string_view task) { return sim.tasks()[sim.task_index(task)].cpu; }

// One socket of 2 cores x 2 threads (CPUs 0,1 and 2,3), no load balancing.
// p runs on CPU 0 (pinned until 1 ms, so that the child may go anywhere); y
// runs on CPU 3 until 5 ms, so CPU 3 idled after CPU 2 (idle since boot); at
// 10 ms p forks c. Every era's fork domain is MC
// (span 0-3) with groups {0,1} and {2,3}, then SMT.
//  v4.4: MC: {2,3}'s load 0 is below {0,1}'s (p's load x 1024 / 1178) by more
//    than half of imbalance_pct 117: find_idlest_cpu takes the idle CPU of
//    the latest idle stamp, 3; at CPU 3's SMT level {2} has load 0 and
//    100 x 0 < 110 x 0 is false, so the walk goes on to {2}: CPU 2.
//  v3.10: MC: the same group; find_idlest_cpu takes the least loaded, the
//    first of equals: CPU 2; then SMT of CPU 2 on to {3}: CPU 3.
//  v5.15: MC: {2,3} has more idle CPUs: CPU 3 (latest idle stamp); SMT of
//    CPU 3: local {3} has as many idle CPUs as {2}: stay. CPU 3.
TEST(PlacementEra1, AForkWalksTheIdlestGroupsAsEachEraWeighsThem) {
  for (const auto& [kernel, want] : {std::pair{"v4.4", 2}, {"v3.10", 3}, {"v5.15", 3}}) {
    Sim sim(parse_ok(std::string("kernel ") + kernel +
                     "\ntopology sockets=1 cores=2 threads=2\nfeature kernel_placement=on\n"
                     "task p run=busy cpus=0\ntask y run=5ms sleep=1s cpus=3\n"
                     "at 1ms affinity p all\nat 10ms spawn c run=busy parent=p\nrun 11ms\n"));
    sim.run();
    EXPECT_EQ(cpu_of(sim, "c"), CpuId(want)) << kernel;
  }
}

// Without placement_v4_4, v4.4 places as v5.15 does.
TEST(PlacementEra1, TheFeatureOffPlacesAsV515) {
  Sim sim(parse_ok("kernel v4.4\ntopology sockets=1 cores=2 threads=2\nfeature kernel_placement=on\n"
                   "feature placement_v4_4=off\n"
                   "task p run=busy cpus=0\ntask y run=5ms sleep=1s cpus=3\n"
                   "at 1ms affinity p all\nat 10ms spawn c run=busy parent=p\nrun 11ms\n"));
  sim.run();
  EXPECT_EQ(cpu_of(sim, "c"), CpuId(3));
}

// v4.4's select_idle_sibling looks for a group whose CPUs are all idle, from
// the LLC down: with CPU 0 (prev) busy and CPU 1 idle, w's first wakeup goes
// to core {2,3} while it is idle (CPU 2, its first), and to CPU 1 (the idle
// SMT sibling) when x keeps CPU 2 busy; later wakeups find prev idle.
TEST(PlacementEra1, AWakeupTakesAWhollyIdleCoreBeforeAnIdleSibling) {
  for (const auto& [x, want] : {std::pair{"", 2}, {"task x run=busy cpus=2\n", 1}}) {
    Sim sim(parse_ok(std::string("kernel v4.4\ntopology sockets=1 cores=2 threads=2\nfeature kernel_placement=on\n"
                                 "task b run=busy cpus=0\ntask w run=1ms sleep=3ms cpus=0\n") +
                     x + "at 500us affinity w all\nrun 20ms\n"));
    sim.run();
    EXPECT_EQ(cpu_of(sim, "w"), CpuId(want)) << x;
  }
}

// wake_affine on state set by a run: CPU 0 asks to take p, last on CPU 2
// (4 cores, MC imbalance_pct 117, wake_idx 0: the loads now; p in the root
// group, so effective_load is the weight itself). v4.4: 100 x 1024 x
// (this + w) <= 108 x 1024 x prev. v3.10 also passes when this <= prev and
// this + prev <= this CPU's load per task.
TEST(PlacementEra1, WakeAffineWeighsTheLoadsByTheWakeIndex) {
  for (const char* kernel : {"v4.4", "v3.10"}) {
    Sim sim(parse_ok(std::string("kernel ") + kernel +
                     "\ntopology sockets=1 cores=4\nfeature kernel_placement=on\n"
                     "task x run=busy cpus=0\ntask y run=busy cpus=2\ntask z run=busy cpus=2\n"
                     "task u run=busy cpus=2\ntask v run=busy cpus=2\n"
                     "task p run=1ms sleep=100ms cpus=2\nrun 30ms\n"));
    sim.run();
    const Sched& s = sim.sched();
    const TaskId p = sim.task_index("p");
    const SchedDomain& mc = s.topo.sd[CpuId(0)][0];
    ASSERT_EQ(mc.wake_idx, 0u);
    const bool v3 = std::string(kernel) == "v3.10";
    const auto l0 = static_cast<int64_t>(lb::weighted_cpuload(s, CpuId(0)));
    const auto l2 = static_cast<int64_t>(lb::weighted_cpuload(s, CpuId(2)));
    const SchedEntity& se = s.se[s.tasks[p].se];
    const auto w = static_cast<int64_t>(v3 ? se.load.weight : se.pelt.avg.load_avg);
    ASSERT_GT(l0, 0);
    ASSERT_GT(l2, l0) << kernel;  // four tasks on CPU 2, one on CPU 0
    const bool balanced = 100 * 1024 * (l0 + w) <= 108 * 1024 * l2;
    EXPECT_EQ(wake_affine_v4(s, mc, p, CpuId(0), CpuId(2)), balanced) << kernel;
    // The other way round CPU 2 is the busier: not balanced, and (v3.10) not within one task.
    const bool back = 100 * 1024 * (l2 + w) <= 108 * 1024 * l0;
    EXPECT_FALSE(back);
    EXPECT_FALSE(wake_affine_v4(s, mc, p, CpuId(2), CpuId(0))) << kernel;
    // An idle CPU asking (v4.4: this_load 0 leaves 100 x 1024 <= 108 x 1024; v3.10: balanced).
    EXPECT_TRUE(wake_affine_v4(s, mc, p, CpuId(1), CpuId(2))) << kernel;
  }
}

// `ttwu p N`: a wakeup run on CPU N, so wake_affine is asked (this_cpu N,
// prev_cpu 2; 4 cores, p asleep on CPU 2 since 1 ms). From idle CPU 1: v4.4
// and v3.10 take it there (this_load 0: balanced) and select_idle_sibling
// keeps the idle target; v5.15's wake_affine_idle returns prev_cpu when it
// is idle too. From CPU 0, busy with x: no era pulls the wakee to a busier
// CPU (v4.4: 100 x (x's load + p's) > 108 x 0; v3.10 as well, and x's
// load is not within one task of nothing; v5.15: prev is idle).
TEST(PlacementEra1, ATtwuFromAnotherCpuAsksWakeAffine) {
  for (const auto& [kernel, from_idle] : {std::pair{"v4.4", 1}, {"v3.10", 1}, {"v5.15", 2}})
    for (const auto& [waker, want] : {std::pair{1, from_idle}, {0, 2}}) {
      Sim sim(parse_ok(std::string("kernel ") + kernel +
                       "\ntopology sockets=1 cores=4\nfeature kernel_placement=on\n"
                       "task x run=busy cpus=0\ntask p run=1ms sleep=100ms cpus=2\nat 1500us affinity p all\n"
                       "at 5ms ttwu p " + std::to_string(waker) + "\nrun 5100us\n"));
      sim.run();
      EXPECT_EQ(cpu_of(sim, "p"), CpuId(want)) << kernel << " from CPU " << waker;
      EXPECT_EQ(sim.tasks()[sim.task_index("p")].state, TaskState::running) << kernel;
    }
}

struct AffinityWatch : SchedSink {
  uint64_t outside = 0;
  void sched_wakeup(const Sched& s, TaskId t, bool) override { outside += !cpu_allowed(s.tasks[t], s.tasks[t].cpu); }
};

// Random scenarios (any profile, 4+ CPUs) with more random `ttwu` ops, sync
// or not, than the generators make: every invariant holds after every step
// and no task is placed outside its affinity.
RC_GTEST_PROP(PlacementEra1Properties, RandomTtwusKeepEveryInvariantAndTheAffinity, ()) {
  Scenario s = *simgen::gen_sim_scenario_with_ops(30);
  s.topology = {2, *rc::gen::inRange(1u, 4u), 2};
  s.feature_overrides.emplace_back(Feature::kernel_placement, true);
  s.feature_overrides.emplace_back(Feature::load_balance, *rc::gen::arbitrary<bool>());
  RC_PRE(!s.tasks.empty() && s.duration > 0);
  const auto n = *rc::gen::inRange<std::size_t>(1, 12);
  for (std::size_t i = 0; i < n; ++i) {
    const TaskSpec& t = *rc::gen::elementOf(s.tasks);
    const auto cpu = *rc::gen::inRange(0u, s.topology.nr_cpus());
    s.ops.push_back({*rc::gen::inRange<Nanos>(0, s.duration + 1), op::Ttwu{t.name, cpu, *rc::gen::arbitrary<bool>()}, {}});
  }
  std::stable_sort(s.ops.begin(), s.ops.end(), [](const TimedOp& a, const TimedOp& b) { return a.at < b.at; });
  AffinityWatch watch;
  Sim sim(s, SimOptions{.check_every = 1, .sink = &watch});
  sim.run();
  RC_ASSERT(sim.checker()->ok());
  RC_ASSERT(watch.outside == 0u);
}

// The worked example over effective_load (kernel/sched/fair.c v4.4): a group
// of shares S = 1024 directly under the root with 7 equal tasks (weight 1024)
// spread {2, 4, 1, 0} over 4 CPUs, its entities' weights 2/7, 4/7, 1/7 and 0
// of S (292, 585, 146, 0, rounded down). Waking one more on CPU 0 moves CPU
// 0's share to 3/8 S: +5/56 S (3072 x 1024 / 8192 = 384, less 292: 92); CPU
// 1's falls to 4/8 S: -4/56 S (512 - 585 = -73).
TEST(PlacementEra1, EffectiveLoadFollowsTheKernelsWorkedExample) {
  const int64_t S = 1024, total = 7 * 1024;
  EXPECT_EQ(effective_load_level(1024, 1024, 2 * 1024, total, 2 * 1024, S, 292), 92);
  EXPECT_EQ(effective_load_level(0, 1024, 4 * 1024, total, 4 * 1024, S, 585), -73);
  // An empty cfs_rq elsewhere gains nothing from wg alone: 0 x S / W, clamped to MIN_SHARES (2).
  EXPECT_EQ(effective_load_level(0, 1024, 0, total, 0, S, 0), 2);
  // The whole group on this CPU (w >= W): the group's full shares.
  EXPECT_EQ(effective_load_level(1024, 1024, total, total, total, S, S), 0);
}

}  // namespace
}  // namespace cfsv
