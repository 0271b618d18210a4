// cfsv diff FILE --feature NAME=on|off...: the scenario under its own
// features ("before") and with the overrides ("after"), run side by side;
// per-task and per-group figures of both with their differences, and the
// first point where the two schedules part, with each run's decisions there.
// Both runs stream: memory does not grow with simulated time.
#include <algorithm>
#include <deque>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/report.h"
#include "model/scenario_text.h"
#include "model/sim.h"
#include "model/stats.h"

namespace cfsv::cli {

namespace {

constexpr Nanos kChunk = 1'000'000;  // the runs go side by side in steps of 1 ms of simulated time

// What perf would show of a run: its sched_switch, sched_wakeup(_new) and
// sched_migrate_task events. Two runs have the same schedule when these are
// the same. While `recording`, the events and decisions of the current step
// are kept for the comparison.
struct SchedEvent {
  enum Kind : uint8_t { sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task } kind;
  Nanos t;
  CpuId cpu;          // the switch's, the wakeup's target, the migration's orig
  TaskId task, next;  // switch: prev and next; migration: the task and -
  int32_t detail;     // switch: prev_state; migration: dest CPU
  bool operator==(const SchedEvent&) const = default;
};

class ScheduleLog final : public SchedSink {
 public:
  void sched_switch(const Sched&, const SwitchEvent& e) override {
    add({SchedEvent::sched_switch, e.t, e.cpu, e.prev, e.next, static_cast<int32_t>(e.prev_state)});
  }
  void sched_wakeup(const Sched& s, TaskId t, bool new_task) override {
    add({new_task ? SchedEvent::sched_wakeup_new : SchedEvent::sched_wakeup, s.now, s.tasks[t].cpu, t, {}, 0});
  }
  void sched_migrate_task(const Sched& s, TaskId t, CpuId orig, CpuId dest) override {
    add({SchedEvent::sched_migrate_task, s.now, orig, t, {}, dest.v});
  }
  void decision(const Sched& s, const Decision& d) override {
    if (recording) decisions.push_back({s.now, s.cfs[d.cq].cpu, d});
  }

  struct Decided {
    Nanos t;
    CpuId cpu;
    Decision d;
  };
  bool recording = true;
  std::deque<SchedEvent> events;
  std::vector<Decided> decisions;

