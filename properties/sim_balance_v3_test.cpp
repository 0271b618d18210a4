// v3.10's era-1 balancing (feature balance_v3_10, profile v3.10):
// model/arith/balance_v3.h with the kernel's numbers written out, and the
// simulator: busy tasks spread, idle_balance keeps no costs, the nohz kick
// looks where each era looks.
#include <gtest/gtest.h>

#include <numeric>

#include "model/arith/balance_v3.h"
#include "model/balance_lb.h"
#include "model/sim.h"
#include "properties/scenario_test_util.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;

// A group as update_sg_lb_stats (v3.10) leaves it: each CPU's load (its
// weighted_cpuload, unbiased) and nr_running; every CPU of `power`.
SgLbStatsV3 group(std::initializer_list<uint64_t> loads, std::initializer_list<uint64_t> nrs, bool local,
                  uint64_t power = 1024, bool smt = false) {
  SgLbStatsV3 g;
  SgSpreadV3T<uint64_t> spread;
  auto nr = nrs.begin();
  for (const uint64_t load : loads) {
    if (!local) {
      spread.max_cpu_load = std::max(spread.max_cpu_load, load), spread.min_cpu_load = std::min(spread.min_cpu_load, load);
      spread.max_nr_running = std::max(spread.max_nr_running, *nr), spread.min_nr_running = std::min(spread.min_nr_running, *nr);
    }
    g.group_load += load, g.sum_weighted_load += load, g.sum_nr_running += *nr, g.idle_cpus += *nr == 0;
    ++nr;
  }
  g.power = power * loads.size();
  g.group_weight = loads.size();
  update_sg_lb_stats_tail_v3<uint64_t>(g, spread, smt);
  return g;
}

TEST(LoadBalanceV3Arith, CapacityIsThePowerInWholeCpus) {
  // 2 CPUs of 1024: power 2048, capacity (2048 + 512) / 1024 = 2; 2 tasks: no capacity left
  EXPECT_EQ(group({1024, 1024}, {1, 1}, false).group_capacity, 2u);
  EXPECT_FALSE(group({1024, 1024}, {1, 1}, false).group_has_capacity);
  EXPECT_TRUE(group({1024, 0}, {1, 0}, false).group_has_capacity);
  // an SMT core (smt_gain 1178 over 2 siblings: 589 each): (1178 + 512) / 1024 = 1 CPU
  EXPECT_EQ(group({0, 0}, {0, 0}, false, 589).group_capacity, 1u);
  // one sibling of power 300: 0 whole CPUs; fix_small_capacity gives 1 only in an SMT domain
  EXPECT_EQ(group({0}, {0}, false, 300, true).group_capacity, 1u);
  EXPECT_EQ(group({0}, {0}, false, 300, false).group_capacity, 0u);
  // avg_load = 3072 * 1024 / 2048 = 1536
  EXPECT_EQ(group({2048, 1024}, {2, 1}, false).avg_load, 1536u);
}

TEST(LoadBalanceV3Arith, GroupImbIsTheGroupsOwnSpread) {
  // loads 2048 and 0, nr 2 and 0: spread 2048 >= 2048 / 2 per task, nr spread 2 > 1
  EXPECT_TRUE(group({2048, 0}, {2, 0}, false).group_imb);
  // nr spread 1: not imbalanced
  EXPECT_FALSE(group({1024, 0}, {1, 0}, false).group_imb);
  // the local group keeps no spread (max 0 - min ~0 = 1 is not > 1)
  EXPECT_FALSE(group({2048, 0}, {2, 0}, true).group_imb);
}

SdLbStatsV3 domain(std::initializer_list<SgLbStatsV3> groups, bool prefer_sibling = false) {
  SdLbStatsV3 sds;
  bool local = true;
  for (const SgLbStatsV3& g : groups) update_sd_lb_stats_group_v3<uint64_t>(sds, g, std::exchange(local, false), prefer_sibling);
  return sds;
}

TEST(LoadBalanceV3Arith, OnlyAGroupAboveItsCapacityIsTheBusiest) {
  // a 2-CPU group with 2 tasks (avg_load 1024) has no task over its capacity of 2: no busiest
  EXPECT_FALSE(domain({group({0, 0}, {0, 0}, true), group({1024, 1024}, {1, 1}, false)}).has_busiest);
  // 3 tasks: 3 > 2
  EXPECT_TRUE(domain({group({0, 0}, {0, 0}, true), group({2048, 1024}, {2, 1}, false)}).has_busiest);
  // prefer_sibling with local capacity to spare lowers the group's capacity to 1: 2 > 1
  const SdLbStatsV3 sib = domain({group({0, 0}, {0, 0}, true), group({1024, 1024}, {1, 1}, false)}, true);
  EXPECT_TRUE(sib.has_busiest);
  EXPECT_EQ(sib.busiest.group_capacity, 1u);
  EXPECT_FALSE(sib.busiest.group_has_capacity);  // as computed before the lowering
}

