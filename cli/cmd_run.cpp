// cfsv run FILE: simulate a scenario; a per-task table (or JSON), the
// invariant results, and optionally Chrome trace events or perf-style
// sched_switch lines.
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/scenario_run.h"
#include "cli/table.h"
#include "model/invariants.h"
#include "model/scenario_text.h"
#include "model/sim.h"
#include "model/trace.h"

namespace cfsv::cli {

namespace {

std::string ms(Nanos ns) {
  char b[40];
  std::snprintf(b, sizeof b, "%" PRIu64 ".%03" PRIu64 "ms", ns / 1000000, (ns % 1000000) / 1000);
  return b;
}

std::string percent(Nanos part, Nanos whole) {
  char b[16];
  std::snprintf(b, sizeof b, "%.1f%%", whole ? 100.0 * double(part) / double(whole) : 0.0);
  return b;
}

void print_json(const Sim& sim, std::ostream& out) {
  JsonWriter j(out);
  const Nanos now = sim.now();
  j.begin_object();
  j.field("kernel", sim.scenario().kernel).field("cpus", sim.nr_cpus()).field("duration_ns", now);
  j.field("end", to_string(sim.end()));
  j.field("features", sim.features().to_string());
  j.key("tasks").begin_array();
  for (const TaskId i : sim.tasks().ids()) {
    const Task& t = sim.tasks()[i];
    const Nanos cpu = sim.cpu_time(i);
    j.begin_object().field("name", t.name).field("cpu_time_ns", cpu).field("switches", t.stats.switches);
    j.field("migrations", t.stats.migrations).field("wait_ns", sim.wait_ns(i));
    j.field("cpu", t.cpu.v).field("group", sim.groups()[t.group].path).field("nice", t.nice);
    j.field("state", to_string(t.state)).field("share", now ? double(cpu) / double(now) : 0.0);
    j.end_object();
  }
  j.end_array().key("cpus").begin_array();
  for (const CpuId c : sim.rqs().ids())
    j.begin_object().field("cpu", c.v).field("idle_ns", sim.idle_ns(c)).field("busy_ns", sim.busy_ns(c)).end_object();
  j.end_array().key("violations").begin_array();
  for (const Violation& v : sim.checker()->violations())
    j.begin_object().field("invariant", v.invariant).field("step", v.step).field("t_ns", v.t).field("detail", v.detail)
        .end_object();
  j.end_array().key("rejected_ops").begin_array();
  for (const RejectedOp& r : sim.rejected_ops())
    j.begin_object().field("line", r.loc.line).field("t_ns", r.t).field("op", r.op).field("reason", r.reason)
        .end_object();
  j.end_array().key("invariants").begin_array();
  const auto per = sim.checker()->per_invariant();
  for (std::size_t i = 0; i < all_invariants().size(); ++i)
    j.begin_object().field("name", all_invariants()[i].name).field("statement", all_invariants()[i].statement)
        .field("violations", i < per.size() ? per[i] : 0).end_object();
  j.end_array();
  const Counters& k = sim.counters();
  j.key("counters").begin_object();
  j.field("events", k.events).field("ops", k.ops).field("ops_rejected", k.ops_rejected).field("ticks", k.ticks);
  j.field("schedules", k.schedules).field("context_switches", k.context_switches);
  j.field("resched_tick", k.resched_tick).field("resched_wakeup", k.resched_wakeup).field("wakeups", k.wakeups);
  j.field("sleeps", k.sleeps).field("forks", k.forks).field("exits", k.exits).field("migrations", k.migrations);
  j.field("enqueues", k.enqueues).field("dequeues", k.dequeues).field("reweights", k.reweights);
  j.field("invariant_checks", sim.checker()->checks());
  j.end_object();
  j.end_object();
  out << '\n';
}

void print_table(const Sim& sim, const std::string& file, uint64_t check_every, std::ostream& out) {
  const Nanos now = sim.now();
  out << file << ": kernel " << sim.scenario().kernel << ", " << sim.nr_cpus() << " CPUs, "
      << format_duration(now) << " simulated";
  if (sim.end() != RunEnd::finished) out << " (" << ScenarioRunner::early_end(sim) << ")";
  out << "\n";
  const std::string f = sim.features().to_string();
  out << "features: " << (f.empty() ? "(none)" : f) << "\n\n";
  Table t({"task", "cpu", "group", "nice", "state", "cpu time", "share", "switches", "migrations", "wait"});
  for (const TaskId i : sim.tasks().ids()) {
    const Task& k = sim.tasks()[i];
    const Nanos cpu = sim.cpu_time(i);
    t.row({k.name, std::to_string(k.cpu.v), sim.groups()[k.group].path, std::to_string(k.nice),
           std::string(to_string(k.state)), ms(cpu), percent(cpu, now), std::to_string(k.stats.switches),
           std::to_string(k.stats.migrations), ms(sim.wait_ns(i))});
  }
  t.print(out);
  out << '\n';
  Table c({"cpu", "busy", "idle", "stretches (most common lengths)"});
  for (const CpuId i : sim.rqs().ids()) {
    const auto h = stretch_histogram(sim, i);
    c.row({std::to_string(i.v), ms(sim.busy_ns(i)), ms(sim.idle_ns(i)),
           h.empty() ? "-" : format_histogram(h, 4)});
  }
  c.print(out);
  out << '\n';
  if (const uint64_t n = sim.counters().ops_rejected) {
    out << n << " op(s) rejected, without effect" << (n > sim.rejected_ops().size() ? "; the first:\n" : ":\n");
    for (const RejectedOp& r : sim.rejected_ops())
      out << "  line " << r.loc.line << ", at " << format_duration(r.t) << ": " << r.op << ": " << r.reason << "\n";
  }
  const InvariantChecker& chk = *sim.checker();
  if (check_every == 0) {
    out << "invariants: not checked (--check-every 0)\n";
    return;
  }
  if (chk.ok()) {
    out << "invariants: all " << all_invariants().size();
    const uint64_t steps = sim.steps();
    if (check_every == 1) out << " hold after each of " << chk.checks() << " steps\n";
    else
      out << " hold at each of " << chk.checks() << " checks (after every " << check_every << " of " << steps
          << " steps" << (steps % check_every ? ", and at the end" : "") << ")\n";
    return;
  }
  out << "invariants: " << chk.total_violations() << " violation(s)\n";
  const auto per = chk.per_invariant();
  for (std::size_t i = 0; i < all_invariants().size(); ++i)
    if (i < per.size() && per[i]) out << "  " << all_invariants()[i].name << ": " << per[i] << "\n";
  for (const Violation& v : chk.violations()) out << "  " << v.to_string() << "\n";
}

}  // namespace

int cmd_run(int argc, char** argv) {
  bool json = false, perf = false;
  std::string perfetto;
  std::vector<std::string> files;
  uint64_t check_every = 1;
  std::vector<std::pair<Feature, bool>> features;
  ArgParser p("run", "Simulates a scenario file (docs/scenario-format.md) with the CFS model and prints, per\n"
                     "task, CPU time, share of one CPU, context switches, migrations and wait time; per\n"
                     "CPU, busy/idle time and the most common run-stretch lengths; and whether every\n"
                     "invariant held after every op and event (or every Nth: --check-every). Exit 1 if\n"
                     "an invariant was violated, 2 on bad input or at --max-events, 130 after Ctrl-C\n"
                     "(with the results so far).");
  p.flag("json", &json, "print the results as JSON on stdout instead of the table");
  p.option("perfetto", output_path(&perfetto), "OUT.json", "also write Chrome trace events (ui.perfetto.dev) to OUT.json");
  p.flag("perf", &perf, "print sched_switch lines like `perf script` instead of the table");
  p.option("check-every", &check_every, "N",
           "check the invariants after every Nth op or event, and at the end (default 1; 0: never)");
  p.option(
      "feature",
      [&](std::string_view v) -> std::string {
        const std::size_t eq = v.find('=');
        const std::string_view name = v.substr(0, eq), state = eq == v.npos ? "" : v.substr(eq + 1);
        const std::optional<Feature> f = feature_by_name(name);
        if (!f) return "unknown feature '" + std::string(name) + "' (see cfsv features)";
        if (state != "on" && state != "off") return "'" + std::string(v) + "' is not NAME=on or NAME=off";
        features.emplace_back(*f, state == "on");
        return {};
      },
      "NAME=on|off", "override a feature after the scenario's own `feature` lines (repeatable)");
  p.positionals("FILE", &files, "the scenario file", 1, 1);
  ScenarioRunner runner(p);
  if (auto rc = p.parse(argc, argv)) return *rc;
  if (json && perf) return p.error("--json and --perf both print on stdout; choose one");

  ParseResult r = load_scenario_file(files[0]);
  if (auto* e = std::get_if<ParseError>(&r)) {
    std::cerr << e->to_string() << '\n';
    return 2;
  }
  Scenario sc = std::get<Scenario>(std::move(r));
  sc.feature_overrides.insert(sc.feature_overrides.end(), features.begin(), features.end());
  std::ofstream perfetto_out;  // opened before the run: a bad path fails at once
  if (!perfetto.empty()) {
    perfetto_out.open(perfetto, std::ios::binary);
    if (!perfetto_out) return p.error("--perfetto: cannot write '" + perfetto + "'");
  }
  SimOptions opt;
  opt.check_every = check_every;
  Sim sim(sc, runner.options(opt));
  if (auto rc = runner.refuse(sim, files[0])) return *rc;
  const std::optional<int> early = runner.run(sim);

  if (perfetto_out.is_open()) {
    write_perfetto_json(sim, perfetto_out);
    if (!perfetto_out.flush()) return p.error("--perfetto: cannot write '" + perfetto + "'");
  }
  if (json) print_json(sim, std::cout);
  else if (perf) std::cout << perf_sched_switch_lines(sim);
  else print_table(sim, files[0], check_every, std::cout);
  if (perf && !sim.checker()->ok())
    for (const Violation& v : sim.checker()->violations()) std::cerr << "cfsv run: " << v.to_string() << '\n';
  if (early) return *early;
  return sim.checker()->ok() ? 0 : 1;
}

}  // namespace cfsv::cli
