// The domain of an era-1 balancing claim (v4.4's find_busiest_group, groups
// compared by average load) and its statements, decoded once for every
// engine. A case is one find_busiest_group call on a level of a sched_domain:
// the balancing CPU's idle type and the statistics update_sg_lb_stats (v4.4)
// gathers for two or three groups, the local one first. The verdict comes
// from model/arith/balance_v4.h, the simulator's own templates.
//
// What v4.4's update_sg_lb_stats can produce, per group of w CPUs
// (1..max_group_cpus, 1 on a level of single-CPU groups), with
// T = max_tasks_per_cpu and M = MAX_SHARES (a group entity's largest weight,
// scale_load_down'd; a task's is below it):
//  - idle_cpus <= w; sum_nr_running (cfs h_nr_running) <= T x the CPUs that
//    are not idle;
//  - sum_weighted_load (the runnable_load_avg of the CPUs) <= M x
//    sum_nr_running: at most each queued entity's weight;
//  - group_load: the current load (sum_weighted_load) when the level's load
//    index for the idle type is 0; else (source_load or target_load: with
//    LB_BIAS the min or max of cpu_load[idx] and the current load, cpu_load[]
//    a history of past loads) any value <= M x T x w;
//  - group_capacity in [w, 1024 w], group_util <= 1024 w (cpu_util is capped
//    at capacity_orig); sgc->imbalance either way;
//  - the tail (avg_load, load_per_task, group_no_capacity, type) computed by
//    update_sg_lb_stats_tail_v4.
// The balancing CPU (dst) is in the local group; cpu_avg_load_per_task(dst),
// which fix_small_imbalance reads only when the local group runs nothing,
// is then 0 (dst runs nothing: the kernel divides only when nr_running is
// not 0).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "claims/balance_case.h"  // LbLevel flags: level_flag
#include "claims/claim.h"
#include "claims/reader.h"
#include "model/arith/balance_v4.h"
#include "model/arith/fair_math.h"  // kFairMaxShares