// An idle CPU of 4 (groups of one CPU each, power 1024) with 4 nice-0 tasks
// on another: busiest avg_load 4096, domain avg 4096 * 1024 / 4096 = 1024.
// CPU_IDLE: local idle 1 <= busiest idle 0 + 1, but busiest runs 4 tasks on
// 1 CPU: not balanced. calculate_imbalance: per task 4096 / 4 = 1024; above
// capacity (4 - 1) * 1024 * 1024 / 1024 = 3072; max_pull min(4096 - 1024,
// 3072) = 3072; imbalance min(3072 * 1024, (1024 - 0) * 1024) / 1024 = 1024,
// not below one task.
TEST(LoadBalanceV3Arith, AnIdleCpuPullsOneTaskFromFour) {
  SdLbStatsV3 sds = domain({group({0}, {0}, true), group({4096}, {4}, false), group({0}, {0}, false),
                            group({0}, {0}, false)});
  const ImbalanceEnvV4 env{CpuIdleType::idle, 125, 0};
  const VerdictV4 v = find_busiest_group_verdict_v3<uint64_t>(env, sds);
  EXPECT_TRUE(v.busiest);
  EXPECT_EQ(sds.avg_load, 1024u);
  EXPECT_EQ(v.imbalance, 1024u);
  // two tasks on it: busiest runs 2 > 1 CPU still; one task: nr 1 <= capacity, no busiest
  SdLbStatsV3 two = domain({group({0}, {0}, true), group({2048}, {2}, false)});
  EXPECT_TRUE(find_busiest_group_verdict_v3<uint64_t>(env, two).busiest);
  SdLbStatsV3 one = domain({group({0}, {0}, true), group({1024}, {1}, false)});
  EXPECT_FALSE(find_busiest_group_verdict_v3<uint64_t>(env, one).busiest);
}

// fix_small_imbalance's gap is unsigned in v3.10: a newly idle CPU's group
// (2 CPUs, one task of 4096: avg 2048, capacity to spare) against a busier-
// by-count group (1 CPU, 2 tasks of 512: avg 1024, no capacity) is forced;
// busiest is below the domain average (5120 * 1024 / 3072 = 1706), so
// imbalance 0 and fix_small_imbalance: 1024 - 2048 + 512 wraps to ~2^64,
// >= 512 * 2: one task's load, 512. (v4.4's form, 1024 + 512 >= 2048 + 1024,
// does not hold there.)
TEST(LoadBalanceV3Arith, FixSmallImbalancesGapWrapsWhenLocalIsBusier) {
  SdLbStatsV3 sds = domain({group({4096, 0}, {1, 0}, true), group({1024}, {2}, false)});
  ASSERT_TRUE(sds.local.group_has_capacity);
  ASSERT_FALSE(sds.busiest.group_has_capacity);
  const ImbalanceEnvV4 newly{CpuIdleType::newly_idle, 125, 0};
  const VerdictV4 v = find_busiest_group_verdict_v3<uint64_t>(newly, sds);
  EXPECT_EQ(sds.avg_load, 1706u);
  EXPECT_TRUE(v.busiest);
  EXPECT_EQ(v.imbalance, 512u);
  // not newly idle: local is busier than the busiest, balanced
  SdLbStatsV3 again = domain({group({4096, 0}, {1, 0}, true), group({1024}, {2}, false)});
  EXPECT_FALSE(find_busiest_group_verdict_v3<uint64_t>({CpuIdleType::not_idle, 125, 0}, again).busiest);
}

std::vector<uint32_t> tasks_per_cpu(const Sim& sim) {
  std::vector<uint32_t> n(sim.nr_cpus());
  for (const CpuId c : sim.sched().rq.ids()) n[c.index()] = sim.sched().cfs[sim.rqs()[c].cfs].h_nr_running;
  return n;
}

