#include "cli/report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <ostream>

#include "model/scenario_text.h"

namespace cfsv::cli {

std::string ms(Nanos ns) {
  char b[40];
  std::snprintf(b, sizeof b, "%" PRIu64 ".%03" PRIu64 "ms", ns / 1000000, (ns % 1000000) / 1000);
  return b;
}

std::string ms(double ns) {
  char b[40];
  std::snprintf(b, sizeof b, "%.3fms", ns / 1e6);
  return b;
}

double share(Nanos part, Nanos whole) { return whole ? double(part) / double(whole) : 0.0; }

std::string percent(Nanos part, Nanos whole) {
  char b[16];
  std::snprintf(b, sizeof b, "%.1f%%", 100.0 * share(part, whole));
  return b;
}

std::vector<std::string_view> feature_names(const FeatureSet& f) {
  std::vector<std::string_view> v;
  for (const FeatureInfo& i : all_features())
    if (f[i.feature]) v.push_back(i.name);
  return v;
}

ArgParser::Handler feature_override(std::vector<std::pair<Feature, bool>>* out) {
  return [out](std::string_view v) -> std::string {
    const std::size_t eq = v.find('=');
    const std::string_view name = v.substr(0, eq), state = eq == v.npos ? "" : v.substr(eq + 1);
    const std::optional<Feature> f = feature_by_name(name);
    if (!f) return "unknown feature '" + std::string(name) + "' (see cfsv features)";
    if (state != "on" && state != "off") return "'" + std::string(v) + "' is not NAME=on or NAME=off";
    out->emplace_back(*f, state == "on");
    return {};
  };
}

std::optional<Scenario> load_scenario_or_report(const std::string& path) {
  ParseResult r = load_scenario_file(path);
  if (auto* e = std::get_if<ParseError>(&r)) {
    std::cerr << e->to_string() << '\n';
    return std::nullopt;
  }
  return std::get<Scenario>(std::move(r));
}

std::vector<Nanos> phase_starts(const Scenario& sc) {
  std::vector<Nanos> v;
  for (const TimedOp& o : sc.ops)
    if (o.at) v.push_back(o.at);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

namespace {

std::vector<std::string> latency_cells(const LatencySummary& l) {
  if (!l.count) return {"0", "-", "-", "-", "-"};
  return {std::to_string(l.count), ms(l.avg_ns), ms(l.p50_ns), ms(l.p99_ns), ms(l.max_ns)};
}

void append(std::vector<std::string>& to, std::vector<std::string> more) {
  to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

// The nice, and the policy when it is not SCHED_NORMAL: "19 idle".
std::string nice_cell(const Task& k) {
  return std::to_string(k.nice) + (k.policy == Policy::normal ? "" : std::string(" ") + policy_name(k.policy));
}

}  // namespace

void print_tasks(const Sched& s, const Interval& iv, bool whole_run, std::ostream& out) {
  std::vector<std::string> head = {"task"};
  if (whole_run) append(head, {"cpu", "group", "nice", "state"});
  append(head, {"cpu time", "share", "switches", "migrations", "wait", "wakeups", "lat avg", "lat p50", "lat p99",
                "lat max"});
  Table t(head);
  const Nanos length = iv.end - iv.start;
  for (const TaskFigures& f : iv.tasks) {
    const Task& k = s.tasks[f.task];
    std::vector<std::string> row = {k.name};
    if (whole_run)
      append(row,
             {std::to_string(k.cpu.v), s.tg[k.group].path, nice_cell(k), std::string(to_string(k.state))});
    append(row, {ms(f.cpu_ns), percent(f.cpu_ns, length), std::to_string(f.switches), std::to_string(f.migrations),
                 ms(f.wait_ns)});
    append(row, latency_cells(f.latency));
    t.row(std::move(row));
  }
  for (const ChildrenFigures& c : iv.children) {  // "sh/children": every child sh forked, live or exited
    const Task& p = s.tasks[c.parent];
    std::vector<std::string> row = {p.name + "/children"};
    if (whole_run)
      append(row, {"-", s.tg[p.cgroup].path, "-", std::to_string(c.exited) + "/" + std::to_string(c.forked) + " exited"});
    append(row, {ms(c.cpu_ns), percent(c.cpu_ns, length), std::to_string(c.switches), std::to_string(c.migrations),
                 ms(c.wait_ns)});
    append(row, latency_cells(c.latency));
    t.row(std::move(row));
  }
  t.print(out);
}

void print_groups(const Sched& s, const Interval& iv, std::ostream& out) {
  Table t({"group", "cpu time", "share"});
  const Nanos length = iv.end - iv.start;
  for (const GroupFigures& g : iv.groups) t.row({s.tg[g.group].path, ms(g.cpu_ns), percent(g.cpu_ns, length)});
  t.print(out);
}

// An offline column when hotplug took some CPU offline.
void print_cpus(const Sched& s, const Stats& st, Nanos at, std::ostream& out) {
  bool hotplug = false;
  for (const CpuId i : s.rq.ids()) hotplug |= offline_at(s, i, at) > 0;
  std::vector<std::string> head = {"cpu", "busy", "idle", "forks placed", "stretches (most common lengths)"};
  if (hotplug) head.insert(head.begin() + 3, "offline");
  Table c(head);
  for (const CpuId i : s.rq.ids()) {
    const StretchHistogram h = st.stretches(s, i, at);
    std::vector<std::string> row = {std::to_string(i.v), ms(busy_at(s, i, at)), ms(idle_at(s, i, at)),
                                    std::to_string(s.rq[i].forks_placed),
                                    h.total() ? format_histogram(h.kept(), h.other(), 4) : "-"};
    if (hotplug) row.insert(row.begin() + 3, ms(offline_at(s, i, at)));
    c.row(row);
  }
  c.print(out);
}

void print_wasted(const WastedCores& w, Nanos at, std::ostream& out) {
  out << "wasted core time (a CPU idle while a task it may run waits on another): ";
  const std::vector<WastedLevel> levels = w.levels(at);
  if (levels.empty()) {
    out << "none\n";
    return;
  }
  out << ms(w.total(at)) << " (";
  for (std::size_t i = 0; i < levels.size(); ++i)
    out << (i ? ", " : "") << levels[i].name << ' ' << ms(levels[i].ns);
  out << ")\n";
}

void print_phases(const Sim& sim, const Stats& st, std::ostream& out) {
  const auto& phases = st.phases();
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const Interval& p = phases[i];
    out << "\nphase " << i + 1 << ": " << format_duration(p.start) << " .. " << format_duration(p.end);
    std::string ops;
    for (const TimedOp& o : sim.scenario().ops)
      if (o.at == p.start) ops += (ops.empty() ? "" : "; ") + std::string("line ") + std::to_string(o.loc.line) +
                                  ": " + describe(o.op);
    if (!ops.empty()) out << " (" << ops << ")";
    out << "\n\n";
    print_tasks(sim.sched(), p, false, out);
    out << '\n';
    print_groups(sim.sched(), p, out);
  }
}

void latency_json(JsonWriter& j, const LatencySummary& l) {
  j.begin_object().field("count", l.count).field("avg_ns", l.avg_ns).field("p50_ns", l.p50_ns);
  j.field("p99_ns", l.p99_ns).field("max_ns", l.max_ns).end_object();
}

// "pelt": the averages as /proc/PID/sched names them (se.avg.*); v4.4 has no
// runnable_avg, v3.10 neither that nor util_avg (its load_avg: load_avg_contrib).
void pelt_json(JsonWriter& j, const ModelEra& era, const SchedAvg& a) {
  j.key("pelt").begin_object().field("load_avg", a.load_avg);
  if (era.pelt) j.field("runnable_avg", a.runnable_avg);
  if (!era.pelt_v3) j.field("util_avg", a.util_avg);
  j.end_object();
}

void tasks_json(JsonWriter& j, const Sched& s, const Interval& iv, bool whole_run) {
  const Nanos length = iv.end - iv.start;
  j.begin_array();
  for (const TaskFigures& f : iv.tasks) {
    const Task& t = s.tasks[f.task];
    j.begin_object().field("name", t.name).field("cpu_time_ns", f.cpu_ns).field("switches", f.switches);
    j.field("migrations", f.migrations).field("wait_ns", f.wait_ns);
    if (whole_run) {
      j.field("cpu", t.cpu.v).field("group", s.tg[t.group].path).field("nice", t.nice);
      j.field("policy", policy_name(t.policy)).field("state", to_string(t.state));
      if (s.era.tracks_pelt) pelt_json(j, s.era, s.se[t.se].pelt.avg);
    }
    j.field("share", share(f.cpu_ns, length)).key("latency");
    latency_json(j, f.latency);
    j.end_object();
  }
  j.end_array();
}

void children_json(JsonWriter& j, const Sched& s, const Interval& iv) {
  const Nanos length = iv.end - iv.start;
  j.begin_array();
  for (const ChildrenFigures& c : iv.children) {
    j.begin_object().field("parent", s.tasks[c.parent].name).field("forked", c.forked).field("exited", c.exited);
    j.field("cpu_time_ns", c.cpu_ns).field("switches", c.switches).field("migrations", c.migrations);
    j.field("wait_ns", c.wait_ns).field("share", share(c.cpu_ns, length)).key("latency");
    latency_json(j, c.latency);
    j.end_object();
  }
  j.end_array();
}

void groups_json(JsonWriter& j, const Sched& s, const Interval& iv) {
  const Nanos length = iv.end - iv.start;
  j.begin_array();
  for (const GroupFigures& g : iv.groups)
    j.begin_object().field("path", s.tg[g.group].path).field("cpu_time_ns", g.cpu_ns)
        .field("share", share(g.cpu_ns, length)).end_object();
  j.end_array();
}

void cpus_json(JsonWriter& j, const Sched& s, const Stats& st, Nanos at) {
  j.begin_array();
  for (const CpuId c : s.rq.ids()) {
    j.begin_object().field("cpu", c.v).field("idle_ns", idle_at(s, c, at)).field("busy_ns", busy_at(s, c, at));
    j.field("offline_ns", offline_at(s, c, at));
    j.field("forks_placed", s.rq[c].forks_placed);
    const StretchHistogram h = st.stretches(s, c, at);
    j.key("stretches").begin_object().key("lengths").begin_array();
    for (const auto& [len, n] : h.kept()) j.begin_object().field("ns", len).field("count", n).end_object();
    j.end_array().field("other", h.other()).end_object();
    j.end_object();
  }
  j.end_array();
}

void wasted_json(JsonWriter& j, const WastedCores& w, Nanos at) {
  j.begin_object().field("total_ns", w.total(at)).key("levels").begin_array();
  for (const WastedLevel& l : w.levels(at))
    j.begin_object().field("level", l.level).field("name", l.name).field("ns", l.ns).end_object();
  j.end_array().end_object();
}

void phases_json(JsonWriter& j, const Sched& s, const Stats& st) {
  j.begin_array();
  for (const Interval& p : st.phases()) {
    j.begin_object().field("start_ns", p.start).field("end_ns", p.end).key("tasks");
    tasks_json(j, s, p, false);
    if (!p.children.empty()) {
      j.key("children");
      children_json(j, s, p);
    }
    j.key("groups");
    groups_json(j, s, p);
    j.end_object();
  }
  j.end_array();
}

}  // namespace cfsv::cli
