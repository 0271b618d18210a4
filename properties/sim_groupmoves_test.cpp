// Group moves, cgroup lifecycle and autogroup (model/cgroup.h): the scenario
// ops `cgroup destroy`, `setsid` and `autogroup nice`, the exit path through
// sched_autogroup_exit_task, the sched_move_task counters, and random
// cgroup/autogroup op sequences under the invariants.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "model/arith/weights.h"
#include "model/scenario_text.h"
#include "model/sim.h"
#include "properties/generators.h"
#include "properties/scenario_test_util.h"
#include "properties/sim_test_util.h"

namespace cfsv {
namespace {

using simtest::basic;
using simtest::task;
constexpr Nanos kMs = 1'000'000;

// CONFIG_SCHED_AUTOGROUP built in, the sysctl as given.
Scenario autogroup_scenario(unsigned cpus, bool sysctl = true) {
  Scenario sc = basic("v5.15", cpus);
  sc.feature_overrides = {{Feature::sched_autogroup, true}};
  sc.settings = {{"autogroup", sysctl ? 1u : 0u}};
  sc.duration = 100 * kMs;
  return sc;
}

const TaskGroup& group_of(const Sim& sim, std::string_view task) {
  return sim.groups()[sim.tasks()[sim.task_index(task)].group];
}

TEST(GroupOpsText, ParseAndPrintRoundTripTheNewOps) {
  const std::string text =
      "kernel v5.15\ntopology sockets=1 cores=2 threads=1\nset autogroup=0\nfeature sched_autogroup=on\n"
      "group /a shares=1024\ntask t group=/ nice=0 run=busy\n"
      "at 1ms setsid t\nat 2ms autogroup nice t -3\nat 3ms cgroup destroy /a\nrun 10ms\n";
  const Scenario s = scenario_test::parse_ok(text);
  ASSERT_EQ(s.ops.size(), 3u);
  EXPECT_EQ(s.ops[0].op, Op(op::Setsid{"t"}));
  EXPECT_EQ(s.ops[1].op, Op(op::AutogroupNice{"t", -3}));
  EXPECT_EQ(s.ops[2].op, Op(op::DestroyGroup{"/a"}));
  EXPECT_EQ(s.settings, (std::vector<Setting>{{"autogroup", 0}}));
  EXPECT_EQ(print_scenario(s), text);
}

TEST(GroupOpsText, AGroupMayBeMadeAgainAfterItIsDestroyed) {
  const Scenario s = scenario_test::parse_ok(
      "group /a\nat 1ms cgroup destroy /a\nat 2ms group /a weight=50\nat 3ms spawn t group=/a\nrun 5ms\n");
  EXPECT_EQ(s.ops.size(), 3u);
}

TEST(Autogroup, SetsidMovesARootCgroupTaskIntoANewAutogroupAndItsChildrenFollow) {
  Scenario sc = autogroup_scenario(2);
  sc.tasks = {task("sh")};
  sc.ops = {{1 * kMs, op::Setsid{"sh"}, {}},
            {2 * kMs, op::Spawn{[] {
                        TaskSpec c = task("child", 0, "", RunPeriodic{kMs, std::nullopt});
                        c.parent = "sh";
                        return c;
                      }()},
             {}},
            {3 * kMs, op::AutogroupNice{"sh", 5}, {}}};
  Sim sim(sc);
  sim.run_to(2 * kMs);
  EXPECT_EQ(group_of(sim, "sh").path, "/autogroup-1");
  EXPECT_TRUE(group_of(sim, "sh").autogroup);
  EXPECT_EQ(group_of(sim, "child").path, "/autogroup-1");
  EXPECT_EQ(sim.counters().move_task_calls, 1u);  // setsid's; the child was forked into the autogroup
  sim.run_to(3 * kMs);
  EXPECT_EQ(group_of(sim, "sh").shares, scale_load<uint64_t>(nice_to_weight(5), sim.sched().res));
  sim.run_to(10 * kMs);  // the child ran its 1 ms and exited: back to the root group first
  EXPECT_EQ(sim.tasks()[sim.task_index("child")].state, TaskState::exited);
  EXPECT_EQ(sim.counters().move_task_calls, 2u);
  EXPECT_EQ(sim.counters().move_task_same_group, 0u);
  EXPECT_EQ(sim.groups()[sim.tasks()[sim.task_index("child")].group].path, "/");
  EXPECT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
}

TEST(Autogroup, ATaskOutsideTheRootCgroupStaysInItsCgroupAfterSetsid) {
  Scenario sc = autogroup_scenario(1);
  sc.groups = {{"/user.slice", 1024}};
  sc.tasks = {task("sh", 0, "/user.slice")};
  sc.ops = {{1 * kMs, op::Setsid{"sh"}, {}}};
  Sim sim(sc);
  sim.run_to(2 * kMs);
  EXPECT_EQ(group_of(sim, "sh").path, "/user.slice");
  EXPECT_EQ(sim.counters().move_task_calls, 1u);
  EXPECT_EQ(sim.counters().move_task_same_group, 1u);
  EXPECT_EQ(sim.counters().move_task_requeues, 1u);  // move_task_skip_same_group is off in v5.15
}

TEST(Autogroup, WithTheSysctlOffSetsidMakesAnAutogroupThatNoTaskUses) {
  Scenario sc = autogroup_scenario(1, false);
  sc.tasks = {task("sh")};
  sc.ops = {{1 * kMs, op::Setsid{"sh"}, {}}, {2 * kMs, op::AutogroupNice{"sh", -5}, {}}};
  Sim sim(sc);
  sim.run();
  EXPECT_EQ(group_of(sim, "sh").path, "/");
  EXPECT_EQ(sim.groups().size(), 2u);  // the root and the unused autogroup
  EXPECT_EQ(sim.counters().ops_rejected, 0u);
  EXPECT_EQ(sim.counters().move_task_same_group, 1u);
}

TEST(Autogroup, WithoutConfigSchedAutogroupSetsidDoesNothingAndAutogroupNiceIsRefused) {
  Scenario sc = autogroup_scenario(1);
  sc.feature_overrides = {};
  sc.tasks = {task("sh")};
  sc.ops = {{1 * kMs, op::Setsid{"sh"}, {}}, {2 * kMs, op::AutogroupNice{"sh", 1}, {}}};
  Sim sim(sc);
  sim.run();
  EXPECT_EQ(sim.groups().size(), 1u);
  EXPECT_EQ(sim.counters().move_task_calls, 0u);
  ASSERT_EQ(sim.rejected_ops().size(), 1u);
  EXPECT_NE(sim.rejected_ops()[0].reason.find("CONFIG_SCHED_AUTOGROUP"), std::string::npos);
}

TEST(Autogroup, ASecondSetsidIsRefusedWithEperm) {
  Scenario sc = autogroup_scenario(1);
  sc.tasks = {task("sh")};
  sc.ops = {{1 * kMs, op::Setsid{"sh"}, {}}, {2 * kMs, op::Setsid{"sh"}, {}}};
  Sim sim(sc);
  sim.run();
  ASSERT_EQ(sim.rejected_ops().size(), 1u);
  EXPECT_EQ(sim.rejected_ops()[0].reason, "task 'sh' already leads a session (EPERM)");
  EXPECT_EQ(sim.groups().size(), 2u);
}

// Every exit goes through sched_autogroup_exit_task when CONFIG_SCHED_AUTOGROUP
// is built in; seed 001's skip then returns from each one whose group is the
// task's cgroup's already.
TEST(ExitPath, EveryExitCallsSchedMoveTaskWithConfigSchedAutogroupAndTheSkipTakesTheSameGroupOnes) {
  for (const bool config : {false, true})
    for (const bool skip : {false, true}) {
      Scenario sc = autogroup_scenario(2);
      sc.feature_overrides = {{Feature::sched_autogroup, config}, {Feature::move_task_skip_same_group, skip}};
      sc.groups = {{"/user.slice", 1024}};
      sc.tasks = {task("sh", 0, "/user.slice")};
      for (int i = 0; i < 20; ++i) {
        TaskSpec c = task("c" + std::to_string(i), 0, "", RunPeriodic{200'000, std::nullopt});
        c.parent = "sh";
        sc.ops.push_back({static_cast<Nanos>(i + 1) * 300'000, op::Spawn{c}, {}});
      }
      Sim sim(sc);
      sim.run();
      const Counters& k = sim.counters();
      SCOPED_TRACE(testing::Message() << "config " << config << " skip " << skip);
      EXPECT_EQ(k.exits, 20u);
      EXPECT_EQ(k.move_task_calls, config ? k.exits : 0u);
      EXPECT_EQ(k.move_task_same_group, k.move_task_calls);
      EXPECT_EQ(k.move_task_skips, skip ? k.move_task_calls : 0u);
      EXPECT_EQ(k.move_task_requeues, skip ? 0u : k.move_task_calls);  // each exits while it runs: queued
      EXPECT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
    }
}

TEST(Autogroup, AnAutogroupIsDestroyedWithTheLastTaskOfItsSession) {
  Scenario sc = autogroup_scenario(2);
  sc.tasks = {task("s", 0, "/", RunPeriodic{5 * kMs, std::nullopt})};
  sc.ops = {{1 * kMs, op::Setsid{"s"}, {}}};
  Sim sim(sc);
  sim.run();
  ASSERT_EQ(sim.groups().size(), 2u);
  EXPECT_TRUE(sim.groups()[GroupId(1)].dead);
  EXPECT_EQ(sim.tasks()[sim.task_index("s")].state, TaskState::exited);
  EXPECT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
}

TEST(CgroupDestroy, IsRefusedWhileTheGroupHasLiveTasksAndSucceedsOnceTheyLeft) {
  Scenario sc = basic("v5.15", 2);
  sc.groups = {{"/a", 1024}};
  sc.tasks = {task("t", 0, "/a")};
  sc.ops = {{1 * kMs, op::DestroyGroup{"/a"}, {}},
            {2 * kMs, op::MoveTask{"t", "/"}, {}},
            {3 * kMs, op::DestroyGroup{"/a"}, {}},
            {4 * kMs, op::MoveTask{"t", "/a"}, {}}};
  sc.duration = 10 * kMs;
  Sim sim(sc);
  sim.run();
  ASSERT_EQ(sim.rejected_ops().size(), 2u);
  EXPECT_EQ(sim.rejected_ops()[0].reason, "group '/a' has 1 live task(s) (EBUSY)");
  EXPECT_EQ(sim.rejected_ops()[1].reason, "no group '/a'");
  EXPECT_TRUE(sim.groups()[GroupId(1)].dead);
  EXPECT_EQ(group_of(sim, "t").path, "/");
  EXPECT_TRUE(sim.checker()->ok()) << sim.checker()->violations().front().to_string();
}

// Per CPU: the tasks queued and the sum of their weights.
std::map<unsigned, std::pair<unsigned, uint64_t>> queued_per_cpu(const Sim& sim) {
  std::map<unsigned, std::pair<unsigned, uint64_t>> m;
  for (const Task& t : sim.tasks())
    if (task_on_rq_queued(t)) {
      auto& [n, w] = m[t.cpu.index()];
      n++, w += sim.sched().se[t.se].load.weight;
    }
  return m;
}

// A random op of the group vocabulary (moves, setsid, autogroup nice, cgroup
// create/destroy, forks, exits, time), naming tasks t0..t5 and groups /a, /a/b, /c.
rc::Gen<Op> gen_group_op(int i) {
  static const std::vector<std::string> kGroups = {"/", "/a", "/a/b", "/c"};
  return rc::gen::exec([i]() -> Op {
    const std::string t = "t" + std::to_string(*properties::gen_uniform(0, 5));
    const std::string g = kGroups[*properties::gen_uniform(0, kGroups.size() - 1)];
    switch (*properties::gen_uniform(0, 7)) {
      case 0: return op::MoveTask{t, g};
      case 1: return op::Setsid{t};
      case 2: return op::AutogroupNice{t, *properties::gen_nice()};
      case 3: return op::DestroyGroup{g};
      case 4: return op::CreateGroup{{g, 1024}};
      case 5: {
        TaskSpec c = task("f" + std::to_string(i), 0, "", RunPeriodic{*properties::gen_uniform(1, 3) * kMs, std::nullopt});
        c.parent = t;
        return op::Spawn{c};
      }
      case 6: return op::Exit{t};
      default: return op::Advance{*properties::gen_uniform(1, 4 * kMs)};
    }
  });
}

// Random cgroup and autogroup op sequences keep every invariant, and a move
// (a cgroup write or a setsid) keeps each CPU's queued tasks and their weights.
RC_GTEST_PROP(GroupMoves, RandomCgroupAndAutogroupOpsKeepTheInvariantsAndAMoveKeepsEachCpusTasks, ()) {
  Scenario sc = autogroup_scenario(*properties::gen_uniform(1, 3), *rc::gen::arbitrary<bool>());
  sc.feature_overrides.emplace_back(Feature::move_task_skip_same_group, *rc::gen::arbitrary<bool>());
  sc.groups = {{"/a", 1024}, {"/a/b", 512}, {"/c", 2048}};
  for (int i = 0; i < 6; ++i) {
    static const std::vector<std::string> kGroups = {"/", "/a", "/a/b", "/c"};
    sc.tasks.push_back(task("t" + std::to_string(i), 0, kGroups[*properties::gen_uniform(0, 3)],
                            *rc::gen::arbitrary<bool>() ? Behaviour{RunBusy{}} : Behaviour{RunPeriodic{kMs, 2 * kMs}}));
  }
  Sim sim(sc);
  const int n = *properties::gen_uniform(1, 40);
  for (int i = 0; i < n; ++i) {
    const Op o = *gen_group_op(i);
    const bool move = std::holds_alternative<op::MoveTask>(o) || std::holds_alternative<op::Setsid>(o);
    const auto before = queued_per_cpu(sim);
    sim.apply(o);
    RC_ASSERT(sim.checker()->ok());
    if (move) RC_ASSERT(queued_per_cpu(sim) == before);
  }
  sim.run_until(sim.now() + 10 * kMs);
  RC_ASSERT(sim.checker()->ok());
}

// A move into another group and back restores the task's group and every
// CPU's queued tasks and weights.
RC_GTEST_PROP(GroupMoves, AMoveIntoAnotherGroupAndBackRestoresMembershipAndCounts, ()) {
  Scenario sc = autogroup_scenario(*properties::gen_uniform(1, 3), *rc::gen::arbitrary<bool>());
  sc.groups = {{"/a", 1024}, {"/b", 100}};
  for (int i = 0; i < 4; ++i) sc.tasks.push_back(task("t" + std::to_string(i), 0, i % 2 ? "/a" : "/"));
  Sim sim(sc);
  sim.run_until(*properties::gen_uniform(0, 20 * kMs));
  const std::string t = "t" + std::to_string(*properties::gen_uniform(0, 3));
  const TaskId id = sim.task_index(t);
  const std::string home = sim.groups()[sim.tasks()[id].cgroup].path;
  const GroupId group = sim.tasks()[id].group;
  const auto before = queued_per_cpu(sim);
  RC_ASSERT(sim.apply(op::MoveTask{t, *rc::gen::element<std::string>("/", "/a", "/b")}) == ApplyResult::applied);
  RC_ASSERT(sim.apply(op::MoveTask{t, home}) == ApplyResult::applied);
  RC_ASSERT(sim.tasks()[id].group == group);
  RC_ASSERT(queued_per_cpu(sim) == before);
  RC_ASSERT(sim.checker()->ok());
}

}  // namespace
}  // namespace cfsv
