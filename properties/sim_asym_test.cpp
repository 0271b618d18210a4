// Asymmetric CPU capacity in v5.15 (docs/asymmetric.md, "Asymmetric
// capacity"): the topology's capacity ranges, the PELT clock at a CPU's
// capacity, the misfit status, misfit balancing and the capacity-aware
// wakeup path, each against the same machine with equal capacities.
#include <gtest/gtest.h>

#include <string>

#include "model/balance.h"
#include "model/fair_cpu.h"
#include "model/select_rq.h"
#include "model/sim.h"
#include "model/topology.h"
#include "properties/scenario_test_util.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;
constexpr Nanos kMs = 1'000'000;

// Two big CPUs (0, 1) and two little ones (2, 3, capacity 446) in one MC
// domain; `little` is the capacity= value ("" for four equal CPUs).
std::string big_little(const std::string& kernel, const std::string& little = "446", const char* balance = "on") {
  return "kernel " + kernel + "\ntopology sockets=1 cores=4 threads=1" +
         (little.empty() ? "" : " capacity=2-3:" + little) + "\nfeature load_balance=" + balance + "\n";
}

const Task& task_of(const Sim& sim, const char* name) { return sim.sched().tasks[sim.task_index(name)]; }

// asym_cpu_capacity_classify (v5.15) counts a capacity as missing from a span
// only if a CPU built over has it: with the 512 class offline, MC (0-3) sees
// every capacity left and is SD_ASYM_CPUCAPACITY_FULL, sd_asym_cpucapacity.
TEST(AsymCapacity, AnOfflineCapacityClassIsNotMissingFromASpan) {
  const auto spec = parse_topology_spec("sockets=1 cores=6 capacity=0-1:1024;2-3:768;4-5:512", "<test>");
  ASSERT_TRUE(std::holds_alternative<Topology>(spec));
  const Topology& t = std::get<Topology>(spec);
  const SchedTopology all = build_sched_topology(t, TopologyEra::v5_15);
  EXPECT_TRUE(all.sd[CpuId(0)][0].flags.has(SdFlag::ASYM_CPUCAPACITY_FULL));
  const SchedTopology online = build_sched_topology(t, TopologyEra::v5_15, false, first_cpus(4));
  ASSERT_EQ(online.sd[CpuId(0)][0].span, first_cpus(4));
  EXPECT_TRUE(online.sd[CpuId(0)][0].flags.has(SdFlag::ASYM_CPUCAPACITY_FULL));
  EXPECT_EQ(online.asym_level[CpuId(0)], 0);
}

TEST(AsymCapacity, TheTopologyKnowsItsBiggestCpuAndEachGroupsCapacityRange) {
  const Sim sim(parse_ok(big_little("v5.15") + "run 1ms\n"));
  const SchedTopology& t = sim.sched().topo;
  EXPECT_TRUE(t.asym_cpucap_active);
  EXPECT_EQ(t.max_cpu_capacity, 1024u);
  for (const CpuId c : sim.sched().rq.ids()) {
    ASSERT_EQ(t.asym_level[c], 0);  // MC sees both capacities: SD_ASYM_CPUCAPACITY_FULL
    for (const SchedGroup& g : t.sd[c][0].groups) {
      const unsigned cap = g.span.test(2) || g.span.test(3) ? 446 : 1024;
      EXPECT_EQ(g.min_capacity, cap);
      EXPECT_EQ(g.max_capacity, cap);
    }
  }
  const Sim equal(parse_ok(big_little("v5.15", "") + "run 1ms\n"));
  EXPECT_FALSE(equal.sched().topo.asym_cpucap_active);
  EXPECT_EQ(equal.sched().topo.asym_level[CpuId(0)], -1);
  // A 2-socket machine: the DIE level's groups are the sockets, each one big and one little CPU.
  const Sim sockets(parse_ok("kernel v5.15\ntopology sockets=2 cores=2 threads=1 capacity=1,3:512\nrun 1ms\n"));
  const SchedTopology& st = sockets.sched().topo;
  ASSERT_EQ(st.sd[CpuId(0)].size(), 2u);
  EXPECT_EQ(st.asym_level[CpuId(0)], 0);  // MC {0,1} already sees both
  for (const SchedGroup& g : st.sd[CpuId(0)][1].groups) {
    EXPECT_EQ(g.min_capacity, 512u);
    EXPECT_EQ(g.max_capacity, 1024u);
  }
}

// A periodic task runs 2 ms of every 8 ms: on a CPU of capacity 512 its
// running time counts half on clock_pelt, and the idle time catches the
// clock up, so its util_avg settles near 1024 x 1 / 8 = 128 instead of 256.
TEST(AsymCapacity, ThePeltClockRunsAtTheCpusCapacity) {
  const auto util_at = [](const std::string& capacity) {
    Sim sim(parse_ok("kernel v5.15\ntopology sockets=1 cores=2 threads=1" + capacity +
                     "\ntask p run=2ms sleep=6ms cpus=1\nrun 400ms\n"));
    sim.run();
    return sim.sched().se[task_of(sim, "p").se].pelt.avg.util_avg;
  };
  const uint64_t full = util_at(""), half = util_at(" capacity=1:512");
  EXPECT_GT(full, 200u);
  EXPECT_LT(full, 330u);
  EXPECT_GT(half, 100u);
  EXPECT_LT(half, 165u);
  EXPECT_NEAR(static_cast<double>(half) / static_cast<double>(full), 0.5, 0.1);
}

