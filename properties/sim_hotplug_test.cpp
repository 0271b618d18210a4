// CPU hotplug (`cpu offline N` / `cpu online N`, model/hotplug.h): the
// dying CPU's tasks move to select_fallback_rq's CPU, nothing is placed on an
// inactive CPU again, the domains are rebuilt over the active CPUs, and the
// ops the kernel refuses are rejected.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "model/stats.h"
#include "model/topology.h"
#include "model/wasted.h"
#include "properties/sim_test_util.h"

namespace cfsv {
namespace {

constexpr Nanos kUs = 1'000, kMs = 1'000'000, kSecond = 1'000'000'000;

// 2 sockets of 2 cores, a node each: CPUs 0-1 and 2-3; one busy task a CPU
// (the model's placement without kernel_placement: the fewest tasks first).
Scenario four_busy(std::string kernel) {
  Scenario sc = simtest::basic(std::move(kernel), 4);
  sc.topology = {2, 2, 1};
  for (const char* n : {"a", "b", "c", "d"}) sc.tasks.push_back(simtest::task(n));
  sc.duration = 100 * kMs;
  return sc;
}

TaskId id(const Sim& sim, const char* name) { return sim.task_index(name); }
unsigned queued_on(const Sim& sim, unsigned cpu) {
  return sim.sched().cfs[sim.rqs()[CpuId(static_cast<int>(cpu))].cfs].h_nr_running;
}

TEST(CpuHotplug, OfflineMovesEveryTaskToTheFirstAllowedActiveCpuOfItsNodeThenOfTheMachine) {
  Scenario sc = four_busy("v5.15");
  sc.ops = {{10 * kMs, op::SetCpuOnline{3, false}, {}}, {20 * kMs, op::SetCpuOnline{2, false}, {}}};
  Sim sim(sc);
  ASSERT_EQ(sim.tasks()[id(sim, "d")].cpu, CpuId(3));
  sim.run_to(15 * kMs);
  EXPECT_EQ(sim.tasks()[id(sim, "d")].cpu, CpuId(2));  // CPU 3's node: CPU 2
  EXPECT_EQ(queued_on(sim, 3), 0u);
  EXPECT_EQ(sim.rqs()[CpuId(3)].curr, kIdle);
  EXPECT_EQ(sim.counters().hotplug_migrations, 1u);
  sim.run_to(30 * kMs);
  // Node 1 is offline: both go to the machine's first allowed active CPU.
  EXPECT_EQ(sim.tasks()[id(sim, "c")].cpu, CpuId(0));
  EXPECT_EQ(sim.tasks()[id(sim, "d")].cpu, CpuId(0));
  EXPECT_EQ(queued_on(sim, 0), 3u);
  EXPECT_EQ(queued_on(sim, 2) + queued_on(sim, 3), 0u);
  const Nanos busy3 = busy_at(sim.sched(), CpuId(3), sim.now());
  sim.run_to(100 * kMs);
  EXPECT_EQ(busy_at(sim.sched(), CpuId(3), sim.now()), busy3);  // nothing ran there since
  EXPECT_EQ(offline_at(sim.sched(), CpuId(3), sim.now()), 90 * kMs);
  EXPECT_EQ(offline_at(sim.sched(), CpuId(2), sim.now()), 80 * kMs);
  EXPECT_EQ(sim.counters().hotplug_migrations, 3u);
  ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
}

// take_cpu_down runs under stop_machine: the stopper preempts the running
// task of every online CPU, not only the dying one's, and each CPU picks
// again after it (the model preempted only the dying CPU until 2026-12-06).
// Three CPUs, a task each; CPU 2 goes at 1.5 ms: b, alone on CPU 1, is
// switched out and back in, its slice starting afresh.
TEST(CpuHotplug, StopMachinePreemptsEveryBusyCpu) {
  Scenario sc = simtest::basic("v5.15", 3);
  for (const char* n : {"a", "b", "c"}) sc.tasks.push_back(simtest::task(n));
  sc.duration = 10 * kMs;
  sc.ops = {{1500 * kUs, op::SetCpuOnline{2, false}, {}}};
  Sim sim(sc);
  const TaskId b = id(sim, "b");
  ASSERT_EQ(sim.tasks()[b].cpu, CpuId(1));
  sim.run_to(1400 * kUs);
  const uint64_t switches = sim.tasks()[b].stats.switches;
  const SchedEntity& se = sim.sched().se[sim.tasks()[b].se];
  EXPECT_NE(se.prev_sum_exec_runtime, se.sum_exec_runtime);
  sim.run_to(1600 * kUs);
  EXPECT_EQ(sim.tasks()[b].stats.switches, switches + 1);
  EXPECT_EQ(sim.rqs()[CpuId(1)].curr, b);
  EXPECT_EQ(se.sum_exec_runtime, se.prev_sum_exec_runtime);  // set_next_entity at 1.5 ms, no tick since
  ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
}

// stop_machine's stopper runs on the idle CPUs too, and each picks again
// after it with the stopper as prev: an idle CPU runs a newidle balance at
// once. 3 CPUs, a pinned on CPU 0, b on CPU 1, CPU 2 idle; CPU 1 goes
// offline at 50.3 ms and b falls back to CPU 0 (its node's first allowed
// CPU). CPU 2's newidle balance pulls b within the walk's time, before CPU
// 0's tick at 51 ms could kick an idle balance; v3.10's too, but b is cache
// hot there (it ran until the stopper; v3.10 keeps exec_start when a task
// migrates), so it stays.
TEST(CpuHotplug, AnIdleCpuRunsANewidleBalanceAfterStopMachine) {
  for (const std::string kernel : {"v3.10", "v4.4", "v5.15"}) {
    Scenario sc = simtest::basic(kernel, 3);
    sc.feature_overrides = {{Feature::load_balance, true}};
    sc.tasks = {simtest::task("a"), simtest::task("b")};
    sc.tasks[0].cpus = simtest::cpus({0});
    sc.ops = {{50 * kMs + 300 * kUs, op::SetCpuOnline{1, false}, {}}};
    sc.duration = 60 * kMs;
    Sim sim(sc);
    const TaskId b = id(sim, "b");
    sim.run_to(50 * kMs + 200 * kUs);
    ASSERT_EQ(sim.tasks()[b].cpu, CpuId(1)) << kernel;
    const uint64_t walks = sim.counters().newidle_walks;
    sim.run_to(50 * kMs + 900 * kUs);
    EXPECT_EQ(sim.counters().newidle_walks, walks + 1) << kernel;
    EXPECT_EQ(sim.tasks()[b].cpu, CpuId(kernel == "v3.10" ? 0 : 2)) << kernel;
    ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
  }
}

// v3.10 and v4.4 rebuild the domains at CPU_DOWN_PREPARE, the dying CPU
// still in the topology's sibling masks that sd_init weighs: the MC domain
// of the three CPUs left keeps the intervals of four (min 4, max 8 ms);
// v5.15 rebuilds once it is gone (3, 6). The next offline weighs the CPUs
// there then: CPU 2 and the two left.
TEST(CpuHotplug, Era1DomainIntervalsStillCountTheDyingCpu) {
  for (const std::string kernel : {"v4.4", "v5.15"}) {
    Scenario sc = simtest::basic(kernel, 4);
    sc.duration = 10 * kMs;
    sc.ops = {{1 * kMs, op::SetCpuOnline{3, false}, {}}, {2 * kMs, op::SetCpuOnline{2, false}, {}}};
    Sim sim(sc);
    const unsigned dying = kernel == "v4.4" ? 1 : 0;
    sim.run_to(1500 * kUs);
    const SchedDomain* mc = &sim.sched().topo.sd[CpuId(0)].front();
    EXPECT_EQ(mc->span_weight, 3u);
    EXPECT_EQ(mc->min_interval, 3 + dying) << kernel;
    EXPECT_EQ(mc->max_interval, 2 * (3 + dying)) << kernel;
    sim.run_to(2500 * kUs);
    mc = &sim.sched().topo.sd[CpuId(0)].front();
    EXPECT_EQ(mc->span_weight, 2u);
    EXPECT_EQ(mc->min_interval, 2 + dying) << kernel;
  }
}

// The dying CPU's tasks leave in the order its pick takes them
// (migrate_tasks' pick_next_task loop in v3.10 and v4.4; v5.15's
// balance_push pushes each as it becomes rq->curr), not in the order of
// their ids: the model once moved them by id, and a churn run that reused a
// task slot then scheduled differently from one that did not.
TEST(CpuHotplug, TheDyingCpusTasksLeaveInTheOrderItsPickTakesThem) {
  struct Moves : SchedSink {
    std::vector<TaskId> order;
    void sched_migrate_task(const Sched&, TaskId t, CpuId, CpuId) override { order.push_back(t); }
  };
  for (const char* kernel : {"v3.10", "v4.4", "v5.15"}) {
    SCOPED_TRACE(kernel);
    Scenario sc = simtest::basic(kernel, 2);
    for (const auto& [name, nice] : {std::pair{"a", 5}, {"b", 0}, {"c", -5}, {"d", 3}, {"e", -2}}) {
      sc.tasks.push_back(simtest::task(name, nice));
      sc.tasks.back().cpus = simtest::cpus({1});
    }
    sc.ops = {{100 * kMs, op::SetCpuOnline{1, false}, {}}};
    sc.duration = 101 * kMs;
    // Their pick order at 100ms: by vruntime (all in the root group; the
    // tick at 100ms has brought the running one's up to date).
    Sim before(sc);
    before.run_until(100 * kMs);
    std::vector<std::pair<uint64_t, TaskId>> by_vruntime;
    for (const TaskId t : before.tasks().ids())
      by_vruntime.emplace_back(before.sched().se[before.tasks()[t].se].vruntime, t);
    std::sort(by_vruntime.begin(), by_vruntime.end());
    std::vector<TaskId> pick_order, id_order;
    for (const auto& [v, t] : by_vruntime) pick_order.push_back(t);
    for (const TaskId t : before.tasks().ids()) id_order.push_back(t);
    ASSERT_NE(pick_order, id_order);  // else this case could not tell the two apart

    Moves moves;
    Sim sim(sc, {.sink = &moves});
    sim.run_to(100 * kMs);
    EXPECT_EQ(moves.order, pick_order);
    EXPECT_EQ(sim.counters().hotplug_migrations, 5u);
  }
}

// A task allowed only on the CPU that goes offline: the cpuset fallback
// allows it on every possible CPU (v5.15, cgroup v1) or on the active ones
// (v4.4: the root cpuset's effective CPUs), and it runs on: on CPU 0, the
// first of its new mask (select_fallback_rq tries the node only before).
TEST(CpuHotplug, ATaskAllowedOnlyOnTheDyingCpuLosesItsAffinity) {
  for (const char* kernel : {"v4.4", "v5.15"}) {
    Scenario sc = four_busy(kernel);
    sc.tasks[3].cpus = simtest::cpus({3});
    sc.ops = {{10 * kMs, op::SetCpuOnline{3, false}, {}}};
    Sim sim(sc);
    sim.run_to(50 * kMs);
    const Task& d = sim.tasks()[id(sim, "d")];
    EXPECT_EQ(d.cpu, CpuId(0)) << kernel;
    EXPECT_EQ(d.allowed, std::string_view(kernel) == "v4.4" ? simtest::cpus({0, 1, 2}) : CpuMask{}) << kernel;
    EXPECT_EQ(sim.counters().affinity_broken, 1u) << kernel;
    // its 10 ms on CPU 3, then about half of the 40 ms since beside a
    EXPECT_GT(cpu_time_at(sim.sched(), id(sim, "d"), sim.now()), 25 * kMs) << kernel;
    ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
  }
}

// A task asleep when its CPU goes offline wakes on an active CPU: with the
// model's placement and with the kernel's (select_task_rq's fallback).
TEST(CpuHotplug, ATaskThatSleptOnAnOfflineCpuWakesOnAnActiveOne) {
  for (const bool kernel_placement : {false, true}) {
    Scenario sc = simtest::basic("v5.15", 2);
    sc.feature_overrides = {{Feature::kernel_placement, kernel_placement}};
    TaskSpec a = simtest::task("a", 0, "/", RunPeriodic{1 * kMs, Nanos{5 * kMs}});
    a.cpus = simtest::cpus({0, 1});
    TaskSpec b = simtest::task("b");
    b.cpus = simtest::cpus({0});
    sc.tasks = {b, a};
    sc.ops = {{3 * kMs, op::SetCpuOnline{1, false}, {}}};
    sc.duration = 30 * kMs;
    Sim sim(sc);
    sim.run_to(2 * kMs);
    ASSERT_EQ(sim.tasks()[id(sim, "a")].cpu, CpuId(1));
    ASSERT_EQ(sim.tasks()[id(sim, "a")].state, TaskState::sleeping);
    sim.run_to(30 * kMs);
    EXPECT_EQ(sim.tasks()[id(sim, "a")].cpu, CpuId(0)) << kernel_placement;
    EXPECT_EQ(busy_at(sim.sched(), CpuId(1), sim.now()), 1 * kMs) << kernel_placement;
    EXPECT_GE(sim.tasks()[id(sim, "a")].stats.switches, 4u) << kernel_placement;
    ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
  }
}

// partition_sched_domains over the active CPUs: an offline CPU has no
// domain and no span holds it; back online, the domains are the boot ones.
TEST(CpuHotplug, TheDomainsAreRebuiltOverTheActiveCpus) {
  for (const char* kernel : {"v3.10", "v4.4", "v5.15"}) {
    Scenario sc = four_busy(kernel);
    sc.topology = {2, 2, 2};  // 8 CPUs: SMT, MC, NUMA
    sc.ops = {{10 * kMs, op::SetCpuOnline{5, false}, {}}, {20 * kMs, op::SetCpuOnline{5, true}, {}}};
    Sim sim(sc);
    const std::string boot = sched_domain_debug(sim.sched().topo);
    EXPECT_EQ(boot, sched_domain_debug(build_sched_topology(sc.topology, topology_era(kernel))));
    sim.run_to(15 * kMs);
    const SchedTopology& off = sim.sched().topo;
    EXPECT_TRUE(off.sd[CpuId(5)].empty()) << kernel;
    for (const CpuId c : off.sd.ids())
      for (const SchedDomain& d : off.sd[c]) {
        EXPECT_FALSE(d.span.test(5)) << kernel << " cpu" << c.v << " " << d.name;
        for (const SchedGroup& g : d.groups) EXPECT_FALSE(g.span.test(5)) << kernel << " cpu" << c.v << " " << d.name;
      }
    // CPU 4's SMT sibling is gone: its SMT domain spans one CPU, degenerate.
    EXPECT_EQ(off.sd[CpuId(4)].front().span, simtest::cpus({4, 6, 7})) << kernel;
    EXPECT_EQ(off.sd[CpuId(4)].front().name, "MC") << kernel;
    sim.run_to(25 * kMs);
    EXPECT_EQ(sched_domain_debug(sim.sched().topo), boot) << kernel;
    ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
  }
}

// A rebuild's domains are new: sd->avg_scan_cost and the LLC's
// sd_llc_shared->has_idle_cores start at zero (topology.c kzallocs them), so
// what placement learnt before the hotplug is gone.
TEST(CpuHotplug, ARebuildStartsPlacementsScanCostAndIdleCoresAfresh) {
  Scenario sc = four_busy("v5.15");
  sc.ops = {{10 * kMs, op::SetCpuOnline{3, false}, {}}};
  Sim sim(sc);
  sim.run_to(5 * kMs);
  for (const CpuId c : sim.sched().rq.ids()) {
    sim.mutable_sched().rq[c].avg_scan_cost = 700;
    sim.mutable_sched().rq[c].has_idle_cores = true;
  }
  sim.run_to(15 * kMs);
  for (const CpuId c : sim.sched().rq.ids()) {
    EXPECT_EQ(sim.sched().rq[c].avg_scan_cost, 0u) << c.v;
    EXPECT_FALSE(sim.sched().rq[c].has_idle_cores) << c.v;
  }
}

// With load balancing, 8 busy tasks on 4 CPUs: 4 each on CPUs 0-1 while 2-3
// are offline, 2 a CPU again once they are back.
TEST(CpuHotplug, WithBalancingTheTasksSpreadAgainWhenTheCpusComeBack) {
  Scenario sc = simtest::basic("v5.15", 4);
  sc.feature_overrides = {{Feature::load_balance, true}, {Feature::kernel_placement, true}};
  for (int i = 0; i < 8; ++i) sc.tasks.push_back(simtest::task("t" + std::to_string(i)));
  sc.ops = {{100 * kMs, op::SetCpuOnline{2, false}, {}}, {100 * kMs, op::SetCpuOnline{3, false}, {}},
            {300 * kMs, op::SetCpuOnline{2, true}, {}}, {300 * kMs, op::SetCpuOnline{3, true}, {}}};
  sc.duration = 600 * kMs;
  Sim sim(sc);
  sim.run_to(99 * kMs);
  for (unsigned c = 0; c < 4; ++c) EXPECT_EQ(queued_on(sim, c), 2u) << "cpu" << c << " before";
  sim.run_to(250 * kMs);
  for (unsigned c = 0; c < 2; ++c) EXPECT_EQ(queued_on(sim, c), 4u) << "cpu" << c << " while 2-3 are offline";
  sim.run_to(600 * kMs);
  for (unsigned c = 0; c < 4; ++c) EXPECT_EQ(queued_on(sim, c), 2u) << "cpu" << c << " after";
  EXPECT_GT(sim.counters().hotplug_migrations, 0u);
  ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
}

// An offline CPU wastes nothing: it cannot run the tasks waiting elsewhere.
TEST(CpuHotplug, AnOfflineCpuIsNotAWastedCore) {
  Scenario sc = simtest::basic("v5.15", 2);
  sc.tasks = {simtest::task("a"), simtest::task("b")};
  sc.ops = {{10 * kMs, op::SetCpuOnline{1, false}, {}}};
  sc.duration = 100 * kMs;
  WastedCores wasted;
  SimOptions o;
  o.sink = &wasted;
  Sim sim(sc, o);
  sim.run();
  EXPECT_EQ(queued_on(sim, 0), 2u);
  EXPECT_EQ(wasted.total(sim.now()), 0u);
  EXPECT_EQ(idle_at(sim.sched(), CpuId(1), sim.now()), 0u);  // offline, not idle
}

// The Wasted Cores paper's Missing Scheduling Domains bug (section 3.4) on
// v4.4: two nodes in each of two sockets; a CPU goes offline and comes back
// (x86's set_cpu_sibling_map at its online sets the numa-in-package table
// again: online_drops_numa_levels), then 8 busy tasks are started. Forked on
// CPU 0, they spread only over node 0 (its MC is now the top domain): 6 CPUs
// idle while 6 tasks wait, "no domain" holding both. Without the bug they
// spread over the machine. Offline and online alone change nothing: the
// domains after them are the boot ones.
TEST(CpuHotplug, OnV4_4AnOnlineDropsTheNumaLevelsOfANumaInPackageMachine) {
  for (const bool bug : {true, false}) {
    Scenario sc = simtest::basic("v4.4", 8);
    sc.topology = {2, 4, 1, 4, {10, 16, 22, 22, 16, 10, 22, 22, 22, 22, 10, 16, 22, 22, 16, 10}};
    sc.feature_overrides = {{Feature::load_balance, true}, {Feature::kernel_placement, true},
                            {Feature::online_drops_numa_levels, bug}};
    sc.ops = {{10 * kMs, op::SetCpuOnline{7, false}, {}}, {20 * kMs, op::SetCpuOnline{7, true}, {}}};
    for (int i = 0; i < 8; ++i) sc.ops.push_back({30 * kMs, op::Spawn{simtest::task("t" + std::to_string(i))}, {}});
    sc.duration = 530 * kMs;
    WastedCores wasted;
    SimOptions o;
    o.sink = &wasted;
    Sim sim(sc, o);
    const std::string boot = sched_domain_debug(sim.sched().topo);
    sim.run_to(25 * kMs);
    EXPECT_EQ(sched_domain_debug(sim.sched().topo) == boot, !bug);
    EXPECT_EQ(sim.sched().topo.sd[CpuId(0)].size(), bug ? 1u : 3u);
    sim.run();
    unsigned node0 = 0, busy_cpus = 0;
    for (unsigned c = 0; c < 8; ++c) {
      node0 += c < 2 ? queued_on(sim, c) : 0;
      busy_cpus += queued_on(sim, c) > 0;
    }
    EXPECT_EQ(node0, bug ? 8u : 2u) << bug;
    EXPECT_EQ(busy_cpus, bug ? 2u : 8u) << bug;
    const std::vector<WastedLevel> levels = wasted.levels(sim.now());
    const Nanos unshared = levels.empty() || levels.back().level != -1 ? 0 : levels.back().ns;
    if (bug) EXPECT_GT(unshared, 6 * 400 * kMs);  // 6 CPUs idle for (nearly) the whole 500 ms
    else EXPECT_LT(wasted.total(sim.now()), 6 * 100 * kMs);
    EXPECT_EQ(unshared == 0, !bug);
    ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
  }
}

// rq_online_fair's update_sysctl when hotplug rebuilds the domains: latency
// (and both granularities) become the normalised value times the log factor
// 1 + ilog2(min(CPUs online, 8)). v5.15 rebuilds after the CPU is gone; v4.4
// at CPU_DOWN_PREPARE, the dying CPU still counted. A `set latency` is a
// sysctl write in v4.4 (normalised: 10 ms / 3, rounded down) and a debugfs
// write in v5.15 (the normalised value stays 6 ms: the hotplug undoes it).
TEST(CpuHotplug, UpdateSysctlScalesTheLatencyForTheCpusOnlineAtTheRebuild) {
  struct Case {
    const char* kernel;
    std::vector<Setting> settings;
    std::vector<uint64_t> latency;  // at boot, then after each op
  };
  const Case cases[] = {
      {"v5.15", {}, {18'000'000, 12'000'000, 12'000'000, 6'000'000, 12'000'000, 12'000'000, 18'000'000}},
      {"v4.4", {}, {18'000'000, 18'000'000, 12'000'000, 12'000'000, 12'000'000, 12'000'000, 18'000'000}},
      {"v5.15", {{"latency", 10'000'000}}, {10'000'000, 12'000'000, 12'000'000, 6'000'000, 12'000'000, 12'000'000, 18'000'000}},
      {"v4.4", {{"latency", 10'000'000}}, {10'000'000, 9'999'999, 6'666'666, 6'666'666, 6'666'666, 6'666'666, 9'999'999}},
  };
  for (const Case& c : cases) {
    const Case& plain = cases[std::string_view(c.kernel) == "v4.4" ? 1 : 0];  // its factors: latency / 6 ms
    Scenario sc = simtest::basic(c.kernel, 4);
    sc.settings = c.settings;
    sc.tasks = {simtest::task("a")};
    const unsigned order[] = {3, 2, 1, 1, 2, 3};
    for (unsigned i = 0; i < 6; ++i) sc.ops.push_back({(i + 1) * kMs, op::SetCpuOnline{order[i], i >= 3}, {}});
    sc.duration = 10 * kMs;
    Sim sim(sc);
    EXPECT_EQ(sim.sched().tun.latency_ns, c.latency[0]) << c.kernel;
    for (unsigned i = 0; i < 6; ++i) {
      sim.run_to((i + 1) * kMs);
      EXPECT_EQ(sim.sched().tun.latency_ns, c.latency[i + 1]) << c.kernel << " after op " << i;
      EXPECT_EQ(sim.sched().tun.min_granularity_ns, plain.latency[i + 1] / 8) << c.kernel << " after op " << i;
    }
  }
}

// With load balancing too, nothing updates an offline CPU's blocked
// averages: newidle_balance returns before its update_blocked_averages on an
// inactive CPU (v5.15), and the nohz passes visit only active idle CPUs. s
// sleeps on CPU 3, which goes offline at 5.5 ms with rd->overload set (set by
// hand: b and c, pinned to CPU 0, leave it cleared by the all-pinned redo of
// every balance, as the kernel's update_sd_lb_stats does).
TEST(CpuHotplug, AnOfflineCpusBlockedAveragesStayWithLoadBalancing) {
  Scenario sc = simtest::basic("v5.15", 4);
  sc.feature_overrides = {{Feature::load_balance, true}};
  TaskSpec b = simtest::task("b"), c = simtest::task("c"), s = simtest::task("s", 0, "/", RunPeriodic{2 * kMs, Nanos{kSecond}});
  b.cpus = c.cpus = simtest::cpus({0});
  s.cpus = simtest::cpus({3});
  sc.tasks = {b, c, s};
  sc.ops = {{5 * kMs + kMs / 2, op::SetCpuOnline{3, false}, {}}};
  sc.duration = 100 * kMs;
  Sim sim(sc);
  const auto last_update = [&] { return sim.cfs_rqs()[sim.rqs()[CpuId(3)].cfs].pelt.avg.last_update_time; };
  sim.run_to(5 * kMs + 400 * kUs);
  ASSERT_EQ(sim.tasks()[sim.task_index("s")].state, TaskState::sleeping);
  sim.mutable_sched().lb.overload = true;
  ASSERT_GE(sim.rqs()[CpuId(3)].avg_idle, static_cast<Nanos>(sim.sched().tun.migration_cost_ns));
  const uint64_t before = last_update();
  sim.run_to(5 * kMs + 600 * kUs);
  EXPECT_EQ(last_update(), before);
  sim.run_to(100 * kMs);
  EXPECT_EQ(last_update(), before);
}

// An offline CPU's part of tg->load_avg (v5.15's PELT): twelve light tasks
// of /g (1 ms run, 7 ms sleep) on 4 CPUs and a busy root task on CPU 0;
// CPUs 1-3 go offline at 500 ms. The blocked load of /g's sleepers there
// never decays (no update runs on an offline CPU) and stays in
// tg->load_avg, which calc_group_shares divides by: /g weighs less on CPU 0
// and the root task runs more. tg_load_offline_clear ("sched: Fix tg->load
// when offlining a CPU", after v6.4) clears it at the offline.
TEST(CpuHotplug, AnOfflineCpusPartOfTheTgLoadStaysUnlessTheFixClearsIt) {
  Nanos root_cpu[2] = {};
  for (const bool fix : {false, true}) {
    Scenario sc = simtest::basic("v5.15", 4);
    sc.feature_overrides = {{Feature::tg_load_offline_clear, fix}};
    sc.groups = {{"/g", 1024}};
    TaskSpec r = simtest::task("r");
    r.cpus = simtest::cpus({0});
    sc.tasks = {r};
    for (int i = 0; i < 12; ++i) sc.tasks.push_back(simtest::task("w" + std::to_string(i), 0, "/g", RunPeriodic{kMs, Nanos{7 * kMs}}));
    for (unsigned c = 1; c < 4; ++c) sc.ops.push_back({500 * kMs, op::SetCpuOnline{c, false}, {}});
    sc.duration = 2000 * kMs;
    Sim sim(sc);
    const GroupId g = sim.group_index("/g");
    const auto stale = [&] {
      const uint64_t online = sim.sched().cfs[sim.groups()[g].cfs_rq[CpuId(0)]].pelt.tg_load_avg_contrib;
      return sim.groups()[g].load_avg - online;
    };
    sim.run_to(1000 * kMs);
    const uint64_t at_1s = stale();
    sim.run_to(2000 * kMs);
    EXPECT_EQ(stale(), at_1s) << fix;  // it never decays
    if (fix) EXPECT_EQ(at_1s, 0u);
    else EXPECT_GT(at_1s, 1000u);  // of ~10,000
    root_cpu[fix] = cpu_time_at(sim.sched(), id(sim, "r"), sim.now());
    ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
  }
  EXPECT_GT(root_cpu[false], root_cpu[true] + 30 * kMs);
}

// Rejections the state causes are refusals (Sim::refuse), the others not.
TEST(CpuHotplug, OpsTheKernelRefusesAreRejectedAndTheRestApplied) {
  Scenario sc = simtest::basic("v5.15", 2);
  sc.tasks = {simtest::task("a")};
  Sim sim(sc);
  EXPECT_EQ(sim.apply(op::SetCpuOnline{1, true}), ApplyResult::applied);  // already online: nothing to do
  EXPECT_EQ(sim.apply(op::SetCpuOnline{2, false}), ApplyResult::rejected);
  EXPECT_EQ(sim.last_error(), "cpu offline 2: no cpu2 in a machine of 2 CPUs");
  EXPECT_FALSE(sim.last_rejection_refused());  // no such CPU: the input's fault, not the state's
  EXPECT_EQ(sim.apply(op::SetCpuOnline{0, false}), ApplyResult::applied);
  EXPECT_EQ(sim.apply(op::SetCpuOnline{0, false}), ApplyResult::applied);  // already offline
  EXPECT_EQ(sim.apply(op::SetCpuOnline{1, false}), ApplyResult::rejected);
  EXPECT_EQ(sim.last_error(), "cpu offline 1: cpu1 is the last one online (EBUSY)");
  EXPECT_TRUE(sim.last_rejection_refused());
  EXPECT_EQ(sim.apply(op::SetAffinity{"a", simtest::cpus({0})}), ApplyResult::rejected);
  EXPECT_EQ(sim.last_error(), "affinity a 0: no allowed CPU is online (EINVAL)");
  EXPECT_TRUE(sim.last_rejection_refused());
  EXPECT_EQ(sim.apply(op::SetAffinity{"nobody", simtest::cpus({1})}), ApplyResult::rejected);
  EXPECT_FALSE(sim.last_rejection_refused());
  TaskSpec b = simtest::task("b");
  b.cpus = simtest::cpus({0});
  EXPECT_EQ(sim.apply(op::Spawn{b}), ApplyResult::rejected);
  EXPECT_EQ(sim.apply(op::SetCpuOnline{0, true}), ApplyResult::applied);
  EXPECT_EQ(sim.apply(op::SetAffinity{"a", simtest::cpus({0})}), ApplyResult::applied);
  sim.run_to(10 * kMs);
  EXPECT_EQ(sim.tasks()[id(sim, "a")].cpu, CpuId(0));
  ASSERT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
}

}  // namespace
}  // namespace cfsv
