// The stated limits of a scenario file (docs/scenario-format.md, "Limits"):
// a sleeping task's minimum period, advances within the run, tasks, groups,
// groups x CPUs, timed ops and the input size; each an error at its line and
// column.
#include <gtest/gtest.h>

#include <functional>

#include "model/scenario_text.h"

namespace cfsv {
namespace {

Scenario ok(std::string_view text) {
  ParseResult r = parse_scenario(text, "t.scn");
  if (const auto* e = std::get_if<ParseError>(&r)) ADD_FAILURE() << e->to_string();
  return std::holds_alternative<Scenario>(r) ? std::get<Scenario>(r) : Scenario{};
}

ParseError error_of(std::string_view text) {
  ParseResult r = parse_scenario(text, "t.scn");
  if (std::holds_alternative<Scenario>(r)) ADD_FAILURE() << "parsed: " << text.substr(0, 200);
  return std::holds_alternative<ParseError>(r) ? std::get<ParseError>(r) : ParseError{};
}

TEST(ScenarioLimits, PeriodsOfAMicrosecondOrOneBurstWithoutSleepAreFine) {
  const Scenario s = ok("task a run=1ns sleep=999ns\ntask b runtime=1us sleep=0\ntask c run=1ns\nrun 1s\n");
  EXPECT_EQ(s.tasks[0].behaviour, Behaviour(RunPeriodic{1, 999}));
  EXPECT_EQ(s.tasks[1].behaviour, Behaviour(RunWallclock{1000, 0}));
  EXPECT_EQ(s.tasks[2].behaviour, Behaviour(RunPeriodic{1, std::nullopt}));
}

TEST(ScenarioLimits, AdvancesMayEndExactlyAtTheEndOfTheRun) {
  const Scenario s = ok("at 0 advance 5ms\nat 5ms advance 5ms\nat 10ms advance 0\nrun 10ms\n");
  EXPECT_EQ(s.ops.size(), 3u);
}

// `count` statements, one per line, then `run 1s`.
std::string lines(std::size_t count, const std::function<std::string(std::size_t)>& statement,
                  const std::string& head = "") {
  std::string text = head;
  for (std::size_t i = 0; i < count; ++i) text += statement(i) + "\n";
  return text + "run 1s\n";
}

TEST(ScenarioLimits, TasksOverAWholeScenario) {
  auto task = [](std::size_t i) { return "task t" + std::to_string(i); };
  EXPECT_EQ(ok(lines(kMaxTasks, task)).tasks.size(), kMaxTasks);
  const ParseError e = error_of(lines(kMaxTasks, task, "at 0 spawn early\n"));
  EXPECT_EQ(e.line, kMaxTasks + 1);
  EXPECT_EQ(e.col, 6u);
  EXPECT_EQ(e.message, "more than 100000 tasks in one scenario");
}

TEST(ScenarioLimits, GroupsAndGroupEntities) {
  auto group = [](std::size_t i) { return "group /g" + std::to_string(i); };
  EXPECT_EQ(ok(lines(kMaxGroups, group)).groups.size(), kMaxGroups);
  const ParseError many = error_of(lines(kMaxGroups, group, "at 0 group /early\n"));
  EXPECT_EQ(many.line, kMaxGroups + 1);
  EXPECT_EQ(many.message, "more than 100000 groups in one scenario");
  // Groups x CPUs: 4096 groups fit on 256 CPUs, the 4097th does not (wherever the topology line is).
  EXPECT_EQ(ok(lines(4096, group, "topology cores=256\n")).groups.size(), 4096u);
  const ParseError e = error_of(lines(4097, group) + "topology sockets=2 cores=128\n");
  EXPECT_EQ(e.line, 4097u);
  EXPECT_EQ(e.col, 7u);
  EXPECT_EQ(e.message, "group 4097 on 256 CPUs makes 1048832 group entities; at most 1048576 (groups x CPUs)");
}

TEST(ScenarioLimits, TimedOps) {
  auto op = [](std::size_t) { return std::string("at 0 nice a 1"); };
  const ParseError e = error_of(lines(kMaxOps + 1, op, "task a\n"));
  EXPECT_EQ(e.line, kMaxOps + 2);
  EXPECT_EQ(e.message, "more than 1000000 timed ops");
}

TEST(ScenarioLimits, InputSize) {
  const std::string big(kMaxInputBytes + 1, '#');
  const ParseError e = error_of(big);
  EXPECT_EQ(e.line, 0u);
  EXPECT_EQ(e.message, "input is larger than 16 MiB");
  EXPECT_EQ(ok(std::string(kMaxInputBytes - 7, '#') + "\nrun 1s").duration, 1'000'000'000u);
  // A file that never ends is read up to the limit, not without bound.
  const auto r = read_scenario_file("/dev/zero");
  ASSERT_TRUE(std::holds_alternative<ParseError>(r));
  EXPECT_EQ(std::get<ParseError>(r).to_string(), "/dev/zero: error: file is larger than 16 MiB");
}

}  // namespace
}  // namespace cfsv
