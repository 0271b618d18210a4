// The simulator's run control: the one rule for rejected ops (listed with
// their line, time and reason), the set-up as one checked step, the stated
// limits, the event limit, the stop flag and the progress callback, and the
// up-front event estimate.
#include <gtest/gtest.h>

#include <atomic>

#include "model/limits.h"
#include "model/scenario_text.h"
#include "model/sim.h"

namespace cfsv {
namespace {

constexpr Nanos kMs = 1'000'000, kSec = 1'000'000'000;

Scenario parse(std::string_view text) {
  ParseResult r = parse_scenario(text, "t.scn");
  if (const auto* e = std::get_if<ParseError>(&r)) {
    ADD_FAILURE() << e->to_string();
    return {};
  }
  return std::get<Scenario>(std::move(r));
}

TaskSpec busy_task(std::string name, std::string group = "/") {
  TaskSpec t;
  t.name = std::move(name);
  t.group = std::move(group);
  return t;
}

// An op that names a task that has exited is rejected, whatever the op; one
// that asks for the state its target already has is applied and does nothing.
TEST(SimRejectedOps, OneRuleForEveryOpListedWithLineTimeAndReason) {
  const Scenario sc = parse(
      "topology cores=2\n"
      "group /g\n"
      "task once run=1ms\n"            // runs 1 ms of CPU time, then exits
      "task busy\n"
      "task napper run=1ms sleep=50ms\n"
      "at 5ms wake once\n"             // line 6
      "at 5ms sleep once\n"
      "at 5ms nice once 3\n"
      "at 5ms affinity once 1\n"
      "at 5ms move once /g\n"
      "at 5ms exit once\n"             // line 11
      "at 6ms wake busy\n"             // running: applied, no effect
      "at 6ms sleep napper\n"          // sleeping: applied, no effect
      "at 7ms exit busy\n"
      "at 8ms wake busy\n"             // line 15: exited by the op above
      "run 10ms\n");
  Sim sim(sc);
  ASSERT_EQ(sim.run(), RunEnd::finished);
  const std::string exited = "task 'once' has exited";
  const std::vector<std::tuple<unsigned, Nanos, std::string, std::string>> want = {
      {6, 5 * kMs, "wake once", exited},         {7, 5 * kMs, "sleep once", exited},
      {8, 5 * kMs, "nice once 3", exited},       {9, 5 * kMs, "affinity once 1", exited},
      {10, 5 * kMs, "move once /g", exited},     {11, 5 * kMs, "exit once", exited},
      {15, 8 * kMs, "wake busy", "task 'busy' has exited"},
  };
  std::vector<std::tuple<unsigned, Nanos, std::string, std::string>> got;
  for (const RejectedOp& r : sim.rejected_ops()) got.emplace_back(r.loc.line, r.t, r.op, r.reason);
  EXPECT_EQ(got, want);
  EXPECT_EQ(sim.counters().ops_rejected, want.size());
  EXPECT_EQ(sim.counters().ops, 4u + 3u);  // the set-up; wake busy, sleep napper (no effect), exit busy
  EXPECT_EQ(sim.last_error(), "wake busy: task 'busy' has exited");
  EXPECT_EQ(sim.tasks()[sim.task_index("napper")].state, TaskState::sleeping);
  EXPECT_TRUE(sim.checker()->ok());
}

TEST(SimRejectedOps, NamesThatNeverExistedAndTheKeptListIsBounded) {
  Scenario sc = parse("task a\nrun 1ms\n");
  Sim sim(sc, SimOptions{.max_rejections = 2});
  EXPECT_EQ(sim.apply(op::Wake{"nobody"}), ApplyResult::rejected);
  EXPECT_EQ(sim.apply(op::MoveTask{"a", "/none"}), ApplyResult::rejected);
  EXPECT_EQ(sim.apply(op::Spawn{busy_task("a")}), ApplyResult::rejected);
  ASSERT_EQ(sim.rejected_ops().size(), 2u);
  EXPECT_EQ(sim.rejected_ops()[0].reason, "no task 'nobody'");
  EXPECT_EQ(sim.rejected_ops()[1].reason, "no group '/none'");
  EXPECT_EQ(sim.rejected_ops()[1].loc.line, 0u);  // applied by hand: no line
  EXPECT_EQ(sim.counters().ops_rejected, 3u);
  EXPECT_EQ(sim.last_error(), "spawn a: task 'a' exists (names are never reused)");
}

// The set-up (time-0 groups and tasks) is one step, checked once, however big.
TEST(SimSetup, IsOneCheckedStep) {
  Scenario sc = parse("topology cores=4\nrun 1ms\n");
  for (int g = 0; g < 50; ++g) sc.groups.push_back({"/g" + std::to_string(g)});
  for (int t = 0; t < 500; ++t) sc.tasks.push_back(busy_task("t" + std::to_string(t), "/g" + std::to_string(t % 50)));
  const Sim sim(sc);
  EXPECT_EQ(sim.steps(), 1u);
  EXPECT_EQ(sim.checker()->checks(), 1u);
  EXPECT_EQ(sim.counters().ops, 550u);
  EXPECT_EQ(sim.tasks().size(), 500u);
  EXPECT_TRUE(sim.checker()->ok());
}

TEST(SimLimits, TasksAndGroupEntitiesBeyondTheLimitsAreRejected) {
  Scenario sc = parse("topology cores=256\nrun 1ms\n");
  Sim sim(sc, SimOptions{.check_every = 0, .record_trace = false});
  const std::size_t groups = kMaxGroupEntities / 256;
  for (std::size_t g = 0; g < groups; ++g)
    ASSERT_EQ(sim.apply(op::CreateGroup{{"/g" + std::to_string(g)}}), ApplyResult::applied) << g;
  EXPECT_EQ(sim.apply(op::CreateGroup{{"/one-more"}}), ApplyResult::rejected);
  EXPECT_EQ(sim.groups().size(), groups + 1);  // and the root
  for (std::size_t t = 0; t < kMaxTasks; ++t)
    ASSERT_EQ(sim.apply(op::Spawn{TaskSpec{"t" + std::to_string(t), "/", 0, {}, RunPeriodic{kMs, std::nullopt}, {}}}),
              ApplyResult::applied);
  EXPECT_EQ(sim.apply(op::Spawn{busy_task("one-more")}), ApplyResult::rejected);
  EXPECT_EQ(sim.last_error(), "spawn one-more: more than 100000 tasks");
}

// Two busy tasks on one CPU: one event per tick (1 ms).
Scenario two_busy(Nanos duration) {
  Scenario sc = parse("task a\ntask b\nrun 1ms\n");
  sc.duration = duration;
  return sc;
}

TEST(SimRunControl, StopsAtTheEventLimitWhereTheLastEventWas) {
  Sim sim(two_busy(kSec), SimOptions{.max_events = 100});
  EXPECT_EQ(sim.run(), RunEnd::event_limit);
  EXPECT_EQ(sim.end(), RunEnd::event_limit);
  EXPECT_EQ(sim.counters().events, 100u);
  EXPECT_EQ(sim.now(), 100 * kMs);
  EXPECT_EQ(sim.cpu_time(sim.task_index("a")) + sim.cpu_time(sim.task_index("b")), 100 * kMs);
  EXPECT_TRUE(sim.checker()->ok());
  Sim unlimited(two_busy(kSec));
  EXPECT_EQ(unlimited.run(), RunEnd::finished);
  EXPECT_EQ(unlimited.now(), kSec);
}

TEST(SimRunControl, ProgressEveryFewEventsAndAStopFlagEndTheRunEarly) {
  std::atomic<bool> stop{false};
  std::vector<uint64_t> seen;  // events at each progress call
  SimOptions opt{.stop = &stop};
  opt.progress = [&](const Sim& s) {
    seen.push_back(s.counters().events);
    if (seen.size() == 2) stop = true;
  };
  Sim sim(two_busy(100 * kSec), opt);
  EXPECT_EQ(sim.run(), RunEnd::interrupted);
  EXPECT_EQ(sim.counters().events, 2 * kProgressEvery);  // the flag is seen before the next event
  EXPECT_EQ(sim.now(), 2 * kProgressEvery * kMs);
  // And once more at the end of run().
  EXPECT_EQ(seen, (std::vector<uint64_t>{kProgressEvery, 2 * kProgressEvery, 2 * kProgressEvery}));
}

TEST(SimRunControl, AStopBeforeTheRunHandlesNoEvent) {
  const std::atomic<bool> stop{true};
  Sim sim(two_busy(kSec), SimOptions{.stop = &stop});
  EXPECT_EQ(sim.run(), RunEnd::interrupted);
  EXPECT_EQ(sim.counters().events, 0u);
  EXPECT_EQ(sim.now(), 0u);
}

TEST(EstimateEvents, TicksWhileBusyPlusBurstsPlusOps) {
  // One busy task: a tick per jiffy for the whole run.
  Scenario one = parse("task a\nrun 1000000000s\n");
  EXPECT_DOUBLE_EQ(estimate_events(one, 1000), 1e12);
  // A tenth busy: 100 ticks a second, and two events per burst (end, wakeup).
  Scenario periodic = parse("task a run=1ms sleep=9ms\nrun 1s\n");
  EXPECT_DOUBLE_EQ(estimate_events(periodic, 1000), 100 + 2 * (100 + 1));
  // Eighty busy tasks pinned to one CPU of four tick on that CPU only.
  Scenario pinned = parse("topology cores=4\nrun 1s\n");
  for (int i = 0; i < 80; ++i) pinned.tasks.push_back({"t" + std::to_string(i), "/", 0, CpuMask().set(3), RunBusy{}, {}});
  EXPECT_DOUBLE_EQ(estimate_events(pinned, 250), 250);
  // A task spawned half way counts half; ops count one each.
  Scenario late = parse("task a at=500ms\nat 600ms nice a 1\nrun 1s\n");
  EXPECT_DOUBLE_EQ(estimate_events(late, 1000), 500 + 2);
}

}  // namespace
}  // namespace cfsv