// post_init_entity_util_avg: a new task on an empty cfs_rq starts at half its
// CPU's capacity (arch_scale_cpu_capacity), 223 on a little CPU, 512 on a
// big one; no PELT period has passed at 100 us to change it.
TEST(AsymCapacity, ANewTasksUtilStartsAtHalfItsCpusCapacity) {
  Sim sim(parse_ok(big_little("v5.15") + "task big cpus=0\ntask little cpus=2\nrun 100us\n"));
  sim.run();
  EXPECT_EQ(sim.sched().se[task_of(sim, "big").se].pelt.avg.util_avg, 512u);
  EXPECT_EQ(sim.sched().se[task_of(sim, "little").se].pelt.avg.util_avg, 223u);
}

// A busy task on a CPU of capacity 512 fills util_sum; when it then sleeps,
// the time clock_pelt fell behind is lost (lost_idle_time), not given back.
TEST(AsymCapacity, AFullyBusyCpuLosesTheIdleTimeItsCapacityTook) {
  Sim sim(parse_ok("kernel v5.15\ntopology sockets=1 cores=2 threads=1 capacity=1:512\n"
                   "task p run=2s sleep=1s cpus=1\ntask q run=2s sleep=1s cpus=0\nrun 2100ms\n"));
  sim.run();
  const Rq& little = sim.sched().rq[CpuId(1)];
  const Rq& big = sim.sched().rq[CpuId(0)];
  EXPECT_EQ(big.lost_idle_time, 0u);
  // about half of the 2 s ran on clock_pelt: some 1 s lost
  EXPECT_GT(little.lost_idle_time, 900 * kMs);
  EXPECT_LT(little.lost_idle_time, 1100 * kMs);
}

// With load balancing off nothing moves the busy task off the little CPU:
// its rq's misfit_task_load is its task_h_load once its util does not fit
// 446 (util x 1280 >= 446 x 1024), and 0 when it may run only there.
TEST(AsymCapacity, TheMisfitStatusIsTheRunningTasksHLoadWhenItCouldRunElsewhere) {
  const auto misfit = [](const std::string& cpus) {
    Sim sim(parse_ok("kernel v5.15\ntopology sockets=1 cores=4 threads=1 capacity=2-3:446\n"
                     "task hog cpus=" + cpus + "\nrun 100ms\n"));
    sim.run();
    const Sched& s = sim.sched();
    EXPECT_EQ(task_of(sim, "hog").cpu, CpuId(2));
    EXPECT_FALSE(task_fits_cpu(s, sim.task_index("hog"), CpuId(2)));
    return std::pair{s.rq[CpuId(2)].misfit_task_load, task_h_load(s, sim.task_index("hog"))};
  };
  const auto [free_misfit, h_load] = misfit("2-3");
  EXPECT_GT(h_load, 0u);
  EXPECT_EQ(free_misfit, h_load);
  EXPECT_EQ(misfit("2").first, 0u);
}

// The busy task starts on a little CPU and may run anywhere from 10 ms: the
// little CPU's tick kicks an idle big CPU (check_misfit_status), whose
// balance finds a misfit group and pushes the running task by active
// balance. On four equal CPUs, and under v4.4 (no misfit), it stays.
TEST(AsymCapacity, AMisfitTaskIsPushedToABigCpuByActiveBalance) {
  const std::string work = "task hog cpus=2\nat 10ms affinity hog all\nrun 200ms\n";
  Sim sim(parse_ok(big_little("v5.15") + work));
  sim.run();
  EXPECT_LT(task_of(sim, "hog").cpu.index(), 2u);
  EXPECT_EQ(sim.sched().counters.active_migrations, 1u);
  EXPECT_EQ(sim.sched().counters.migrations, 1u);
  EXPECT_TRUE(sim.checker()->ok());
  for (const std::string& machine : {big_little("v5.15", ""), big_little("v4.4")}) {
    Sim other(parse_ok(machine + work));
    other.run();
    EXPECT_EQ(task_of(other, "hog").cpu, CpuId(2)) << machine;
    EXPECT_EQ(other.sched().counters.migrations, 0u) << machine;
  }
}

// A task busy 8 ms of every 10 ms is placed with the kernel's wakeup path.
// Pinned to little CPU 2 until 50 ms, it then wakes with CPU 2 idle: too big
// for it (asym_fits_cpu), so select_idle_capacity takes an idle big CPU.
// With equal capacities the idle prev CPU wins and it stays. (Load
// balancing is off: it would push the misfit task while it runs.)
TEST(AsymCapacity, AWakingTaskTooBigForItsIdleCpuGoesToAnIdleBigOne) {
  const std::string work =
      "feature kernel_placement=on\ntask p run=8ms sleep=2ms cpus=2\nat 50ms affinity p all\nrun 100ms\n";
  Sim sim(parse_ok(big_little("v5.15", "446", "off") + work));
  sim.run();
  EXPECT_LT(task_of(sim, "p").cpu.index(), 2u);
  EXPECT_EQ(sim.sched().counters.wakeup_migrations, 1u);
  Sim equal(parse_ok(big_little("v5.15", "", "off") + work));
  equal.run();
  EXPECT_EQ(task_of(equal, "p").cpu, CpuId(2));
  EXPECT_EQ(equal.sched().counters.wakeup_migrations, 0u);
}

}  // namespace
}  // namespace cfsv
