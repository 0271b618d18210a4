// The figures `cfsv run` and `cfsv diff` print, as tables and as JSON: per
// task (CPU time, share, switches, migrations, wait, wakeup latency), per
// group (CPU time over membership, subgroups included) and per CPU (busy,
// idle, stretch lengths), for a whole run or one of its phases
// (model/stats.h computes them).
#pragma once
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.h"
#include "cli/json.h"
#include "cli/table.h"
#include "model/sim.h"
#include "model/stats.h"
#include "model/wasted.h"

namespace cfsv::cli {

std::string ms(Nanos ns);                  // "12.345ms" (to the microsecond)
std::string ms(double ns);                 // the same for a mean
std::string percent(Nanos part, Nanos whole);  // "12.3%"
double share(Nanos part, Nanos whole);     // part / whole, 0 when whole is 0
std::vector<std::string_view> feature_names(const FeatureSet& f);

// Shared by run and diff: the `--feature NAME=on|off` option's handler
// (repeatable), and a scenario file parsed (its error on stderr otherwise).
ArgParser::Handler feature_override(std::vector<std::pair<Feature, bool>>* out);
std::optional<Scenario> load_scenario_or_report(const std::string& path);
// The distinct times of the scenario's timed ops after 0, in order: where
// --phases splits a run.
std::vector<Nanos> phase_starts(const Scenario& sc);

// Tables. The task table of a whole run also has each task's CPU, group,
// nice and state at the end.
void print_tasks(const Sched& s, const Interval& iv, bool whole_run, std::ostream& out);
void print_groups(const Sched& s, const Interval& iv, std::ostream& out);
void print_cpus(const Sched& s, const Stats& st, Nanos at, std::ostream& out);
// "wasted core time ...: 12.000ms (MC 10.000ms, DIE 2.000ms)" or "...: none".
void print_wasted(const WastedCores& w, Nanos at, std::ostream& out);
// "phase 2: 500ms .. 600ms (at 500ms: line 20: weight /batch 400)", its tasks and groups.
void print_phases(const Sim& sim, const Stats& st, std::ostream& out);

// JSON values: {"count","avg_ns","p50_ns","p99_ns","max_ns"}; the task and
// group arrays of an interval (whole_run: with the tasks' end state); the
// CPU array; the phases array.
void latency_json(JsonWriter& j, const LatencySummary& l);
// {"load_avg", "runnable_avg", "util_avg"} under the key "pelt".
void pelt_json(JsonWriter& j, const ModelEra& era, const SchedAvg& a);
void tasks_json(JsonWriter& j, const Sched& s, const Interval& iv, bool whole_run);
// A churning task's children as one (absent when no task churns):
// [{"parent","forked","exited","cpu_time_ns","switches","migrations","wait_ns","share","latency"}].
void children_json(JsonWriter& j, const Sched& s, const Interval& iv);
void groups_json(JsonWriter& j, const Sched& s, const Interval& iv);
void cpus_json(JsonWriter& j, const Sched& s, const Stats& st, Nanos at);
// {"total_ns": N, "levels": [{"level", "name", "ns"}, ...]}
void wasted_json(JsonWriter& j, const WastedCores& w, Nanos at);
void phases_json(JsonWriter& j, const Sched& s, const Stats& st);

}  // namespace cfsv::cli
