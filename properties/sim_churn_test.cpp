// Fork/exit churn (`fork= child= children=`, docs/model.md "Fork/exit
// churn"): the same schedule as the explicit `spawn` lines it stands for,
// task slots that do not grow with the children forked, the children's
// figures folded into one row, and determinism.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "fuzz/byte_reader.h"
#include "model/deterministic_random.h"
#include "model/ops_decoder.h"
#include "model/scenario_text.h"
#include "model/sim.h"
#include "model/stats.h"
#include "properties/scenario_test_util.h"

namespace cfsv {
namespace {

using scenario_test::parse_ok;

// A shell in a cgroup forking a child every 100us on 2 CPUs, next to a busy
// task, so that it often waits when a fork is due (the fork is deferred).
std::string head(const std::string& kernel) {
  return "kernel " + kernel +
         "\ntopology sockets=1 cores=2 threads=1\ngroup /user.slice\ntask hog run=busy\n"
         "set autogroup=1\nfeature sched_autogroup=on\n";
}
Scenario churn(const std::string& kernel, unsigned children, const std::string& run = "30ms",
              const std::string& child = "200us") {
  const std::string limit = children ? " children=" + std::to_string(children) : "";
  return parse_ok(head(kernel) + "task sh group=/user.slice run=busy fork=100us child=" + child + limit +
                  "\nat 0 setsid sh\nrun " + run + "\n");
}
Scenario explicit_spawns(const std::string& kernel, unsigned children) {
  std::string text = head(kernel) + "task sh group=/user.slice run=busy\nat 0 setsid sh\n";
  for (unsigned i = 0; i < children; ++i)
    text += "at " + std::to_string(100 * (i + 1)) + "us spawn c" + std::to_string(i) + " parent=sh run=200us\n";
  return parse_ok(text + "run 30ms\n");
}

void expect_same_counters(const Counters& a, const Counters& b) {
  EXPECT_EQ(a.forks, b.forks);
  EXPECT_EQ(a.exits, b.exits);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.context_switches, b.context_switches);
  EXPECT_EQ(a.migrations, b.migrations);
  EXPECT_EQ(a.fork_placements_away, b.fork_placements_away);
  EXPECT_EQ(a.wakeups, b.wakeups);
  EXPECT_EQ(a.move_task_calls, b.move_task_calls);
  EXPECT_EQ(a.move_task_requeues, b.move_task_requeues);
  EXPECT_EQ(a.tg_load_avg_updates, b.tg_load_avg_updates);
}

class ChurnVsSpawns : public ::testing::TestWithParam<const char*> {};

// With the trace recorded no slot is reused, so both runs have the same
// tasks at the same ids: every stretch (task, CPU, start, end) is the same.
TEST_P(ChurnVsSpawns, SameStretchesAndPeltAsTheExplicitSpawnLines) {
  Sim a(churn(GetParam(), 20), {.record_trace = true});
  Sim b(explicit_spawns(GetParam(), 20), {.record_trace = true});
  a.run();
  b.run();
  ASSERT_TRUE(a.checker()->ok());
  ASSERT_TRUE(b.checker()->ok());
  ASSERT_EQ(a.tasks().size(), b.tasks().size());
  EXPECT_EQ(a.counters().forks, 22u);  // hog, sh and 20 children
  const auto sa = a.stretches_until_now(), sb = b.stretches_until_now();
  ASSERT_EQ(sa.size(), sb.size());
  for (std::size_t i = 0; i < sa.size(); ++i) {
    EXPECT_EQ(sa[i].task, sb[i].task) << i;
    EXPECT_EQ(sa[i].cpu, sb[i].cpu) << i;
    EXPECT_EQ(sa[i].start, sb[i].start) << i;
    EXPECT_EQ(sa[i].end, sb[i].end) << i;
  }
  for (const TaskId t : a.tasks().ids()) {
    EXPECT_EQ(a.tasks()[t].pid, b.tasks()[t].pid);
    EXPECT_EQ(a.wait_ns(t), b.wait_ns(t)) << a.tasks()[t].name;
  }
  for (const CfsRqId q : a.cfs_rqs().ids()) {
    EXPECT_EQ(a.cfs_rqs()[q].pelt.avg.load_avg, b.cfs_rqs()[q].pelt.avg.load_avg);
    EXPECT_EQ(a.cfs_rqs()[q].pelt.avg.util_avg, b.cfs_rqs()[q].pelt.avg.util_avg);
  }
  expect_same_counters(a.counters(), b.counters());
  EXPECT_EQ(a.tasks()[TaskId(2)].name, "sh/c0");
}

// Without the trace the slots are reused: the counters and the children's
// sums are still those of the explicit run.
TEST_P(ChurnVsSpawns, ReusedSlotsGiveTheSameCountersAndSums) {
  Stats st_a, st_b;
  Sim a(churn(GetParam(), 20), {.sink = &st_a});
  Sim b(explicit_spawns(GetParam(), 20), {.sink = &st_b});
  a.run();
  b.run();
  ASSERT_TRUE(a.checker()->ok());
  expect_same_counters(a.counters(), b.counters());
  EXPECT_LT(a.tasks().size(), b.tasks().size());
  const Interval wa = st_a.whole(a.sched(), a.now()), wb = st_b.whole(b.sched(), b.now());
  ASSERT_EQ(wa.children.size(), 1u);
  const ChildrenFigures& c = wa.children[0];
  EXPECT_EQ(c.forked, 20u);
  EXPECT_EQ(c.exited, 20u);
  Nanos cpu = 0, wait = 0;
  uint64_t switches = 0, migrations = 0, wakeups = 0;
  for (const TaskFigures& f : wb.tasks)
    if (b.tasks()[f.task].name[0] == 'c') {
      cpu += f.cpu_ns, wait += f.wait_ns, switches += f.switches, migrations += f.migrations;
      wakeups += f.latency.count;
    }
  EXPECT_EQ(c.cpu_ns, cpu);
  EXPECT_EQ(c.cpu_ns, 20 * 200'000u);
  EXPECT_EQ(c.wait_ns, wait);
  EXPECT_EQ(c.switches, switches);
  EXPECT_EQ(c.migrations, migrations);
  EXPECT_EQ(c.latency.count, wakeups);
  for (const TaskFigures& f : wa.tasks) EXPECT_FALSE(churn_slot_free(a.tasks()[f.task]));
}

// reuse_task_slots off (cfsv diff, the differential claims): a slot per
// child, the same run.
TEST_P(ChurnVsSpawns, WithoutReuseEveryChildKeepsItsSlot) {
  Sim a(churn(GetParam(), 20), {.reuse_task_slots = false});
  Sim b(churn(GetParam(), 20));
  a.run();
  b.run();
  EXPECT_EQ(a.tasks().size(), 22u);
  EXPECT_LT(b.tasks().size(), 22u);
  expect_same_counters(a.counters(), b.counters());
}

INSTANTIATE_TEST_SUITE_P(Profiles, ChurnVsSpawns, ::testing::Values("v5.15", "v6.4", "v4.4", "v3.10"));

// The bound: slots = the tasks of the file + the most churn children alive
// at once. 100,000 children of 30us over 10 s (the CPUs keep up with them)
// take a handful of slots; without reuse they would take 100,002. (With
// child=200us they would not keep up: 2 CPUs of children on top of two busy
// tasks; then the live children, and their slots, grow with time.)
TEST(Churn, TaskSlotsStayBoundedOverALongRun) {
  Sim sim(churn("v6.4", 0, "10s", "30us"), {.check_every = 1000});
  sim.run_to(1'000'000'000);
  const std::size_t at1s = sim.tasks().size();
  sim.run();
  EXPECT_TRUE(sim.checker()->ok());
  const Task& sh = sim.tasks()[sim.task_index("sh")];
  EXPECT_GE(sh.children.forked, 99'000u);
  EXPECT_LE(sim.tasks().size(), 4u);  // measured: 3 (hog, sh and one child slot)
  EXPECT_EQ(sim.tasks().size(), at1s);
  EXPECT_LE(sim.entities().size(), 4u + sim.groups().size() * sim.nr_cpus());
}

// examples/seed001.scn: 10,001 children, and the slots of sh and of the
// children alive at once (each runs 200us, one forked every 100us): 3.
TEST(Churn, Seed001TakesAFewSlots) {
  const ParseResult r = load_scenario_file(CFSV_REGRESSIONS_DIR "/../examples/seed001.scn");
  ASSERT_TRUE(std::holds_alternative<Scenario>(r));
  Sim sim(std::get<Scenario>(r), {.check_every = 100});
  sim.run();
  EXPECT_TRUE(sim.checker()->ok());
  EXPECT_EQ(sim.tasks()[sim.task_index("sh")].children.exited, 10'001u);
  EXPECT_EQ(sim.counters().forks, 10'002u);
  EXPECT_EQ(sim.tasks().size(), 3u);  // sh and two child slots, against 10,002 without reuse
}

// The same scenario twice (and a Sim reset onto it): the same figures.
TEST(Churn, Deterministic) {
  const Scenario sc = churn("v6.4", 0, "200ms");
  Stats s1, s2;
  Sim a(sc, {.sink = &s1});
  a.run();
  Sim b(sc, {.sink = &s2});
  b.run();
  const Interval wa = s1.whole(a.sched(), a.now()), wb = s2.whole(b.sched(), b.now());
  ASSERT_EQ(wa.children.size(), 1u);
  ASSERT_EQ(wb.children.size(), 1u);
  EXPECT_EQ(wa.children[0].forked, wb.children[0].forked);
  EXPECT_EQ(wa.children[0].cpu_ns, wb.children[0].cpu_ns);
  EXPECT_EQ(wa.children[0].wait_ns, wb.children[0].wait_ns);
  EXPECT_EQ(wa.children[0].latency.p99_ns, wb.children[0].latency.p99_ns);
  expect_same_counters(a.counters(), b.counters());
  b.reset(sc);
  b.run();
  expect_same_counters(a.counters(), b.counters());
  EXPECT_EQ(a.tasks().size(), b.tasks().size());
}

// The parent's exit ends its forks; children= ends them too.
TEST(Churn, ForksStopAtChildrenAndAtTheParentsExit) {
  Sim sim(parse_ok(head("v6.4") + "task sh run=busy fork=1ms child=100us\ntask two run=busy fork=1ms child=100us "
                                  "children=3\nat 5500us exit sh\nrun 20ms\n"));
  sim.run();
  EXPECT_TRUE(sim.checker()->ok());
  EXPECT_EQ(sim.tasks()[sim.task_index("sh")].children.forked, 5u);
  EXPECT_EQ(sim.tasks()[sim.task_index("two")].children.forked, 3u);
  EXPECT_EQ(sim.tasks()[sim.task_index("two")].children.exited, 3u);
}

// Random op scenarios with churning tasks (fuzz_ops' decoder options), each
// run with slots reused and with the trace recorded (no reuse): every
// invariant holds after every step, the two runs count the same, and the
// CPU time of the tasks (reaped children's in their parent's) is the CPUs'
// busy time.
TEST(Churn, RandomScenariosReuseSlotsWithoutChangingTheRun) {
  DeterministicRandom rng(2026);
  uint64_t churning = 0, reused = 0;
  for (int n = 0; n < 250; ++n) {
    std::vector<uint8_t> bytes(1024);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.below(256));
    fuzz::ByteReader r(bytes.data(), bytes.size());
    const Scenario sc = decode_ops_scenario(r, DecodeOptions{.churn = true});
    Sim a(sc), b(sc, {.record_trace = true});
    a.run();
    b.run();
    ASSERT_TRUE(a.checker()->ok()) << a.checker()->violations().front().to_string() << print_scenario(sc);
    ASSERT_TRUE(b.checker()->ok()) << print_scenario(sc);
    {
      SCOPED_TRACE(print_scenario(sc));
      expect_same_counters(a.counters(), b.counters());
    }
    Nanos busy = 0, cpu = 0;
    for (const CpuId c : a.rqs().ids()) busy += a.busy_ns(c);
    for (const TaskId t : a.tasks().ids()) {
      const Task& k = a.tasks()[t];
      cpu += (churn_slot_free(k) ? 0 : a.cpu_time(t)) + k.children.cpu_ns;
      churning += k.children.forked > 0;
    }
    EXPECT_EQ(cpu, busy) << print_scenario(sc);
    reused += b.tasks().size() - a.tasks().size();
  }
  EXPECT_GT(churning, 10u);
  EXPECT_GT(reused, 100u);
}

// The canonical printer writes the keys back: the printed file parses to the same scenario.
TEST(Churn, PrintsAndParsesBack) {
  const Scenario sc = parse_ok(head("v6.4") + "task sh run=busy fork=1.5ms child=100us children=7\n"
                                              "task u at=2ms parent=sh run=1ms fork=100us child=1us\nrun 5ms\n");
  EXPECT_EQ(sc.tasks.back().churn, (Churn{.every = 1'500'000, .child_run = 100'000, .children = 7}));
  const std::string text = print_scenario(sc);
  EXPECT_NE(text.find("fork=1.5ms child=100us children=7"), std::string::npos) << text;
  EXPECT_EQ(parse_ok(text), sc) << text;
}

// Children have no names ops can use: `exit sh/c0` does not parse, and a task
// named like a child cannot exist in a file.
TEST(Churn, ChildrenHaveNoNameOpsCanUse) {
  const ParseError e =
      scenario_test::parse_err(head("v6.4") + "task sh run=busy fork=1ms child=100us\nat 2ms exit sh/c0\nrun 5ms\n");
  EXPECT_EQ(e.line, 8u);
  EXPECT_NE(e.message.find("bad task name 'sh/c0'"), std::string::npos) << e.to_string();
}

}  // namespace
}  // namespace cfsv
