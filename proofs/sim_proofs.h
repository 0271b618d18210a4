// Simulation-differential claims: what Z3 shows of them. Internal to proofs/.
#pragma once
#include <string_view>

#include "proofs/prove.h"

namespace cfsv::proofs {

// root-tg-load-avg-skip/unobservable: the one function the skip changes,
// update_tg_load_avg (model/arith/pelt_shares.h, the call model/pelt.cpp
// makes), over symbolic 64-bit load_avg, tg_load_avg_contrib, tg->load_avg
// and force. Two queries: for a non-root group the feature changes none of
// its results; for the root with the skip it writes nothing and reports no
// update. Passed (not proved) when both are unsat: that no decision reads the
// root's tg->load_avg is tested (properties, fuzz), not proved.
inline constexpr std::string_view kSimLemma =
    "forall 64-bit load_avg, tg_load_avg_contrib, tg->load_avg, force and is_root: update_tg_load_avg with "
    "skip_root = is_root && root_tg_load_avg_skip gives a non-root group's results unchanged by the feature, and "
    "with the skip leaves the root's contribution and tg->load_avg alone and reports no update";
// newidle-stop/no-later-wakeup: the walk's stop test (newidle_walk_stops,
// model/arith/balance.h, as model/balance.cpp calls it) over a walk of
// kNewidleLevels domains with symbolic per-domain costs, pulls and rq
// lengths (each domain's outcome the same in both walks): the walk with the
// stop balances a prefix of the domains the walk without it balances, so a
// task waiting from the walk's start waits no longer. Passed (not proved) for
// the claim: that the first difference of two runs is such a stop is tested.
inline constexpr unsigned kNewidleLevels = 6;
inline constexpr std::string_view kNewidleLemma =
    "forall per-domain costs c[d] < 2^40, pulled_task[d] and nr_running[d] (d < 6): the domains the walk with "
    "the stop balances are a prefix of those the walk without it balances, and their total cost is no larger";
// move-task-same-group/noop: one sched_move_task of a queued task into its
// own group (prove_move_task in sim_proofs.cpp) against the early return.
inline constexpr std::string_view kMoveTaskLemma =
    "forall valid v5.15 PELT states of a queued task and its cfs_rq at one time (sums = avg * divider + a "
    "remainder below it), tg contributions and vruntimes: detach+attach with two update_tg_load_avg and the "
    "DEQUEUE_MOVE requeue of vruntime leave every sum, average, contribution, vruntime and min_vruntime unchanged";
// group-move/invariants: the invariants are checked on runs; Z3 shows the
// arithmetic of a group move's PELT detach and attach (prove_move_invariants).
inline constexpr std::string_view kMoveInvariantsLemma =
    "forall 32-bit averages of an entity and of its old and new group's cfs_rqs (the old one's at least the "
    "entity's): detach_entity_load_avg then attach_entity_load_avg keep the two cfs_rqs' load, util and "
    "runnable averages' totals and the entity's averages";
// lb-pass/within-verdict (both eras): one take of detach_tasks' loop
// (prove_lb_take): the loop takes only while env->imbalance r is positive,
// with the tests detach_load_fits / detach_load_fits_v4 (model/arith/balance.h,
// as model/balance*.cpp call them); by induction over the takes, a pass moves
// at most X. That the simulator's pass is that loop is tested.
inline constexpr std::string_view kLbPassLemma =
    "forall 0 < r < 2^63 (env->imbalance), 64-bit loads and utils, 32-bit nr_balance_failed: a load that "
    "detach_load_fits with nr_balance_failed 0 (as max(load, 1)) leaves 0 <= r - load < r; a util <= r leaves "
    "r - util >= 0; a task leaves r - 1 >= 0; a load that detach_load_fits fits below (r + 1) << "
    "nr_balance_failed; era 1: a load that detach_load_fits_v4 is at most 2r + 1";
// The lemma a simulation claim's proof states.
std::string_view sim_lemma(const Claim& claim);
ProofResult prove_sim(const Claim& claim, const CheckConfig& config);

}  // namespace cfsv::proofs
