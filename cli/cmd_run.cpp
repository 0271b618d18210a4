// cfsv run FILE: simulate a scenario; per-task, per-group and per-CPU tables
// (or JSON), optionally split into phases at the timed ops, the invariant
// results, and optionally Chrome trace events or perf-style lines, streamed
// as the run goes: memory does not grow with simulated time.
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/report.h"
#include "cli/run_charts.h"
#include "cli/scenario_run.h"
#include "model/invariants.h"
#include "model/pelt_eras.h"
#include "model/scenario_text.h"
#include "model/sim.h"
#include "model/stats.h"
#include "model/trace.h"

namespace cfsv::cli {

namespace {

void print_json(const Sim& sim, const Stats& st, const WastedCores& wasted, bool phases, std::ostream& out) {
  JsonWriter j(out);
  const Sched& s = sim.sched();
  const Nanos now = sim.now();
  j.begin_object();
  j.field("kernel", sim.scenario().kernel).field("nr_cpus", sim.nr_cpus()).field("duration_ns", now);
  j.field("end", to_string(sim.end()));
  j.key("features").begin_array();
  for (const std::string_view f : feature_names(sim.features())) j.value(f);
  const Interval whole = st.whole(s, now);
  j.end_array().key("tasks");
  tasks_json(j, s, whole, true);
  if (!whole.children.empty()) {
    j.key("children");
    children_json(j, s, whole);
  }
  j.key("groups");
  groups_json(j, s, whole);
  j.key("cpus");
  cpus_json(j, s, st, now);
  j.key("wasted");
  wasted_json(j, wasted, now);
  if (s.era.tracks_pelt) {  // at the end: each CPU's root cfs_rq, each group's tg->load_avg
    j.key("pelt").begin_object().key("cpus").begin_array();
    for (const Rq& r : s.rq) {
      j.begin_object().field("cpu", r.cpu.v);
      SchedAvg a = s.cfs[r.cfs].pelt.avg;
      if (s.era.pelt_v3) a.load_avg = pelt3::cfs_rq_load_avg(s.cfs[r.cfs]);  // runnable + blocked
      pelt_json(j, s.era, a);
      j.end_object();
    }
    j.end_array().key("groups").begin_array();
    for (const TaskGroup& g : s.tg)
      j.begin_object().field("path", g.path).field("load_avg", g.load_avg).field("load_avg_updates", g.load_avg_updates)
          .end_object();
    j.end_array().end_object();
  }
  if (phases) {
    j.key("phases");
    phases_json(j, s, st);
  }
  j.key("violations").begin_array();
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
  j.field("wakeup_migrations", k.wakeup_migrations).field("periodic_migrations", k.periodic_migrations);
  j.field("wakeups_sync", k.wakeups_sync).field("wake_affine_calls", k.wake_affine_calls);
  j.field("wake_affine_pulls", k.wake_affine_pulls).field("wake_wide", k.wake_wide);
  j.field("newidle_migrations", k.newidle_migrations).field("active_migrations", k.active_migrations);
  j.field("fork_placements_away", k.fork_placements_away).field("newidle_walks", k.newidle_walks);
  j.field("newidle_domains", k.newidle_domains).field("newidle_arrivals", k.newidle_arrivals);
  j.field("newidle_arrival_wait_ns", k.newidle_arrival_wait_ns);
  j.field("newidle_arrival_wait_max_ns", k.newidle_arrival_wait_max_ns);
  j.field("enqueues", k.enqueues).field("dequeues", k.dequeues).field("reweights", k.reweights);
  j.field("tg_load_avg_updates", k.tg_load_avg_updates).field("root_tg_load_avg_updates", k.root_tg_load_avg_updates);
  j.field("root_tg_load_avg_skips", k.root_tg_load_avg_skips);
  j.field("move_task_calls", k.move_task_calls).field("move_task_requeues", k.move_task_requeues);
  j.field("move_task_same_group", k.move_task_same_group).field("move_task_skips", k.move_task_skips);
  j.field("hotplug_migrations", k.hotplug_migrations).field("affinity_broken", k.affinity_broken);
  j.field("invariant_checks", sim.checker()->checks());
  j.end_object();
  j.end_object();
  out << '\n';
}

void print_table(const Sim& sim, const Stats& st, const WastedCores& wasted, const std::string& file,
                 uint64_t check_every, bool phases, std::ostream& out) {
  const Sched& s = sim.sched();
  const Nanos now = sim.now();
  out << file << ": kernel " << sim.scenario().kernel << ", " << sim.nr_cpus() << " CPUs, "
      << format_duration(now) << " simulated";
  if (sim.end() != RunEnd::finished) out << " (" << ScenarioRunner::early_end(sim) << ")";
  out << "\n";
  const std::string f = sim.features().to_string();
  out << "features: " << (f.empty() ? "(none)" : f) << "\n\n";
  const Interval whole = st.whole(s, now);
  print_tasks(s, whole, true, out);
  out << '\n';
  print_groups(s, whole, out);
  out << "(a group's CPU time: its tasks' while they were in it or in a group below it)\n\n";
  print_cpus(s, st, now, out);
  print_wasted(wasted, now, out);
  const Counters& k = sim.counters();
  out << "migrations: " << k.migrations << " (at wakeups: " << k.wakeup_migrations << ", periodic: "
      << k.periodic_migrations << ", newidle: " << k.newidle_migrations << ", active: " << k.active_migrations;
  if (k.hotplug_migrations) out << ", off a CPU going offline: " << k.hotplug_migrations;
  out << "); forks placed away from the parent's CPU: " << k.fork_placements_away << "\n";
  if (k.wakeups_sync || k.wake_affine_calls || k.wake_wide)
    out << "wake_affine calls: " << k.wake_affine_calls << " (" << k.wake_affine_pulls
        << " chose the waking CPU); made not affine by wake_wide: " << k.wake_wide << "; sync wakeups: " << k.wakeups_sync
        << "\n";
  if (k.affinity_broken)
    out << "affinity broken: " << k.affinity_broken
        << " task(s) allowed only on offline CPUs now allowed on others (\"no longer affine to cpuN\")\n";
  if (phases) print_phases(sim, st, out);
  out << '\n';
  if (k.move_task_calls)
    out << "sched_move_task: " << k.move_task_calls << " calls, " << k.move_task_requeues << " requeues, "
        << k.move_task_same_group << " to the same group (" << k.move_task_skips << " skipped)\n\n";
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
  bool json = false, perf = false, phases = false;
  std::string perfetto;
  std::vector<std::string> files;
  uint64_t check_every = 1;
  std::vector<std::pair<Feature, bool>> features;
  ArgParser p("run", "Simulates a scenario file (docs/scenario-format.md) with the CFS model and prints, per\n"
                     "task, CPU time, share of one CPU, context switches, migrations, wait time and wakeup\n"
                     "latency; per group, CPU time over membership; per CPU, busy/idle time and the most\n"
                     "common run-stretch lengths; and whether every invariant held after every op and\n"
                     "event (or every Nth: --check-every). Traces and time series are written as the\n"
                     "run goes, charts at its end, in memory that does not grow with simulated time.\n"
                     "Exit 1 if an invariant was violated, 2 on bad input, when an output cannot be\n"
                     "written or at --max-events, 130 after Ctrl-C (with the results so far).");
  p.flag("json", &json, "print the results as JSON on stdout instead of the table");
  p.flag("phases", &phases, "also split the figures at each `at` op time, one table (or JSON object) per phase");
  p.option("perfetto", output_path(&perfetto), "OUT.json", "also write Chrome trace events (ui.perfetto.dev) to OUT.json");
  p.flag("perf", &perf,
         "print sched_switch, sched_wakeup(_new) and sched_migrate_task lines like `perf script` instead of "
         "the table");
  RunCharts charts(p);  // --series, --series-step, --csv, --svg, --heatmap
  p.option("check-every", &check_every, "N",
           "check the invariants after every Nth op or event, and at the end (default 1; 0: never)");
  p.option("feature", feature_override(&features), "NAME=on|off",
           "override a feature after the scenario's own `feature` lines (repeatable)");
  p.positionals("FILE", &files, "the scenario file", 1, 1);
  ScenarioRunner runner(p);
  if (auto rc = p.parse(argc, argv)) return *rc;
  if (json && perf) return p.error("--json and --perf both print on stdout; choose one");

  std::optional<Scenario> sc = load_scenario_or_report(files[0]);
  if (!sc) return 2;
  sc->feature_overrides.insert(sc->feature_overrides.end(), features.begin(), features.end());
  if (auto rc = charts.prepare(*sc, json || perf)) return *rc;

  std::ofstream perfetto_file;
  if (!perfetto.empty()) {
    perfetto_file.open(perfetto, std::ios::binary);
    if (!perfetto_file) return p.error("--perfetto: cannot write '" + perfetto + "'");
  }
  Stats stats;
  WastedCores wasted;
  std::unique_ptr<PerfScriptWriter> perf_writer;
  std::unique_ptr<PerfettoWriter> perfetto_writer;
  if (perf) perf_writer = std::make_unique<PerfScriptWriter>(std::cout, "stdout");
  if (!perfetto.empty()) perfetto_writer = std::make_unique<PerfettoWriter>(perfetto_file, "'" + perfetto + "'");
  SinkTee sinks{&stats, &wasted, perf_writer.get(), perfetto_writer.get(), charts.sink()};
  try {
    Sim sim(*sc, runner.options(SimOptions{.check_every = check_every, .sink = &sinks}));
    if (auto rc = runner.refuse(sim, files[0])) return *rc;
    const std::optional<int> early = runner.run(sim, [&] {
      if (phases)
        for (const Nanos t : phase_starts(*sc)) {
          if (charts.run_to(sim, t - 1) && sim.end() != RunEnd::finished) break;
          stats.close_phase(sim.sched(), std::max(t, sim.now()));
        }
      charts.run_to(sim, std::numeric_limits<Nanos>::max());
      const RunEnd end = sim.finish();
      if (phases) stats.close_phase(sim.sched(), sim.now());
      return end;
    });
    if (perfetto_writer) perfetto_writer->finish(sim.sched(), sim.now());
    if (perf_writer) perf_writer->finish();
    charts.finish(sim, files[0]);

    if (json) print_json(sim, stats, wasted, phases, std::cout);
    else if (!perf && !charts.on_stdout()) print_table(sim, stats, wasted, files[0], check_every, phases, std::cout);
    if ((perf || charts.on_stdout()) && !sim.checker()->ok())
      for (const Violation& v : sim.checker()->violations()) std::cerr << "cfsv run: " << v.to_string() << '\n';
    if (early) return *early;
    return sim.checker()->ok() ? 0 : 1;
  } catch (const TraceWriteError& e) {
    return p.error(e.what());
  }
}

}  // namespace cfsv::cli
