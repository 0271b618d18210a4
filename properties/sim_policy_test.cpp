// Scheduling policies (`policy=normal|batch|idle`; docs/policies.md):
// SCHED_IDLE's weight, check_preempt_wakeup's policy tests and v5.4+'s
// sched_idle_cpu in v5.15's select_idle_sibling, each against the hand
// reasoning from the kernel source (v3.10, v4.4.121, v5.15.100).
#include <gtest/gtest.h>

#include <string>

#include "model/arith/weights.h"
#include "model/balance_lb.h"
#include "model/sim.h"
#include "model/sink.h"
#include "properties/scenario_test_util.h"
#include "properties/sim_lookup.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;
using namespace sim_lookup;

// set_load_weight: WEIGHT_IDLEPRIO (3, scaled by the era's load resolution)
// for a SCHED_IDLE task at any nice, before and after a renice; a normal
// task's weight follows its nice.
TEST(Policy, AnIdleTaskWeighsThreeWhateverItsNice) {
  for (const char* kernel : {"v3.10", "v4.4", "v5.15"}) {
    Sim sim(parse_ok(std::string("kernel ") + kernel +
                     "\ntask i nice=-20 policy=idle run=busy\ntask n nice=-20 run=busy\n"
                     "at 5ms nice i 5\nat 5ms nice n 5\nrun 10ms\n"));
    const LoadResolution res = sim.sched().res;
    sim.run_to(kMs);
    EXPECT_EQ(se(sim, "i").load.weight, scale_load<uint64_t>(kWeightIdlePrio, res)) << kernel;
    EXPECT_EQ(se(sim, "i").load.inv_weight, kWmultIdlePrio) << kernel;
    EXPECT_EQ(se(sim, "n").load.weight, scale_load<uint64_t>(88761, res)) << kernel;
    sim.run();
    EXPECT_EQ(task(sim, "i").nice, 5) << kernel;
    EXPECT_EQ(se(sim, "i").load.weight, scale_load<uint64_t>(kWeightIdlePrio, res)) << kernel;
    EXPECT_EQ(se(sim, "n").load.weight, scale_load<uint64_t>(335, res)) << kernel;
    EXPECT_TRUE(sim.rejected_ops().empty()) << kernel;
  }
}

