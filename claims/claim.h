// Claims as data. A claim is one record: what it is about, its statement, the
// kind of conjecture (which check an engine runs), the domain it quantifies
// over, the features it is checked under and the verdict we expect. Engines
// dispatch on the kind, never on the id, so a new claim of an existing kind is
// one record in claims/registry.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "claims/verdict.h"
#include "model/arith/calc_delta.h"
#include "model/features.h"
#include "model/scenario.h"

namespace cfsv {

enum class ClaimKind {
  slice_at_least_min_gran,     // sched_slice >= min_granularity
  equal_weights_exact_set,     // (sched_slice >= min_granularity) == (n < sched_nr_latency)
  equal_weights_rounding,      // sched_slice >= min_granularity - ceil(n * w * min_granularity / 2^32),
                               //   less ceil(2^15 / (n * w)) more in the v3.10 era (calc_delta_mine)
  idle_floor_only_shortens,    // sched_slice <= the same without v5.16's idle floor, and equal for a task
                               //   that is not SCHED_IDLE
  calc_delta_loop_equals_fls,  // calc_delta_loop(delta, weight, lw) == calc_delta(delta, weight, lw)
  // PELT (claims/pelt_case.h): decoded by decode_pelt_case, stated by pelt_holds.
  pelt_decay_bounded,         // decay_load(v, n) <= v
  pelt_decay_monotone,        // decay_load(v, n + 1) <= decay_load(v, n)
  pelt_no_overflow,           // one update from a valid state: no sum, product or u32 field wraps
  pelt_util_at_most,          // one update from a valid state: util_avg <= the domain's util_limit
  pelt_load_at_most_weight,   // one update from a valid state: load_avg <= scale_load_down(weight)
  pelt_tg_force_exact,        // forced updates: tg->load_avg == the sum of the cfs_rqs' loads
  pelt_tg_threshold,          // unforced: each contribution within contrib >> the era's shift of its load
  pelt_shares_in_range,       // calc_group_shares in [MIN_SHARES, tg->shares]
  pelt_periodic_util,         // a periodic task's util_avg within its ripple bound (claims/pelt_periodic.h)
  pelt_idle_reweight,         // a task made SCHED_IDLE by set_load_weight, attached, reweighted: load_avg <= its weight
  pelt_sync_floor,            // after dequeue_load_avg / detach_entity_load_avg (relaxed when the claim's features
                              //   have pelt_relaxed_sum_sync): each cfs_rq sum >= its avg * PELT_MIN_DIVIDER
  // Simulation-differential (claims/sim_diff.h): one random scenario run with
  // domain.sim.before and domain.sim.after; every decision and non-root signal equal.
  sim_unobservable,
  // ... with the second run's feature making a waiting task run sooner: the
  // first difference is a CPU picking a task that waited on it, which first
  // runs no later than without the feature (seed 002).
  sim_first_pick_sooner,
  // ... run once, with domain.sim.before: the invariants domain.sim.invariants
  // names (every one when empty) hold after every step.
  sim_invariants,
  // ... run once, with domain.sim.before: every load_balance pass that moved
  // tasks took no more than its verdict lets detach_tasks take (claims/lb_pass.h).
  sim_lb_pass_within_verdict,
  // Load balancing (claims/balance_case.h): find_busiest_group's verdict on
  // group statistics update_sg_lb_stats can produce, the move it asks for made.
  lb_no_reversal_load,   // migrate_load X > 0: X <= busiest's load, and local's avg_load after <= busiest's after
  lb_no_reversal_tasks,  // migrate_task X > 1: 2X <= the running-task gap or 2X <= the idle-CPU gap
  // Era-1 load balancing (claims/balance_v4_case.h): v4.4's verdict, groups compared by average load.
  lb_v4_no_reversal_load,       // X > 0: X <= busiest's load, and local's avg_load after <= busiest's after
  lb_v4_idle_pulls_overloaded,  // an idle CPU of a group with spare CPUs finds a busiest group when
                                //   another group runs more tasks than CPUs
  // v3.10's era 1 (claims/balance_v3_case.h): capacity in CPUs, group_imb from a group's own CPUs.
  lb_v3_no_reversal_load,       // as lb_v4_no_reversal_load
  lb_v3_idle_pulls_overloaded,  // as lb_v4_idle_pulls_overloaded, no group_imb set
  last = lb_v3_idle_pulls_overloaded,  // new kinds go above, and `last` names the one added
};
// Which case decoder, engine checks and fuzz target a kind's claims go
// through: one row each of claims/claim.cpp's family table. The engines
// switch on it with no default, so a new family fails to compile (-Wswitch)
// in each place that must handle it.
enum class ClaimFamily {
  slice,       // decode_slice_case (claims/slice_case.h)
  calc_delta,  // decode_calc_delta_case (claims/calc_delta_case.h)
  pelt,        // decode_pelt_case (claims/pelt_case.h)
  sim,         // decode_sim_case (claims/sim_diff.h)
  balance,     // decode_balance_case (claims/balance_case.h): v5.15's find_busiest_group verdict
  balance_v4,  // decode_balance_case_v4 (claims/balance_v4_case.h): v4.4's
  balance_v3,  // decode_balance_case_v3 (claims/balance_v3_case.h): v3.10's
};

// Each kind's name, relation and family are one row of claims/claim.cpp's kind table.
std::string_view to_string(ClaimKind k);
std::string_view relation(ClaimKind k);  // "invariant holds", "equal results"
ClaimFamily family_of(ClaimKind k);
bool is_newidle_stop_kind(ClaimKind k);     // the sim kind of seed 002 (claims/sim_diff.h)
std::string_view fuzz_target(ClaimKind k);  // the libFuzzer target that checks claims of this kind
unsigned fuzz_cost(ClaimKind k);            // a case's cost in the fuzz engine, in slice cases (1)

// PELT's arithmetic as the profiles of the same names have it
// (model/arith/pelt_v3.h, pelt_v4.h, pelt.h), each with its load resolution.
enum class PeltEra { v3_10, v4_4, v5_15 };
std::string_view era_name(PeltEra e);
LoadResolution resolution_of(PeltEra e);

// What a PELT claim quantifies over beyond the kernel's ranges (claims/pelt_case.h).
struct PeltDomain {
  std::vector<PeltEra> eras;
  uint64_t util_limit = 1024;  // pelt_util_at_most's bound
  bool operator==(const PeltDomain&) const = default;
};

// A simulation-differential claim's two runs: random op scenarios
// (model/ops_decoder.h) on one profile, each run with its features forced.
struct SimDomain {
  std::string_view kernel = "v5.15";
  std::vector<std::pair<Feature, bool>> before, after;  // overrides of the two runs
  unsigned max_ops = 32;
  std::optional<Topology> topology = {};  // replaces the decoded one (its CPU masks stay valid: more CPUs)
  std::vector<std::pair<std::string_view, uint64_t>> settings = {};  // `set` lines added to the case
  // sim_unobservable: the counters of work done (enqueues, dequeues,
  // reweights, tg load_avg updates) must match too; false when skipping that
  // work is the feature's point (seed 001's requeues), so that only decisions
  // and signals are compared.
  bool same_work = true;
  bool churn = false;                            // DecodeOptions::churn: tasks that fork short-lived children
  std::vector<std::string_view> invariants = {};  // sim_invariants: the registry's names (model/invariants.h)
  bool lb_workload = false;  // decode_lb_workload (claims/lb_pass.h) instead of the op decoder
  bool operator==(const SimDomain&) const = default;
};

// A sched_domain level as v5.15's sd_init and build_sched_domains make it:
// what find_busiest_group reads of it (claims/balance_case.h).
struct LbLevel {
  std::string_view name;
  uint32_t imbalance_pct = 117;
  bool share_pkg_resources = false;  // SD_SHARE_PKG_RESOURCES
  bool numa = false;                 // SD_NUMA
  bool prefer_sibling = false;       // sds->prefer_sibling: the child level's SD_PREFER_SIBLING
  bool one_cpu_groups = false;       // its groups are single CPUs (SMT; MC with no SMT level below)
  // Era 1: the load index (sd->busy_idx, idle_idx) of a CPU balancing while
  // busy / idle is not 0, so group loads read the rq->cpu_load[] history
  // (newidle_idx is 0 on every level).
  bool busy_history = false, idle_history = false;
  bool operator==(const LbLevel&) const = default;
};

// What a balancing claim quantifies over: a level, the balancing CPU's idle
// type, and two or three groups of at most max_group_cpus CPUs.
struct BalanceDomain {
  std::vector<LbLevel> levels;
  unsigned max_group_cpus = 4;
  unsigned max_tasks_per_cpu = 4;  // queued or blocked entities per CPU (nr_running, load, runnable)
  bool operator==(const BalanceDomain&) const = default;
};

// The weights on the task's path a slice claim ranges over.
enum class Weights {
  any,               // a task of any nice level; every other entity a task or a group entity of
                     // any weight calc_group_shares gives, [MIN_SHARES, scale_load(MAX_SHARES)]
  equal_on_task_rq,  // as `any`, but every other entity on the task's cfs_rq is a task of its nice level
};

std::string_view to_string(Weights w);  // "any", "equal_on_task_rq"

// What a claim quantifies over. Slice claims use every field but `pelt`, `sim` and `balance`;
// calc-delta claims only `eras`; PELT claims only `pelt`; simulation claims only `sim`;
// balancing claims only `balance`.
struct Domain {
  unsigned min_depth = 1, max_depth = 3;             // cfs_rq levels on the task's path
  PerBudget<uint64_t> max_tasks = {1000, 1000, 1000};  // tasks on the rq, the task counted as queued
  Weights weights = Weights::any;
  unsigned min_cpus = 4, max_cpus = 4;  // boot tunables (log scaling) of this many CPUs
  std::vector<Era> eras = {Era::v5_7};  // the arithmetic, each era checked
  PeltDomain pelt = {};
  SimDomain sim = {};
  BalanceDomain balance = {};
  bool idle = false;             // slice: the task may be SCHED_IDLE, the others on its cfs_rq all idle
  uint64_t min_granularity = 0;  // slice: min_granularity as a debugfs write left it (0: the boot value)
  bool operator==(const Domain&) const = default;
};

// A refutation the proofs engine searches for once it knows the claim is
// false: still a counterexample of the same conjecture, but a readable one.
enum class Shape {
  none,              // the first one Z3 finds
  equal_siblings,    // a nice-0 task among nice-0 tasks, every level queued with at most 31
                     // siblings of the path entity's weight
  idle_beside_one,   // a SCHED_IDLE task (nice 0) and one nice-0 task, both queued on one cfs_rq, depth 1
  upper_levels_cut,  // equal_siblings in groups of nice-0 weight, siblings at every level, depth
                     // >= 2, the levels above the task at least halving its slice (seed 003's shape)
};

std::string_view to_string(Shape s);  // "none", "equal_siblings", "idle_beside_one", "upper_levels_cut"

struct Claim {
  std::string_view id;         // family/variant, e.g. "slice-min-granularity/hierarchical"
  std::string_view about;      // the seed patch or invariant, e.g. "seed 003 (before)"
  std::string_view statement;  // the conjecture, one line
  ClaimKind kind;
  Domain domain;
  FeatureSet features;  // the feature set it is checked under (sched_slice's variant)
  Shape prefer = Shape::none;
  Expect expect = Expect::holds;

  std::string_view family() const { return id.substr(0, id.find('/')); }
  bool operator==(const Claim&) const = default;
};

std::span<const Claim> all_claims();
const Claim* claim_by_id(std::string_view id);
// The claims `selector` names: an id, or a family ("slice-min-granularity",
// also with a trailing '/') for every claim of it. Empty when it names none.
std::vector<const Claim*> select_claims(std::string_view selector);
// The claims any of `selectors` names, in registry order, each once; every
// claim when there is no selector. `unknown` gets the first selector that
// names none (then the result is empty).
std::vector<const Claim*> select_claims(std::span<const std::string> selectors, std::string* unknown);

// The CPU counts whose boot tunables differ, the first of each, in
// [domain.min_cpus, domain.max_cpus]; decoders choose among them.
std::vector<unsigned> distinct_tunables_cpus(const Domain& d);

// The names of the eras a claim is checked in: its PELT eras for a PELT kind.
std::vector<std::string_view> era_names(const Claim& c);

// "depth 1..3, a task of any nice level, ..., at most 1000 tasks, 4 CPUs
// (latency 18000000 ns, ...), era v5.7 (__calc_delta, ...)"
std::string describe(const Claim& c, Budget b);

}  // namespace cfsv
