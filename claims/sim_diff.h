// Simulation-differential claims (ClaimKind::sim_unobservable): one random op
// scenario (model/ops_decoder.h) run twice, with the claim's `before` and
// `after` feature overrides, and the two runs compared (sim_invariants: run
// once, its invariant checker read). One comparison, used
// by every engine that tests and by properties/sim_pelt_test.cpp.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "claims/claim.h"
#include "claims/counterexample.h"
#include "claims/lb_pass.h"
#include "model/ops_decoder.h"
#include "model/sim.h"

namespace cfsv {

// The case: a decoded op scenario on the domain's profile.
template <class R> Scenario decode_sim_case(R& r, const Claim& claim) {
  const SimDomain& d = claim.domain.sim;
  Scenario s = d.lb_workload ? decode_lb_workload(r) : decode_ops_scenario(r, DecodeOptions{.max_ops = d.max_ops, .churn = d.churn});
  s.kernel = std::string(d.kernel);
  if (d.topology) s.topology = *d.topology;
  for (const auto& [key, value] : d.settings) s.settings.push_back({std::string(key), value});
  return s;
}

// One of the tracepoints a run passed, for comparing runs event by event.
struct TraceEvent {
  enum Kind : uint8_t { sched_switch, sched_wakeup, sched_migrate_task } kind;
  Nanos t;
  CpuId cpu;        // the switch's, the wakeup's target, the migration's destination
  TaskId task;      // the switch's next; the woken or migrated task
  TaskId prev;      // the switch's prev
  TaskState prev_state = TaskState::runnable;
  bool operator==(const TraceEvent&) const = default;
};

// One run of a differential case: the Sim at its end, its `perf script`
// text (every sched_switch, sched_wakeup and sched_migrate_task) and the
// same events as data.
struct SimRun {
  std::unique_ptr<Sim> sim;
  std::string perf;
  std::vector<TraceEvent> events;
};
// `s` with `overrides` replacing any of the same features.
Scenario with_overrides(Scenario s, const std::vector<std::pair<Feature, bool>>& overrides);
// That scenario run to its end.
SimRun run_with(const Scenario& s, const std::vector<std::pair<Feature, bool>>& overrides);

// "" when `after` differs from `before` only in work a skip may save: the
// same perf-script events (picks, wakeups, migrations), both runs'
// invariants kept, every live entity's and cfs_rq's PELT averages, every group
// entity's weight, every non-root group's tg->load_avg and contributions, the
// decision counters and, with same_work, the work counters (enqueues,
// dequeues, reweights, non-root tg load_avg updates); no root tg load_avg
// update in a run with root_tg_load_avg_skip on. Otherwise the first
// difference, one line.
std::string unobservable_difference(const SimRun& before, const SimRun& after, bool same_work);
// Seed 000's reading: unobservable_difference with same_work.
std::string root_tg_skip_difference(const SimRun& before, const SimRun& after);

// The first state at which two runs of `s` (with `before` and `after`
// overrides) differ, stepped together to each op's and each event's time:
// that time, the ops applied at it, and the first cfs_rq whose PELT (sums,
// averages, removed) differs, with both values of its first differing field.
// "" when they never differ.
std::string first_state_difference(const Scenario& s, const std::vector<std::pair<Feature, bool>>& before,
                                   const std::vector<std::pair<Feature, bool>>& after);
// The first decision (perf-script event) the runs differ in, "" when none.
std::string first_decision_difference(const SimRun& before, const SimRun& after);

// "" when the runs are the same, or when at their first difference `after`
// switches a CPU to a task that was waiting on it, and that task (every:
// every task waiting there) then first runs no later in `after` than in
// `before` (seed 002's newidle stop). Otherwise what differs or ran later,
// one line.
// every = false: only the task picked is held to it.
std::string no_later_wakeup_difference(const SimRun& before, const SimRun& after, bool every);

// The first violation of one of the invariants `names` (every one when
// empty) that the run's checker kept, as Violation::to_string() prints it;
// "" when none.
std::string invariant_violation(const Sim& sim, const std::vector<std::string_view>& names);

// The first load_balance pass of the scenario's run (with `overrides`) that
// took more than its verdict allows, as LbPassWatch reports it; "" when none.
std::string lb_pass_beyond_verdict(const Scenario& s, const std::vector<std::pair<Feature, bool>>& overrides);

// nullopt when the claim holds on the scenario, else its counterexample.
std::optional<Counterexample> check_sim_case(const Claim& claim, const Scenario& s);

}  // namespace cfsv
