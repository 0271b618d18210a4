// Fidelity regressions: places where the model did something the kernel does
// not, found by reading it against kernel/sched/{core,fair}.c of v3.10, v4.4
// and v5.15. Each test builds its scenario from text (some from the
// regressions/*.scn reproducers), runs it, and asserts on what a user sees, by
// task name: who runs when (run stretches, sched_switch events), CPU time and
// the tunables in force.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/scenario_text.h"
#include "model/sim.h"
#include "model/trace.h"
#include "properties/source_text.h"

namespace cfsv {
namespace {

constexpr Nanos kUs = 1'000, kMs = 1'000'000;
const char* const kProfiles[] = {"v3.10", "v4.4", "v5.15"};

Scenario parse(const std::string& text) {
  ParseResult r = parse_scenario(text, "<fidelity>");
  if (const auto* e = std::get_if<ParseError>(&r)) throw std::runtime_error(e->to_string());
  return std::get<Scenario>(std::move(r));
}

// Parses and runs a scenario; every invariant must hold on the way.
std::unique_ptr<Sim> run(const std::string& text) {
  auto sim = std::make_unique<Sim>(parse(text), SimOptions{.record_trace = true});
  sim->run();
  EXPECT_TRUE(sim->checker()->ok()) << sim->checker()->violations().front().to_string();
  return sim;
}

std::string regression(const std::string& name) {
  std::string text = testing_files::source_text("regressions/" + name);
  EXPECT_FALSE(text.empty()) << "no regressions/" << name;
  return text;
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The run stretches of a task, in time order: [start, end).
std::vector<std::pair<Nanos, Nanos>> runs(const Sim& sim, const std::string& task) {
  std::vector<std::pair<Nanos, Nanos>> v;
  const TaskId t = sim.task_index(task);
  for (const Stretch& s : sim.stretches_until_now())
    if (s.task == t) v.emplace_back(s.start, s.end);
  std::sort(v.begin(), v.end());
  return v;
}

// The end of the task's stretch that runs through time t, start and end
// included (0 if it does not run then).
Nanos run_end_through(const Sim& sim, const std::string& task, Nanos t) {
  for (const auto& [start, end] : runs(sim, task))
    if (start <= t && t <= end) return end;
  return 0;
}

Nanos first_run(const Sim& sim, const std::string& task) {
  const auto r = runs(sim, task);
  return r.empty() ? 0 : r.front().first;
}

// The sched_switch events at time t on a CPU, as "prev>next" (a trailing
// "/S" or "/X" when prev went to sleep or exited).
std::vector<std::string> switches_at(const Sim& sim, Nanos t, CpuId cpu = CpuId(0)) {
  std::vector<std::string> v;
  for (const SwitchEvent& s : sim.trace().switches) {
    if (s.t != t || s.cpu != cpu) continue;
    std::string e = comm_of(sim.sched(), s.prev, cpu) + ">" + comm_of(sim.sched(), s.next, cpu);
    if (s.prev_state == TaskState::sleeping) e += "/S";
    if (s.prev_state == TaskState::exited) e += "/X";
    v.push_back(e);
  }
  return v;
}

using Switches = std::vector<std::string>;

// ---- set_user_nice -------------------------------------------------------

// set_user_nice returns at once when the nice does not change (v3.10, v4.4,
// v5.15 core.c: `if (task_nice(p) == nice ...) return;`): the run is the same
// as without the op. The model used to dequeue and enqueue the task anyway
// (moving min_vruntime past a waiting task's lag, or restarting a running
// task's slice in v5.15).
TEST(FidelityNice, AnUnchangedNiceChangesNothing) {
  for (const char* k : kProfiles) {
    const std::string base = std::string("kernel ") + k +
                              "\ntask a\ntask b nice=3\ntask c run=1ms sleep=2ms\n"
                              "run 30ms\n";
    const std::string plain = perf_sched_switch_lines(*run(base));
    for (const char* op : {"at 1ms nice b 3\n", "at 2.5ms nice a 0\n", "at 3.5ms nice c 0\n"}) {
      const std::string with_op = replace(base, "run 30ms", std::string(op) + "run 30ms");
      EXPECT_EQ(perf_sched_switch_lines(*run(with_op)), plain) << k << ": " << op;
    }
  }
}

// v5.15 dequeues with DEQUEUE_SAVE and dequeue_entity then skips
// update_min_vruntime (fair.c v5.4+: `(flags & (DEQUEUE_SAVE | DEQUEUE_MOVE))
// != DEQUEUE_SAVE`), so the reniced task keeps its place (regressions/
// nice_keeps_lag.scn): b, which runs from 3 ms, keeps the CPU at the 3.2 ms
// renice and runs its restarted nice-1 slice to the 6 ms tick. With
// min_vruntime moved (v4.4's dequeue_entity), b falls behind a and is switched
// out at once.
TEST(FidelityNice, TheRenicedTaskKeepsItsLagInV515) {
  const std::string text = regression("nice_keeps_lag.scn");
  EXPECT_EQ(run_end_through(*run(text), "b", 3 * kMs), 6 * kMs);
  const auto moved = run(replace(text, "task a", "feature dequeue_save_keeps_min_vruntime=off\ntask a"));
  EXPECT_EQ(run_end_through(*moved, "b", 3 * kMs), 3200 * kUs);
}

// Who reschedules after a renice. v3.10 and v4.4 (set_user_nice's own rule):
// the CPU when the nice went down, or went up on the running task. v5.15
// (prio_changed_fair): nothing with one entity on the root cfs_rq; the running
// task only when its nice went up; a waiting task through check_preempt_curr.
// Two busy tasks alternate; a runs from 6 ms in v4.4/v5.15 (from 8 ms in
// v3.10), b waits behind it with the smaller vruntime.
TEST(FidelityNice, ReschedulesByEachErasRule) {
  auto a_run_end = [](const std::string& kernel, const std::string& groups, Nanos at, const std::string& op) {
    const std::string g = groups.empty() ? "" : " group=" + groups;
    const std::string text = "kernel " + kernel + "\n" + (groups.empty() ? "" : "group " + groups + "\n") +
                             "task a" + g + "\ntask b" + g + "\nat " + format_duration(at) + " " + op +
                             "\nrun 30ms\n";
    return run_end_through(*run(text), "a", at);
  };
  // The running task's nice goes down: v3.10/v4.4 reschedule (b, leftmost,
  // runs at once); v5.15 does not.
  EXPECT_EQ(a_run_end("v3.10", "", 9500 * kUs, "nice a -5"), 9500 * kUs);
  EXPECT_EQ(a_run_end("v4.4", "", 7500 * kUs, "nice a -5"), 7500 * kUs);
  EXPECT_EQ(a_run_end("v5.15", "", 7500 * kUs, "nice a -5"), 13 * kMs);
  // The running task's nice goes up: rescheduled, unless its group's entity
  // is all the root cfs_rq holds (v5.15).
  EXPECT_EQ(a_run_end("v5.15", "", 7500 * kUs, "nice a 3"), 7500 * kUs);
  EXPECT_EQ(a_run_end("v5.15", "/g", 7500 * kUs, "nice a 3"), 9 * kMs);
  // A waiting task's nice goes down: v5.15 asks check_preempt_wakeup, which
  // preempts only when b trails a by more than wakeup_gran scaled to b's new
  // weight: 0.5 ms behind at nice -1 (gran 0.8 ms) is not enough, 1.5 ms at
  // nice -5 (0.33 ms) is; in a group, nothing happens.
  EXPECT_EQ(a_run_end("v4.4", "", 6500 * kUs, "nice b -1"), 6500 * kUs);
  EXPECT_EQ(a_run_end("v5.15", "", 6500 * kUs, "nice b -1"), 9 * kMs);
  EXPECT_EQ(a_run_end("v5.15", "", 7500 * kUs, "nice b -5"), 7500 * kUs);
  EXPECT_EQ(a_run_end("v5.15", "/g", 7500 * kUs, "nice b -5"), 8 * kMs);
}

// ---- buddies -------------------------------------------------------------

// v5.15 clears buddies in set_next_entity (and so in set_next_task_fair);
// v3.10..v5.4 in pick_next_entity. A next buddy on a group entity survives a
// pick that stays inside the group (regressions/buddy_survives_at_upper_level
// .scn): at 19 ms /g and /h tie at the root, the tie goes to the leftmost
// (/h), but /g is still the root's next buddy from g1's sleep at 18 ms.
TEST(FidelityBuddies, ANextBuddyOnAGroupEntitySurvivesInV515) {
  const std::string text = regression("buddy_survives_at_upper_level.scn");
  EXPECT_EQ(switches_at(*run(text), 19 * kMs), (Switches{"g2>g1"}));
  const auto cleared = run(replace(text, "group /g", "feature clear_buddies_on_set_next=off\ngroup /g"));
  EXPECT_EQ(switches_at(*cleared, 19 * kMs), (Switches{"g2>h1"}));
}

// ---- set_cpus_allowed ----------------------------------------------------

// A new mask that keeps the task's CPU: v4.4 and v5.15 still dequeue, put,
// enqueue and set the task (do_set_cpus_allowed / __do_set_cpus_allowed), which
// restarts its slice (regressions/affinity_restarts_slice.scn): a, running
// from 12 ms, has run only 1 ms of the new slice at the 18 ms tick, under
// min_granularity, and runs on to 19 ms. v3.10 only copies the mask. An
// unchanged mask returns at once in every era.
TEST(FidelityAffinity, ANewMaskRestartsTheSliceFromV44) {
  const std::string text = regression("affinity_restarts_slice.scn");
  EXPECT_EQ(run_end_through(*run(text), "a", 12 * kMs), 19 * kMs);
  EXPECT_EQ(run_end_through(*run(replace(text, "kernel v5.15", "kernel v4.4")), "a", 12 * kMs), 19 * kMs);
  const auto v310 = run(replace(replace(text, "kernel v5.15", "kernel v3.10"), "at 17ms", "at 20ms"));
  EXPECT_EQ(run_end_through(*v310, "a", 14 * kMs), 21 * kMs);  // as without the op
  for (const char* k : kProfiles) {
    const std::string kernel = std::string("kernel ") + k;
    const std::string same = replace(replace(text, "kernel v5.15", kernel), "affinity a 0-1", "affinity a 0");
    const std::string none = replace(replace(text, "kernel v5.15", kernel), "at 17ms affinity a 0-1\n", "");
    EXPECT_EQ(perf_sched_switch_lines(*run(same)), perf_sched_switch_lines(*run(none))) << k;
  }
}

// A queued task that may no longer run on its CPU moves at once, but v3.10's
// set_cpus_allowed_ptr sends every queued task through the stopper
// (`if (p->on_rq) stop_one_cpu(...)`): on CPU 0, r runs and t waits; at
// 1.5 ms t's mask becomes CPU 1. v3.10: migration/0 preempts r
// (r>migration/0, migration/0>r), so r's slice starts again; v4.4 and v5.15
// (move_queued_task) leave r running.
TEST(FidelityAffinity, AWaitingTaskLeavesThroughTheStopperInV310) {
  for (const char* k : kProfiles) {
    const auto sim = run(std::string("kernel ") + k +
                         "\ntopology cores=2\ntask r run=busy cpus=0\ntask t run=busy cpus=0\n"
                         "at 1500us affinity t 1\nrun 3ms\n");
    const bool v310 = std::string(k) == "v3.10";
    ASSERT_EQ(sim->tasks()[sim->task_index("t")].cpu, CpuId(1)) << k;
    EXPECT_EQ(switches_at(*sim, 1500 * kUs), v310 ? (Switches{"r>migration/0", "migration/0>r"}) : Switches{}) << k;
    const SchedEntity& r = sim->entities()[sim->tasks()[sim->task_index("r")].se];
    EXPECT_EQ(r.prev_sum_exec_runtime, v310 ? 1500 * kUs : 0u) << k;
  }
}

// A sleeping task's group move: v4.4+'s detach_task_cfs_rq first places it
// on its old cfs_rq (place_entity(cfs_rq, se, 0)), so its lag behind
// min_vruntime is at most latency / 2 after the move (GENTLE_FAIR_SLEEPERS);
// v3.10's task_move_group_fair keeps the whole lag. s runs 1 ms and sleeps
// while b runs on: at 50 ms s is ~49 ms of vruntime behind when it moves.
TEST(FidelityGroupMove, ASleepersLagIsCappedAtTheMoveFromV44) {
  for (const char* k : kProfiles) {
    Sim sim(parse(std::string("kernel ") + k +
                  "\ngroup /g shares=1024\ntask b run=busy\ntask s run=1ms sleep=100ms\nat 50ms move s /g\nrun 60ms\n"));
    sim.run_to(50 * kMs + kUs);
    const Sched& st = sim.sched();
    const SchedEntity& e = st.se[st.tasks[sim.task_index("s")].se];
    ASSERT_EQ(st.tasks[sim.task_index("s")].state, TaskState::sleeping) << k;
    const auto lag = static_cast<int64_t>(st.cfs[e.cfs_rq].min_vruntime - e.vruntime);
    if (std::string(k) == "v3.10") EXPECT_GT(lag, static_cast<int64_t>(40 * kMs)) << k;
    else EXPECT_EQ(lag, static_cast<int64_t>(st.tun.latency_ns / 2)) << k;
  }
}

// v3.10's cgroup_exit puts an exiting task in the root cgroup and
// cpu_cgroup_exit moves it there while it still runs, so its last dequeue
// leaves its blocked load on the root cfs_rq, not its group's (feature
// exit_moves_to_root; cpu_cgroup_exit is gone by v4.4).
TEST(FidelityGroupMove, AnExitingTaskLeavesFromTheRootGroupInV310) {
  for (const bool on : {true, false}) {
    Sim sim(parse(std::string("kernel v3.10\nfeature exit_moves_to_root=") + (on ? "on" : "off") +
                  "\ngroup /g\ntask a group=/g run=3ms\ntask b group=/g run=busy\nrun 20ms\n"));
    sim.run();
    const Sched& st = sim.sched();
    const TaskId a = sim.task_index("a");
    ASSERT_EQ(st.tasks[a].state, TaskState::exited);
    const CfsRq& group = st.cfs[st.tg[sim.group_index("/g")].cfs_rq[CpuId(0)]];
    const CfsRq& root = st.cfs[st.rq[CpuId(0)].cfs];
    EXPECT_EQ(st.tasks[a].group, on ? kRootGroup : sim.group_index("/g"));
    EXPECT_EQ(group.pelt.v3.blocked_load_avg == 0, on) << on;
    EXPECT_EQ(root.pelt.v3.blocked_load_avg > 0, on) << on;
  }
}

// ---- tunables ------------------------------------------------------------

// `scaling` is a boot-time setting: the kernel's tunable_scaling write only
// recomputes sched_nr_latency and the normalised values; latency and the
// granularities are rescaled at the next rq_online (update_sysctl). So the
// order of `set` lines does not matter for it, and no other write is undone.
TEST(FidelityTunables, ScalingIsABootTimeSetting) {
  for (const char* k : kProfiles) {
    const std::string head = std::string("kernel ") + k + "\ntopology cores=2\n";
    const auto before = run(head + "set latency=24ms\nset scaling=none\nrun 1ms\n");
    const auto after = run(head + "set scaling=none\nset latency=24ms\nrun 1ms\n");
    EXPECT_EQ(before->tunables(), after->tunables()) << k;
    EXPECT_EQ(before->tunables().latency_ns, 24 * kMs) << k;
    EXPECT_EQ(before->tunables().min_granularity_ns, 750 * kUs) << k;  // not scaled for 2 CPUs
    EXPECT_EQ(before->tunables().wakeup_granularity_ns, 1 * kMs) << k;
    // sched_proc_update_handler (v3.10, v4.4) recomputes nr_latency; v5.15's debugfs write does not.
    EXPECT_EQ(before->tunables().nr_latency, std::string(k) == "v5.15" ? 8u : 32u) << k;
  }
  // The 2-CPU log scaling of v3.10 is gone, and the min_granularity write stays as written.
  const auto v310 = run("kernel v3.10\ntopology cores=2\nset min_granularity=2.25ms\nset scaling=none\n"
                        "task a cpus=0\ntask b cpus=0\nrun 40ms\n");
  EXPECT_EQ(v310->tunables().min_granularity_ns, 2250 * kUs);
  EXPECT_EQ(v310->tunables().latency_ns, 6 * kMs);
  // Two busy tasks share 6 ms of latency: v3.10 switches every 3 ms (+1 tick of lag).
  EXPECT_EQ(run_end_through(*v310, "a", 0), 4 * kMs);
}

// ---- fork ----------------------------------------------------------------

// task_fork_fair places the child on the parent's cfs_rq, from the parent's
// curr vruntime (regressions/fork_from_running_parent.scn): p, nice 10, runs
// far ahead of q in vruntime when it forks c at 25.4 ms, so c waits on CPU 1
// until 38 ms. Without parent=, the child is placed against its own cfs_rq on
// CPU 1, one vslice (6 ms) behind x, and first runs at 32 ms.
TEST(FidelityFork, TheChildStartsFromItsRunningParentsVruntime) {
  const std::string text = regression("fork_from_running_parent.scn");
  EXPECT_EQ(first_run(*run(text), "c"), 38 * kMs);
  EXPECT_EQ(first_run(*run(replace(text, " parent=p", "")), "c"), 32 * kMs);
}

// Without group=, a child is in its parent's group; group= names another
// (clone3's CLONE_INTO_CGROUP). Seen in the CPU shares: r alone at the root
// against /g's p and c gets 1/2; against /g's p and a root c, 1/3.
TEST(FidelityFork, TheChildIsInItsParentsGroupUnlessGroupSaysOtherwise) {
  for (const char* k : kProfiles) {
    const std::string head = std::string("kernel ") + k + "\ngroup /g\ntask p group=/g\ntask r\n";
    const auto inherit = run(head + "at 1ms spawn c parent=p\nrun 3s\n");
    const auto root = run(head + "at 1ms spawn c parent=p group=/\nrun 3s\n");
    auto share = [](const Sim& sim, const std::string& t) {
      return double(sim.cpu_time(sim.task_index(t))) / double(sim.now());
    };
    EXPECT_NEAR(share(*inherit, "r"), 0.5, 0.01) << k;
    EXPECT_NEAR(share(*inherit, "c"), 0.25, 0.01) << k;
    EXPECT_NEAR(share(*root, "r"), 1.0 / 3, 0.01) << k;
    EXPECT_NEAR(share(*root, "c"), 1.0 / 3, 0.01) << k;
  }
}

// A task forks only while it runs: a spawn whose parent waits (or sleeps)
// happens when the parent next runs. At 13.4 ms q runs on CPU 0 and p waits
// until 24 ms.
TEST(FidelityFork, ASpawnWaitsForItsParentToRun) {
  Sim sim(parse(replace(regression("fork_from_running_parent.scn"), "at 25.4ms", "at 13.4ms")),
          SimOptions{.record_trace = true});
  const TimedOp& spawn = sim.scenario().ops.front();
  sim.run_until(spawn.at);
  ASSERT_EQ(sim.apply(spawn.op), ApplyResult::applied);
  sim.run_until(24 * kMs - 1);
  EXPECT_FALSE(sim.task_index("c")) << "forked before its parent ran";
  sim.run_until(24 * kMs);
  ASSERT_TRUE(sim.task_index("c")) << "not forked when its parent ran";
  EXPECT_EQ(run_end_through(sim, "q", 13 * kMs), 24 * kMs);
  EXPECT_EQ(switches_at(sim, 24 * kMs), (Switches{"q>p"}));
  // A parent that has exited forks nothing: the op is rejected.
  Sim gone(parse("task p run=1ms\nat 5ms spawn c parent=p\nrun 10ms\n"));
  gone.run();
  EXPECT_EQ(gone.counters().ops_rejected, 1u);
  EXPECT_FALSE(gone.task_index("c"));
}

// ---- blocking ------------------------------------------------------------

// Only a running task can block: a sleep or exit op on a waiting task takes
// effect when it next runs (regressions/block_only_while_running.scn), a zero
// -length run ending in prev_state S or X. A wake before then cancels the
// sleep: the task stays queued and is checked for preemption.
TEST(FidelityBlocking, SleepAndExitOfAWaitingTaskWaitForItsNextRun) {
  const auto sim = run(regression("block_only_while_running.scn"));
  EXPECT_EQ(switches_at(*sim, 1500 * kUs), (Switches{"a>d"}));
  EXPECT_EQ(switches_at(*sim, 3 * kMs), (Switches{"d>b", "b>c/S", "c>a/X"}));
  EXPECT_GE(first_run(*sim, "b"), 20 * kMs);  // after its wake
  EXPECT_TRUE(runs(*sim, "c").empty());
  for (const SwitchEvent& s : sim->trace().switches)
    EXPECT_FALSE(s.prev == sim->task_index("d") && s.prev_state != TaskState::runnable) << "d slept";
}

}  // namespace
}  // namespace cfsv
