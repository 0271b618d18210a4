#include "claims/claim.h"

#include <algorithm>

#include "claims/balance_case.h"
#include "claims/balance_v3_case.h"
#include "claims/balance_v4_case.h"
#include "claims/pelt_case.h"
#include "claims/slice_case.h"

namespace cfsv {

namespace {

using Family = ClaimFamily;

// The kinds, in ClaimKind's order: a new kind is its enumerator (with its
// conjecture, claim.h), a row here, and its statement in its family's case.
struct KindRow {
  ClaimKind kind;
  std::string_view name;
  Family family;
  std::string_view relation = "invariant holds";
  unsigned fuzz_cost = 0;  // 0: its family's
};
constexpr KindRow kKinds[] = {
    {ClaimKind::slice_at_least_min_gran, "slice_at_least_min_gran", Family::slice},
    {ClaimKind::equal_weights_exact_set, "equal_weights_exact_set", Family::slice},
    {ClaimKind::equal_weights_rounding, "equal_weights_rounding", Family::slice},
    {ClaimKind::idle_floor_only_shortens, "idle_floor_only_shortens", Family::slice, "no longer"},
    {ClaimKind::calc_delta_loop_equals_fls, "calc_delta_loop_equals_fls", Family::calc_delta, "equal results"},
    {ClaimKind::pelt_decay_bounded, "pelt_decay_bounded", Family::pelt},
    {ClaimKind::pelt_decay_monotone, "pelt_decay_monotone", Family::pelt},
    {ClaimKind::pelt_no_overflow, "pelt_no_overflow", Family::pelt},
    {ClaimKind::pelt_util_at_most, "pelt_util_at_most", Family::pelt},
    {ClaimKind::pelt_load_at_most_weight, "pelt_load_at_most_weight", Family::pelt},
    {ClaimKind::pelt_tg_force_exact, "pelt_tg_force_exact", Family::pelt},
    {ClaimKind::pelt_tg_threshold, "pelt_tg_threshold", Family::pelt},
    {ClaimKind::pelt_shares_in_range, "pelt_shares_in_range", Family::pelt},
    // a periodic PELT history: hundreds of updates, ~100 us a case under ASan
    {ClaimKind::pelt_periodic_util, "pelt_periodic_util", Family::pelt, "invariant holds", 30},
    {ClaimKind::pelt_idle_reweight, "pelt_idle_reweight", Family::pelt},
    {ClaimKind::pelt_sync_floor, "pelt_sync_floor", Family::pelt},
    {ClaimKind::sim_unobservable, "sim_unobservable", Family::sim, "equal results"},
    {ClaimKind::sim_first_pick_sooner, "sim_first_pick_sooner", Family::sim, "no later"},
    {ClaimKind::sim_invariants, "sim_invariants", Family::sim},
    {ClaimKind::sim_lb_pass_within_verdict, "sim_lb_pass_within_verdict", Family::sim},
    {ClaimKind::lb_no_reversal_load, "lb_no_reversal_load", Family::balance},
    {ClaimKind::lb_no_reversal_tasks, "lb_no_reversal_tasks", Family::balance},
    {ClaimKind::lb_v4_no_reversal_load, "lb_v4_no_reversal_load", Family::balance_v4},
    {ClaimKind::lb_v4_idle_pulls_overloaded, "lb_v4_idle_pulls_overloaded", Family::balance_v4},
    {ClaimKind::lb_v3_no_reversal_load, "lb_v3_no_reversal_load", Family::balance_v3},
    {ClaimKind::lb_v3_idle_pulls_overloaded, "lb_v3_idle_pulls_overloaded", Family::balance_v3},
};
static_assert([] {
  for (std::size_t i = 0; i < std::size(kKinds); ++i)
    if (static_cast<std::size_t>(kKinds[i].kind) != i) return false;
  return static_cast<std::size_t>(ClaimKind::last) + 1 == std::size(kKinds);
}(), "kKinds: one row per ClaimKind, in its order");

const KindRow& row(ClaimKind k) { return kKinds[static_cast<std::size_t>(k)]; }

}  // namespace

std::string_view to_string(ClaimKind k) { return row(k).name; }
std::string_view relation(ClaimKind k) { return row(k).relation; }

std::string_view to_string(Weights w) { return w == Weights::any ? "any" : "equal_on_task_rq"; }

std::string_view to_string(Shape s) {
  switch (s) {
    case Shape::none: return "none";
    case Shape::equal_siblings: return "equal_siblings";
    case Shape::idle_beside_one: return "idle_beside_one";
    case Shape::upper_levels_cut: return "upper_levels_cut";
  }
  return "?";
}

ClaimFamily family_of(ClaimKind k) { return row(k).family; }
bool is_newidle_stop_kind(ClaimKind k) { return k == ClaimKind::sim_first_pick_sooner; }

std::string_view era_name(PeltEra e) {
  switch (e) {
    case PeltEra::v3_10: return "v3.10";
    case PeltEra::v4_4: return "v4.4";
    case PeltEra::v5_15: return "v5.15";
  }
  return "?";
}

LoadResolution resolution_of(PeltEra e) {
  switch (e) {
    case PeltEra::v3_10: return kLoadResolutionV3_10;
    case PeltEra::v4_4: return kLoadResolutionV3_13;
    case PeltEra::v5_15: break;
  }
  return kLoadResolutionV5_7;
}

const Claim* claim_by_id(std::string_view id) {
  for (const Claim& c : all_claims())
    if (c.id == id) return &c;
  return nullptr;
}

std::vector<const Claim*> select_claims(std::string_view selector) {
  if (const Claim* c = claim_by_id(selector)) return {c};
  if (selector.ends_with('/')) selector.remove_suffix(1);
  std::vector<const Claim*> out;
  for (const Claim& c : all_claims())
    if (!selector.empty() && c.family() == selector) out.push_back(&c);
  return out;
}

std::vector<const Claim*> select_claims(std::span<const std::string> selectors, std::string* unknown) {
  std::vector<const Claim*> named;
  for (const std::string& s : selectors) {
    const std::vector<const Claim*> these = select_claims(s);
    if (these.empty()) {
      *unknown = s;
      return {};
    }
    named.insert(named.end(), these.begin(), these.end());
  }
  std::vector<const Claim*> out;
  for (const Claim& c : all_claims())
    if (selectors.empty() || std::find(named.begin(), named.end(), &c) != named.end()) out.push_back(&c);
  return out;
}

std::vector<unsigned> distinct_tunables_cpus(const Domain& d) {
  std::vector<unsigned> out;
  for (unsigned cpus = d.min_cpus; cpus <= d.max_cpus; ++cpus)
    if (out.empty() || !(domain_tunables(d, cpus) == domain_tunables(d, out.back()))) out.push_back(cpus);
  return out;
}

namespace {
std::string eras_text(const Domain& d) {
  std::string s = d.eras.size() == 1 ? "era " : "eras ";
  for (std::size_t i = 0; i < d.eras.size(); ++i)
    s += (i ? "; " : "") + std::string(era_name(d.eras[i])) + " (" + std::string(era_info(d.eras[i]).what) + ")";
  return s;
}

std::string tunables_text(const Domain& d) {
  std::string s;
  for (unsigned cpus : distinct_tunables_cpus(d)) {
    const SliceTunables<uint64_t> t = domain_tunables(d, cpus);
    s += (s.empty() ? "" : "; ") + std::to_string(cpus) + (cpus == 1 ? " CPU" : " CPUs") + ": latency " +
         std::to_string(t.latency) + " ns, min_granularity " + std::to_string(t.min_granularity) +
         " ns, sched_nr_latency " + std::to_string(t.nr_latency);
    if (d.idle) s += ", idle_min_granularity " + std::to_string(t.idle_min_granularity) + " ns";
  }
  if (d.max_cpus > d.min_cpus) s = std::to_string(d.min_cpus) + ".." + std::to_string(d.max_cpus) + " CPUs (" + s + ")";
  if (d.min_granularity) s += ", min_granularity_ns written through debugfs after boot";
  return s;
}

std::string describe_slice(const Claim& c, Budget b) {
  const Domain& d = c.domain;
  std::string s = "depth " + std::to_string(d.min_depth);
  if (d.max_depth > d.min_depth) s += ".." + std::to_string(d.max_depth);
  s += d.weights == Weights::equal_on_task_rq ? ", n tasks of one nice level on the task's cfs_rq"
                                              : ", a task of any nice level";
  if (d.idle) s += " or SCHED_IDLE (weight 3), the other entities on its cfs_rq all idle (at most 3 each) or not";
  if (d.max_depth > 1 || d.weights == Weights::any)
    s += ", other entities tasks or groups of weight MIN_SHARES..scale_load(MAX_SHARES)";
  s += ", at most " + std::to_string(d.max_tasks.at(b)) + " tasks, on_rq either way, " + tunables_text(d) + ", " +
       eras_text(d);
  return s;
}

std::string describe_calc_delta(const Claim& c, Budget) {
  return "64-bit delta, weight and lw.weight, 32-bit lw.inv_weight (0: computed) where "
         "scale_load_down(weight) * inv_weight < 2^64, " + eras_text(c.domain);
}

std::string describe_sim(const Claim& c, Budget) {
  const SimDomain& d = c.domain.sim;
  if (d.lb_workload)
    return "random balancing workloads on profile " + std::string(d.kernel) +
           " (claims/lb_pass.h: 1..4 sockets x 1..4 cores x 1..2 threads, at most 16 CPUs, NUMA nodes and "
           "distances, some CPUs of capacity 446; up to 2 x CPUs + 3 busy or periodic tasks of nice -10..10 in "
           "/, /a or /b, most pinned to one CPU until 10 ms; 150 ms, load_balance on); every load_balance pass "
           "that moved tasks checked against its verdict";
  std::string s = "random scenarios of up to " + std::to_string(d.max_ops) + " ops on profile " +
                  std::string(d.kernel) + " (model/ops_decoder.h: up to 4 CPUs, 6 groups, 12 tasks)";
  if (d.topology) s += ", on " + std::to_string(d.topology->nr_cpus()) + " CPUs (sockets=" +
                       std::to_string(d.topology->sockets) + " cores=" + std::to_string(d.topology->cores) +
                       " threads=" + std::to_string(d.topology->threads) + ")";
  for (const auto& [key, value] : d.settings) s += ", set " + std::string(key) + "=" + std::to_string(value);
  if (d.churn) s += ", tasks that fork short-lived children (one in eight)";
  if (c.kind == ClaimKind::sim_invariants) {
    s += "; checked after every op and event:";
    for (std::size_t i = 0; i < d.invariants.size(); ++i) s += (i ? ", " : " ") + std::string(d.invariants[i]);
  }
  return s;
}

template <std::string (*F)(const Claim&)>
std::string any_budget(const Claim& c, Budget) { return F(c); }

// The families, in ClaimFamily's order. fuzz_cost: a case's cost against a
// slice case's (~5 us under ASan), which divides the fuzz engine's runs: a
// PELT update ~25 us; a balancing case (three verdicts) ~50 us; a
// simulation-differential case (two whole runs) ~5 ms.
struct FamilyRow {
  ClaimFamily family;
  std::string_view fuzz_target;
  unsigned fuzz_cost;
  std::string_view era;  // the one kernel of a verdict family; else the claim's domain names its eras
  std::string (*describe)(const Claim&, Budget);
};
constexpr FamilyRow kFamilies[] = {
    {Family::slice, "fuzz_slice_claims", 1, "", describe_slice},
    {Family::calc_delta, "fuzz_slice_claims", 1, "", describe_calc_delta},
    {Family::pelt, "fuzz_pelt_claims", 6, "", any_budget<describe_pelt_domain>},
    {Family::sim, "fuzz_sim_claims", 100, "", describe_sim},
    {Family::balance, "fuzz_balance_claims", 10, "v5.15", any_budget<describe_balance_domain>},
    {Family::balance_v4, "fuzz_balance_claims", 10, "v4.4", any_budget<describe_balance_v4_domain>},
    {Family::balance_v3, "fuzz_balance_claims", 10, "v3.10", any_budget<describe_balance_v3_domain>},
};
static_assert([] {
  for (std::size_t i = 0; i < std::size(kFamilies); ++i)
    if (static_cast<std::size_t>(kFamilies[i].family) != i) return false;
  return true;
}(), "kFamilies: one row per ClaimFamily, in its order");

const FamilyRow& family_row(ClaimKind k) { return kFamilies[static_cast<std::size_t>(family_of(k))]; }

}  // namespace

std::vector<std::string_view> era_names(const Claim& c) {
  std::vector<std::string_view> out;
  const FamilyRow& f = family_row(c.kind);
  if (!f.era.empty()) out.push_back(f.era);
  else if (f.family == Family::sim) out.push_back(c.domain.sim.kernel);
  else if (f.family == Family::pelt)
    for (PeltEra e : c.domain.pelt.eras) out.push_back(era_name(e));
  else
    for (Era e : c.domain.eras) out.push_back(era_name(e));
  return out;
}

std::string_view fuzz_target(ClaimKind k) { return family_row(k).fuzz_target; }
unsigned fuzz_cost(ClaimKind k) { return row(k).fuzz_cost ? row(k).fuzz_cost : family_row(k).fuzz_cost; }

std::string describe(const Claim& c, Budget b) { return family_row(c.kind).describe(c, b); }

}  // namespace cfsv
