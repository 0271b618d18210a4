#include "claims/claim.h"

#include <algorithm>

#include "claims/balance_case.h"
#include "claims/balance_v3_case.h"
#include "claims/balance_v4_case.h"
#include "claims/pelt_case.h"
#include "claims/slice_case.h"

namespace cfsv {

namespace {

// Which case decoder, engine checks and fuzz target a kind's claims go through.
enum class Family { slice, calc_delta, pelt, sim, balance, balance_v4, balance_v3 };

// The kinds, in ClaimKind's order: a new kind is its enumerator (with its
// conjecture, claim.h), a row here, and its statement in its family's case.
struct KindRow {
  ClaimKind kind;
  std::string_view name;
  Family family;
  std::string_view relation = "invariant holds";
};
constexpr KindRow kKinds[] = {
    {ClaimKind::slice_at_least_min_gran, "slice_at_least_min_gran", Family::slice},
    {ClaimKind::equal_weights_exact_set, "equal_weights_exact_set", Family::slice},
    {ClaimKind::equal_weights_rounding, "equal_weights_rounding", Family::slice},
    {ClaimKind::calc_delta_loop_equals_fls, "calc_delta_loop_equals_fls", Family::calc_delta, "equal results"},
    {ClaimKind::pelt_decay_bounded, "pelt_decay_bounded", Family::pelt},
    {ClaimKind::pelt_decay_monotone, "pelt_decay_monotone", Family::pelt},
    {ClaimKind::pelt_no_overflow, "pelt_no_overflow", Family::pelt},
    {ClaimKind::pelt_util_at_most, "pelt_util_at_most", Family::pelt},
    {ClaimKind::pelt_load_at_most_weight, "pelt_load_at_most_weight", Family::pelt},
    {ClaimKind::pelt_tg_force_exact, "pelt_tg_force_exact", Family::pelt},
    {ClaimKind::pelt_tg_threshold, "pelt_tg_threshold", Family::pelt},
    {ClaimKind::pelt_shares_in_range, "pelt_shares_in_range", Family::pelt},
    {ClaimKind::pelt_periodic_util, "pelt_periodic_util", Family::pelt},
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
    case Shape::upper_levels_cut: return "upper_levels_cut";
  }
  return "?";
}

bool is_slice_kind(ClaimKind k) { return row(k).family == Family::slice; }
bool is_sim_kind(ClaimKind k) { return row(k).family == Family::sim; }
bool is_newidle_stop_kind(ClaimKind k) { return k == ClaimKind::sim_first_pick_sooner; }
bool is_balance_kind(ClaimKind k) { return row(k).family == Family::balance; }
bool is_balance_v4_kind(ClaimKind k) { return row(k).family == Family::balance_v4; }
bool is_balance_v3_kind(ClaimKind k) { return row(k).family == Family::balance_v3; }
bool is_verdict_kind(ClaimKind k) { return is_balance_kind(k) || is_balance_v4_kind(k) || is_balance_v3_kind(k); }
bool is_pelt_kind(ClaimKind k) { return row(k).family == Family::pelt; }
std::string_view fuzz_target(ClaimKind k) {
  switch (row(k).family) {
    case Family::sim: return "fuzz_sim_claims";
    case Family::balance:
    case Family::balance_v4:
    case Family::balance_v3: return "fuzz_balance_claims";
    case Family::pelt: return "fuzz_pelt_claims";
    case Family::slice:
    case Family::calc_delta: break;
  }
  return "fuzz_slice_claims";
}

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

std::vector<std::string_view> era_names(const Claim& c) {
  std::vector<std::string_view> out;
  if (is_sim_kind(c.kind) || is_verdict_kind(c.kind))
    out.push_back(is_sim_kind(c.kind)          ? c.domain.sim.kernel
                  : is_balance_kind(c.kind)    ? "v5.15"
                  : is_balance_v4_kind(c.kind) ? "v4.4"
                                               : "v3.10");
  else if (is_pelt_kind(c.kind))
    for (PeltEra e : c.domain.pelt.eras) out.push_back(era_name(e));
  else
    for (Era e : c.domain.eras) out.push_back(era_name(e));
  return out;
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
    if (out.empty() || !(boot_tunables(cpus) == boot_tunables(out.back()))) out.push_back(cpus);
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
    const SliceTunables<uint64_t> t = boot_tunables(cpus);
    s += (s.empty() ? "" : "; ") + std::to_string(cpus) + (cpus == 1 ? " CPU" : " CPUs") + ": latency " +
         std::to_string(t.latency) + " ns, min_granularity " + std::to_string(t.min_granularity) +
         " ns, sched_nr_latency " + std::to_string(t.nr_latency);
  }
  if (d.max_cpus > d.min_cpus) s = std::to_string(d.min_cpus) + ".." + std::to_string(d.max_cpus) + " CPUs (" + s + ")";
  return s;
}
}  // namespace

