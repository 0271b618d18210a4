// Properties of the CFS model over random scenarios (RapidCheck):
//  - fairness: busy tasks sharing one CPU get CPU time in the ratio of their
//    weights, and groups in the ratio of their shares, within a stated bound;
//  - determinism: the same scenario gives byte-identical traces,
//    also after a print/parse round trip of the scenario;
//  - flat_slice (seed 003) changes nothing while every task is in the root group.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <regex>
#include <sstream>

#include "model/scenario_text.h"
#include "model/sim.h"
#include "model/trace.h"
#include "model/arith/weights.h"
#include "properties/sim_gen.h"
#include "properties/sim_test_util.h"

namespace cfsv {
namespace {

using properties::gen_log_uniform;
using properties::gen_nice;
using properties::gen_uniform;
using simgen::kMs;

constexpr Nanos kFairRun = 10'000 * kMs;  // simulated time of a fairness case

// A profile, 1..4 CPUs and a HZ; every task of the case goes on the last CPU
// (like seed 003), so the tunables still scale with the CPU count.
Scenario gen_one_cpu_base() {
  Scenario s;
  s.kernel = *simgen::gen_profile();
  s.topology = {1, static_cast<unsigned>(*gen_uniform(1, 4)), 1};
  s.settings = {{"hz", *simgen::gen_pick<uint64_t>({1000, 250, 100})}};
  s.duration = kFairRun;
  return s;
}

TaskSpec busy_task(const Scenario& s, std::string name, int nice, std::string group = "/") {
  TaskSpec t;
  t.name = std::move(name);
  t.nice = nice;
  t.group = std::move(group);
  t.cpus.set(s.topology.nr_cpus() - 1);
  return t;
}

// The bound on |CPU time - its fair part| for n busy tasks sharing a CPU: a
// scheduling period plus, per task, a tick and a min_granularity. A task runs
// whole ticks (it is preempted only at a tick, and not before
// min_granularity), so at the end of the run each task can be up to about one
// such stretch ahead of its fair part, and the others make up the difference;
// the period bounds the slices themselves. (Over 3000 random cases the worst
// deviation seen was 0.6 of this bound.)
Nanos fairness_bound(const Sim& sim, uint64_t n) {
  const Tunables& t = sim.tunables();
  const Nanos period = std::max<Nanos>(t.latency_ns, n * t.min_granularity_ns);
  return period + n * (t.tick_ns() + t.min_granularity_ns);
}

// CPU time of busy tasks on one CPU follows their weights: each of 2..8 tasks
// of random nice gets T * w / sum(w) within fairness_bound (0.2% to 1.2% of a
// 10 s run, by HZ and CPU count), and together they use the whole CPU.
RC_GTEST_PROP(SimProperties, BusyTasksOnOneCpuGetCpuTimeByWeight, ()) {
  Scenario s = gen_one_cpu_base();
  const auto n = *gen_uniform(2, 8);
  for (uint64_t i = 0; i < n; ++i) s.tasks.push_back(busy_task(s, "t" + std::to_string(i), *gen_nice()));
  Sim sim(s, SimOptions{.check_every = 0, .record_trace = false});
  sim.run();
  double total_weight = 0;
  for (const TaskSpec& t : s.tasks) total_weight += nice_to_weight(t.nice);
  const Nanos bound = fairness_bound(sim, n);
  Nanos sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const double fair = double(kFairRun) * nice_to_weight(s.tasks[i].nice) / total_weight;
    const double got = double(sim.cpu_time(TaskId(i)));
    RC_ASSERT(std::abs(got - fair) <= double(bound));
    sum += sim.cpu_time(TaskId(i));
  }
  RC_ASSERT(sum == kFairRun);
}

// Groups sharing one CPU get CPU time by their shares: 2..4 groups with random
// shares (2..262144) and 1..3 busy tasks of random nice each; each group gets
// T * shares / sum(shares) within fairness_bound for all the tasks.
RC_GTEST_PROP(SimProperties, GroupsOnOneCpuGetCpuTimeByShares, ()) {
  Scenario s = gen_one_cpu_base();
  const auto groups = *gen_uniform(2, 4);
  double total_shares = 0;
  std::vector<std::vector<TaskId>> members(groups);
  for (uint64_t g = 0; g < groups; ++g) {
    const std::string path = "/g" + std::to_string(g);
    s.groups.push_back({path, *gen_log_uniform(kFairMinShares, kFairMaxShares)});
    total_shares += double(s.groups.back().shares);
    const auto tasks = *gen_uniform(1, 3);
    for (uint64_t i = 0; i < tasks; ++i) {
      members[g].push_back(TaskId(s.tasks.size()));
      s.tasks.push_back(busy_task(s, "g" + std::to_string(g) + "t" + std::to_string(i), *gen_nice(), path));
    }
  }
  Sim sim(s, SimOptions{.check_every = 0, .record_trace = false});
  sim.run();
  const Nanos bound = fairness_bound(sim, s.tasks.size());
  Nanos sum = 0;
  for (uint64_t g = 0; g < groups; ++g) {
    Nanos got = 0;
    for (const TaskId t : members[g]) got += sim.cpu_time(t);
    const double fair = double(kFairRun) * double(s.groups[g].shares) / total_shares;
    RC_ASSERT(std::abs(double(got) - fair) <= double(bound));
    sum += got;
  }
  RC_ASSERT(sum == kFairRun);
}

using simtest::traces;

// The same scenario gives byte-identical traces, and so does the scenario
// printed and parsed back (what a reproducer file replays).
RC_GTEST_PROP(SimProperties, TheSameScenarioGivesByteIdenticalTraces, ()) {
  const Scenario s = *simgen::gen_sim_scenario_with_ops(30);
  const std::string first = traces(s);
  RC_ASSERT(traces(s) == first);
  const ParseResult back = parse_scenario(print_scenario(s));
  RC_ASSERT(std::holds_alternative<Scenario>(back));
  RC_ASSERT(traces(std::get<Scenario>(back)) == first);
}

// flat_slice only drops the levels above a task's own cfs_rq from
// sched_slice: with every task in the root group there are none, so turning
// it on or off must not change a single switch.
RC_GTEST_PROP(SimProperties, FlatSliceChangesNothingWhileEveryTaskIsInTheRootGroup, ()) {
  Scenario s = *simgen::gen_sim_scenario_with_ops(30);
  for (TaskSpec& t : s.tasks) t.group = "/";
  for (TimedOp& o : s.ops) {
    if (auto* sp = std::get_if<op::Spawn>(&o.op)) sp->task.group = "/";
    if (auto* mv = std::get_if<op::MoveTask>(&o.op)) mv->group = "/";
  }
  std::erase_if(s.feature_overrides, [](const auto& f) { return f.first == Feature::flat_slice; });
  s.feature_overrides.emplace_back(Feature::flat_slice, false);
  const std::string off = traces(s);
  s.feature_overrides.back().second = true;
  RC_ASSERT(traces(s) == off);
}

}  // namespace
}  // namespace cfsv