// One CPU, a busy nice-0 task and a busy SCHED_IDLE one for 10 s. The idle
// task's vruntime grows 1024/3 times its runtime, so it runs one tick
// (check_preempt_tick: past its slice, 0.75 ms at least) each time the other
// has run ~341 ms: 3/1027 of the CPU, 29.2 ms, give or take the ticks at the
// ends (30 cycles of 1 ms).
TEST(Policy, AnIdleTaskBesideABusyOneGetsItsWeightsShare) {
  for (const char* kernel : {"v3.10", "v4.4", "v5.15"}) {
    Sim sim(parse_ok(std::string("kernel ") + kernel + "\ntask n run=busy\ntask i policy=idle run=busy\nrun 10s\n"));
    sim.run();
    const Nanos idle_ns = se(sim, "i").sum_exec_runtime;
    EXPECT_GE(idle_ns, 25 * kMs) << kernel;
    EXPECT_LE(idle_ns, 35 * kMs) << kernel;
    EXPECT_EQ(idle_ns + se(sim, "n").sum_exec_runtime, 10'000 * kMs) << kernel;
  }
}

// `curr` runs busy; `wakee` wakes every 10.1 ms (100 us runs). The counts of
// wakeup reschedules and the wakee's waiting time.
struct WakeupOutcome {
  uint64_t resched_wakeup, wakeups;  // wakeups: w's, 86 to 99
  Nanos wakee_wait;
};
WakeupOutcome wakeups(const char* kernel, const std::string& curr, const std::string& wakee) {
  Sim sim(parse_ok(std::string("kernel ") + kernel + "\ntask c run=busy " + curr + "\ntask w run=100us sleep=10ms " +
                   wakee + "\nrun 1s\n"));
  sim.run();
  EXPECT_GE(sim.counters().wakeups, 80u) << kernel;
  return {sim.counters().resched_wakeup, sim.counters().wakeups, task(sim, "w").stats.wait_ns};
}

// check_preempt_wakeup: a SCHED_IDLE curr is preempted by every woken task
// that is not SCHED_IDLE, even a nice-19 one whose wakeup_gran (1 ms x
// 1024 / 15 = 68 ms of its vruntime) no sleeper credit (at most 3 ms) can
// pass, so it never waits; against a normal curr it never preempts and waits
// for the tick that ends curr's slice. A SCHED_IDLE wakee does not preempt a
// SCHED_IDLE curr.
TEST(Policy, AnyNonIdleWakeupPreemptsAnIdleCurr) {
  for (const char* kernel : {"v3.10", "v4.4", "v5.15"}) {
    const WakeupOutcome normal = wakeups(kernel, "", "nice=19");
    const WakeupOutcome idle = wakeups(kernel, "policy=idle", "nice=19");
    const WakeupOutcome both = wakeups(kernel, "policy=idle", "nice=19 policy=idle");
    EXPECT_EQ(normal.resched_wakeup, 0u) << kernel;
    EXPECT_GT(normal.wakee_wait, 50 * kMs) << kernel;
    EXPECT_GE(idle.resched_wakeup, idle.wakeups) << kernel;  // each wakeup (and the fork's)
    EXPECT_EQ(idle.wakee_wait, 0u) << kernel;
    EXPECT_EQ(both.resched_wakeup, 0u) << kernel;
  }
}

// A nice -20 wakee (wakeup_gran 1 ms x 1024 / 88761 = 11.5 us) preempts a
// nice-0 curr at each wakeup with its sleeper credit; as SCHED_BATCH it never
// does ("Batch and idle tasks do not preempt non-idle tasks").
TEST(Policy, ABatchWakeeNeverPreempts) {
  for (const char* kernel : {"v3.10", "v4.4", "v5.15"}) {
    const WakeupOutcome normal = wakeups(kernel, "", "nice=-20");
    const WakeupOutcome batch = wakeups(kernel, "", "nice=-20 policy=batch");
    EXPECT_EQ(normal.resched_wakeup, normal.wakeups) << kernel;
    EXPECT_EQ(batch.resched_wakeup, 0u) << kernel;
    EXPECT_GT(batch.wakee_wait, normal.wakee_wait) << kernel;
  }
}

// Two cores sharing an LLC, kernel_placement on: a runs on CPU 0, the
// SCHED_IDLE task i on CPU 1. w, first pinned to CPU 0, may run anywhere from
// 1 ms, and its timer wakes it on CPU 0 every 10.1 ms. v5.15's
// select_idle_sibling: target CPU 0 is busy, its LLC scan finds CPU 1, which
// runs only SCHED_IDLE tasks (sched_idle_cpu), so w goes there and preempts
// i at once. Without the feature (and in v4.4, whose select_idle_sibling
// wants a wholly idle group) CPU 1 is busy and w stays on CPU 0, behind a.
TEST(Policy, V515WakesATaskOnACpuRunningOnlyIdleTasks) {
  for (const auto& [kernel, feature, want_cpu] :
       {std::tuple{"v5.15", "on", 1}, {"v5.15", "off", 0}, {"v4.4", "off", 0}}) {
    Sim sim(parse_ok(std::string("kernel ") + kernel +
                     "\ntopology sockets=1 cores=2 threads=1\nfeature kernel_placement=on sched_idle_cpu=" + feature +
                     "\ntask a run=busy cpus=0\ntask i policy=idle run=busy cpus=1\n"
                     "task w run=100us sleep=10ms cpus=0\nat 1ms affinity w all\nrun 100ms\n"));
    sim.run();
    const std::string what = std::string(kernel) + " sched_idle_cpu=" + feature;
    EXPECT_EQ(task(sim, "w").cpu, CpuId(want_cpu)) << what;
    EXPECT_EQ(task(sim, "i").cpu, CpuId(1)) << what;
    if (want_cpu == 1) {
      EXPECT_EQ(task(sim, "w").stats.migrations, 1u) << what;  // the first wakeup after 1 ms
    }
    EXPECT_TRUE(sim.rejected_ops().empty()) << what;
  }
}

// `policy TASK P` (__sched_setscheduler, the nice kept): the weight follows
// the policy both ways (v5.15 through reweight_task, whose PELT part keeps
// load_avg at weight x load_sum / divider), the task stays where it was, and
// nothing is rescheduled: c, made SCHED_IDLE while it runs at 5 ms, runs on
// until the next wakeup of w (asleep then, 10 ms after its first run)
// preempts it, and so does every wakeup of w after that.
TEST(Policy, SetschedulerSetsTheWeightAndReschedulesNothing) {
  for (const char* kernel : {"v3.10", "v4.4", "v5.15"}) {
    Sim sim(parse_ok(std::string("kernel ") + kernel +
                     "\ntask c run=busy\ntask w run=100us sleep=10ms\nat 5ms policy c idle\nat 50ms policy c batch\n"
                     "at 60ms policy c batch\nrun 100ms\n"));
    const LoadResolution res = sim.sched().res;
    sim.run_to(5 * kMs);
    ASSERT_EQ(sim.sched().rq[CpuId(0)].curr, sim.task_index("c")) << kernel;
    const uint64_t resched = sim.counters().resched_wakeup + sim.counters().resched_tick;
    sim.run_to(5 * kMs + 1);
    EXPECT_EQ(task(sim, "c").policy, Policy::idle) << kernel;
    EXPECT_EQ(se(sim, "c").load.weight, scale_load<uint64_t>(kWeightIdlePrio, res)) << kernel;
    EXPECT_EQ(sim.sched().rq[CpuId(0)].curr, sim.task_index("c")) << kernel;
    EXPECT_EQ(sim.counters().resched_wakeup + sim.counters().resched_tick, resched) << kernel;
    const Nanos w_wait = task(sim, "w").stats.wait_ns;  // its first run's, behind c
    ASSERT_EQ(task(sim, "w").state, TaskState::sleeping) << kernel;
    sim.run_to(40 * kMs);  // w woke about 3 times, each time preempting the SCHED_IDLE c at once
    EXPECT_EQ(task(sim, "w").stats.wait_ns, w_wait) << kernel;
    EXPECT_GE(task(sim, "w").stats.switches, 3u) << kernel;
    // v5.15: set_load_weight assigned the idle weight without reweight_task,
    // so load_avg took its scale at the first PELT update past a period.
    if (sim.sched().era.pelt) {
      EXPECT_LE(se(sim, "c").pelt.avg.load_avg, 3u) << kernel;
    }
    sim.run();
    EXPECT_EQ(task(sim, "c").policy, Policy::batch) << kernel;
    EXPECT_EQ(se(sim, "c").load.weight, scale_load<uint64_t>(1024, res)) << kernel;
    EXPECT_TRUE(sim.rejected_ops().empty()) << kernel;
  }
}

// v5.15's set_load_weight (before v6.11's fix, feature reweight_idle_task)
// gives a SCHED_IDLE task weight 3 without reweight_task. t, nice 16 (weight
// 29), forked at 2 ms with load_avg 29 (init_entity_runnable_average), made
// SCHED_IDLE: weight 3, load_avg still 29; moved to /: attach_entity_load_avg
// sets load_sum = 29 x divider / 3; made SCHED_BATCH: reweight_entity sets
// load_avg = 29 x load_sum / divider = 29 x 29 / 3 = 280, all within one
// PELT period (no update in between). With the fix each policy change goes
// through reweight_task: load_avg 3, load_sum = 3 x divider / 3 at the
// attach, then load_avg 29, the weight.
TEST(Policy, V515LeavesAnIdleTasksLoadUnscaledUntilV611sFix) {
  for (const char* fix : {"off", "on"}) {
    Sim sim(parse_ok(std::string("kernel v5.15\nfeature reweight_idle_task=") + fix +
                     "\ngroup /g0 weight=9329\ntask c run=busy\nat 2ms spawn t group=/g0 nice=16 run=busy\n"
                     "at 2ms policy t idle\nat 2ms move t /\nat 2ms policy t batch\nrun 2.000001ms\n"));
    sim.run();
    ASSERT_TRUE(sim.rejected_ops().empty()) << fix;
    EXPECT_EQ(se(sim, "t").load.weight, scale_load<uint64_t>(29, sim.sched().res)) << fix;
    const bool off = std::string(fix) == "off";
    EXPECT_EQ(se(sim, "t").pelt.avg.load_avg, off ? 280u : 29u) << fix;
    EXPECT_EQ(task(sim, "t").load_unscaled, off) << fix;
    EXPECT_TRUE(sim.check_now()) << fix;  // the unscaled task is not held to the bound
  }
}

// task_hot (v3.10, v4.4.121, v5.15.100: "if (unlikely(p->policy ==
// SCHED_IDLE)) return 0"): a waiting task that ran within migration_cost is
// cache hot, so a balance with no failures behind it (nr_balance_failed 0,
// not above cache_nice_tries) leaves it, unless it is SCHED_IDLE. b waits on
// CPU 0 behind a (as SCHED_IDLE it gets 3/1027 of the CPU); CPU 1 balances.
TEST(Policy, AnIdleTaskIsNeverCacheHot) {
  for (const char* kernel : {"v3.10", "v4.4", "v5.15"})
    for (const char* policy : {"normal", "idle"}) {
      Sim sim(parse_ok(std::string("kernel ") + kernel +
                       "\ntopology sockets=1 cores=2 threads=1\nfeature load_balance=on\ntask a run=busy cpus=0\n"
                       "task b run=busy cpus=0 policy=" + policy + "\nrun 20ms\n"));
      sim.run_to(9 * kMs + kMs / 2);
      const TaskId a = sim.task_index("a"), b = sim.task_index("b");
      const TaskId waiting = sim.rqs()[CpuId(0)].curr == a ? b : a;
      if (std::string(policy) == "idle") {
        ASSERT_EQ(waiting, b) << kernel;
      }
      ASSERT_EQ(sim.apply(op::SetAffinity{task(sim, "a").name, {}}), ApplyResult::applied);
      ASSERT_EQ(sim.apply(op::SetAffinity{task(sim, "b").name, {}}), ApplyResult::applied);
      sim.mutable_entity(sim.tasks()[waiting].se).exec_start = sim.now();  // it ran until now
      lb::LbEnv env = lb::make_env(sim.mutable_sched(), CpuId(1), 0, lb::Idle::idle);
      env.src_cpu = CpuId(0);
      ASSERT_EQ(env.sdb->nr_balance_failed, 0u) << kernel;
      EXPECT_EQ(lb::can_migrate_task(sim.sched(), waiting, env), std::string(policy) == "idle") << kernel << " " << policy;
    }
}

// rebalance_domains (v5.15.100): a CPU whose tasks are all SCHED_IDLE is not
// busy (sched_idle_cpu), so its domain is due every balance_interval instead
// of busy_factor (16) times that, less a jiffy. Each balanced pass doubles
// balance_interval up to max_interval (MC of two cores: 2 x 2 ms), so 4
// jiffies against 63.
TEST(Policy, V515BalancesACpuRunningOnlyIdleTasksAtTheIdleInterval) {
  for (const auto& [policy, feature, want] :
       {std::tuple{"idle", "on", 4u}, {"idle", "off", 63u}, {"normal", "on", 63u}}) {
    Sim sim(parse_ok(std::string("kernel v5.15\ntopology sockets=1 cores=2 threads=1\nfeature load_balance=on "
                                 "sched_idle_cpu=") +
                     feature + "\ntask i run=busy cpus=0 policy=" + policy + "\nrun 200ms\n"));
    sim.run();
    ASSERT_EQ(sim.sched().topo.sd[CpuId(0)].size(), 1u);  // MC only
    const uint64_t last = sim.sched().lb.sd[CpuId(0)][0].last_balance;
    EXPECT_EQ(sim.sched().rq[CpuId(0)].next_balance - last, uint64_t{want}) << policy << " " << feature;
  }
}

// dequeue_task_fair (v5.15.100): when the dequeue leaves only SCHED_IDLE
// tasks, "balance early to pull high priority tasks": rq->next_balance =
// jiffies. n sleeps at 5 ms, leaving i on CPU 0: its balance is due at once.
TEST(Policy, V515MakesTheBalanceDueWhenOnlyIdleTasksAreLeft) {
  for (const char* feature : {"on", "off"}) {
    Sim sim(parse_ok(std::string("kernel v5.15\ntopology sockets=1 cores=2 threads=1\nfeature load_balance=on "
                                 "sched_idle_cpu=") +
                     feature + "\ntask n run=busy cpus=0\ntask i policy=idle run=busy cpus=0\nat 5ms sleep n\n"
                               "run 10ms\n"));
    sim.run_to(5 * kMs);
    ASSERT_EQ(task(sim, "n").state, TaskState::sleeping) << feature;
    const uint64_t next = sim.sched().rq[CpuId(0)].next_balance;
    if (std::string(feature) == "on") {
      EXPECT_EQ(next, 5u);
    } else {
      EXPECT_GT(next, 5u);
    }
  }
}

// A decision is described after the run (cfsv diff): a kept wakeup of a
// SCHED_BATCH task says so even when the task is SCHED_IDLE by then.
TEST(Policy, AKeptWakeupNamesThePolicyTheWakeeHadThen) {
  struct Kept : SchedSink {
    void decision(const Sched&, const Decision& d) override {
      if (d.why == Decision::wakeup_not_normal) kept.push_back(d);
    }
    std::vector<Decision> kept;
  } sink;
  Sim sim(parse_ok("kernel v5.15\ntask c run=busy\ntask w run=100us sleep=10ms policy=batch\nat 50ms policy w idle\n"
                   "run 60ms\n"),
          SimOptions{.sink = &sink});
  sim.run();
  ASSERT_GE(sink.kept.size(), 4u);
  EXPECT_EQ(to_string(sim.sched(), sink.kept.front()), "wakeup on /: w does not preempt c: w is SCHED_BATCH");
  EXPECT_EQ(to_string(sim.sched(), sink.kept.back()), "wakeup on /: w does not preempt c: w is SCHED_IDLE");
}

}  // namespace
}  // namespace cfsv
