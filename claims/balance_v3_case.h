// The domain of a v3.10 balancing claim (v3.10's find_busiest_group: capacity
// counted in CPUs, group_imb from a group's own CPUs) and its statements,
// decoded once for every engine, as claims/balance_v4_case.h does for v4.4.
// A case is one find_busiest_group call: the balancing CPU's idle type and
// what update_sg_lb_stats (v3.10) gathers for two or three groups, the local
// one first; the verdict is model/arith/balance_v3.h's.
//
// Per group of w CPUs (1..max_group_cpus; 1 on a level of single-CPU
// groups), with T = max_tasks_per_cpu and M = MAX_SHARES:
//  - idle_cpus <= w; sum_nr_running (rq->nr_running) <= T x the busy CPUs;
//  - sum_weighted_load (rq->load.weight) <= M x sum_nr_running;
//  - group_load: the current load at a load index of 0, else any value <=
//    M x T x w (source_load / target_load over rq->cpu_load[]);
//  - power (sgp->power) in [w, 1024 w]: cpu_power is at most
//    SCHED_POWER_SCALE, an SMT sibling's smt_gain / 2, less RT time;
//  - group_imb either way where it can be set (a non-local group of 2+ CPUs
//    running 2+ tasks: its CPUs' loads and nr_running spread), else not;
//  - the tail (avg_load, capacity, has_capacity) by update_sg_lb_stats_tail_v3.
// dst runs nothing when its group runs nothing (cpu_avg_load_per_task 0).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "claims/balance_v4_case.h"  // decode_era1_sums, level_flag
#include "model/arith/balance_v3.h"

