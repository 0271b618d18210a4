#include "claims/claim.h"

#include <algorithm>

#include "claims/balance_case.h"
#include "claims/balance_v4_case.h"
#include "claims/pelt_case.h"
#include "claims/slice_case.h"

namespace cfsv {

std::string_view to_string(ClaimKind k) {
  switch (k) {
    case ClaimKind::slice_at_least_min_gran: return "slice_at_least_min_gran";
    case ClaimKind::equal_weights_exact_set: return "equal_weights_exact_set";
    case ClaimKind::equal_weights_rounding: return "equal_weights_rounding";
    case ClaimKind::calc_delta_loop_equals_fls: return "calc_delta_loop_equals_fls";
    case ClaimKind::pelt_decay_bounded: return "pelt_decay_bounded";
    case ClaimKind::pelt_decay_monotone: return "pelt_decay_monotone";
    case ClaimKind::pelt_no_overflow: return "pelt_no_overflow";
    case ClaimKind::pelt_util_at_most: return "pelt_util_at_most";
    case ClaimKind::pelt_load_at_most_weight: return "pelt_load_at_most_weight";
    case ClaimKind::pelt_tg_force_exact: return "pelt_tg_force_exact";
    case ClaimKind::pelt_tg_threshold: return "pelt_tg_threshold";
    case ClaimKind::pelt_shares_in_range: return "pelt_shares_in_range";
    case ClaimKind::pelt_periodic_util: return "pelt_periodic_util";
    case ClaimKind::pelt_sync_floor: return "pelt_sync_floor";
    case ClaimKind::sim_unobservable: return "sim_unobservable";
    case ClaimKind::sim_first_pick_sooner: return "sim_first_pick_sooner";
    case ClaimKind::sim_invariants: return "sim_invariants";
    case ClaimKind::sim_lb_pass_within_verdict: return "sim_lb_pass_within_verdict";
    case ClaimKind::lb_no_reversal_load: return "lb_no_reversal_load";
    case ClaimKind::lb_no_reversal_tasks: return "lb_no_reversal_tasks";
    case ClaimKind::lb_v4_no_reversal_load: return "lb_v4_no_reversal_load";
    case ClaimKind::lb_v4_idle_pulls_overloaded: return "lb_v4_idle_pulls_overloaded";
  }
  return "?";
}

std::string_view relation(ClaimKind k) {
  if (is_newidle_stop_kind(k)) return "no later";
  return k == ClaimKind::calc_delta_loop_equals_fls || k == ClaimKind::sim_unobservable ? "equal results"
                                                                                        : "invariant holds";
}

std::string_view to_string(Weights w) { return w == Weights::any ? "any" : "equal_on_task_rq"; }

std::string_view to_string(Shape s) {
  switch (s) {
    case Shape::none: return "none";
    case Shape::equal_siblings: return "equal_siblings";
    case Shape::upper_levels_cut: return "upper_levels_cut";
  }
  return "?";
}

bool is_slice_kind(ClaimKind k) {
  return k == ClaimKind::slice_at_least_min_gran || k == ClaimKind::equal_weights_exact_set ||
         k == ClaimKind::equal_weights_rounding;
}
bool is_sim_kind(ClaimKind k) {
  return k == ClaimKind::sim_unobservable || k == ClaimKind::sim_invariants ||
         k == ClaimKind::sim_lb_pass_within_verdict || is_newidle_stop_kind(k);
}
bool is_newidle_stop_kind(ClaimKind k) { return k == ClaimKind::sim_first_pick_sooner; }
bool is_balance_kind(ClaimKind k) {
  return k == ClaimKind::lb_no_reversal_load || k == ClaimKind::lb_no_reversal_tasks;
}
bool is_balance_v4_kind(ClaimKind k) {
  return k == ClaimKind::lb_v4_no_reversal_load || k == ClaimKind::lb_v4_idle_pulls_overloaded;
}
bool is_pelt_kind(ClaimKind k) {
  return !is_slice_kind(k) && !is_sim_kind(k) && !is_balance_kind(k) && !is_balance_v4_kind(k) &&
         k != ClaimKind::calc_delta_loop_equals_fls;
}
std::string_view fuzz_target(ClaimKind k) {
  return is_sim_kind(k)       ? "fuzz_sim_claims"
         : is_balance_kind(k) || is_balance_v4_kind(k) ? "fuzz_balance_claims"
         : is_pelt_kind(k)    ? "fuzz_pelt_claims"
                              : "fuzz_slice_claims";
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
  if (is_sim_kind(c.kind) || is_balance_kind(c.kind) || is_balance_v4_kind(c.kind))
    out.push_back(is_sim_kind(c.kind) ? c.domain.sim.kernel : is_balance_kind(c.kind) ? "v5.15" : "v4.4");
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
