#include "claims/sim_diff.h"

#include <algorithm>
#include <sstream>

#include "model/trace.h"

namespace cfsv {

SimRun run_with(const Scenario& s, const std::vector<std::pair<Feature, bool>>& overrides) {
  Scenario sc = s;
  std::erase_if(sc.feature_overrides, [&](const auto& f) {
    return std::any_of(overrides.begin(), overrides.end(), [&](const auto& o) { return o.first == f.first; });
  });
  sc.feature_overrides.insert(sc.feature_overrides.end(), overrides.begin(), overrides.end());
  std::ostringstream out;
  PerfScriptWriter w(out, "perf");
  SimRun r{std::make_unique<Sim>(sc, SimOptions{.sink = &w}), ""};
  r.sim->run();
  r.perf = out.str();
  return r;
}

namespace {
std::string first_differing_line(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string l, m;
  for (int n = 1;; ++n) {
    const bool gx = bool(std::getline(x, l)), gy = bool(std::getline(y, m));
    if (!gx && !gy) return "";
    if (!gx || !gy || l != m) return "line " + std::to_string(n) + ": '" + (gx ? l : "(end)") + "' vs '" + (gy ? m : "(end)") + "'";
  }
}

// Counters but the root's tg load_avg updates and skips.
auto decision_counters(const Counters& c) {
  return std::tuple{c.events,    c.ops,      c.ops_rejected, c.ticks,       c.schedules, c.context_switches,
                    c.resched_tick, c.resched_wakeup, c.wakeups, c.sleeps, c.forks, c.exits,
                    c.migrations, c.enqueues, c.dequeues,     c.reweights,   c.tg_load_avg_updates};
}
}  // namespace

std::string root_tg_skip_difference(const SimRun& before, const SimRun& after) {
  const Sim &a = *before.sim, &b = *after.sim;
  for (const Sim* s : {&a, &b})
    if (!s->checker()->ok()) return "invariant violated: " + s->checker()->violations().front().to_string();
  if (before.perf != after.perf) return "perf script differs at " + first_differing_line(before.perf, after.perf);
  for (const EntityId e : a.entities().ids()) {
    const SchedEntity &x = a.entities()[e], &y = b.entities()[e];
    if (!(x.pelt.avg == y.pelt.avg)) return "sched_entity " + std::to_string(e.v) + "'s PELT averages differ";
    if (x.load.weight != y.load.weight)
      return "sched_entity " + std::to_string(e.v) + "'s weight differs: " + std::to_string(x.load.weight) + " vs " +
             std::to_string(y.load.weight);
  }
  for (const CfsRqId q : a.cfs_rqs().ids()) {
    const CfsRq &x = a.cfs_rqs()[q], &y = b.cfs_rqs()[q];
    if (!(x.pelt.avg == y.pelt.avg)) return "cfs_rq " + std::to_string(q.v) + "'s PELT averages differ";
    if (x.tg != kRootGroup && x.pelt.tg_load_avg_contrib != y.pelt.tg_load_avg_contrib)
      return "cfs_rq " + std::to_string(q.v) + "'s tg_load_avg_contrib differs (a non-root group)";
  }
  for (const GroupId g : a.groups().ids())
    if (g != kRootGroup && a.groups()[g].load_avg != b.groups()[g].load_avg)
      return "group " + a.groups()[g].path + "'s tg->load_avg differs: " + std::to_string(a.groups()[g].load_avg) +
             " vs " + std::to_string(b.groups()[g].load_avg);
  if (decision_counters(a.counters()) != decision_counters(b.counters()))
    return "a counter other than the root's tg load_avg updates differs";
  for (const Sim* s : {&a, &b})
    if (s->sched().features[Feature::root_tg_load_avg_skip] && s->counters().root_tg_load_avg_updates != 0)
      return "the run with the skip updated the root's tg->load_avg " +
             std::to_string(s->counters().root_tg_load_avg_updates) + " times";
  return "";
}

std::optional<Counterexample> check_sim_case(const Claim& claim, const Scenario& s) {
  const SimDomain& d = claim.domain.sim;
  const SimRun before = run_with(s, d.before), after = run_with(s, d.after);
  const std::string diff = root_tg_skip_difference(before, after);
  if (diff.empty()) return std::nullopt;
  Counterexample cx;
  cx.claim = std::string(claim.id);
  cx.summary = diff;
  const Counters &a = before.sim->counters(), &b = after.sim->counters();
  cx.values = {{"kernel", s.kernel},
               {"cpus", std::to_string(s.topology.nr_cpus())},
               {"groups", std::to_string(s.groups.size())},
               {"tasks", std::to_string(s.tasks.size())},
               {"ops", std::to_string(s.ops.size())},
               {"duration_ns", std::to_string(s.duration)},
               {"before_root_tg_updates", std::to_string(a.root_tg_load_avg_updates)},
               {"after_root_tg_updates", std::to_string(b.root_tg_load_avg_updates)},
               {"before_tg_updates", std::to_string(a.tg_load_avg_updates)},
               {"after_tg_updates", std::to_string(b.tg_load_avg_updates)}};
  return cx;
}

}  // namespace cfsv
