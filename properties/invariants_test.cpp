// The invariant registry (model/invariants.h): every invariant catches a state
// broken the way it forbids, and SimOptions::check_every checks after every
// Nth step, still catching a broken state.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "model/invariants.h"
#include "model/sim.h"
#include "properties/sim_test_util.h"
#include "properties/source_text.h"

namespace cfsv {
namespace {

using simtest::basic;
using simtest::cpus;
using simtest::task;
constexpr Nanos kMs = 1'000'000;
const CpuId kCpu0(0), kCpu1(1);

// At 10 ms: CPU 0 runs a or b of /g, the other waits in /g's timeline; CPU 1
// runs c; z ran its 1 ms on CPU 1 and sleeps; /d was destroyed at 5 ms.
Scenario two_cpus(std::string kernel = "v5.15") {
  Scenario sc = basic(std::move(kernel), 2);
  sc.groups = {{"/g", 1024}, {"/d", 1024}};
  sc.ops = {{5 * kMs, op::DestroyGroup{"/d"}, {}}};  // applied by run_to, not by run_until
  sc.duration = 200 * kMs;
  sc.tasks = {task("a", 0, "/g"), task("b", 0, "/g"), task("c"), task("z", 0, "/", RunPeriodic{kMs, Nanos{100 * kMs}})};
  sc.tasks[0].cpus = sc.tasks[1].cpus = cpus({0});
  sc.tasks[2].cpus = sc.tasks[3].cpus = cpus({1});
  return sc;
}

std::size_t index_of(std::string_view name) {
  const auto all = all_invariants();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].name == name) return i;
  ADD_FAILURE() << "no invariant " << name;
  return 0;
}

// A state broken the way `invariant` forbids, on `cpu`'s objects.
struct Corruption {
  std::string_view invariant;
  CpuId cpu;
  std::function<void(Sim&)> apply;
  std::string_view kernel = "v5.15";  // the profile of two_cpus() (an era's own invariant)
};

