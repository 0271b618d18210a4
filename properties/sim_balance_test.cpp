// Load balancing (feature load_balance, v5.15's periodic, nohz idle, newidle
// and active balance): hand cases, the arithmetic of model/arith/balance.h
// with the kernel's numbers, and properties: random scenarios keep every
// invariant, never move a task outside its affinity, run the same twice, and
// on one CPU the feature changes nothing.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <random>
#include <sstream>

#include "claims/sim_diff.h"
#include "fuzz/byte_reader.h"
#include "model/arith/balance.h"
#include "model/balance_lb.h"
#include "model/core.h"
#include "model/select_rq.h"
#include "model/sim.h"
#include "model/trace.h"
#include "properties/scenario_test_util.h"
#include "properties/sim_gen.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;

// Four busy tasks start pinned to CPU 0 of 2 cores x 2 threads; at 10ms
// their affinity widens to every CPU.
std::string spread_scenario(bool on) {
  std::string t = "kernel v5.15\ntopology sockets=1 cores=2 threads=2\nfeature load_balance=";
  t += on ? "on\n" : "off\n";
  for (const char* n : {"a", "b", "c", "d"}) t += std::string("task ") + n + " run=busy cpus=0\n";
  for (const char* n : {"a", "b", "c", "d"}) t += std::string("at 10ms affinity ") + n + " all\n";
  return t + "run 200ms\n";
}