// Four busy tasks start pinned to CPU 0 of 4 cores (v3.10); at 10 ms their
// affinity widens. The idle CPUs pull one each: CPU 0 runs 4 tasks on a
// capacity of 1. (v4.4's utilisation-based capacity read v3.10's absent
// util_avg as 0 and never pulled.)
TEST(LoadBalanceV3, FourBusyTasksOnOneCpuSpreadOnePerCpu) {
  std::string t = "kernel v3.10\ntopology sockets=1 cores=4\nfeature load_balance=on\n";
  for (const char* n : {"a", "b", "c", "d"}) t += std::string("task ") + n + " run=busy cpus=0\n";
  for (const char* n : {"a", "b", "c", "d"}) t += std::string("at 10ms affinity ") + n + " all\n";
  Sim sim(parse_ok(t + "run 300ms\n"));
  ASSERT_TRUE(sim.sched().era.balance_v3);
  sim.run();
  EXPECT_EQ(tasks_per_cpu(sim), (std::vector<uint32_t>{1, 1, 1, 1}));
  EXPECT_EQ(sim.counters().migrations, 3u);
  EXPECT_TRUE(sim.checker()->ok());
  for (const CpuId c : sim.sched().rq.ids()) EXPECT_LE(sim.rqs()[c].idle_ns, 60'000'000) << c.v;
}

// v3.10's idle_balance walks every SD_BALANCE_NEWIDLE domain with no cost
// limit and keeps no costs: max_newidle_lb_cost stays 0 and avg_idle's cap
// stays 2 x migration_cost. v4.4 records each domain's cost.
TEST(LoadBalanceV3, IdleBalanceKeepsNoCosts) {
  const std::string body =
      "topology sockets=2 cores=2\nfeature load_balance=on\nset newidle_cost=2us\n"
      "task a run=1ms sleep=1ms\ntask b run=1ms sleep=1ms\ntask c run=2ms sleep=1ms\ntask d run=busy\n"
      "task e run=busy\ntask f run=busy\nrun 200ms\n";
  for (const char* kernel : {"v3.10", "v4.4"}) {
    Sim sim(parse_ok(std::string("kernel ") + kernel + "\n" + body));
    sim.run();
    const Sched& s = sim.sched();
    EXPECT_GT(s.counters.newidle_walks, 0u) << kernel;
    Nanos max_cost = 0, max_idle_cost = 0;
    for (const CpuId c : s.rq.ids()) {
      for (const SdBalance& b : s.lb.sd[c]) max_cost = std::max(max_cost, b.max_newidle_lb_cost);
      max_idle_cost = std::max(max_idle_cost, s.rq[c].max_idle_balance_cost);
    }
    if (s.era.balance_v3) {
      EXPECT_EQ(max_cost, 0);
      EXPECT_EQ(max_idle_cost, static_cast<Nanos>(s.tun.migration_cost_ns));
    } else {
      EXPECT_GT(max_cost, 0) << kernel;
    }
  }
}

// The nohz kick of a CPU running one task while another CPU runs one: v5.15
// kicks when its LLC has two busy CPUs; v4.4 counts them in sd_busy, the
// LLC's parent, so not on one socket; v3.10 counts the busy CPUs of each
// package-sharing domain's local group, so only an SMT core busy in both
// siblings kicks.
std::optional<CpuId> kicked(const std::string& kernel, const std::string& topology, unsigned other) {
  Sim sim(parse_ok("kernel " + kernel + "\ntopology " + topology + "\nfeature load_balance=on\n" +
                   "task a run=busy cpus=0\ntask b run=busy cpus=" + std::to_string(other) + "\nrun 20ms\n"));
  sim.run();
  Sched& s = sim.mutable_sched();
  s.lb.nohz_next_balance = jiffies(s);
  const lb::NohzKick k = lb::nohz_balancer_kick(s, CpuId(0));
  if (!k.ilb) return std::nullopt;
  return k.ilb;
}
TEST(LoadBalanceV3, TheNohzKickLooksWhereEachEraLooks) {
  // one socket of 4 cores, CPUs 0 and 1 busy
  EXPECT_EQ(kicked("v5.15", "sockets=1 cores=4", 1), CpuId(2));
  EXPECT_EQ(kicked("v4.4", "sockets=1 cores=4", 1), std::nullopt);
  EXPECT_EQ(kicked("v3.10", "sockets=1 cores=4", 1), std::nullopt);
  // two sockets of 2 cores, both busy CPUs in socket 0: v4.4's sd_busy is the socket level
  EXPECT_EQ(kicked("v4.4", "sockets=2 cores=2", 1), CpuId(2));
  EXPECT_EQ(kicked("v3.10", "sockets=2 cores=2", 1), std::nullopt);
  // one socket of 2 SMT cores, both siblings of core 0 busy: v3.10's MC group is the core
  EXPECT_EQ(kicked("v3.10", "sockets=1 cores=2 threads=2", 1), CpuId(2));
  EXPECT_EQ(kicked("v3.10", "sockets=1 cores=2 threads=2", 2), std::nullopt);
}