// One per invariant, on two_cpus() (or two_cpus_with_sleepers()) at 10 ms.
std::vector<Corruption> corruptions() {
  const auto g0 = [](const Sim& sim) { return sim.groups()[sim.group_index("/g")].cfs_rq[kCpu0]; };
  const auto root = [](const Sim& sim, CpuId c) { return sim.rqs()[c].cfs; };
  // The /g task that waits on CPU 0 (the other one runs).
  const auto waiting = [](const Sim& sim) {
    const TaskId a = sim.task_index("a");
    return sim.tasks()[sim.rqs()[kCpu0].curr == a ? sim.task_index("b") : a].se;
  };
  const auto se_of = [](const Sim& sim, std::string_view task) { return sim.tasks()[sim.task_index(task)].se; };
  return {
      {"load-equals-sum", kCpu0, [=](Sim& sim) { sim.mutable_cfs_rq(g0(sim)).load_weight += 1; }},
      {"nr-running-consistent", kCpu0, [=](Sim& sim) { sim.mutable_cfs_rq(root(sim, kCpu0)).h_nr_running += 1; }},
      {"nr-running-consistent", kCpu0,
       [=](Sim& sim) { sim.mutable_cfs_rq(root(sim, kCpu0)).idle_h_nr_running += 1; }},  // a SCHED_IDLE miscount
      {"nr-running-consistent", kCpu0,
       [=](Sim& sim) { sim.mutable_cfs_rq(g0(sim)).idle_nr_running += 1; }},  // an idle entity miscounted
      {"min-vruntime-monotonic", kCpu1, [=](Sim& sim) { sim.mutable_cfs_rq(root(sim, kCpu1)).min_vruntime -= 5; }},
      {"curr-not-in-timeline", kCpu0,
       [=](Sim& sim) { sim.mutable_entity(sim.cfs_rqs()[g0(sim)].curr).in_timeline = true; }},
      {"runnable-queued-once", kCpu0, [=](Sim& sim) { sim.mutable_entity(waiting(sim)).on_rq = false; }},
      {"sleeping-not-queued", kCpu1, [=](Sim& sim) { sim.mutable_entity(se_of(sim, "z")).on_rq = true; }},
      {"timeline-order", kCpu0, [=](Sim& sim) { sim.mutable_entity(waiting(sim)).vruntime += 1; }},
      {"group-entity-queued-iff-busy", kCpu1,
       [=](Sim& sim) { sim.mutable_entity(sim.groups()[sim.group_index("/g")].se[kCpu1]).on_rq = true; }},
      {"curr-chain", kCpu0, [=](Sim& sim) { sim.mutable_cfs_rq(g0(sim)).curr = EntityId{}; }},
      {"pelt-util-avg-bound", kCpu0, [=](Sim& sim) { sim.mutable_entity(waiting(sim)).pelt.avg.util_avg = 1026; }},
      {"pelt-runnable-avg-bound", kCpu1,
       [=](Sim& sim) { sim.mutable_entity(se_of(sim, "c")).pelt.avg.runnable_avg = 2048; }},
      {"pelt-load-avg-bound", kCpu0, [=](Sim& sim) { sim.mutable_entity(waiting(sim)).pelt.avg.load_avg = 1025; }},
      {"group-shares-bound", kCpu0,
       [=](Sim& sim) { sim.mutable_entity(sim.groups()[sim.group_index("/g")].se[kCpu0]).load.weight = 1; }},
      {"pelt-attached-once", kCpu1, [=](Sim& sim) { sim.mutable_entity(se_of(sim, "z")).pelt.attached = CfsRqId{}; }},
      {"pelt-removed-once", kCpu0, [=](Sim& sim) { sim.mutable_cfs_rq(g0(sim)).pelt.removals_applied += 1; }},
      {"tg-load-avg-sum", kCpu0, [=](Sim& sim) { sim.mutable_cfs_rq(g0(sim)).pelt.tg_load_avg_contrib += 7; }},
      {"cfs-tasks-list", kCpu1, [=](Sim& sim) { sim.mutable_task(sim.task_index("c")).lb_next = sim.task_index("c"); }},
      {"util-est-sum", kCpu1, [=](Sim& sim) { sim.mutable_cfs_rq(root(sim, kCpu1)).pelt.util_est_enqueued += 3; }},
      {"destroyed-group-unreferenced", kCpu0,
       [=](Sim& sim) {
         for (const GroupId g : sim.groups().ids())
           if (sim.groups()[g].path == "/d") sim.mutable_task(sim.task_index("a")).autogroup = g;
       }},
      {"task-in-its-group", kCpu0, [=](Sim& sim) { sim.mutable_task(sim.task_index("a")).cgroup = kRootGroup; }},
      {"leaf-list", kCpu0, [=](Sim& sim) { sim.mutable_cfs_rq(g0(sim)).pelt.on_list = false; }, "v3.10"},
  };
}

TEST(Invariants, EachOneCatchesTheStateItForbids) {
  std::set<std::string_view> covered;
  for (const Corruption& c : corruptions()) {
    Sim sim(two_cpus(std::string(c.kernel)));
    sim.run_to(10 * kMs);
    ASSERT_TRUE(sim.check_now()) << sim.checker()->violations().front().to_string();
    ASSERT_EQ(sim.tasks()[sim.task_index("z")].state, TaskState::sleeping);
    c.apply(sim);
    EXPECT_FALSE(sim.check_now("corrupt")) << c.invariant;
    EXPECT_GT(sim.checker()->per_invariant()[index_of(c.invariant)], 0u) << c.invariant;
    covered.insert(c.invariant);
  }
  EXPECT_EQ(covered.size(), all_invariants().size()) << "an invariant without a case here";
}

