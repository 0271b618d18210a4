// Asym packing in v5.15 (docs/asymmetric.md, "Asym packing"): the topology's
// ITMT priorities give the SMT and MC domains SD_ASYM_PACKING, each group its
// CPU of highest priority, and the balancer moves work from CPUs of lower
// priority to idle CPUs of higher priority; each against the same machine
// without priorities, and against v4.4 (before ITMT).
#include <gtest/gtest.h>

#include <string>

#include "model/arith/balance.h"
#include "model/sim.h"
#include "model/topology.h"
#include "properties/scenario_test_util.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;

const Task& task_of(const Sim& sim, const char* name) { return sim.sched().tasks[sim.task_index(name)]; }

TEST(AsymPacking, PrioritiesFlagSmtAndMcAndNameEachGroupsPreferredCpu) {
  const Topology t = parse_ok("topology cores=2 threads=2 priority=0:30;1:10;2:40;3:20\nrun 1ms").topology;
  const SchedTopology st = build_sched_topology(t, TopologyEra::v5_15);
  for (const CpuId c : st.sd.ids()) {
    ASSERT_EQ(st.sd[c].size(), 2u);
    EXPECT_TRUE(st.sd[c][0].flags.has(SdFlag::ASYM_PACKING));  // SMT
    EXPECT_TRUE(st.sd[c][1].flags.has(SdFlag::ASYM_PACKING));  // MC
    EXPECT_EQ(st.asym_packing_level[c], 1);                     // sd_asym_packing: the highest
    for (const SchedGroup& g : st.sd[c][1].groups)  // the cores: {0, 1} prefers CPU 0, {2, 3} CPU 2
      EXPECT_EQ(g.asym_prefer_cpu, CpuId(g.span.test(0) ? 0 : 2));
  }
  EXPECT_TRUE(sched_asym_prefer(st, CpuId(2), CpuId(0)));
  EXPECT_FALSE(sched_asym_prefer(st, CpuId(0), CpuId(0)));  // strictly higher
  // Equal priorities: the first CPU of the group.
  const SchedTopology equal =
      build_sched_topology(parse_ok("topology cores=4 priority=0-3:5\nrun 1ms").topology, TopologyEra::v5_15);
  EXPECT_EQ(equal.sd[CpuId(3)][0].groups.front().asym_prefer_cpu, CpuId(3));
  // No priorities, or v4.4 (ITMT came in v4.10): no flag, no sd_asym_packing.
  const SchedTopology none = build_sched_topology(parse_ok("topology cores=4\nrun 1ms").topology, TopologyEra::v5_15);
  const SchedTopology old = build_sched_topology(t, TopologyEra::v4_4);
  for (const SchedTopology* o : {&none, &old})
    for (const CpuId c : o->sd.ids()) {
      for (const SchedDomain& sd : o->sd[c]) EXPECT_FALSE(sd.flags.has(SdFlag::ASYM_PACKING));
      EXPECT_EQ(o->asym_packing_level[c], -1);
    }
}

// A busy task on the CPU of lowest priority, free to move at 10 ms: an idle
// CPU of higher priority kicked by nohz_balancer_kick finds an asym_packing
// group and pushes the running task by active balance, until it runs on the
// CPU of highest priority. Without priorities, and in v4.4, it stays.
std::string one_hog(const std::string& kernel, bool priorities) {
  return "kernel " + kernel + "\ntopology sockets=1 cores=4 threads=1" +
         (priorities ? " priority=0:40;1:30;2:20;3:10" : "") +
         "\nfeature load_balance=on\ntask hog run=busy cpus=3\nat 10ms affinity hog all\nrun 200ms\n";
}

TEST(AsymPacking, ABusyTaskEndsOnTheIdleCpuOfHighestPriority) {
  Sim sim(parse_ok(one_hog("v5.15", true)));
  sim.run();
  ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
  EXPECT_EQ(task_of(sim, "hog").cpu, CpuId(0));
  EXPECT_GE(sim.sched().counters.active_migrations, 1u);
  Sim plain(parse_ok(one_hog("v5.15", false)));
  plain.run();
  EXPECT_EQ(task_of(plain, "hog").cpu, CpuId(3));
  Sim old(parse_ok(one_hog("v4.4", true)));
  old.run();
  EXPECT_EQ(task_of(old, "hog").cpu, CpuId(3));
}

// Two busy tasks start on the two CPUs of lowest priority: they end packed on
// the two of highest priority.
TEST(AsymPacking, BusyTasksPackOntoTheCpusOfHighestPriority) {
  Sim sim(parse_ok(
      "kernel v5.15\ntopology sockets=1 cores=4 threads=1 priority=0:40;1:30;2:20;3:10\nfeature load_balance=on\n"
      "task a run=busy cpus=2\ntask b run=busy cpus=3\nat 10ms affinity a all\nat 10ms affinity b all\nrun 300ms\n"));
  sim.run();
  ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
  const CpuId a = task_of(sim, "a").cpu, b = task_of(sim, "b").cpu;
  EXPECT_NE(a, b);
  EXPECT_LE(std::max(a.v, b.v), 1);
}

// group_classify: asym_packing ranks below overloaded and imbalanced and
// above misfit; calculate_imbalance moves every task of such a group
// (migrate_task, sum_h_nr_running), and the verdict forces it.
TEST(AsymPacking, AnAsymPackingGroupForcesTheMoveOfAllItsTasks) {
  SgWakeupStats<uint64_t> v{.group_capacity = 2048, .sum_nr_running = 1, .sum_h_nr_running = 1, .group_weight = 2};
  EXPECT_EQ(group_classify<uint64_t>(117, false, v, true, true), GroupType::asym_packing);
  EXPECT_EQ(group_classify<uint64_t>(117, true, v, false, true), GroupType::imbalanced);
  EXPECT_EQ(group_classify<uint64_t>(117, false, v, true, false), GroupType::misfit_task);
  SdLbStats sds;
  sds.has_busiest = true;
  sds.local = {{.group_capacity = 2048, .idle_cpus = 1, .group_weight = 2}, GroupType::has_spare};
  sds.busiest = {{.group_capacity = 2048, .sum_nr_running = 2, .sum_h_nr_running = 2, .group_weight = 2},
                 GroupType::asym_packing};
  const Imbalance imb = find_busiest_group_verdict(ImbalanceEnv{.idle = CpuIdleType::idle}, sds);
  EXPECT_EQ(imb.type, MigrationType::task);
  EXPECT_EQ(imb.imbalance, 2);
  // Without asym packing the same figures are balanced: one busy CPU against one idle.
  sds.busiest.type = GroupType::has_spare;
  EXPECT_EQ(find_busiest_group_verdict(ImbalanceEnv{.idle = CpuIdleType::idle}, sds).imbalance, 0);
}

// update_sd_pick_busiest between two asym_packing groups: the work of the one
// whose preferred CPU has the lower priority goes first.
TEST(AsymPacking, PickBusiestPrefersTheGroupOfLowerPriority) {
  SdLbStats sds;
  sds.has_busiest = true;
  sds.busiest = {{.sum_h_nr_running = 1, .group_weight = 1}, GroupType::asym_packing};
  const SgLbStats sg{{.sum_h_nr_running = 1, .group_weight = 1}, GroupType::asym_packing};
  EXPECT_TRUE(update_sd_pick_busiest(sds, sg, PickCapacity{.preferred = false}));
  EXPECT_FALSE(update_sd_pick_busiest(sds, sg, PickCapacity{.preferred = true}));
}

}  // namespace
}  // namespace cfsv