namespace cfsv {

// The levels of v3.10's x86 topology (SD_SIBLING_INIT, SD_MC_INIT,
// SD_CPU_INIT, sd_numa_init; model/topology.cpp): imbalance_pct 110 on the
// SMT level (the only one with SD_SHARE_CPUPOWER), else 125; only the CPU
// level sets SD_PREFER_SIBLING, so only NUMA (over it) prefers siblings;
// busy_idx 0 on SMT, else 2 (NUMA 3); idle_idx 1 on CPU, 2 on NUMA.
inline std::vector<LbLevel> v3_10_levels() {
  return {
      {"smt", 110, true, false, false, true, false, false},
      {"mc", 125, true, false, false, true, true, false},  // no SMT level below: groups are CPUs
      {"mc-over-smt", 125, true, false, false, false, true, false},
      {"cpu", 125, false, false, false, false, true, true},
      {"numa", 125, false, true, true, false, true, true},  // over CPU, which has SD_PREFER_SIBLING
  };
}
// SD_SHARE_CPUPOWER (fix_small_capacity's test): the level of imbalance_pct 110.
constexpr uint32_t kV3SmtImbalancePct = 110;

template <class V> struct BalanceCaseV3 {
  std::vector<LbLevel> levels;  // the domain's levels of one imbalance_pct
  V level{0};
  V idle{0};  // enum cpu_idle_type's value
  LbBool<V> prefer_sibling = lb_bool<V>(false), one_cpu_groups = lb_bool<V>(false);
  LbBool<V> history = lb_bool<V>(false);  // the level's load index for the idle type is not 0
  std::vector<SgLbStatsV3T<V>> groups;    // the local group first
};

// A group's tail from its sums and a group_imb decided beforehand: the
// spread update_sg_lb_stats would have seen for it.
template <class V> void finish_lb_group_v3(SgLbStatsV3T<V>& g, const LbBool<V>& imb, bool smt) {
  SgSpreadV3T<V> spread;
  spread.max_cpu_load = select(imb, V(~uint64_t{0}), V(0)), spread.min_cpu_load = V(0);
  spread.max_nr_running = select(imb, V(2), V(0)), spread.min_nr_running = V(0);
  update_sg_lb_stats_tail_v3<V>(g, spread, lb_bool<V>(smt));
}

template <Reader R>
SgLbStatsV3T<typename R::value_type> decode_lb_group_v3(R& r, const BalanceDomain& d,
                                                        const BalanceCaseV3<typename R::value_type>& c, bool local) {
  using V = typename R::value_type;
  const uint64_t w_max = d.max_group_cpus;
  SgLbStatsV3T<V> g;
  decode_era1_sums(r, d, c.one_cpu_groups, c.history, g);
  g.power = g.group_weight + r.range(V(0), g.group_weight * V(kSchedCapacityScale - 1), w_max * (kSchedCapacityScale - 1));
  const auto drawn = r.range(0, 3) == V(3);  // one draw in four (it ends most claims' premises); always drawn
  const auto imb = lb_bool<V>(!local) && g.group_weight >= V(2) && g.sum_nr_running >= V(2) && drawn;
  finish_lb_group_v3(g, imb, c.levels.front().imbalance_pct == kV3SmtImbalancePct);
  return g;
}

template <Reader R> BalanceCaseV3<typename R::value_type> decode_balance_case_v3(R& r, const Domain& d) {
  using V = typename R::value_type;
  BalanceCaseV3<V> c;
  c.levels = levels_of_one_pct(r, d.balance);
  const std::size_t groups = 2 + r.choose(2);
  c.level = r.range(0, c.levels.size() - 1);
  c.idle = r.range(0, 2);
  c.prefer_sibling = level_flag(c.levels, c.level, &LbLevel::prefer_sibling);
  c.one_cpu_groups = level_flag(c.levels, c.level, &LbLevel::one_cpu_groups);
  const auto is = [&](CpuIdleType t) { return c.idle == V(static_cast<uint64_t>(t)); };
  c.history = (is(CpuIdleType::not_idle) && level_flag(c.levels, c.level, &LbLevel::busy_history)) ||
              (is(CpuIdleType::idle) && level_flag(c.levels, c.level, &LbLevel::idle_history));
  for (std::size_t i = 0; i < groups; ++i) c.groups.push_back(decode_lb_group_v3(r, d.balance, c, i == 0));
  return c;
}

template <class V> struct BalanceOutcomeV3 {
  SdLbStatsV3T<V> sds;    // as update_sd_lb_stats leaves it (before the verdict)
  SdLbStatsV3T<V> after;  // as the verdict leaves it (avg_load)
  VerdictV4T<V> verdict;
};

template <class V> BalanceOutcomeV3<V> run_balance_v3(const BalanceCaseV3<V>& c) {
  BalanceOutcomeV3<V> o;
  for (std::size_t i = 0; i < c.groups.size(); ++i) update_sd_lb_stats_group_v3(o.sds, c.groups[i], i == 0, c.prefer_sibling);
  ImbalanceEnvV4T<V> env;
  if constexpr (std::is_same_v<V, uint64_t>) env.idle = static_cast<CpuIdleType>(c.idle);
  else env.idle = c.idle;
  env.imbalance_pct = V(c.levels.front().imbalance_pct);
  o.after = o.sds;
  o.verdict = find_busiest_group_verdict_v3(env, o.after);
  return o;
}

// The statements, as claims/balance_v4_case.h's on v4.4:
//  - lb_v3_no_reversal_load: X > 0 moved from the busiest group to the local
//    one leaves X at most busiest's group_load and local's load per power at
//    most busiest's;
//  - lb_v3_idle_pulls_overloaded: a CPU balancing as idle or newly idle, in a
//    group running fewer tasks than it has CPUs, finds a busiest group when
//    another group runs more tasks than it has CPUs, no group's group_imb set.
template <class V> LbBool<V> balance_v3_holds(ClaimKind k, const BalanceCaseV3<V>& c) {
  const BalanceOutcomeV3<V> o = run_balance_v3(c);
  const SgLbStatsV3T<V>& l = o.sds.local;
  const SgLbStatsV3T<V>& b = o.sds.busiest;
  const V scale(kSchedCapacityScale);
  if (k == ClaimKind::lb_v3_no_reversal_load) {
    const V x = o.verdict.imbalance;
    const auto applies = o.verdict.busiest && x != V(0);
    const auto kept = x <= b.group_load && (l.group_load + x) * scale / l.power <= (b.group_load - x) * scale / b.power;
    return !applies || kept;
  }
  auto overloaded_other = lb_bool<V>(false), imb = lb_bool<V>(false);
  for (std::size_t i = 1; i < c.groups.size(); ++i) {
    overloaded_other = overloaded_other || c.groups[i].sum_nr_running > c.groups[i].group_weight;
    imb = imb || c.groups[i].group_imb;
  }
  const auto idle = c.idle != V(static_cast<uint64_t>(CpuIdleType::not_idle));
  const auto applies = idle && !imb && c.groups[0].sum_nr_running < c.groups[0].group_weight && overloaded_other;
  return !applies || o.verdict.busiest;
}

// "level numa (prefer_sibling), 2 or 3 groups of 1..4 CPUs, ..."
std::string describe_balance_v3_domain(const Claim& c);

}  // namespace cfsv
