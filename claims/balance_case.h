// The domain of a balancing claim, decoded once for every engine, and its
// statement. A case is one find_busiest_group call (v5.15) on a level of a
// sched_domain: the balancing CPU's idle type and the statistics
// update_sg_lb_stats gathers for two or three groups, the local one first,
// then the others in the order update_sd_lb_stats visits them. The verdict
// and the busiest group come from the model's templates
// (model/arith/balance.h); balance_holds() is the claim on them. Templates
// over the value type: uint64_t or the proofs' Sym.
//
// What update_sg_lb_stats can produce, per group of w CPUs (1..max_group_cpus,
// 1 on a level of single-CPU groups), with T = max_tasks_per_cpu entities
// (queued or blocked) per CPU:
//  - idle_cpus <= w (a CPU with nr_running 0 and no pending wakeup);
//  - sum_nr_running <= T x the CPUs that are not idle (an idle CPU runs
//    nothing; a CPU with a pending wakeup may be non-idle with nothing queued);
//  - sum_h_nr_running <= sum_nr_running (RT and DL tasks count only in the latter);
//  - group_capacity in [w, 1024 w]: each CPU's capacity_of in [1, 1024];
//  - group_util <= 1024 w: cpu_util is capped at capacity_orig_of, 1024;
//  - group_runnable <= 1024 T w, group_load <= T w MAX_SHARES (PELT's
//    averages of T entities of at most scale_load_down(MAX_SHARES), blocked
//    ones included: load and runnable do not follow nr_running);
//  - sgc->imbalance either way; group_type from group_classify, avg_load
//    computed for an overloaded group only, as update_sg_lb_stats does.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "claims/claim.h"
#include "claims/reader.h"
#include "model/arith/balance.h"
#include "model/arith/fair_math.h"  // kFairMaxShares