// two_cpus() with a task on each CPU that sleeps from 10 ms to 100 ms: a
// renice of one touches its CPU and nothing a corruption above changed.
Scenario two_cpus_with_sleepers(std::string kernel) {
  Scenario sc = two_cpus(std::move(kernel));
  for (const auto& [name, cpu] : {std::pair{"y", 0u}, std::pair{"x", 1u}}) {
    sc.tasks.push_back(task(name, 0, "/", RunPeriodic{kMs, Nanos{100 * kMs}}));
    sc.tasks.back().cpus = cpus({cpu});
  }
  return sc;
}

// A check of the touched CPUs only (full_check_every > 1; the census and the
// whole-state sums then look at those CPUs' cfs_rqs alone) sees each
// corruption once a step touched its CPU, and not while the steps touched
// only the other CPU.
TEST(Invariants, TouchedChecksCatchEachCorruptionOnItsCpu) {
  for (const Corruption& c : corruptions()) {
    Sim sim(two_cpus_with_sleepers(std::string(c.kernel)), SimOptions{.check_every = 0, .full_check_every = 4});
    sim.run_to(10 * kMs);
    ASSERT_TRUE(sim.check_now()) << sim.checker()->violations().front().to_string();  // 1: everything
    for (const char* t : {"x", "y", "z"}) ASSERT_EQ(sim.tasks()[sim.task_index(t)].state, TaskState::sleeping) << t;
    c.apply(sim);
    const std::size_t inv = index_of(c.invariant);
    const bool on0 = c.cpu == kCpu0;
    ASSERT_EQ(sim.apply(op::SetNice{on0 ? "x" : "y", 1}), ApplyResult::applied);  // the other CPU
    sim.check_touched("other cpu");                                                // 2: that one only
    EXPECT_EQ(sim.checker()->per_invariant()[inv], 0u) << c.invariant << " seen on the other CPU";
    ASSERT_EQ(sim.apply(op::SetNice{on0 ? "y" : "x", 1}), ApplyResult::applied);  // its CPU
    EXPECT_FALSE(sim.check_touched("its cpu")) << c.invariant;                     // 3: that one only
    EXPECT_GT(sim.checker()->per_invariant()[inv], 0u) << c.invariant;
  }
}

// Every invariant has a distinct stable name and a statement.
TEST(Invariants, AreNamed) {
  std::set<std::string_view> names;
  for (const InvariantInfo& i : all_invariants()) {
    EXPECT_FALSE(i.statement.empty());
    EXPECT_TRUE(names.insert(i.name).second) << i.name;
    EXPECT_EQ(invariant_by_name(i.name), &i);
  }
  EXPECT_EQ(invariant_by_name("no-such-invariant"), nullptr);
}

// docs/invariants.md's table has a row for each, in the registry's order.
TEST(Invariants, TheDocsTableHasARowForEachInTheRegistrysOrder) {
  std::istringstream in(testing_files::source_text("docs/invariants.md"));
  ASSERT_FALSE(in.str().empty());
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("| `")) rows.push_back(line.substr(3, line.find('`', 3) - 3));
  std::vector<std::string> names;
  for (const InvariantInfo& i : all_invariants()) names.emplace_back(i.name);
  EXPECT_EQ(rows, names);
}

// check_every N: a check after every Nth step (the set-up, a timed op or an
// event), plus one at the end of run() when its last step was not checked; 0: none.
TEST(Invariants, CheckEveryNthStep) {
  Scenario sc = two_cpus();
  sc.duration = 300 * kMs;
  sc.ops = {{50 * kMs, op::SetNice{"c", 3}, {}}, {120 * kMs, op::MoveTask{"z", "/g"}, {}}};
  uint64_t steps = 0;
  for (const uint64_t n : {1u, 2u, 7u, 64u, 0u}) {
    Sim sim(sc, SimOptions{.check_every = n});
    sim.run();
    ASSERT_TRUE(sim.checker()->ok());
    const uint64_t s = sim.steps();
    EXPECT_EQ(s, sim.counters().events + 2 + 1) << "the events, the two ops and the set-up";
    if (n == 1) steps = s;
    EXPECT_EQ(s, steps) << "checking changed the run, n=" << n;
    const uint64_t want = n == 0 ? 0 : n == 1 ? s : s / n + (s % n != 0);
    EXPECT_EQ(sim.checker()->checks(), want) << "n=" << n;
  }
  EXPECT_GT(steps, 300u);
}

