// The claims: one record each (claims/claim.h). A claim of an existing kind
// needs nothing else: every engine checks it by its kind and domain.
#include "claims/balance_case.h"
#include "claims/balance_v3_case.h"
#include "claims/balance_v4_case.h"
#include "claims/claim.h"

namespace cfsv {

namespace {
using F = Feature;
using K = ClaimKind;

// n tasks of one nice level on the task's own cfs_rq, depth 1 (the flat
// slice reads that level only), at most 16 / 32 / 1000 tasks by budget.
Domain equal_weights(Era era) { return {1, 1, {16, 32, 1000}, Weights::equal_on_task_rq, 4, 4, {era}}; }

// v5.16's SCHED_IDLE slices: a task that may be SCHED_IDLE among others that
// may all be idle, on 1..8 CPUs' boot tunables (min_granularity 0.75..3 ms)
// or with min_granularity written through debugfs.
Domain idle_slices(uint64_t min_granularity = 0) {
  Domain d{.min_cpus = 1, .max_cpus = 8, .idle = true};
  d.min_granularity = min_granularity;
  return d;
}

// A PELT claim's domain: the kernel's ranges (claims/pelt_case.h) in these eras.
Domain pelt(std::vector<PeltEra> eras, uint64_t util_limit = 1024) {
  return Domain{.pelt = {std::move(eras), util_limit}};
}
using P = PeltEra;

// Seed 002's runs: v5.15 with load balancing, the newidle stop off then on,
// random op scenarios on 2 sockets x 2 cores x 2 threads (SMT, MC and DIE
// domains: a walk of three), each domain's newidle balance taking 20 us per
// CPU of its span (40, 80 and 160 us), so that tasks arrive during walks.
Domain newidle_stop() {
  return Domain{.sim = {"v5.15",
                        {{F::load_balance, true}, {F::newidle_stop_on_runnable, false}},
                        {{F::load_balance, true}, {F::newidle_stop_on_runnable, true}},
                        32,
                        Topology{2, 2, 2},
                        {{"newidle_cost", 20'000}}}};
}
// Seed 001's runs: v5.15 with CONFIG_SCHED_AUTOGROUP built in (every exit
// calls sched_move_task) and the sysctl on, with select_task_rq_fair's
// placements and load balancing (the decisions that read PELT), the
// same-group skip off then on;
// random op scenarios (groups, fork, exit, setsid, autogroup nice, cgroup
// destroy) compared on decisions and signals, not on the requeues' work.
Domain move_task_skip() {
  const std::vector<std::pair<Feature, bool>> base = {
      {F::sched_autogroup, true}, {F::kernel_placement, true}, {F::load_balance, true}};
  auto with = [&](bool skip) {
    auto v = base;
    v.emplace_back(F::move_task_skip_same_group, skip);
    return v;
  };
  return Domain{.sim = {"v5.15", with(false), with(true), 32, std::nullopt, {{"autogroup", 1}}, false}};
}
// The group-move invariants' runs: v5.15 with CONFIG_SCHED_AUTOGROUP on,
// placement and balancing, random op scenarios with tasks that fork
// short-lived children (each exit a sched_move_task), run once.
Domain group_move_invariants() {
  const std::vector<std::pair<Feature, bool>> f = {
      {F::sched_autogroup, true}, {F::kernel_placement, true}, {F::load_balance, true}};
  return Domain{.sim = {"v5.15", f, f, 32, std::nullopt, {{"autogroup", 1}}, true, true,
                        {"load-equals-sum", "nr-running-consistent", "pelt-attached-once", "pelt-removed-once",
                         "destroyed-group-unreferenced", "task-in-its-group"}}};
}
// The load_balance pass claims' runs: decode_lb_workload's machines and
// tasks (claims/lb_pass.h) on one profile, run once, every pass that moved
// tasks checked.
Domain lb_pass(std::string_view kernel) {
  SimDomain d;
  d.kernel = kernel, d.lb_workload = true;
  return Domain{.sim = d};
}
// A balancing claim's domain: these levels, groups of up to 4 CPUs and 8 entities per CPU.
Domain balance(std::vector<LbLevel> levels) { return Domain{.balance = {std::move(levels), 4, 8}}; }

}  // namespace

// Built on first use: other static initialisers may ask for the claims.
std::span<const Claim> all_claims() {
  static const Claim kClaims[] = {
      {"slice-min-granularity/hierarchical", "seed 003 (before)",
       "sched_slice >= min_granularity with the v3.x..v5.12 hierarchical slice", K::slice_at_least_min_gran, Domain{},
       FeatureSet{}, Shape::upper_levels_cut, Expect::refuted},
      {"slice-min-granularity/flat", "seed 003 (after)",
       "sched_slice >= min_granularity when only the task's own cfs_rq is followed", K::slice_at_least_min_gran,
       Domain{}, FeatureSet{F::flat_slice}, Shape::equal_siblings, Expect::refuted},
      {"slice-min-granularity/base_slice", "v5.13 ALT_PERIOD+BASE_SLICE",
       "sched_slice >= min_granularity with BASE_SLICE's floor", K::slice_at_least_min_gran, Domain{},
       FeatureSet{F::alt_period, F::base_slice}, Shape::none, Expect::holds},
      {"slice-min-granularity/flat-equal-weights-exact-set", "seed 003 (after)",
       "with n equal-weight tasks on the task's cfs_rq, the flat sched_slice >= min_granularity iff "
       "n < sched_nr_latency",
       K::equal_weights_exact_set, equal_weights(Era::v5_7), FeatureSet{F::flat_slice}, Shape::none, Expect::holds},
      {"slice-min-granularity/flat-equal-weights-rounding", "seed 003 (after)",
       "with n equal-weight (w) tasks on the task's cfs_rq, the flat sched_slice >= min_granularity - "
       "ceil(n * w * min_granularity / 2^32)",
       K::equal_weights_rounding, equal_weights(Era::v5_7), FeatureSet{F::flat_slice}, Shape::none, Expect::holds},
      {"slice-min-granularity/flat-equal-weights-exact-set-v3.10", "seed 003 (after, on its v3.10 base)",
       "with v3.10's calc_delta_mine and n equal-weight tasks on the task's cfs_rq, the flat sched_slice >= "
       "min_granularity iff n < sched_nr_latency",
       K::equal_weights_exact_set, equal_weights(Era::v3_10), FeatureSet{F::flat_slice}, Shape::none,
       Expect::refuted},
      {"slice-min-granularity/flat-equal-weights-rounding-v3.10", "seed 003 (after, on its v3.10 base)",
       "with v3.10's calc_delta_mine and n equal-weight (w) tasks on the task's cfs_rq, the flat sched_slice >= "
       "min_granularity - ceil(n * w * min_granularity / 2^32) - ceil(2^15 / (n * w))",
       K::equal_weights_rounding, equal_weights(Era::v3_10), FeatureSet{F::flat_slice}, Shape::none, Expect::holds},
      {"slice-min-granularity/flat-equal-weights-exact-set-v3.13", "seed 003 (after, on v4.4's 32-bit loads)",
       "with v3.13..v4.6's 32-bit loads and n equal-weight tasks on the task's cfs_rq, the flat sched_slice >= "
       "min_granularity iff n < sched_nr_latency",
       K::equal_weights_exact_set, equal_weights(Era::v3_13), FeatureSet{F::flat_slice}, Shape::none, Expect::holds},
      {"slice-min-granularity/idle-floor", "v5.16 SCHED_IDLE slices (51ce83ed523b)",
       "sched_slice >= min_granularity with BASE_SLICE's floor for a task that may be SCHED_IDLE, with v5.16's "
       "idle floor",
       K::slice_at_least_min_gran, idle_slices(), FeatureSet{F::alt_period, F::base_slice, F::idle_min_granularity},
       Shape::idle_beside_one, Expect::refuted},
      {"slice-idle-floor/only-shortens", "v5.16 SCHED_IDLE slices (51ce83ed523b)",
       "v5.16's idle floor never lengthens a slice, and changes only a SCHED_IDLE task's",
       K::idle_floor_only_shortens, idle_slices(), FeatureSet{F::alt_period, F::base_slice, F::idle_min_granularity},
       Shape::none, Expect::holds},
      {"slice-idle-floor/only-shortens-tuned", "v5.16 SCHED_IDLE slices (51ce83ed523b), min_granularity tuned",
       "v5.16's idle floor never lengthens a slice, and changes only a SCHED_IDLE task's, after min_granularity_ns "
       "is set to 0.5 ms",
       K::idle_floor_only_shortens, idle_slices(500'000), FeatureSet{F::alt_period, F::base_slice,
       F::idle_min_granularity}, Shape::idle_beside_one, Expect::refuted},
      {"calc-delta/loop-equals-fls", "__calc_delta loop form (v3.13..v5.10) vs fls form (v5.11+)",
       "calc_delta_loop(delta, weight, lw) == calc_delta(delta, weight, lw) wherever the kernel's shift is defined",
       K::calc_delta_loop_equals_fls, Domain{.eras = {Era::v5_7, Era::v4_7, Era::v3_13}}, FeatureSet{}, Shape::none,
       Expect::holds},
      {"pelt-decay/bounded", "PELT decay", "decay_load(v, n) <= v", K::pelt_decay_bounded,
       pelt({P::v3_10, P::v4_4, P::v5_15}), FeatureSet{}, Shape::none, Expect::holds},
      {"pelt-decay/monotone", "PELT decay", "decay_load(v, n + 1) <= decay_load(v, n)", K::pelt_decay_monotone,
       pelt({P::v3_10, P::v4_4, P::v5_15}), FeatureSet{}, Shape::none, Expect::holds},
      {"pelt-sums/no-overflow", "PELT sums (v4.4, v5.15)",
       "one update of an entity from a valid state wraps no u64 or u32 value it writes, and keeps the state valid",
       K::pelt_no_overflow, pelt({P::v4_4, P::v5_15}), FeatureSet{}, Shape::none, Expect::holds},
      {"pelt-sums/no-overflow-v3.10", "PELT sums (v3.10)",
       "one update of a task from a valid v3.10 state wraps no u64 or u32 value it writes, and keeps the state valid",
       K::pelt_no_overflow, pelt({P::v3_10}), FeatureSet{}, Shape::none, Expect::refuted},
      {"pelt-util/bounded", "PELT util_avg (v5.15)",
       "util_avg <= 1024 after one update of an entity from a valid state", K::pelt_util_at_most, pelt({P::v5_15}),
       FeatureSet{}, Shape::none, Expect::refuted},
      {"pelt-util/bounded-1025", "PELT util_avg (v5.15)",
       "util_avg <= 1025 after one update of an entity from a valid state with util_avg <= 1025",
       K::pelt_util_at_most, pelt({P::v5_15}, 1025), FeatureSet{}, Shape::none, Expect::holds},
      {"pelt-load/at-most-weight", "PELT load_avg (v3.10, v5.15)",
       "load_avg <= scale_load_down(weight) after one update of an entity from a valid state (v3.10: a task's "
       "load_avg_contrib <= its weight)",
       K::pelt_load_at_most_weight, pelt({P::v3_10, P::v5_15}), FeatureSet{}, Shape::none, Expect::holds},
      {"pelt-load/at-most-weight-v4.4", "PELT load_avg (v4.4)",
       "load_avg <= scale_load_down(weight) after one update of a v4.4 entity from a valid state",
       K::pelt_load_at_most_weight, pelt({P::v4_4}), FeatureSet{}, Shape::none, Expect::refuted},
      {"pelt-tg/force-exact", "tg load_avg with force (v3.10, v4.4)",
       "after a forced update from a cfs_rq, its contribution is its load and tg->load_avg the other "
       "contributions plus that load",
       K::pelt_tg_force_exact, pelt({P::v3_10, P::v4_4}), FeatureSet{}, Shape::none, Expect::holds},
      {"pelt-tg/threshold", "tg load_avg without force",
       "after an unforced update from a cfs_rq, tg->load_avg is the sum of the contributions and the cfs_rq's is "
       "within contrib / 64 of its load (v3.10: contrib / 8)",
       K::pelt_tg_threshold, pelt({P::v3_10, P::v4_4, P::v5_15}), FeatureSet{}, Shape::none, Expect::holds},
      {"pelt-shares/in-range", "group shares from PELT",
       "calc_group_shares (v5.15; calc_cfs_shares in v3.10 and v4.4) is in [MIN_SHARES, tg->shares]",
       K::pelt_shares_in_range, pelt({P::v3_10, P::v4_4, P::v5_15}), FeatureSet{}, Shape::none, Expect::holds},
      {"pelt-util/periodic-ripple", "PELT util_avg of a periodic task (v5.15)",
       "a task running R and sleeping S units in turn, P = R + S: from k half-lives on, util_avg is within "
       "1024 R / P +- (1024 R S / (46764 P) + 4), less 1024 / 2^k below",
       K::pelt_periodic_util, pelt({P::v5_15}), FeatureSet{}, Shape::none, Expect::holds},
      {"pelt-sync/floor-kept", "v5.17's relaxed PELT sum syncs (v6.4: 2d02fa8cc21a, 7ceb77103001, 95246d1ec80b)",
       "after dequeue_load_avg or detach_entity_load_avg, each of the cfs_rq's sums is at least its average x "
       "PELT_MIN_DIVIDER, the lower bound the relaxed syncs keep",
       K::pelt_sync_floor, pelt({P::v5_15}), FeatureSet{F::pelt_relaxed_sum_sync}, Shape::none, Expect::refuted},
      {"pelt-sync/floor-kept-v5.15", "v5.15.100's rebuilt PELT sums",
       "after dequeue_load_avg or detach_entity_load_avg, each of the cfs_rq's sums is at least its average x "
       "PELT_MIN_DIVIDER (v5.15.100 rebuilds them from the averages)",
       K::pelt_sync_floor, pelt({P::v5_15}), FeatureSet{}, Shape::none, Expect::holds},
      {"pelt-idle-reweight/load-within-weight", "v5.15.100's set_load_weight for SCHED_IDLE (before v6.11)",
       "a task made SCHED_IDLE by set_load_weight, attached to a cfs_rq and reweighted within one PELT period has "
       "load_avg <= its weight",
       K::pelt_idle_reweight, pelt({P::v5_15}), FeatureSet{}, Shape::none, Expect::refuted},
      {"pelt-idle-reweight/load-within-weight-fixed",
       "v6.11: set_load_weight() must also call reweight_task() for SCHED_IDLE tasks",
       "a task made SCHED_IDLE by set_load_weight (through reweight_task), attached to a cfs_rq and reweighted "
       "within one PELT period has load_avg <= its weight",
       K::pelt_idle_reweight, pelt({P::v5_15}), FeatureSet{F::reweight_idle_task}, Shape::none, Expect::holds},
      {"root-tg-load-avg-skip/unobservable", "seed 000",
       "With the skip, every scheduling decision is identical; only the root's tg load_avg updates disappear.",
       K::sim_unobservable,
       Domain{.sim = {"v5.15", {{F::root_tg_load_avg_skip, false}}, {{F::root_tg_load_avg_skip, true}}}},
       FeatureSet{F::root_tg_load_avg_skip}, Shape::none, Expect::holds},
      {"move-task-same-group/noop", "seed 001",
       "When sched_move_task's group is the task's own, returning early instead of dequeue, change_group and "
       "enqueue changes no decision (pick, placement, migration) and no cfs_rq's PELT.",
       K::sim_unobservable, move_task_skip(), FeatureSet{F::move_task_skip_same_group}, Shape::none,
       Expect::refuted},
      {"group-move/invariants", "sched_move_task, cgroups and autogroup (v5.15)",
       "random cgroup, autogroup, fork, exit and churn op sequences keep, after every op and event: each "
       "cfs_rq's load.weight and task counts equal to what is queued (a move keeps them per CPU at every level), "
       "no destroyed group referenced, each PELT contribution attached once, each removal applied once, each task "
       "under its group's cfs_rq",
       K::sim_invariants, group_move_invariants(), FeatureSet{}, Shape::none, Expect::holds},
      {"lb-pass/within-verdict", "load_balance's detach_tasks (v5.15)",
       "every load_balance pass that moves tasks takes no more than its verdict lets detach_tasks take: each task "
       "while the imbalance X is still positive, at most X tasks (migrate_task) or X util (migrate_util), at most X "
       "load (migrate_load) when nr_balance_failed is 0, else the last task's shr_bound(load, nr_balance_failed) "
       "within what was left; a misfit pass (migrate_misfit, X 1) its one task; a newly idle pass one task",
       K::sim_lb_pass_within_verdict, lb_pass("v5.15"), FeatureSet{}, Shape::none, Expect::holds},
      {"lb-pass/within-verdict-v4.4", "load_balance's detach_tasks (v4.4, era 1)",
       "every era-1 load_balance pass that moves tasks takes each task while the imbalance X is still positive and "
       "with its load / 2 within what was left; a newly idle pass one task",
       K::sim_lb_pass_within_verdict, lb_pass("v4.4"), FeatureSet{}, Shape::none, Expect::holds},
      {"lb-pass/within-verdict-v3.10", "load_balance's move_tasks (v3.10, era 1 with its own verdict)",
       "every v3.10 load_balance pass that moves tasks takes each task while the imbalance X is still positive and "
       "with its load / 2 within what was left; a newly idle pass one task",
       K::sim_lb_pass_within_verdict, lb_pass("v3.10"), FeatureSet{}, Shape::none, Expect::holds},
      {"newidle-stop/first-pick-sooner", "seed 002",
       "Stopping the newidle walk once the rq has runnable tasks lets them run sooner: the first decision it "
       "changes is a pick of a task waiting on that CPU, which runs no later than without the stop.",
       K::sim_first_pick_sooner, newidle_stop(), FeatureSet{F::newidle_stop_on_runnable}, Shape::none,
       Expect::holds},
      {"lb-imbalance/no-reversal-load", "calculate_imbalance (v5.15)",
       "a migrate_load verdict's X moved from the busiest group to the local one leaves local's avg_load at most "
       "busiest's (and X at most busiest's load)",
       K::lb_no_reversal_load, balance(v5_15_levels()), FeatureSet{}, Shape::none, Expect::refuted},
      {"lb-imbalance/no-reversal-tasks", "calculate_imbalance (v5.15)",
       "a migrate_task verdict's X > 1 is at most half the running-task gap or half the idle-CPU gap between the "
       "busiest group and the local one",
       K::lb_no_reversal_tasks, balance(v5_15_levels()), FeatureSet{}, Shape::none, Expect::holds},
      {"lb-imbalance/no-reversal-tasks-pkg-no-prefer", "calculate_imbalance (v5.15), a level v5.15 does not build",
       "as no-reversal-tasks, on a level with SD_SHARE_PKG_RESOURCES and no prefer_sibling over groups of 1..4 CPUs",
       K::lb_no_reversal_tasks, balance(pkg_no_prefer_levels()), FeatureSet{}, Shape::none, Expect::refuted},
      {"lb-v4.4/no-reversal-load", "calculate_imbalance and fix_small_imbalance (v4.4)",
       "the imbalance X a verdict moves from the busiest group to the local one leaves local's avg_load at most "
       "busiest's (and X at most busiest's load)",
       K::lb_v4_no_reversal_load, balance(v4_4_levels()), FeatureSet{}, Shape::none, Expect::refuted},
      {"lb-v4.4/idle-pulls-overloaded", "Wasted Cores' Group Imbalance (v4.4)",
       "a CPU balancing as idle or newly idle, in a group running fewer tasks than it has CPUs, finds a busiest "
       "group when another group runs more tasks than it has CPUs (no group flagged for pinned tasks)",
       K::lb_v4_idle_pulls_overloaded, balance(v4_4_levels()), FeatureSet{}, Shape::none, Expect::refuted},
      {"lb-v3.10/no-reversal-load", "calculate_imbalance and fix_small_imbalance (v3.10)",
       "the imbalance X a verdict moves from the busiest group to the local one leaves local's load per power at "
       "most busiest's (and X at most busiest's load)",
       K::lb_v3_no_reversal_load, balance(v3_10_levels()), FeatureSet{}, Shape::none, Expect::refuted},
      {"lb-v3.10/idle-pulls-overloaded", "Wasted Cores' Group Imbalance (v3.10)",
       "a CPU balancing as idle or newly idle, in a group running fewer tasks than it has CPUs, finds a busiest "
       "group when another group runs more tasks than it has CPUs (no group_imb set)",
       K::lb_v3_idle_pulls_overloaded, balance(v3_10_levels()), FeatureSet{}, Shape::none, Expect::refuted},
  };
  return kClaims;
}

}  // namespace cfsv