namespace cfsv {

// The levels of v4.4's default topology (sd_init, kernel/sched/core.c v4.4):
// imbalance_pct 110 on SMT, 117 on MC (SD_SHARE_PKG_RESOURCES), 125 on DIE
// and NUMA; prefer_sibling is the child level's SD_PREFER_SIBLING (SMT and
// DIE set it; a degenerate parent's moves down to its child); busy_idx 0 on
// SMT, else 2 (NUMA 3), idle_idx 0 on SMT and MC, 1 on DIE, 2 on NUMA.
inline std::vector<LbLevel> v4_4_levels() {
  return {
      {"smt", 110, true, false, false, true, false, false},
      {"mc", 117, true, false, false, true, true, false},  // no SMT level below: groups are CPUs
      {"mc-over-smt", 117, true, false, true, false, true, false},
      {"die", 125, false, false, false, false, true, true},         // over MC, which has no SD_PREFER_SIBLING
      {"die-over-smt", 125, false, false, true, false, true, true},  // MC degenerate: DIE's child is SMT
      {"numa", 125, false, true, true, false, true, true},           // over DIE
  };
}

template <class V> struct BalanceCaseV4 {
  std::vector<LbLevel> levels;  // the domain's levels of one imbalance_pct
  V level{0};
  V idle{0};  // enum cpu_idle_type's value
  LbBool<V> prefer_sibling = lb_bool<V>(false), one_cpu_groups = lb_bool<V>(false);
  LbBool<V> history = lb_bool<V>(false);  // the level's load index for the idle type is not 0
  std::vector<SgLbStatsV4T<V>> groups;  // the local group first
};

// What update_sg_lb_stats sums in both era-1 forms (v4.4 here, v3.10 in
// claims/balance_v3_case.h) into a group's statistics G: its CPUs, idle
// CPUs, tasks, weighted load, and the load the verdict compares (the current
// one, or with `history` the cpu_load[] index's).
template <Reader R, class G, class V = typename R::value_type>
void decode_era1_sums(R& r, const BalanceDomain& d, const LbBool<V>& one_cpu_groups, const LbBool<V>& history, G& g) {
  const uint64_t w_max = d.max_group_cpus, t = d.max_tasks_per_cpu;
  g.group_weight = r.range(V(1), select(one_cpu_groups, V(1), V(w_max)), w_max);
  g.idle_cpus = r.range(V(0), g.group_weight, w_max);
  g.sum_nr_running = r.range(V(0), (g.group_weight - g.idle_cpus) * V(t), w_max * t);
  g.sum_weighted_load = r.range(V(0), g.sum_nr_running * V(kFairMaxShares), w_max * t * kFairMaxShares);
  const V past = r.range(V(0), g.group_weight * V(t * kFairMaxShares), w_max * t * kFairMaxShares);
  g.group_load = select(history, past, g.sum_weighted_load);
}

// One group's figures as update_sg_lb_stats (v4.4) sums them, then its tail.
template <Reader R>
SgLbStatsV4T<typename R::value_type> decode_lb_group_v4(R& r, const BalanceDomain& d,
                                                        const BalanceCaseV4<typename R::value_type>& c) {
  using V = typename R::value_type;
  const uint64_t w_max = d.max_group_cpus;
  SgLbStatsV4T<V> g;
  decode_era1_sums(r, d, c.one_cpu_groups, c.history, g);
  g.group_capacity = g.group_weight + r.range(V(0), g.group_weight * V(kSchedCapacityScale - 1),
                                              w_max * (kSchedCapacityScale - 1));
  g.group_util = r.range(V(0), g.group_weight * V(kSchedCapacityScale), w_max * kSchedCapacityScale);
  g.sg_imbalanced = r.range(0, 3) == V(3);  // either way; set one draw in four (it ends most claims' premises)
  update_sg_lb_stats_tail_v4(V(c.levels.front().imbalance_pct), g);
  return g;
}

template <Reader R> BalanceCaseV4<typename R::value_type> decode_balance_case_v4(R& r, const Domain& d) {
  using V = typename R::value_type;
  BalanceCaseV4<V> c;
  c.levels = levels_of_one_pct(r, d.balance);
  const std::size_t groups = 2 + r.choose(2);  // two first: the smaller query
  c.level = r.range(0, c.levels.size() - 1);
  c.idle = r.range(0, 2);
  c.prefer_sibling = level_flag(c.levels, c.level, &LbLevel::prefer_sibling);
  c.one_cpu_groups = level_flag(c.levels, c.level, &LbLevel::one_cpu_groups);
  const auto is = [&](CpuIdleType t) { return c.idle == V(static_cast<uint64_t>(t)); };
  c.history = (is(CpuIdleType::not_idle) && level_flag(c.levels, c.level, &LbLevel::busy_history)) ||
              (is(CpuIdleType::idle) && level_flag(c.levels, c.level, &LbLevel::idle_history));
  for (std::size_t i = 0; i < groups; ++i) c.groups.push_back(decode_lb_group_v4(r, d.balance, c));
  return c;
}

// update_sd_lb_stats (v4.4) over the case's groups, then the verdict.
template <class V> struct BalanceOutcomeV4 {
  SdLbStatsV4T<V> sds;      // as update_sd_lb_stats leaves it (before the verdict)
  SdLbStatsV4T<V> after;    // as the verdict leaves it (avg_load, load_per_task)
  VerdictV4T<V> verdict;
};

template <class V> BalanceOutcomeV4<V> run_balance_v4(const BalanceCaseV4<V>& c) {
  const V pct(c.levels.front().imbalance_pct);
  BalanceOutcomeV4<V> o;
  for (std::size_t i = 0; i < c.groups.size(); ++i)
    update_sd_lb_stats_group_v4(o.sds, c.groups[i], i == 0, c.prefer_sibling, pct);
  ImbalanceEnvV4T<V> env;
  if constexpr (std::is_same_v<V, uint64_t>) env.idle = static_cast<CpuIdleType>(c.idle);
  else env.idle = c.idle;
  env.imbalance_pct = pct;
  env.dst_load_per_task = V(0);
  o.after = o.sds;
  o.verdict = find_busiest_group_verdict_v4(env, o.after);
  return o;
}

// The case as the CPU of group `first` balances it (sd->groups starts at the
// balancing CPU's group and goes round).
template <class V> BalanceCaseV4<V> seen_from(const BalanceCaseV4<V>& c, std::size_t first) {
  BalanceCaseV4<V> out = c;
  for (std::size_t i = 0; i < c.groups.size(); ++i) out.groups[i] = c.groups[(first + i) % c.groups.size()];
  return out;
}

// The claims on one balancing CPU's outcome.
//  - lb_v4_no_reversal_load: the verdict's X > 0 moved from the busiest group
//    to the local one leaves X at most busiest's group_load and local's
//    avg_load (load + X, scaled by capacity) at most busiest's (load - X);
//  - lb_v4_idle_pulls_overloaded: a CPU balancing as idle or newly idle,
//    whose group runs fewer tasks than it has CPUs, finds a busiest group
//    when another group runs more tasks than it has CPUs (a CPU there has a
//    task waiting while one here has nothing to run), no group's
//    sgc->imbalance (pinned tasks) being set.
template <class V> LbBool<V> balance_v4_holds_from(ClaimKind k, const BalanceCaseV4<V>& c, const BalanceOutcomeV4<V>& o) {
  const SgLbStatsV4T<V>& l = o.sds.local;
  const SgLbStatsV4T<V>& b = o.sds.busiest;
  const V scale(kSchedCapacityScale);
  if (k == ClaimKind::lb_v4_no_reversal_load) {
    const V x = o.verdict.imbalance;
    const auto applies = o.verdict.busiest && x != V(0);
    const auto kept = x <= b.group_load && (l.group_load + x) * scale / l.group_capacity <=
                                               (b.group_load - x) * scale / max(b.group_capacity, V(1));
    return !applies || kept;
  }
  auto overloaded_other = lb_bool<V>(false), pinned = c.groups[0].sg_imbalanced;
  for (std::size_t i = 1; i < c.groups.size(); ++i) {
    overloaded_other = overloaded_other || c.groups[i].sum_nr_running > c.groups[i].group_weight;
    pinned = pinned || c.groups[i].sg_imbalanced;
  }
  const auto idle = c.idle != V(static_cast<uint64_t>(CpuIdleType::not_idle));
  const auto applies = idle && !pinned && c.groups[0].sum_nr_running < c.groups[0].group_weight && overloaded_other;
  return !applies || o.verdict.busiest;
}

template <class V> LbBool<V> balance_v4_holds(ClaimKind k, const BalanceCaseV4<V>& c) {
  return balance_v4_holds_from(k, c, run_balance_v4(c));
}

// "level die (prefer_sibling), 2 or 3 groups of 1..4 CPUs, ..."
std::string describe_balance_v4_domain(const Claim& c);

}  // namespace cfsv