// A broken state is caught at the first checked step after it: the very next
// step with N = 1, the next step whose number is a multiple of N otherwise;
// with N = 0 never. From 10 ms to 20 ms the only steps are the two CPUs'
// ticks, cpu0's first, so step k after the corruption is at 11 + (k - 1) / 2 ms.
TEST(Invariants, CheckEveryNStillCatchesABrokenState) {
  for (const uint64_t n : {1u, 5u, 7u, 0u}) {
    Sim sim(two_cpus(), SimOptions{.check_every = n});
    sim.run_until(10 * kMs);
    const uint64_t before = sim.steps();
    sim.mutable_cfs_rq(sim.rqs()[kCpu1].cfs).h_nr_running += 1;
    sim.run_until(20 * kMs);
    ASSERT_EQ(sim.steps(), before + 20);
    if (n == 0) {
      EXPECT_TRUE(sim.checker()->ok());
      EXPECT_EQ(sim.checker()->checks(), 0u);
      continue;
    }
    ASSERT_FALSE(sim.checker()->ok()) << "n=" << n;
    const Violation& v = sim.checker()->violations().front();
    EXPECT_EQ(v.invariant, "nr-running-consistent");
    const uint64_t k = (before / n + 1) * n - before;  // the first checked step after the corruption
    EXPECT_EQ(v.t, (11 + (k - 1) / 2) * kMs) << "n=" << n;
    EXPECT_EQ(v.step, k % 2 ? "tick cpu0" : "tick cpu1") << "n=" << n;
    if (n == 1) {
      EXPECT_EQ(v.t, 11 * kMs);
    }
  }
}

// A check of what the steps touched (full_check_every > 1) sees a corruption
// on a CPU those steps changed, not one on a CPU they left alone; every Nth
// check and the end of a run look at everything, so that one is caught too.
TEST(Invariants, TouchedChecksSeeTheTouchedCpus) {
  Sim sim(two_cpus(), SimOptions{.check_every = 0, .full_check_every = 4});
  sim.run_until(10 * kMs);
  ASSERT_TRUE(sim.check_now());  // 1: everything
  sim.mutable_cfs_rq(sim.rqs()[kCpu1].cfs).h_nr_running += 1;
  ASSERT_EQ(sim.apply(op::SetNice{"a", 2}), ApplyResult::applied);  // a is on CPU 0
  EXPECT_TRUE(sim.check_touched("nice a"));                         // 2: CPU 0 only
  ASSERT_EQ(sim.apply(op::SetNice{"c", 2}), ApplyResult::applied);  // c is on CPU 1
  EXPECT_FALSE(sim.check_touched("nice c"));                        // 3: CPU 1 only
  ASSERT_EQ(sim.checker()->violations().size(), 1u) << sim.checker()->violations().back().to_string();
  EXPECT_EQ(sim.checker()->violations().front().invariant, "nr-running-consistent");
  EXPECT_EQ(sim.checker()->violations().front().step, "nice c");

  Sim later(two_cpus(), SimOptions{.check_every = 0, .full_check_every = 4});
  later.run_until(10 * kMs);
  ASSERT_TRUE(later.check_now());  // 1
  later.mutable_cfs_rq(later.rqs()[kCpu1].cfs).h_nr_running += 1;
  for (const int nice : {1, 2}) {  // 2, 3: CPU 0 only
    ASSERT_EQ(later.apply(op::SetNice{"a", nice}), ApplyResult::applied);
    EXPECT_TRUE(later.check_touched("nice a"));
  }
  EXPECT_FALSE(later.check_touched("fourth"));  // 4: everything
  EXPECT_EQ(later.checker()->violations().front().step, "fourth");
}

}  // namespace
}  // namespace cfsv