// task_h_load's cache (update_cfs_rq_h_load, v5.15): a group's h_load is
// computed once a jiffy; the group's task waking or sleeping later in the
// jiffy changes its group entity's load_avg, and task_h_load goes on using
// the h_load of the jiffy's first call (with the current load_avg of the task
// and its cfs_rq). Next jiffy, h_load is recomputed from the current figures.
TEST(TaskHLoad, GroupsHLoadIsComputedOnceAJiffy) {
  Sim sim(parse_ok("kernel v5.15\ngroup /g\ntask a group=/g run=300us sleep=450us\ntask b run=busy\nrun 1s\n"));
  const Sched& s = sim.sched();
  const TaskId a = sim.task_index("a");
  const CfsRq& root = s.cfs[s.rq[CpuId(0)].cfs];
  const CfsRqId gq = s.se[s.tasks[a].se].cfs_rq;
  // The h_load the kernel's walk gives from the current figures.
  auto fresh_group_h_load = [&] {
    const SchedEntity& gse = s.se[s.cfs[gq].group_se];
    return root.pelt.avg.load_avg * gse.pelt.avg.load_avg / (root.pelt.avg.load_avg + 1);
  };
  bool stale_seen = false;
  for (Nanos t = 50'000'000; t < 120'000'000 && !stale_seen; t += 1'000'000) {
    sim.run_until(t + 10'000);  // 10 us into the jiffy
    const SchedEntity& ae = s.se[s.tasks[a].se];
    EXPECT_EQ(task_h_load(s, a), ae.pelt.avg.load_avg * fresh_group_h_load() / (s.cfs[gq].pelt.avg.load_avg + 1));
    const uint64_t h_load = s.cfs[gq].h_load;
    ASSERT_EQ(h_load, fresh_group_h_load());
    ASSERT_EQ(s.cfs[gq].last_h_load_update, jiffies(s));
    sim.run_until(t + 990'000);  // the same jiffy
    EXPECT_EQ(task_h_load(s, a), ae.pelt.avg.load_avg * h_load / (s.cfs[gq].pelt.avg.load_avg + 1));
    EXPECT_EQ(s.cfs[gq].h_load, h_load);
    if (fresh_group_h_load() != h_load) stale_seen = true;
  }
  EXPECT_TRUE(stale_seen) << "no jiffy where the cache was stale: the test shows nothing";
  sim.run_until(s.now + 1'000'000);
  task_h_load(s, a);
  EXPECT_EQ(s.cfs[gq].h_load, fresh_group_h_load());
}

std::vector<uint32_t> tasks_per_cpu(const Sim& sim) {
  std::vector<uint32_t> n(sim.nr_cpus());
  for (const CpuId c : sim.sched().rq.ids()) n[c.index()] = sim.sched().cfs[sim.rqs()[c].cfs].h_nr_running;
  return n;
}

// Only balancing can move a task that never sleeps: with it, one task per CPU
// after the affinity change; without it, all four stay on CPU 0.
TEST(LoadBalance, FourBusyTasksOnOneCpuSpreadToOnePerCpuOnceTheyMay) {
  Sim on(parse_ok(spread_scenario(true)));
  on.run();
  EXPECT_EQ(tasks_per_cpu(on), (std::vector<uint32_t>{1, 1, 1, 1}));
  const Counters& k = on.counters();
  EXPECT_EQ(k.migrations, 3u);
  EXPECT_EQ(k.wakeup_migrations, 0u);
  EXPECT_EQ(k.periodic_migrations + k.newidle_migrations + k.active_migrations, k.migrations);
  EXPECT_GT(k.periodic_migrations, 0u);
  EXPECT_TRUE(on.checker()->ok());
  // every CPU busy within 10 ms of the change
  for (const CpuId c : on.sched().rq.ids()) EXPECT_LE(on.rqs()[c].idle_ns, 20'000'000) << c.v;

  Sim off(parse_ok(spread_scenario(false)));
  off.run();
  EXPECT_EQ(tasks_per_cpu(off), (std::vector<uint32_t>{4, 0, 0, 0}));
  EXPECT_EQ(off.counters().migrations, 0u);
}

// A CPU that goes idle pulls a waiting task at once (newidle balance): x
// runs 5 ms on CPU 1 and sleeps; a, b, c wait on CPU 0 (allowed everywhere).
// Periodic balance would also move them, but x's exit comes first at 5ms,
// within CPU 1's first balance interval.
TEST(LoadBalance, ACpuGoingIdlePullsAWaitingTaskAtOnce) {
  Sim sim(parse_ok("kernel v5.15\ntopology sockets=1 cores=2\nfeature load_balance=on\n"
                   "task a run=busy cpus=0\ntask b run=busy cpus=0\ntask c run=busy cpus=0\n"
                   "task x run=5ms cpus=1\n"
                   "at 1ms affinity a all\nat 1ms affinity b all\nat 1ms affinity c all\nrun 100ms\n"));
  sim.run();
  EXPECT_GE(sim.counters().newidle_migrations + sim.counters().periodic_migrations, 1u);
  EXPECT_EQ(tasks_per_cpu(sim)[1] + tasks_per_cpu(sim)[0], 3u);
  EXPECT_GE(tasks_per_cpu(sim)[1], 1u);
  EXPECT_TRUE(sim.checker()->ok());
}

// When an idle CPU's blocked averages decay: a runs 5 ms on CPU 1 and sleeps
// for good, b keeps CPU 0 busy; the times (sampled every 0.5 ms) at which
// CPU 1's root cfs_rq is updated after 5 ms. With load_balance, where the
// kernel's balancing updates them: v5.15's stats kick from CPU 0's tick
// (_nohz_idle_balance's update_nohz_stats) each time nohz.next_blocked has
// passed, time_after(now, last + 32 jiffies): every 33 ms from the
// newidle pass at 5 ms (nohz_newidle_balance); v4.4 has no stats kick (it
// came in v4.17) and no balance kick here (one busy CPU running one task), so
// CPU 1's blocked load stays as it was. Without load_balance, the model's
// 32-ms rhythm (docs/pelt.md).
std::vector<int> blocked_updates_of_cpu1(const char* kernel, bool balance) {
  Sim sim(parse_ok(std::string("kernel ") + kernel + "\ntopology sockets=1 cores=2\nfeature load_balance=" +
                   (balance ? "on" : "off") + "\ntask b run=busy cpus=0\ntask a run=5ms sleep=10s cpus=1\nrun 150ms\n"));
  std::vector<int> at;
  uint64_t last = 0;
  for (int us = 5500; us <= 150'000; us += 500) {
    sim.run_to(uint64_t(us) * 1000);
    const uint64_t l = sim.cfs_rqs()[sim.rqs()[CpuId(1)].cfs].pelt.avg.last_update_time;
    if (last && l != last) at.push_back(us / 1000);
    last = l;
  }
  return at;
}
TEST(LoadBalance, AnIdleCpusBlockedAveragesDecayWhereTheKernelsBalancingUpdatesThem) {
  EXPECT_EQ(blocked_updates_of_cpu1("v5.15", true), (std::vector<int>{38, 71, 104, 137}));
  EXPECT_EQ(blocked_updates_of_cpu1("v4.4", true), std::vector<int>{});
  for (const char* k : {"v5.15", "v4.4"})
    EXPECT_EQ(blocked_updates_of_cpu1(k, false), (std::vector<int>{33, 65, 97, 129})) << k;
}

// The stopper's wakeup is an add_nr_running (enqueue_task_stop): next to the
// one CFS task of an rq it makes two, which sets rd->overload.
TEST(LoadBalance, TheStopperNextToOneTaskSetsRootDomainOverload) {
  Sim sim(parse_ok("kernel v5.15\ntopology sockets=1 cores=2\nfeature load_balance=on\ntask a run=busy cpus=0\nrun 10ms\n"));
  sim.run_to(1'000'000);
  Sched& s = sim.mutable_sched();
  ASSERT_FALSE(s.lb.overload);
  stopper_preempt(s, CpuId(1));  // nothing runs there: one task no more
  EXPECT_FALSE(s.lb.overload);
  stopper_preempt(s, CpuId(0));
  EXPECT_TRUE(s.lb.overload);
}

// get_sd_balance_interval's ceiling, max_load_balance_interval = HZ x
// online CPUs / 10 (update_max_interval, rerun at every hotplug): 400
// jiffies on 4 CPUs, 300 once one is offline.
TEST(LoadBalance, TheIntervalCeilingCountsTheOnlineCpus) {
  Sim sim(parse_ok("kernel v5.15\ntopology sockets=1 cores=4\nfeature load_balance=on\nat 2ms cpu offline 3\nrun 5ms\n"));
  const auto ceiling = [&] {
    const Sched& s = sim.sched();
    const SdBalance wide{.balance_interval = 100'000};
    uint64_t next = ~uint64_t{0} >> 1;
    lb::update_next_balance(s, s.topo.sd[CpuId(0)].front(), wide, next);
    return next;
  };
  sim.run_to(1'000'000);
  EXPECT_EQ(ceiling(), 400u);
  sim.run_to(3'000'000);
  EXPECT_EQ(ceiling(), 300u);
}

// Pinned tasks stay: everything pinned to CPU 0 never moves, and the
// balancer's failures grow the domain's interval instead (MAX_PINNED_INTERVAL).
TEST(LoadBalance, PinnedTasksNeverMove) {
  Sim sim(parse_ok("kernel v5.15\ntopology sockets=1 cores=4\nfeature load_balance=on\n"
                   "task a run=busy cpus=0\ntask b run=busy cpus=0\ntask c run=busy cpus=0\nrun 1s\n"));
  sim.run();
  EXPECT_EQ(sim.counters().migrations, 0u);
  EXPECT_EQ(tasks_per_cpu(sim)[0], 3u);
  EXPECT_GT(sim.sched().lb.sd[CpuId(1)][0].balance_interval, sim.sched().topo.sd[CpuId(1)][0].min_interval);
}

SgLbStats group(GroupType type, uint64_t nr, uint64_t idle, uint64_t weight, uint64_t load = 0, uint64_t cap = 1024) {
  SgLbStats g;
  g.type = type;
  g.v.sum_nr_running = g.v.sum_h_nr_running = nr;
  g.v.idle_cpus = idle;
  g.v.group_weight = weight;
  g.v.group_load = load;
  g.v.group_capacity = cap;
  g.v.avg_load = load * kSchedCapacityScale / cap;
  return g;
}

// calculate_imbalance with the kernel's numbers.
TEST(LoadBalanceArith, CalculateImbalanceWithTheKernelsNumbers) {
  // overloaded busiest, has_spare local, no SD_SHARE_PKG_RESOURCES: migrate_util,
  // capacity 2048 - util 700 = 1348
  SdLbStats sds;
  sds.has_busiest = true;
  sds.local = group(GroupType::has_spare, 1, 1, 2, 0, 2048);
  sds.local.v.group_util = 700;
  sds.busiest = group(GroupType::overloaded, 5, 0, 2, 5000, 2048);
  Imbalance r = calculate_imbalance({CpuIdleType::idle, 117, false, false}, sds);
  EXPECT_EQ(r.type, MigrationType::util);
  EXPECT_EQ(r.imbalance, 1348);
  // prefer_sibling: half the difference of running tasks, (5 - 1) >> 1 = 2
  sds.prefer_sibling = true;
  r = calculate_imbalance({CpuIdleType::idle, 117, true, false}, sds);
  EXPECT_EQ(r.type, MigrationType::task);
  EXPECT_EQ(r.imbalance, 2);
  // idle CPUs evened: (3 - 1) >> 1 = 1; the other way round the unsigned int
  // difference wraps: (1 - 3) mod 2^32 >> 1 = 2^31 - 1 tasks
  sds.prefer_sibling = false;
  sds.local = group(GroupType::has_spare, 1, 3, 4);
  sds.busiest = group(GroupType::overloaded, 6, 1, 4, 6000, 4096);
  EXPECT_EQ(calculate_imbalance({CpuIdleType::idle, 117, true, false}, sds).imbalance, 1);
  sds.local.v.idle_cpus = 1;
  sds.busiest.v.idle_cpus = 3;
  EXPECT_EQ(calculate_imbalance({CpuIdleType::idle, 117, true, false}, sds).imbalance, 2147483647);
  // both overloaded: min(busiest above average, local below) x capacity / 1024;
  // sds avg (3000 + 1000) * 1024 / 4096 = 1000; busiest avg 1500, local 500:
  // min(500 * 2048, 500 * 2048) / 1024 = 1000
  sds.local = group(GroupType::overloaded, 3, 0, 2, 1000, 2048);
  sds.busiest = group(GroupType::overloaded, 5, 0, 2, 3000, 2048);
  sds.total_load = 4000, sds.total_capacity = 4096;
  sds.avg_load = 1000;
  r = calculate_imbalance({CpuIdleType::not_idle, 117, true, false}, sds);
  EXPECT_EQ(r.type, MigrationType::load);
  EXPECT_EQ(r.imbalance, 1000);
}

// find_busiest_group's verdict: a busy CPU leaves a has_spare group alone; an
// overloaded busiest within imbalance_pct of local is balanced.
TEST(LoadBalanceArith, TheVerdictKeepsTheKernelsThresholds) {
  SdLbStats sds;
  sds.has_busiest = true;
  sds.local = group(GroupType::has_spare, 0, 2, 2);
  sds.busiest = group(GroupType::has_spare, 2, 0, 2);
  EXPECT_EQ(find_busiest_group_verdict({CpuIdleType::not_idle, 117, true, false}, sds).imbalance, 0);
  EXPECT_EQ(find_busiest_group_verdict({CpuIdleType::idle, 117, true, false}, sds).imbalance, 1);  // (2 - 0) >> 1
  // 100 * 1150 <= 117 * 1000: balanced; 100 * 1200 > 117 * 1000: not
  sds.local = group(GroupType::overloaded, 3, 0, 1, 1000, 1024);
  sds.busiest = group(GroupType::overloaded, 3, 0, 1, 1150, 1024);
  sds.total_load = 2150, sds.total_capacity = 2048;
  EXPECT_EQ(find_busiest_group_verdict({CpuIdleType::not_idle, 117, true, false}, sds).imbalance, 0);
  sds.busiest = group(GroupType::overloaded, 3, 0, 1, 1200, 1024);
  sds.total_load = 2200;
  EXPECT_GT(find_busiest_group_verdict({CpuIdleType::not_idle, 117, true, false}, sds).imbalance, 0);
}

// Seed 002's two readings on the reproducer RapidCheck shrank
// (regressions/newidle_stop_later_wakeup.scn): the task the stop picks, t5,
// runs sooner (newidle-stop/first-pick-sooner holds), but t9, waiting on the
// same CPU, runs later: "never later" for every waiting task is refuted.
TEST(NewidleStop, TheStopPicksSoonerButAnotherWaitingTaskCanRunLater) {
  const ParseResult r = load_scenario_file(CFSV_REGRESSIONS_DIR "/newidle_stop_later_wakeup.scn");
  ASSERT_TRUE(std::holds_alternative<Scenario>(r));
  const Scenario& s = std::get<Scenario>(r);
  const SimRun off = run_with(s, {{Feature::newidle_stop_on_runnable, false}});
  const SimRun on = run_with(s, {{Feature::newidle_stop_on_runnable, true}});
  EXPECT_EQ(no_later_wakeup_difference(off, on, false), "");
  const std::string later = no_later_wakeup_difference(off, on, true);
  EXPECT_EQ(later.rfind("t9, waiting on cpu2", 0), 0u) << later;
  // the walk with the stop balanced fewer domains before t5 ran; t5 runs at 40us with it
  EXPECT_LT(on.sim->counters().newidle_arrival_wait_ns, off.sim->counters().newidle_arrival_wait_ns);
}

// The same runs without any arrival during a walk (no load balancing) are
// the same with the stop on and off.
TEST(NewidleStop, WithoutBalancingTheStopChangesNothing) {
  const ParseResult r = load_scenario_file(CFSV_REGRESSIONS_DIR "/newidle_stop_later_wakeup.scn");
  ASSERT_TRUE(std::holds_alternative<Scenario>(r));
  const Scenario s = with_overrides(std::get<Scenario>(r), {{Feature::load_balance, false}});
  const SimRun off = run_with(s, {{Feature::newidle_stop_on_runnable, false}});
  const SimRun on = run_with(s, {{Feature::newidle_stop_on_runnable, true}});
  EXPECT_EQ(off.perf, on.perf);
  EXPECT_EQ(on.sim->counters().newidle_walks, 0u);
}

// newidle-stop/first-pick-sooner's domain is not vacuous: of 200 cases
// decoded from seeded random bytes (as the fuzz engine decodes them), the stop
// changes the run in a good share, and in each the first pick is no later.
TEST(NewidleStop, TheClaimsCasesOftenReachAStopAndItsFirstPickIsNeverLater) {
  const Claim* claim = claim_by_id("newidle-stop/first-pick-sooner");
  ASSERT_NE(claim, nullptr);
  std::mt19937_64 rng(20261201);
  int differ = 0;
  for (int i = 0; i < 200; ++i) {
    std::vector<uint8_t> bytes(512);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    fuzz::ByteReader r(bytes.data(), bytes.size());
    const Scenario s = decode_sim_case(r, *claim);
    const SimRun off = run_with(s, claim->domain.sim.before), on = run_with(s, claim->domain.sim.after);
    differ += off.events != on.events;
    EXPECT_EQ(no_later_wakeup_difference(off, on, false), "") << print_scenario(s);
  }
  std::printf("newidle-stop: %d of 200 cases reach a stop that changes the run\n", differ);
  EXPECT_GE(differ, 10);
}

std::string trace(const Scenario& s) {
  std::ostringstream perf;
  PerfScriptWriter w(perf, "perf");
  Sim sim(s, SimOptions{.sink = &w});
  sim.run();
  return perf.str() + std::to_string(sim.counters().migrations);
}

Scenario with_balance(const Scenario& s, bool on) { return with_overrides(s, {{Feature::load_balance, on}}); }

// Every migration lands on an allowed CPU (checked as it happens).
struct MigrationWatch : SchedSink {
  uint64_t outside = 0;
  void sched_migrate_task(const Sched& s, TaskId t, CpuId, CpuId dest) override {
    if (!cpu_allowed(s.tasks[t], dest)) ++outside;
  }
};

RC_GTEST_PROP(LoadBalanceProperties, OnOneCpuTheFeatureChangesNothing, ()) {
  Scenario s = *simgen::gen_sim_scenario_with_ops(30);
  s.topology = {1, 1, 1};
  RC_ASSERT(trace(with_balance(s, true)) == trace(with_balance(s, false)));
}

// Random scenarios on their own topology or on 2 sockets with SMT, with
// load_balance on (and kernel_placement and the Wasted Cores group
// construction fix, every CPU balancing, at random): every invariant holds
// after every step, no migration leaves the affinity, and a second run is
// the same.
RC_GTEST_PROP(LoadBalanceProperties, RandomScenariosKeepEveryInvariantTheAffinityAndDeterminism, ()) {
  Scenario s = with_balance(*simgen::gen_sim_scenario_with_ops(40), true);
  if (*rc::gen::arbitrary<bool>()) s.topology = {2, *rc::gen::inRange(1u, 4u), 2};
  s.feature_overrides.emplace_back(Feature::kernel_placement, *rc::gen::arbitrary<bool>());
  s.feature_overrides.emplace_back(Feature::wasted_cores_group_construction, *rc::gen::arbitrary<bool>());
  MigrationWatch watch;
  Sim sim(s, SimOptions{.check_every = 1, .sink = &watch});
  sim.run();
  RC_ASSERT(sim.checker()->ok());
  RC_ASSERT(watch.outside == 0u);
  RC_ASSERT(trace(s) == trace(s));
}

// Sim::reset keeps the domains of up to 32 machines of at most 16 CPUs and
// swaps one back in when a scenario runs on it again. Round 56 machines (some
// of 24 to 48 CPUs, never kept; one in three ends with CPU 1 offline, its
// domains rebuilt, not kept) and back: after every reset the domains are a
// fresh build's and the run, balancing on, is a fresh Sim's.
TEST(SimReset, OntoAMachineItKeptOrNotTheDomainsAndTheRunAreAFreshSims) {
  std::vector<Scenario> machines;
  for (const char* kernel : {"v4.4", "v5.15"})
    for (const unsigned sockets : {1u, 2u})
      for (const unsigned cores : {1u, 2u, 3u, 4u, 6u, 8u, 12u})
        for (const unsigned threads : {1u, 2u}) {
          Scenario s;
          s.kernel = kernel;
          s.topology = {sockets, cores, threads};
          for (const char* n : {"a", "b", "c", "d", "e"}) {
            TaskSpec t;
            t.name = n;
            s.tasks.push_back(t);
          }
          s.duration = 10'000'000;
          if (machines.size() % 3 == 0 && s.topology.nr_cpus() > 1)
            s.ops.push_back({5'000'000, op::SetCpuOnline{1, false}, {}});
          machines.push_back(with_balance(s, true));
        }
  std::vector<Scenario> rounds = machines;
  rounds.insert(rounds.end(), machines.rbegin(), machines.rend());
  std::ostringstream perf;
  PerfScriptWriter w(perf, "perf");
  Sim reused(rounds.front(), SimOptions{.sink = &w});
  for (const Scenario& s : rounds) {
    SCOPED_TRACE(s.kernel + " topology sockets=" + std::to_string(s.topology.sockets) +
                 " cores=" + std::to_string(s.topology.cores) + " threads=" + std::to_string(s.topology.threads));
    perf.str("");
    reused.reset(s);
    const SchedTopology fresh = build_sched_topology(s.topology, reused.sched().topo.era);
    EXPECT_EQ(sched_domain_files(reused.sched().topo), sched_domain_files(fresh));
    reused.run();
    EXPECT_EQ(perf.str() + std::to_string(reused.counters().migrations), trace(s));
  }
}

}  // namespace
}  // namespace cfsv