std::string describe(const Claim& c, Budget b) {
  const Domain& d = c.domain;
  if (is_pelt_kind(c.kind)) return describe_pelt_domain(c);
  if (is_balance_kind(c.kind)) return describe_balance_domain(c);
  if (is_balance_v4_kind(c.kind)) return describe_balance_v4_domain(c);
  if (is_balance_v3_kind(c.kind)) return describe_balance_v3_domain(c);
  if (is_sim_kind(c.kind)) {
    std::string s = "random scenarios of up to " + std::to_string(d.sim.max_ops) + " ops on profile " +
                    std::string(d.sim.kernel) + " (model/ops_decoder.h: up to 4 CPUs, 6 groups, 12 tasks)";
    if (d.sim.topology) s += ", on " + std::to_string(d.sim.topology->nr_cpus()) + " CPUs (sockets=" +
                             std::to_string(d.sim.topology->sockets) + " cores=" + std::to_string(d.sim.topology->cores) +
                             " threads=" + std::to_string(d.sim.topology->threads) + ")";
    for (const auto& [key, value] : d.sim.settings) s += ", set " + std::string(key) + "=" + std::to_string(value);
    if (d.sim.churn) s += ", tasks that fork short-lived children (one in eight)";
    if (d.sim.lb_workload)
      s = "random balancing workloads on profile " + std::string(d.sim.kernel) +
          " (claims/lb_pass.h: 1..4 sockets x 1..4 cores x 1..2 threads, at most 16 CPUs, NUMA nodes and "
          "distances, some CPUs of capacity 446; up to 2 x CPUs + 3 busy or periodic tasks of nice -10..10 in "
          "/, /a or /b, most pinned to one CPU until 10 ms; 150 ms, load_balance on); every load_balance pass "
          "that moved tasks checked against its verdict";
    if (c.kind == ClaimKind::sim_invariants) {
      s += "; checked after every op and event:";
      for (std::size_t i = 0; i < d.sim.invariants.size(); ++i) s += (i ? ", " : " ") + std::string(d.sim.invariants[i]);
    }
    return s;
  }
  if (!is_slice_kind(c.kind))
    return "64-bit delta, weight and lw.weight, 32-bit lw.inv_weight (0: computed) where "
           "scale_load_down(weight) * inv_weight < 2^64, " + eras_text(d);
  std::string s = "depth " + std::to_string(d.min_depth);
  if (d.max_depth > d.min_depth) s += ".." + std::to_string(d.max_depth);
  s += d.weights == Weights::equal_on_task_rq ? ", n tasks of one nice level on the task's cfs_rq"
                                              : ", a task of any nice level";
  if (d.max_depth > 1 || d.weights == Weights::any)
    s += ", other entities tasks or groups of weight MIN_SHARES..scale_load(MAX_SHARES)";
  s += ", at most " + std::to_string(d.max_tasks.at(b)) + " tasks, on_rq either way, " + tunables_text(d) + ", " +
       eras_text(d);
  return s;
}

}  // namespace cfsv
