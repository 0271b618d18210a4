// The CFS model as a RapidCheck state machine (rc::state): random op
// sequences on random hierarchies, the shared invariant checker after every
// op and event. A failure is shrunk, then written as a scenario file that
// `cfsv replay` re-runs; a deliberately broken model proves that path works.
//
// The model of the state machine is simgen::SimNames: which tasks and groups a
// parser-valid op may name. Each op kind is one command (OpCommand<kind>).
// A command runs its op the way Sim::run runs a scenario's `at` line
// (run_until(at), then apply), and logs it, so the log *is* the scenario.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>

#include "model/invariants.h"
#include "model/scenario_text.h"
#include "model/sim.h"
#include "properties/sim_gen.h"
#include "properties/source_text.h"

namespace cfsv {
namespace {

using simgen::SimNames;

// A deliberate corruption of the model after an applied op (tests only; no
// scenario file can reach it).
using FaultHook = std::function<void(Sim&, const Op&)>;

// The op as its `at` line prints ("spawn t3 group=/g0 nice=-2 run=busy").
std::string op_line(const Op& o) {
  Scenario s;
  s.ops = {{0, o, {}}};
  const std::string text = print_scenario(s);
  const auto at = text.find("\nat 0ns ");
  if (at == std::string::npos) return describe(o);
  return text.substr(at + 8, text.find('\n', at + 1) - at - 8);
}

// Where reproducers go: $CFSV_REPRO_DIR, else the working directory.
std::string repro_path(const std::string& name) {
  const char* dir = std::getenv("CFSV_REPRO_DIR");
  return std::string(dir && *dir ? dir : ".") + "/" + name + ".scn";
}

// The system under test: a Sim driven op by op, with the log of what it ran.
struct Driver {
  Scenario initial;  // the time-0 hierarchy (no ops)
  Sim sim;
  FaultHook fault;
  std::string repro_name;
  std::vector<TimedOp> log;
  std::vector<std::string> refused_spawns;  // spawns the kernel refused (no allowed CPU online): never made

  Driver(const Scenario& s, FaultHook f, std::string name)
      : initial(s), sim(s, SimOptions{.record_trace = false}), fault(std::move(f)), repro_name(std::move(name)) {}

  // Sim::run's step for one `at` line, then the fault (if any) and a check.
  ApplyResult step_at(Nanos at, const Op& o) {
    sim.run_until(at);
    log.push_back({at, o, {}});
    const ApplyResult r = sim.apply(o);
    if (r == ApplyResult::applied && fault) {
      fault(sim, o);
      sim.check_now("the injected fault");
    }
    return r;
  }

  Scenario scenario() const { return simgen::with_ops(initial, log, sim.now()); }

