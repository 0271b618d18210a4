// Simulation-differential claims (ClaimKind::sim_unobservable): one random op
// scenario (model/ops_decoder.h) run twice, with the claim's `before` and
// `after` feature overrides, and the two runs compared. One comparison, used
// by every engine that tests and by properties/sim_pelt_test.cpp.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "claims/claim.h"
#include "claims/counterexample.h"
#include "model/ops_decoder.h"
#include "model/sim.h"

namespace cfsv {

// The case: a decoded op scenario on the domain's profile.
template <class R> Scenario decode_sim_case(R& r, const Claim& claim) {
  Scenario s = decode_ops_scenario(r, DecodeOptions{.max_ops = claim.domain.sim.max_ops});
  s.kernel = std::string(claim.domain.sim.kernel);
  return s;
}

// One run of a differential case: the Sim at its end and its `perf script`
// text (every sched_switch, sched_wakeup and sched_migrate_task).
struct SimRun {
  std::unique_ptr<Sim> sim;
  std::string perf;
};
// `s` with `overrides` replacing any of the same features, run to its end.
SimRun run_with(const Scenario& s, const std::vector<std::pair<Feature, bool>>& overrides);

// "" when `after` differs from `before` only as root_tg_load_avg_skip may:
// the same perf-script events, both runs' invariants kept, every entity's and
// cfs_rq's PELT averages, every group entity's weight, every non-root group's
// tg->load_avg and contributions, every counter but the root's tg load_avg
// updates and skips, and none of those updates in a run with the skip on.
// Otherwise the first difference, one line.
std::string root_tg_skip_difference(const SimRun& before, const SimRun& after);

// nullopt when the claim holds on the scenario, else its counterexample.
std::optional<Counterexample> check_sim_case(const Claim& claim, const Scenario& s);

}  // namespace cfsv