// Eight busy tasks run on CPU 0 of 3 cores, pinned there until now (20.7 ms:
// each waiting task last ran 0.7 ms ago or earlier, so none is cache hot by
// time); `buddy` is made cfs_rq->last, the second task a pass examines. An
// idle CPU's load_balance of dst at MC (ilb_running: the CPU running it, when
// not dst) then takes tasks while half a task's load fits the imbalance
// (2730): two on v3.10, whose task_h_load rises as CPU 0's load falls under
// the h_load computed before the pass (1023, 1170, then 1365 against 537
// left), three on v4.4. Returns whether the buddy went and the tasks moved.
std::pair<bool, int> balance_with_a_last_buddy(const std::string& body, CpuId dst, CpuId ilb) {
  std::string t = body + "topology sockets=1 cores=3\nfeature load_balance=on\n";
  for (const char* n : {"a", "b", "c", "d", "e", "f", "g", "h"}) t += std::string("task ") + n + " run=busy cpus=0\n";
  Sim sim(parse_ok(t + "run 20700us\n"));
  sim.run();
  Sched& s = sim.mutable_sched();
  std::vector<TaskId> waiting;  // cfs_tasks from its head, as both eras walk it
  for (TaskId p = s.rq[CpuId(0)].cfs_tasks_head; p; p = s.tasks[p].lb_next) {
    s.tasks[p].allowed = {};
    if (p != s.rq[CpuId(0)].curr) waiting.push_back(p);
  }
  EXPECT_EQ(waiting.size(), 7u);
  for (const TaskId p : waiting) EXPECT_GE(s.now - s.se[s.tasks[p].se].exec_start, 700'000);
  const TaskId buddy = waiting.at(1);
  s.cfs[s.se[s.tasks[buddy].se].cfs_rq].last = s.tasks[buddy].se;
  s.lb.ilb_running = ilb;
  bool more = true;
  const int moved = lb::load_balance(s, dst, 0, CpuIdleType::idle, more);
  s.lb.ilb_running = {};
  return {s.tasks[buddy].cpu == dst, moved};
}

// v3.10's move_tasks puts each task on dst as it takes it, and task_hot's
// CACHE_HOT_BUDDY test reads this_rq()->nr_running: once the pass has moved
// a task to the CPU running it, a buddy among the later candidates is cache
// hot and stays (the third goes instead). v4.4 detaches all before it
// attaches any, and reads dst_rq: the buddy goes. The idle load balancer
// balancing for another idle CPU reads its own rq, which has no task.
TEST(LoadBalanceV3, ABuddyIsCacheHotOnceThePassHasMovedATaskToThisCpu) {
  EXPECT_EQ(balance_with_a_last_buddy("kernel v3.10\n", CpuId(1), {}), std::make_pair(false, 2));
  EXPECT_EQ(balance_with_a_last_buddy("kernel v4.4\n", CpuId(1), {}), std::make_pair(true, 3));
  EXPECT_EQ(balance_with_a_last_buddy("kernel v3.10\n", CpuId(1), CpuId(2)), std::make_pair(true, 2));
  // CACHE_HOT_BUDDY off: no buddy is hot
  EXPECT_EQ(balance_with_a_last_buddy("kernel v3.10\nfeature cache_hot_buddy=off\n", CpuId(1), {}),
            std::make_pair(true, 2));
}

// CONFIG_PREEMPT(ION) (newidle_pulls_one, on in every profile): a newly idle
// CPU takes one task from CPU 0's four; a PREEMPT_VOLUNTARY build takes what
// the imbalance lets it (two: half of CPU 0's load, or v5.15's task count
// difference / 2).
TEST(LoadBalanceV3, ANewidleBalancePullsOneTaskOnlyUnderPreemption) {
  for (const char* kernel : {"v3.10", "v4.4", "v5.15"})
    for (const bool one : {true, false}) {
      std::string t = std::string("kernel ") + kernel + "\ntopology sockets=1 cores=2\nfeature load_balance=on\n" +
                      "feature newidle_pulls_one=" + (one ? "on" : "off") + "\n";
      for (const char* n : {"a", "b", "c", "d"}) t += std::string("task ") + n + " run=busy cpus=0\n";
      Sim sim(parse_ok(t + "run 20700us\n"));
      sim.run();
      Sched& s = sim.mutable_sched();
      for (TaskId p = s.rq[CpuId(0)].cfs_tasks_head; p; p = s.tasks[p].lb_next) s.tasks[p].allowed = {};
      bool more = true;
      EXPECT_EQ(lb::load_balance(s, CpuId(1), 0, CpuIdleType::newly_idle, more), one ? 1 : 2) << kernel << one;
    }
}

}  // namespace
}  // namespace cfsv