  // No violation so far; otherwise write the reproducer and fail with its path.
  void require_ok() const {
    if (sim.checker()->ok()) return;
    const Violation& v = sim.checker()->violations().front();
    const Scenario sc = scenario();
    std::string found = v.to_string();
    std::replace(found.begin(), found.end(), '\n', ' ');
    const std::string text = "# expect: violation " + v.invariant +
                             "\n# written by properties/sim_state_machine_test (RapidCheck, shrunk)\n# " + found +
                             "\n" + print_scenario(sc);
    // The file must replay this very case: it parses back to the same scenario.
    const ParseResult back = parse_scenario(text, repro_name);
    RC_ASSERT(std::holds_alternative<Scenario>(back));
    RC_ASSERT(std::get<Scenario>(back) == sc);
    const std::string path = repro_path(repro_name);
    std::ofstream(path, std::ios::binary) << text;
    RC_FAIL("invariant violated: " + v.to_string() + "\nreproducer written to " + path +
            " (replay: cfsv replay " + path + ")\n" + text);
  }
};

// Whether the scenario spawns `child` from a parent: then it exists only once
// that parent has run to fork it (never, if the parent exited first).
bool has_parent(const Scenario& sc, const std::string& child) {
  for (const TaskSpec& t : sc.tasks)
    if (t.name == child) return !t.parent.empty();
  for (const TimedOp& o : sc.ops)
    if (const auto* sp = std::get_if<op::Spawn>(&o.op); sp && sp->task.name == child) return !sp->task.parent.empty();
  return false;
}

// One command per kind of Op. Its op is generated from the model when the
// command is made; shrinking keeps it only while the names it uses exist.
template <class O> struct OpCommand : rc::state::Command<SimNames, Driver> {
  Op op;
  explicit OpCommand(const SimNames& m) {
    RC_PRE(m.can_form(O{}));
    op = *simgen::gen_op_of(O{}, m);
  }
  void checkPreconditions(const SimNames& m) const override { RC_PRE(m.can_apply(op)); }
  void apply(SimNames& m) const override { m.note(op); }
  void run(const SimNames&, Driver& d) const override {
    const ApplyResult r = d.step_at(d.sim.now(), op);
    d.require_ok();
    // Every op the generator makes names things that were made, so the only
    // rejections are of an op that names a task that has exited since (by an
    // exit op, or by itself: run= without sleep=), of an op on a child
    // before its parent has run to fork it (it does not exist yet), and of
    // one on a task whose spawn the kernel refused (see below).
    // Besides, the kernel refuses some ops for the state it finds, and the
    // model says so (Sim::last_rejection_refused): rmdir of a group with
    // live tasks (EBUSY), a second setsid (EPERM), a write to a file the
    // kernel lacks without a feature, an offline of the last online CPU, an
    // affinity with no online CPU, a ttwu run on an offline CPU, ...
    if (r == ApplyResult::rejected && d.sim.last_rejection_refused()) {
      if (const auto* sp = std::get_if<op::Spawn>(&op)) d.refused_spawns.push_back(sp->task.name);
      return;
    }
    if (r == ApplyResult::rejected) {
      const auto* sp = std::get_if<op::Spawn>(&op);
      const std::string named = sp ? sp->task.parent : op_table::task_of(op);
      RC_ASSERT(!named.empty());
      const TaskId t = d.sim.task_index(named);
      const std::string why = t ? "task '" + named + "' has exited" : "no task '" + named + "'";
      RC_ASSERT(d.sim.last_error() == describe(op) + ": " + why);
      if (t) RC_ASSERT(d.sim.tasks()[t].state == TaskState::exited);
      else RC_ASSERT(has_parent(d.scenario(), named) || std::ranges::count(d.refused_spawns, named) > 0);
    }
  }
  void show(std::ostream& os) const override { os << op_line(op); }
};

// A command of every kind of Op (advances and wakes twice as often).
template <class... O> auto op_commands(std::variant<O...>*) {
  return rc::state::gen::execOneOfWithArgs<OpCommand<O>..., OpCommand<op::Advance>, OpCommand<op::Wake>>();
}

void run_state_machine(const FaultHook& fault, const std::string& repro_name) {
  const Scenario initial = *simgen::gen_sim_scenario();
  Driver d(initial, fault, repro_name);
  d.require_ok();  // the time-0 spawns are checked too
  // rc::state::check, with 4x the default number of commands per case.
  const SimNames model = SimNames::of(initial);
  const auto commands = *rc::gen::scale(4.0, rc::state::gen::commands(model, op_commands(static_cast<Op*>(nullptr))));
  rc::state::runAll(commands, model, d);
  // Let the last ops play out (timers, bursts, ticks), still checked.
  d.sim.run_until(d.sim.now() + 20 * simgen::kMs);
  d.require_ok();
}

RC_GTEST_PROP(SimStateMachine, RandomOpSequencesOnRandomHierarchiesKeepEveryInvariant, ()) {
  run_state_machine(nullptr, "sim_state_machine_counterexample");
}

// The broken model: moving a queued task into a non-root group adds 1 to that
// group's load on the task's CPU.
void corrupt_load_on_move(Sim& sim, const Op& o) {
  const auto* mv = std::get_if<op::MoveTask>(&o);
  if (!mv || mv->group == "/") return;
  const Task& t = sim.tasks()[sim.task_index(mv->task)];
  if (t.state != TaskState::running && t.state != TaskState::runnable) return;
  sim.mutable_cfs_rq(sim.groups()[t.group].cfs_rq[t.cpu]).load_weight += 1;
}

// Replays a scenario through the Driver (the state machine's own path, with the fault).
std::unique_ptr<Driver> replay_with(const Scenario& sc, const FaultHook& fault) {
  auto d = std::make_unique<Driver>(sc, fault, "unused");
  for (const TimedOp& o : sc.ops) d->step_at(o.at, o.op);
  d->sim.run_until(std::max(sc.duration, d->sim.now()));
  return d;
}

TEST(SimStateMachine, ABrokenModelIsCaughtShrunkAndWrittenAsAReplayableScenario) {
  const std::string name = "sim_state_machine_broken_model";
  const std::string path = repro_path(name);
  std::remove(path.c_str());
  std::cerr << "(a counterexample report follows: the model is broken on purpose)\n";
  const bool passed = rc::check("a model whose move corrupts a load keeps its invariants",
                                [&] { run_state_machine(corrupt_load_on_move, name); });
  ASSERT_FALSE(passed) << "RapidCheck did not catch the broken model";

  // The file: first line the verdict, then a scenario that parses.
  const std::string text = testing_files::file_text(path);
  ASSERT_FALSE(text.empty()) << "no reproducer at " << path;
  EXPECT_EQ(text.substr(0, text.find('\n')), "# expect: violation load-equals-sum") << text;
  const ParseResult r = parse_scenario(text, path);
  ASSERT_TRUE(std::holds_alternative<Scenario>(r)) << std::get<ParseError>(r).to_string();
  const Scenario& sc = std::get<Scenario>(r);

  // Shrunk: a move into a group is all it takes (plus at most what places the task).
  ASSERT_FALSE(sc.ops.empty()) << text;
  EXPECT_LE(sc.ops.size(), 2u) << text;
  EXPECT_TRUE(std::holds_alternative<op::MoveTask>(sc.ops.back().op)) << text;

  // Replayed with the same fault, the same invariant fires at the move.
  const auto broken = replay_with(sc, corrupt_load_on_move);
  ASSERT_FALSE(broken->sim.checker()->ok()) << text;
  const Violation& v = broken->sim.checker()->violations().front();
  EXPECT_EQ(v.invariant, "load-equals-sum");
  EXPECT_EQ(v.t, sc.ops.back().at);

  // Without the fault (what `cfsv replay` runs), the real model passes it.
  Sim real(sc);
  real.run();
  EXPECT_TRUE(real.checker()->ok()) << real.checker()->violations().front().to_string();
  EXPECT_EQ(real.counters().ops_rejected, 0u);
}

// The log is the scenario: replaying the printed log of a random run gives the
// same state (every task's CPU time and state, every CPU's busy time).
RC_GTEST_PROP(SimStateMachine, TheLoggedOpsReplayFromTheirScenarioText, ()) {
  const Scenario initial = *simgen::gen_sim_scenario();
  Driver d(initial, nullptr, "sim_state_machine_log");
  SimNames m = SimNames::of(initial);
  const auto n = *properties::gen_uniform(0, 40);
  for (uint64_t i = 0; i < n; ++i) {
    const Op o = *simgen::gen_op(m);
    m.note(o);
    d.step_at(d.sim.now(), o);
  }
  d.sim.run_until(d.scenario().duration);  // what Sim::run's final run_until does
  const std::string text = print_scenario(d.scenario());
  const ParseResult r = parse_scenario(text);
  RC_ASSERT(std::holds_alternative<Scenario>(r));
  Sim again(std::get<Scenario>(r), SimOptions{.record_trace = false});
  again.run();
  RC_ASSERT(again.now() == d.sim.now());
  RC_ASSERT(again.tasks().size() == d.sim.tasks().size());
  for (const TaskId i : again.tasks().ids()) {
    RC_ASSERT(again.tasks()[i].state == d.sim.tasks()[i].state);
    RC_ASSERT(again.cpu_time(i) == d.sim.cpu_time(i));
  }
  for (const CpuId c : again.rqs().ids()) RC_ASSERT(again.busy_ns(c) == d.sim.busy_ns(c));
  RC_ASSERT(again.counters().events == d.sim.counters().events);
}

}  // namespace
}  // namespace cfsv
