#include "claims/sim_diff.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "claims/lb_pass.h"
#include "model/scenario_text.h"
#include "model/trace.h"

namespace cfsv {

namespace {

// Records the tracepoints as TraceEvents.
struct EventLog : SchedSink {
  std::vector<TraceEvent> events;
  void sched_switch(const Sched&, const SwitchEvent& e) override {
    events.push_back({TraceEvent::sched_switch, e.t, e.cpu, e.next, e.prev, e.prev_state});
  }
  void sched_wakeup(const Sched& s, TaskId t, bool) override {
    events.push_back({TraceEvent::sched_wakeup, s.now, s.tasks[t].cpu, t, {}, {}});
  }
  void sched_migrate_task(const Sched& s, TaskId t, CpuId, CpuId dest) override {
    events.push_back({TraceEvent::sched_migrate_task, s.now, dest, t, {}, {}});
  }
};

std::string describe(const Sim& sim, const TraceEvent& e) {
  const auto name = [&](TaskId t) {
    return t ? sim.tasks()[t].name : t == kIdle ? std::string("idle") : std::string("stopper");
  };
  const std::string at = format_duration(e.t) + " cpu" + std::to_string(e.cpu.v) + ": ";
  switch (e.kind) {
    case TraceEvent::sched_switch: return at + "switch " + name(e.prev) + " -> " + name(e.task);
    case TraceEvent::sched_wakeup: return at + "wakeup " + name(e.task);
    case TraceEvent::sched_migrate_task: return at + "migrate " + name(e.task) + " here";
  }
  return at;
}

}  // namespace

Scenario with_overrides(Scenario sc, const std::vector<std::pair<Feature, bool>>& overrides) {
  std::erase_if(sc.feature_overrides, [&](const auto& f) {
    return std::any_of(overrides.begin(), overrides.end(), [&](const auto& o) { return o.first == f.first; });
  });
  sc.feature_overrides.insert(sc.feature_overrides.end(), overrides.begin(), overrides.end());
  return sc;
}

SimRun run_with(const Scenario& s, const std::vector<std::pair<Feature, bool>>& overrides) {
  const Scenario sc = with_overrides(s, overrides);
  std::ostringstream out;
  PerfScriptWriter w(out, "perf");
  EventLog log;
  SinkTee tee{&w, &log};
  // Its events name tasks by id and are described after the run: no churn slot reuse.
  SimRun r{std::make_unique<Sim>(sc, SimOptions{.sink = &tee, .reuse_task_slots = false}), "", {}};
  r.sim->run();
  r.perf = out.str();
  r.events = std::move(log.events);
  return r;
}

namespace {std::string first_differing_line(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string l, m;
  for (int n = 1;; ++n) {
    const bool gx = bool(std::getline(x, l)), gy = bool(std::getline(y, m));
    if (!gx && !gy) return "";
    if (!gx || !gy || l != m) return "line " + std::to_string(n) + ": '" + (gx ? l : "(end)") + "' vs '" + (gy ? m : "(end)") + "'";
  }
}

// The counters of decisions: what a skip may not change.
auto decision_counters(const Counters& c) {
  return std::tuple{c.events,     c.ops,         c.ops_rejected,       c.ticks,   c.schedules,
                    c.context_switches, c.resched_tick, c.resched_wakeup, c.wakeups, c.sleeps,
                    c.forks,      c.exits,       c.migrations,         c.wakeup_migrations, c.fork_placements_away,
                    c.wakeups_sync, c.wake_affine_calls, c.wake_affine_pulls, c.wake_wide};
}
// The counters of work done (the root's tg load_avg updates apart).
auto work_counters(const Counters& c) { return std::tuple{c.enqueues, c.dequeues, c.reweights, c.tg_load_avg_updates}; }

// Each field of a cfs_rq's PELT the runs are compared on, by its kernel name.
template <class F> void each_pelt_field(const CfsRqPelt& p, F f) {
  const SchedAvg& a = p.avg;
  f("load_avg", a.load_avg), f("util_avg", a.util_avg), f("runnable_avg", a.runnable_avg);
  f("load_sum", a.load_sum), f("util_sum", a.util_sum), f("runnable_sum", a.runnable_sum);
  f("period_contrib", a.period_contrib), f("last_update_time", a.last_update_time);
  f("removed.nr", p.removed.nr), f("removed.load_avg", p.removed.load_avg);
  f("removed.util_avg", p.removed.util_avg), f("removed.runnable_avg", p.removed.runnable_avg);
  f("tg_load_avg_contrib", p.tg_load_avg_contrib);
}

// Whether e is an exited task's entity: its state is read by nothing again.
bool dead_task_entity(const Sim& sim, EntityId e) {
  for (const Task& t : sim.tasks())
    if (t.se == e) return t.state == TaskState::exited;
  return false;
}

std::string cfs_rq_name(const Sim& sim, CfsRqId q) {
  const CfsRq& c = sim.cfs_rqs()[q];
  return "cfs_rq of " + sim.groups()[c.tg].path + " on cpu" + std::to_string(c.cpu.v);
}

// "" when both runs' first fields differ nowhere, else "NAME: FIELD x vs y"
// for the first that does. `each(sim, id, f)` calls f(field, value) per field.
template <class Ids, class Each, class Name>
std::string first_field_difference(const Sim& a, const Sim& b, const Ids& ids, Each each, Name name) {
  for (const auto id : ids) {
    std::vector<std::pair<const char*, uint64_t>> xs;
    each(a, id, [&](const char* n, uint64_t v) { xs.emplace_back(n, v); });
    std::size_t i = 0;
    std::string diff;
    each(b, id, [&](const char*, uint64_t v) {
      if (diff.empty() && i < xs.size() && xs[i].second != v)
        diff = name(a, id) + ": " + xs[i].first + " " + std::to_string(xs[i].second) + " vs " + std::to_string(v);
      ++i;
    });
    if (!diff.empty()) return diff;
  }
  return "";
}

// The first entity (vruntime, slice start, weight) or cfs_rq (min_vruntime,
// PELT) whose state differs between the runs, each, "" when none does.
std::string state_difference(const Sim& a, const Sim& b) {
  if (a.entities().size() != b.entities().size() || a.cfs_rqs().size() != b.cfs_rqs().size())
    return "the runs have different entities or cfs_rqs";
  const auto entity = [](const Sim& s, EntityId e, auto f) {
    if (dead_task_entity(s, e)) return;
    const SchedEntity& x = s.entities()[e];
    f("vruntime", x.vruntime), f("prev_sum_exec_runtime (slice start)", x.prev_sum_exec_runtime);
    f("load.weight", x.load.weight);
  };
  const auto entity_name = [](const Sim& s, EntityId e) {
    for (const Task& t : s.tasks())
      if (t.se == e) return "task " + t.name;
    for (const TaskGroup& g : s.groups())
      for (const CpuId c : s.rqs().ids())
        if (!g.se.empty() && g.se[c] == e) return "group entity of " + g.path + " on cpu" + std::to_string(c.v);
    return "sched_entity " + std::to_string(e.v);
  };
  const auto cfs = [](const Sim& s, CfsRqId q, auto f) {
    f("min_vruntime", s.cfs_rqs()[q].min_vruntime);
    each_pelt_field(s.cfs_rqs()[q].pelt, f);
  };
  const std::string q = first_field_difference(a, b, a.cfs_rqs().ids(), cfs, cfs_rq_name);
  const std::string e = first_field_difference(a, b, a.entities().ids(), entity, entity_name);
  return q + (q.empty() || e.empty() ? "" : "; ") + e;
}
}  // namespace

std::string unobservable_difference(const SimRun& before, const SimRun& after, bool same_work) {
  const Sim &a = *before.sim, &b = *after.sim;
  for (const Sim* s : {&a, &b})
    if (!s->checker()->ok()) return "invariant violated: " + s->checker()->violations().front().to_string();
  if (before.perf != after.perf) return "perf script differs at " + first_differing_line(before.perf, after.perf);
  for (const EntityId e : a.entities().ids()) {
    if (dead_task_entity(a, e) && dead_task_entity(b, e)) continue;
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
  if (decision_counters(a.counters()) != decision_counters(b.counters())) return "a decision counter differs";
  if (same_work && work_counters(a.counters()) != work_counters(b.counters()))
    return "a counter of work (enqueues, dequeues, reweights, tg load_avg updates) differs";
  for (const Sim* s : {&a, &b})
    if (s->sched().features[Feature::root_tg_load_avg_skip] && s->counters().root_tg_load_avg_updates != 0)
      return "the run with the skip updated the root's tg->load_avg " +
             std::to_string(s->counters().root_tg_load_avg_updates) + " times";
  return "";
}

std::string root_tg_skip_difference(const SimRun& before, const SimRun& after) {
  return unobservable_difference(before, after, true);
}

std::string first_state_difference(const Scenario& s, const std::vector<std::pair<Feature, bool>>& before,
                                   const std::vector<std::pair<Feature, bool>>& after) {
  std::vector<Nanos> times;
  for (const TimedOp& o : s.ops) times.push_back(o.at);
  const SimRun whole = run_with(s, before);
  for (const TraceEvent& e : whole.events) times.push_back(e.t);
  times.push_back(s.duration);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  Sim a(with_overrides(s, before)), b(with_overrides(s, after));
  for (const Nanos t : times) {
    const bool a_ended = a.run_to(t), b_ended = b.run_to(t);
    const bool ended = a_ended || b_ended;
    if (const std::string d = state_difference(a, b); !d.empty()) {
      std::string ops;
      for (const TimedOp& o : s.ops)
        if (o.at == t) ops += (ops.empty() ? "" : "; ") + describe(o.op);
      return "at " + format_duration(t) + (ops.empty() ? "" : " (ops: " + ops + ")") + ": " + d;
    }
    if (ended) break;
  }
  return "";
}

std::string first_decision_difference(const SimRun& before, const SimRun& after) {
  const std::vector<TraceEvent>&a = before.events, &b = after.events;
  const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  if (ia == a.end() && ib == b.end()) return "";
  return (ia == a.end() ? std::string("(end)") : describe(*before.sim, *ia)) + " without the feature, " +
         (ib == b.end() ? std::string("(end)") : describe(*after.sim, *ib)) + " with it";
}

std::string no_later_wakeup_difference(const SimRun& before, const SimRun& after, bool every) {
  for (const SimRun* r : {&before, &after})
    if (!r->sim->checker()->ok()) return "invariant violated: " + r->sim->checker()->violations().front().to_string();
  const std::vector<TraceEvent>&a = before.events, &b = after.events;
  const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  if (ia == a.end() && ib == b.end()) return "";
  const std::size_t i = static_cast<std::size_t>(ib - b.begin());
  const std::string there = " (before: " + (ia == a.end() ? std::string("the end") : describe(*before.sim, *ia)) + ")";
  if (ib == b.end() || ib->kind != TraceEvent::sched_switch || !ib->task)
    return "the first difference is not a pick: " + (ib == b.end() ? std::string("the end") : describe(*after.sim, *ib)) +
           there;
  // The tasks waiting on that CPU at the difference: replay the common prefix.
  const CpuId cpu = ib->cpu;
  std::vector<std::pair<CpuId, bool>> at(after.sim->tasks().size());  // each task's CPU, and whether it waits there
  for (std::size_t k = 0; k < i; ++k) {
    const TraceEvent& e = b[k];
    if (e.kind == TraceEvent::sched_switch) {
      if (e.prev) at[e.prev.index()].second = e.prev_state == TaskState::runnable;
      if (e.task) at[e.task.index()] = {e.cpu, false};
    } else {
      at[e.task.index()] = {e.cpu, e.kind == TraceEvent::sched_wakeup || at[e.task.index()].second};
    }
  }
  const auto first_run = [&](const std::vector<TraceEvent>& ev, TaskId t) {
    for (std::size_t k = i; k < ev.size(); ++k)
      if (ev[k].kind == TraceEvent::sched_switch && ev[k].task == t) return ev[k].t;
    return std::numeric_limits<Nanos>::max();
  };
  if (!(at[ib->task.index()].first == cpu && at[ib->task.index()].second))
    return "the first difference picks a task that was not waiting on that CPU: " + describe(*after.sim, *ib) + there;
  for (std::size_t k = 0; k < at.size(); ++k) {
    const TaskId t(k);
    if (at[k].first != cpu || !at[k].second || (!every && t != ib->task)) continue;
    const Nanos ta = first_run(b, t), tb = first_run(a, t);
    if (ta > tb)
      return after.sim->tasks()[t].name + ", waiting on cpu" + std::to_string(cpu.v) + " at " + describe(*after.sim, *ib) +
             ", first runs at " + (ta == std::numeric_limits<Nanos>::max() ? "never" : format_duration(ta)) +
             " with the feature, at " + format_duration(tb) + " without";
  }
  return "";
}

std::string invariant_violation(const Sim& sim, const std::vector<std::string_view>& names) {
  for (const Violation& v : sim.checker()->violations())
    if (names.empty() || std::find(names.begin(), names.end(), v.invariant) != names.end()) return v.to_string();
  return "";
}

namespace {
// The case's size: what every simulation counterexample lists.
std::vector<Value> case_values(const Scenario& s) {
  return {{"kernel", s.kernel},
          {"cpus", std::to_string(s.topology.nr_cpus())},
          {"groups", std::to_string(s.groups.size())},
          {"tasks", std::to_string(s.tasks.size())},
          {"ops", std::to_string(s.ops.size())},
          {"duration_ns", std::to_string(s.duration)}};
}

std::optional<Counterexample> check_invariants_case(const Claim& claim, const Scenario& s) {
  std::string v;
  if (claim.kind == ClaimKind::sim_lb_pass_within_verdict) {
    v = lb_pass_beyond_verdict(s, claim.domain.sim.before);
  } else {
    const SimRun run = run_with(s, claim.domain.sim.before);
    v = invariant_violation(*run.sim, claim.domain.sim.invariants);
  }
  if (v.empty()) return std::nullopt;
  Counterexample cx;
  cx.claim = std::string(claim.id);
  cx.summary = v;
  cx.scenario = print_scenario(with_overrides(s, claim.domain.sim.before));
  cx.values = case_values(s);
  return cx;
}
}  // namespace

std::string lb_pass_beyond_verdict(const Scenario& s, const std::vector<std::pair<Feature, bool>>& overrides) {
  LbPassWatch w;
  Sim sim(with_overrides(s, overrides), SimOptions{.check_every = 0, .sink = &w});
  sim.run();
  return w.first_violation;
}

std::optional<Counterexample> check_sim_case(const Claim& claim, const Scenario& s) {
  if (claim.kind == ClaimKind::sim_invariants || claim.kind == ClaimKind::sim_lb_pass_within_verdict)
    return check_invariants_case(claim, s);
  const SimDomain& d = claim.domain.sim;
  const SimRun before = run_with(s, d.before), after = run_with(s, d.after);
  const std::string diff = is_newidle_stop_kind(claim.kind) ? no_later_wakeup_difference(before, after, false)
                                                            : unobservable_difference(before, after, d.same_work);
  if (diff.empty()) return std::nullopt;
  Counterexample cx;
  cx.claim = std::string(claim.id);
  cx.summary = diff;
  cx.scenario = print_scenario(with_overrides(s, d.after));
  const Counters &a = before.sim->counters(), &b = after.sim->counters();
  cx.values = case_values(s);
  const auto both = [&](const char* name, uint64_t x, uint64_t y) {
    cx.values.push_back({std::string("before_") + name, std::to_string(x)});
    cx.values.push_back({std::string("after_") + name, std::to_string(y)});
  };
  if (is_newidle_stop_kind(claim.kind)) {
    both("newidle_domains", a.newidle_domains, b.newidle_domains);
    both("newidle_arrival_wait_ns", a.newidle_arrival_wait_ns, b.newidle_arrival_wait_ns);
  } else {
    both("root_tg_updates", a.root_tg_load_avg_updates, b.root_tg_load_avg_updates);
    both("tg_updates", a.tg_load_avg_updates, b.tg_load_avg_updates);
    both("move_task_calls", a.move_task_calls, b.move_task_calls);
    both("move_task_requeues", a.move_task_requeues, b.move_task_requeues);
    both("move_task_skips", a.move_task_skips, b.move_task_skips);
    // where the runs first part: the state, then the decision it changes
    const std::string state = first_state_difference(s, d.before, d.after);
    const std::string decision = first_decision_difference(before, after);
    cx.summary = "state first differs " + (state.empty() ? std::string("nowhere in the cfs_rqs' PELT") : state) +
                 "; first decision changed: " + (decision.empty() ? "none (at the end: " + diff + ")" : decision);
  }
  return cx;
}

}  // namespace cfsv