namespace cfsv {

// The levels of v5.15's default topology (SMT, MC, DIE, NUMA): imbalance_pct
// 110 where CPUs share capacity, 117 elsewhere; SD_PREFER_SIBLING on every
// level but NUMA's, read from the child; no SD_ASYM_CPUCAPACITY.
inline std::vector<LbLevel> v5_15_levels() {
  return {
      {"smt", 110, true, false, false, true},
      {"mc", 117, true, false, false, true},  // no SMT level below: groups are CPUs
      {"mc-over-smt", 117, true, false, true, false},
      {"die", 117, false, false, true, false},
      {"numa", 117, false, true, true, false},
      {"numa-over-numa", 117, false, true, false, false},
  };
}

// A level v5.15 never builds: SD_SHARE_PKG_RESOURCES without prefer_sibling
// over groups of several CPUs (v5.15's shared-cache levels without an SMT
// level below have single-CPU groups), with and without SD_NUMA.
inline std::vector<LbLevel> pkg_no_prefer_levels() {
  return {{"pkg-no-prefer", 117, true, false, false, false}, {"pkg-numa-no-prefer", 117, true, true, false, false}};
}

// A case: its level is one of `levels` (the domain's levels with one
// imbalance_pct, a structural choice), picked by the value `level`, which
// selects its flags.
template <class V> struct BalanceCase {
  std::vector<LbLevel> levels;
  V level{0};
  V idle{0};  // enum cpu_idle_type's value
  LbBool<V> share_pkg_resources = lb_bool<V>(false), numa = lb_bool<V>(false), prefer_sibling = lb_bool<V>(false),
            one_cpu_groups = lb_bool<V>(false);
  std::vector<SgLbStatsT<V>> groups;  // the local group first
  std::vector<V> sgc_imbalance;       // 0 or 1, per group
};

// A flag of the level `index` selects among `levels`.
template <class V> LbBool<V> level_flag(const std::vector<LbLevel>& levels, const V& index, bool LbLevel::*flag) {
  LbBool<V> f = lb_bool<V>(levels.front().*flag);
  for (std::size_t i = 1; i < levels.size(); ++i) f = (index == V(i) && lb_bool<V>(levels[i].*flag)) || (index != V(i) && f);
  return f;
}

// A group's type and avg_load from its figures, as update_sg_lb_stats ends.
template <class V>
SgLbStatsT<V> lb_group(uint32_t imbalance_pct, const SgWakeupStats<V>& v, const V& sgc_imbalance) {
  SgLbStatsT<V> sgs{v, group_classify<V>(V(imbalance_pct), sgc_imbalance == V(1), v)};
  sgs.v.avg_load = select_lazy(
      sgs.type == lb_enum<V>(GroupType::overloaded),
      [&] { return v.group_load * V(kSchedCapacityScale) / v.group_capacity; }, [] { return V(0); });
  return sgs;
}

// A value in [0, hi], read as itself or as its distance below hi: the same
// range, but a reader that favours small values (RapidCheck's, a fuzzer's
// short inputs) reaches both ends, an idle group's util and a saturated one's.
template <Reader R>
typename R::value_type either_end(R& r, const typename R::value_type& hi, uint64_t max) {
  using V = typename R::value_type;
  const V from_top = r.range(0, 1);
  const V x = r.range(V(0), hi, max);
  return select(from_top == V(1), hi - x, x);
}

template <Reader R>
SgLbStatsT<typename R::value_type> decode_lb_group(R& r, const BalanceDomain& d,
                                                   const BalanceCase<typename R::value_type>& c,
                                                   typename R::value_type& sgc_imbalance) {
  using V = typename R::value_type;
  const uint64_t w_max = d.max_group_cpus, t = d.max_tasks_per_cpu;
  SgWakeupStats<V> v;
  v.group_weight = r.range(V(1), select(c.one_cpu_groups, V(1), V(w_max)), w_max);
  v.idle_cpus = r.range(V(0), v.group_weight, w_max);
  v.sum_nr_running = r.range(V(0), (v.group_weight - v.idle_cpus) * V(t), w_max * t);
  v.sum_h_nr_running = r.range(V(0), v.sum_nr_running, w_max * t);
  v.group_capacity = v.group_weight + either_end(r, v.group_weight * V(kSchedCapacityScale - 1),
                                                 w_max * (kSchedCapacityScale - 1));
  v.group_util = either_end(r, v.group_weight * V(kSchedCapacityScale), w_max * kSchedCapacityScale);
  v.group_runnable = either_end(r, v.group_weight * V(t * kSchedCapacityScale), w_max * t * kSchedCapacityScale);
  v.group_load = r.range(V(0), v.group_weight * V(t * kFairMaxShares), w_max * t * kFairMaxShares);
  sgc_imbalance = r.range(0, 1);
  return lb_group(c.levels.front().imbalance_pct, v, sgc_imbalance);
}

// A case's levels: the domain's levels of one imbalance_pct, chosen (a
// structural choice: the arithmetic takes it as a constant).
template <Reader R> std::vector<LbLevel> levels_of_one_pct(R& r, const BalanceDomain& d) {
  std::vector<uint32_t> pcts;  // the levels' imbalance_pct values, in order
  for (const LbLevel& l : d.levels)
    if (std::find(pcts.begin(), pcts.end(), l.imbalance_pct) == pcts.end()) pcts.push_back(l.imbalance_pct);
  const uint32_t pct = pcts[r.choose(pcts.size())];
  std::vector<LbLevel> out;
  for (const LbLevel& l : d.levels)
    if (l.imbalance_pct == pct) out.push_back(l);
  return out;
}

template <Reader R> BalanceCase<typename R::value_type> decode_balance_case(R& r, const Domain& d) {
  using V = typename R::value_type;
  BalanceCase<V> c;
  c.levels = levels_of_one_pct(r, d.balance);
  const std::size_t groups = 3 - r.choose(2);  // three first: a domain average apart from both
  c.level = r.range(0, c.levels.size() - 1);
  c.idle = r.range(0, 2);
  c.share_pkg_resources = level_flag(c.levels, c.level, &LbLevel::share_pkg_resources);
  c.numa = level_flag(c.levels, c.level, &LbLevel::numa);
  c.prefer_sibling = level_flag(c.levels, c.level, &LbLevel::prefer_sibling);
  c.one_cpu_groups = level_flag(c.levels, c.level, &LbLevel::one_cpu_groups);
  for (std::size_t i = 0; i < groups; ++i) {
    V imbalance(0);
    c.groups.push_back(decode_lb_group(r, d.balance, c, imbalance));
    c.sgc_imbalance.push_back(imbalance);
  }
  return c;
}

// update_sd_lb_stats over the case's groups, then find_busiest_group's verdict.
template <class V> struct BalanceOutcome {
  SdLbStatsT<V> sds;  // as update_sd_lb_stats leaves it (before the verdict)
  ImbalanceT<V> verdict;
};

template <class V> BalanceOutcome<V> run_balance(const BalanceCase<V>& c) {
  SdLbStatsT<V> sds;
  for (std::size_t i = 0; i < c.groups.size(); ++i) update_sd_lb_stats_group(sds, c.groups[i], i == 0);
  sds.prefer_sibling = c.prefer_sibling;
  SdLbStatsT<V> work = sds;
  ImbalanceEnvT<V> env;
  if constexpr (std::is_same_v<V, uint64_t>) env.idle = static_cast<CpuIdleType>(c.idle);
  else env.idle = c.idle;
  env.imbalance_pct = c.levels.front().imbalance_pct;
  env.share_pkg_resources = c.share_pkg_resources;
  env.numa = c.numa;
  ImbalanceT<V> verdict = find_busiest_group_verdict(env, work);
  return {sds, verdict};
}

// The case as the CPU of group `first` balances it: its group is the local
// one, the others follow in the domain's circular order (sd->groups starts
// at the balancing CPU's group).
template <class V> BalanceCase<V> seen_from(const BalanceCase<V>& c, std::size_t first) {
  BalanceCase<V> out = c;
  for (std::size_t i = 0; i < c.groups.size(); ++i) {
    out.groups[i] = c.groups[(first + i) % c.groups.size()];
    out.sgc_imbalance[i] = c.sgc_imbalance[(first + i) % c.groups.size()];
  }
  return out;
}

// The claim on one balancing CPU's outcome: moving the verdict's X from the
// busiest group to the local one does not turn the imbalance around.
//  - migrate_load: X <= busiest's group_load, and local's avg_load after the
//    move (load + X) <= busiest's (load - X), each as update_sg_lb_stats
//    computes it (load * SCHED_CAPACITY_SCALE / capacity);
//  - migrate_task, X > 1 (one task is the smallest move): 2X at most the
//    running-task gap (busiest - local sum_nr_running) or the idle-CPU gap
//    (local - busiest idle_cpus), the two figures calculate_imbalance halves.
template <class V> LbBool<V> balance_holds_from(ClaimKind k, const BalanceOutcome<V>& o) {
  const SgWakeupStats<V>& l = o.sds.local.v;
  const SgWakeupStats<V>& b = o.sds.busiest.v;
  const V x = lb_value<V>(o.verdict.imbalance);
  const V scale(kSchedCapacityScale);
  if (k == ClaimKind::lb_no_reversal_load) {
    const auto applies = o.verdict.type == lb_enum<V>(MigrationType::load) && x != V(0);
    // busiest's capacity is 0 only with no busiest group, and then there is no move
    const auto kept = x <= b.group_load && (l.group_load + x) * scale / l.group_capacity <=
                                               (b.group_load - x) * scale / max(b.group_capacity, V(1));
    return !applies || kept;
  }
  const auto applies = o.verdict.type == lb_enum<V>(MigrationType::task) && x > V(1);
  const auto kept = V(2) * x + l.sum_nr_running <= b.sum_nr_running || V(2) * x + b.idle_cpus <= l.idle_cpus;
  return !applies || kept;
}

// The claim on a case, its first group's CPU balancing. The domain is closed
// under seen_from() (every group is decoded alike), so the testing engines
// check a case from every group (check_balance_case: more points per draw)
// and the proofs only from the first: the same claim.
template <class V> LbBool<V> balance_holds(ClaimKind k, const BalanceCase<V>& c) {
  return balance_holds_from(k, run_balance(c));
}

// "level die (SD_PREFER_SIBLING), 2 or 3 groups of 1..4 CPUs, ..."
std::string describe_balance_domain(const Claim& c);

}  // namespace cfsv