 private:
  void add(const SchedEvent& e) {
    if (recording) events.push_back(e);
  }
};

struct Side {
  explicit Side(const Scenario& sc, uint64_t check_every)
      : sinks{&stats, &log},
        // The log's events name tasks by id and are described after their step: no churn slot reuse.
        sim(sc, SimOptions{.check_every = check_every, .sink = &sinks, .reuse_task_slots = false}) {}
  Stats stats;
  ScheduleLog log;
  SinkTee sinks;
  Sim sim;
};

// Where the schedules part: the first event of either run that the other
// does not have, each run's event there (none: the other has an event where
// this one has none), and each run's decisions at that time on those CPUs.
struct Parting {
  Nanos t = 0;
  std::vector<CpuId> cpus;
  std::optional<SchedEvent> event[2];
  std::vector<std::string> decisions[2];
};

std::string describe(const Sched& s, const SchedEvent& e) {
  const std::string task = e.task ? s.tasks[e.task].name : "";
  switch (e.kind) {
    case SchedEvent::sched_switch: {
      auto name = [&](TaskId t) { return t ? s.tasks[t].name : (t == kIdle ? "idle" : "migration"); };
      const char* state = e.detail == static_cast<int32_t>(TaskState::sleeping) ? "S"
                          : e.detail == static_cast<int32_t>(TaskState::exited) ? "X"
                                                                                 : "R";
      return "sched_switch on CPU " + std::to_string(e.cpu.v) + ": " + name(e.task) + " (" +
             (e.task ? state : "R") + ") ==> " + name(e.next);
    }
    case SchedEvent::sched_wakeup: return "sched_wakeup of " + task + " on CPU " + std::to_string(e.cpu.v);
    case SchedEvent::sched_wakeup_new: return "sched_wakeup_new of " + task + " on CPU " + std::to_string(e.cpu.v);
    case SchedEvent::sched_migrate_task:
      return "sched_migrate_task of " + task + ": CPU " + std::to_string(e.cpu.v) + " -> " + std::to_string(e.detail);
  }
  return "?";
}

// Compares the two logs' events of this step; pops what matches. The
// parting point when they differ.
std::optional<Parting> compare(Side* side[2], uint64_t* matched) {
  std::deque<SchedEvent>& a = side[0]->log.events;
  std::deque<SchedEvent>& b = side[1]->log.events;
  while (!a.empty() && !b.empty() && a.front() == b.front()) {
    a.pop_front();
    b.pop_front();
    ++*matched;
  }
  if (a.empty() && b.empty()) {
    for (Side* s : {side[0], side[1]}) s->log.decisions.clear();
    return std::nullopt;
  }
  Parting p;
  p.t = std::min(a.empty() ? ~Nanos{0} : a.front().t, b.empty() ? ~Nanos{0} : b.front().t);
  for (int i = 0; i < 2; ++i) {
    const std::deque<SchedEvent>& q = side[i]->log.events;
    if (!q.empty() && q.front().t == p.t) {
      p.event[i] = q.front();
      if (std::find(p.cpus.begin(), p.cpus.end(), q.front().cpu) == p.cpus.end()) p.cpus.push_back(q.front().cpu);
    }
  }
  for (int i = 0; i < 2; ++i)
    for (const ScheduleLog::Decided& d : side[i]->log.decisions)
      if (d.t == p.t && std::find(p.cpus.begin(), p.cpus.end(), d.cpu) != p.cpus.end())
        p.decisions[i].push_back(to_string(side[i]->sim.sched(), d.d));
  return p;
}

// "12.500ms -> 12.000ms (-0.500ms)", or "12.500ms (=)".
template <class T, class F> std::string change(T before, T after, F fmt, bool with_delta = true) {
  if (before == after) return fmt(before) + " (=)";
  std::string s = fmt(before) + " -> " + fmt(after);
  if (!with_delta) return s;
  const bool up = after > before;
  return s + " (" + (up ? "+" : "-") + fmt(up ? after - before : before - after) + ")";
}

std::string count(uint64_t n) { return std::to_string(n); }

void print_table(const std::string& file, Side* side[2], const std::vector<std::pair<Feature, bool>>& overrides,
                 const std::optional<Parting>& parting, uint64_t matched, std::ostream& out) {
  const Sim& a = side[0]->sim;
  const Nanos now = a.now();
  out << file << ": kernel " << a.scenario().kernel << ", " << a.nr_cpus() << " CPUs, " << format_duration(now)
      << " simulated\nbefore: the file's features; after:";
  for (const auto& [f, on] : overrides) out << " " << to_string(f) << "=" << (on ? "on" : "off");
  out << "\n\n";
  if (!parting) {
    out << "the schedules are identical: the same " << matched
        << " sched_switch, sched_wakeup and sched_migrate_task events\n\n";
  } else {
    out << "the schedules part at " << format_duration(parting->t) << " on CPU";
    for (std::size_t i = 0; i < parting->cpus.size(); ++i) out << (i ? ", " : " ") << parting->cpus[i].v;
    out << " (" << matched << " events in common before):\n";
    for (int i = 0; i < 2; ++i) {
      out << "  " << (i ? "after:  " : "before: ");
      out << (parting->event[i] ? describe(side[i]->sim.sched(), *parting->event[i]) : "no event at this time") << "\n";
      for (const std::string& d : parting->decisions[i]) out << "          " << d << "\n";
    }
    out << "\n";
  }
  const Interval w[2] = {side[0]->stats.whole(side[0]->sim.sched(), now),
                         side[1]->stats.whole(side[1]->sim.sched(), side[1]->sim.now())};
  const auto pct = [&](Nanos ns) { return percent(ns, now); };
  Table t({"task", "cpu time", "share", "switches", "wait", "lat avg", "lat max"});
  for (std::size_t i = 0; i < w[0].tasks.size() && i < w[1].tasks.size(); ++i) {
    const TaskFigures &x = w[0].tasks[i], &y = w[1].tasks[i];
    t.row({a.sched().tasks[x.task].name, change(x.cpu_ns, y.cpu_ns, [](Nanos v) { return ms(v); }),
           change(x.cpu_ns, y.cpu_ns, pct, false), change(x.switches, y.switches, count),
           change(x.wait_ns, y.wait_ns, [](Nanos v) { return ms(v); }),
           change(x.latency.avg_ns, y.latency.avg_ns, [](double v) { return ms(v); }),
           change(x.latency.max_ns, y.latency.max_ns, [](Nanos v) { return ms(v); })});
  }
  for (std::size_t i = 0; i < w[0].children.size() && i < w[1].children.size(); ++i) {
    const ChildrenFigures &x = w[0].children[i], &y = w[1].children[i];
    t.row({a.sched().tasks[x.parent].name + "/children", change(x.cpu_ns, y.cpu_ns, [](Nanos v) { return ms(v); }),
           change(x.cpu_ns, y.cpu_ns, pct, false), change(x.switches, y.switches, count),
           change(x.wait_ns, y.wait_ns, [](Nanos v) { return ms(v); }),
           change(x.latency.avg_ns, y.latency.avg_ns, [](double v) { return ms(v); }),
           change(x.latency.max_ns, y.latency.max_ns, [](Nanos v) { return ms(v); })});
  }
  t.print(out);
  out << '\n';
  Table g({"group", "cpu time", "share"});
  for (std::size_t i = 0; i < w[0].groups.size() && i < w[1].groups.size(); ++i) {
    const GroupFigures &x = w[0].groups[i], &y = w[1].groups[i];
    g.row({a.sched().tg[x.group].path, change(x.cpu_ns, y.cpu_ns, [](Nanos v) { return ms(v); }),
           change(x.cpu_ns, y.cpu_ns, pct, false)});
  }
  g.print(out);
  for (int i = 0; i < 2; ++i)
    if (!side[i]->sim.checker()->ok())
      out << "\n" << (i ? "after" : "before") << ": invariants: " << side[i]->sim.checker()->total_violations()
          << " violation(s); the first: " << side[i]->sim.checker()->violations().front().to_string() << "\n";
}

void figures_json(JsonWriter& j, const TaskFigures& f, Nanos length) {
  j.begin_object().field("cpu_time_ns", f.cpu_ns).field("share", share(f.cpu_ns, length));
  j.field("switches", f.switches).field("migrations", f.migrations).field("wait_ns", f.wait_ns).key("latency");
  latency_json(j, f.latency);
  j.end_object();
}

void print_json(const std::string& file, Side* side[2], const std::vector<std::pair<Feature, bool>>& overrides,
                const std::optional<Parting>& parting, uint64_t matched, std::ostream& out) {
  JsonWriter j(out);
  const Sim& a = side[0]->sim;
  const Nanos now = a.now();
  j.begin_object().field("file", file).field("kernel", a.scenario().kernel).field("nr_cpus", a.nr_cpus());
  j.field("duration_ns", now).key("overrides").begin_array();
  for (const auto& [f, on] : overrides) j.begin_object().field("feature", to_string(f)).field("on", on).end_object();
  j.end_array();
  for (int i = 0; i < 2; ++i) {
    j.key(i ? "after" : "before").begin_object().key("features").begin_array();
    for (const std::string_view f : feature_names(side[i]->sim.features())) j.value(f);
    j.end_array().field("violations", side[i]->sim.checker()->total_violations()).end_object();
  }
  j.field("identical", !parting).field("events_in_common", matched).key("first_difference");
  if (!parting) {
    j.null();
  } else {
    j.begin_object().field("t_ns", parting->t).key("cpus").begin_array();
    for (const CpuId c : parting->cpus) j.value(c.v);
    j.end_array();
    for (int i = 0; i < 2; ++i) {
      j.key(i ? "after" : "before").begin_object().key("event");
      if (parting->event[i]) j.value(describe(side[i]->sim.sched(), *parting->event[i]));
      else j.null();
      j.key("decisions").begin_array();
      for (const std::string& d : parting->decisions[i]) j.value(d);
      j.end_array().end_object();
    }
    j.end_object();
  }
  const Interval w[2] = {side[0]->stats.whole(side[0]->sim.sched(), now),
                         side[1]->stats.whole(side[1]->sim.sched(), side[1]->sim.now())};
  j.key("tasks").begin_array();
  for (std::size_t i = 0; i < w[0].tasks.size() && i < w[1].tasks.size(); ++i) {
    j.begin_object().field("name", a.sched().tasks[w[0].tasks[i].task].name).key("before");
    figures_json(j, w[0].tasks[i], now);
    j.key("after");
    figures_json(j, w[1].tasks[i], now);
    j.end_object();
  }
  j.end_array().key("groups").begin_array();
  for (std::size_t i = 0; i < w[0].groups.size() && i < w[1].groups.size(); ++i) {
    j.begin_object().field("path", a.sched().tg[w[0].groups[i].group].path);
    for (int k = 0; k < 2; ++k)
      j.key(k ? "after" : "before").begin_object().field("cpu_time_ns", w[k].groups[i].cpu_ns)
          .field("share", share(w[k].groups[i].cpu_ns, now)).end_object();
    j.end_object();
  }
  j.end_array().end_object();
  out << '\n';
}

}  // namespace

int cmd_diff(int argc, char** argv) {
  bool json = false, exit_code = false;
  std::vector<std::string> files;
  uint64_t check_every = 1;
  std::vector<std::pair<Feature, bool>> overrides;
  ArgParser p("diff", "Runs a scenario file under its own features (before) and with the --feature overrides\n"
                      "(after), side by side, and prints per-task and per-group figures of both with their\n"
                      "differences, and the first point where the two schedules part (their sched_switch,\n"
                      "sched_wakeup and sched_migrate_task events differ): the time, the CPU, each run's\n"
                      "event and its scheduling decisions there. Exit 0, or 1 when an invariant is violated\n"
                      "in either run (and with --exit-code when the schedules differ); 2 on bad input.");
  p.option("feature", feature_override(&overrides), "NAME=on|off", "the change to compare (repeatable; at least one)");
  p.flag("json", &json, "print JSON on stdout instead of the tables");
  p.flag("exit-code", &exit_code, "exit 1 when the schedules differ, 0 when they are identical");
  p.option("check-every", &check_every, "N",
           "check the invariants after every Nth op or event, and at the end (default 1; 0: never)");
  p.positionals("FILE", &files, "the scenario file", 1, 1);
  if (auto rc = p.parse(argc, argv)) return *rc;
  if (overrides.empty()) return p.error("give at least one --feature NAME=on|off to compare against");

  std::optional<Scenario> sc = load_scenario_or_report(files[0]);
  if (!sc) return 2;
  Scenario after = *sc;
  after.feature_overrides.insert(after.feature_overrides.end(), overrides.begin(), overrides.end());
  Side before_side(*sc, check_every), after_side(after, check_every);
  Side* side[2] = {&before_side, &after_side};

  std::optional<Parting> parting;
  uint64_t matched = 0;
  for (Nanos t = kChunk;; t += kChunk) {
    const bool a_done = side[0]->sim.run_to(t), b_done = side[1]->sim.run_to(t);  // both run, always
    const bool done = a_done && b_done;
    if ((parting = compare(side, &matched)) || done) break;
  }
  for (Side* s : side) {
    s->log.recording = false;
    s->log.events.clear();
    s->log.decisions.clear();
    s->sim.run();
  }
  if (json) print_json(files[0], side, overrides, parting, matched, std::cout);
  else print_table(files[0], side, overrides, parting, matched, std::cout);
  const bool ok = side[0]->sim.checker()->ok() && side[1]->sim.checker()->ok();
  return ok && !(exit_code && parting) ? 0 : 1;
}

}  // namespace cfsv::cli
