// Balancing claims on concrete cases: the domain's text, and a case's
// counterexample with every group's figures, the verdict and the move.
#include <string>

#include "claims/check.h"

namespace cfsv {

namespace {
std::string dec(uint64_t v) { return std::to_string(v); }

std::string_view idle_name(CpuIdleType t) {
  return t == CpuIdleType::idle ? "idle" : t == CpuIdleType::not_idle ? "not_idle" : "newly_idle";
}
std::string_view group_type_name(GroupType t) {
  static constexpr std::string_view kNames[] = {"has_spare",    "fully_busy", "misfit_task",
                                                "asym_packing", "imbalanced", "overloaded"};
  return kNames[static_cast<unsigned>(t)];
}
std::string_view migration_name(MigrationType t) {
  static constexpr std::string_view kNames[] = {"migrate_load", "migrate_util", "migrate_task", "migrate_misfit"};
  return kNames[static_cast<unsigned>(t)];
}

std::string flags_text(const LbLevel& l) {
  std::string s = "imbalance_pct " + dec(l.imbalance_pct);
  if (l.share_pkg_resources) s += ", SD_SHARE_PKG_RESOURCES";
  if (l.numa) s += ", SD_NUMA";
  if (l.prefer_sibling) s += ", prefer_sibling";
  if (l.one_cpu_groups) s += ", 1-CPU groups";
  return s;
}

uint64_t avg(uint64_t load, uint64_t cap) { return load * kSchedCapacityScale / cap; }

std::string levels_text(const BalanceDomain& d) {
  std::string s;
  for (std::size_t i = 0; i < d.levels.size(); ++i)
    s += (i ? "; " : "") + std::string(d.levels[i].name) + " (" + flags_text(d.levels[i]) + ")";
  return s;
}

std::string_view group_type_v4_name(GroupTypeV4 t) {
  static constexpr std::string_view kNames[] = {"group_other", "group_imbalanced", "group_overloaded"};
  return kNames[static_cast<unsigned>(t)];
}

// The first group whose CPU, balancing, breaks the claim (0 if none).
template <class Case, class Holds> std::size_t first_failing(const Case& c, Holds holds) {
  std::size_t from = 0;
  while (from + 1 < c.groups.size() && holds(seen_from(c, from))) ++from;
  return from;
}

// A counterexample's first values: the level, the idle type, the balancing group.
template <class Case> Counterexample head(const Claim& claim, const Case& c, std::size_t from) {
  Counterexample cx;
  cx.claim = std::string(claim.id);
  cx.values = {{"level", std::string(c.levels[c.level].name)},
               {"idle", std::string(idle_name(static_cast<CpuIdleType>(c.idle)))},
               {"balancing_group", dec(from)}};
  return cx;
}

// " (level L, IDLE, N groups)": where an era-1 counterexample's CPU balances.
template <class Case> std::string where_text(const Case& c) {
  return " (level " + std::string(c.levels[c.level].name) + ", " +
         std::string(idle_name(static_cast<CpuIdleType>(c.idle))) + ", " + dec(c.groups.size()) + " groups)";
}

// The first non-local group running more tasks than it has CPUs (else the last).
template <class Case> std::size_t first_overloaded(const Case& c) {
  std::size_t i = 1;
  while (i + 1 < c.groups.size() && c.groups[i].sum_nr_running <= c.groups[i].group_weight) ++i;
  return i;
}

// X of load moved from the busiest group to the local one: both avg_loads
// before and after.
std::string load_move_text(uint64_t l_load, uint64_t l_cap, uint64_t b_load, uint64_t b_cap, uint64_t x,
                           std::vector<Value>& values) {
  const std::string l_after = dec(avg(l_load + x, l_cap));
  const std::string b_after = x > b_load ? "-" : dec(avg(b_load - x, b_cap));
  values.push_back({"local_avg_load_after", l_after});
  values.push_back({"busiest_avg_load_after", b_after});
  return "local avg_load " + dec(avg(l_load, l_cap)) + " -> " + l_after + ", busiest's " + dec(avg(b_load, b_cap)) +
         " -> " + (x > b_load ? "below 0 (X > its load " + dec(b_load) + ")" : b_after);
}

// What the move does to the figure the claim's kind compares.
std::string move_summary(ClaimKind k, const BalanceOutcome<uint64_t>& o, uint64_t x, std::vector<Value>& values) {
  const SgWakeupStats<uint64_t>& l = o.sds.local.v;
  const SgWakeupStats<uint64_t>& b = o.sds.busiest.v;
  if (k == ClaimKind::lb_no_reversal_load)
    return load_move_text(l.group_load, l.group_capacity, b.group_load, b.group_capacity, x, values);
  return "tasks local " + dec(l.sum_nr_running) + " busiest " + dec(b.sum_nr_running) + ", idle CPUs local " +
         dec(l.idle_cpus) + " busiest " + dec(b.idle_cpus) + ": 2X exceeds both gaps";
}
}  // namespace

std::string describe_balance_domain(const Claim& c) {
  const BalanceDomain& d = c.domain.balance;
  const std::string s = "find_busiest_group (v5.15) on " + levels_text(d);
  const std::string w = dec(d.max_group_cpus), t = dec(d.max_tasks_per_cpu);
  return s + "; idle, not_idle or newly_idle; 2 or 3 groups of 1.." + w +
         " CPUs as update_sg_lb_stats makes them: idle_cpus <= w, sum_nr_running <= " + t +
         " x busy CPUs, h_nr <= nr, capacity w..1024 w, util <= 1024 w, runnable <= " + t +
         " x 1024 w, load <= " + t + " x MAX_SHARES w, sgc->imbalance either way; a CPU of each group balancing";
}

Counterexample balance_counterexample(const Claim& claim, const BalanceCase<uint64_t>& domain_case) {
  const std::size_t from =
      first_failing(domain_case, [&](const BalanceCase<uint64_t>& c) { return balance_holds(claim.kind, c); });
  const BalanceCase<uint64_t> c = seen_from(domain_case, from);
  const BalanceOutcome<uint64_t> o = run_balance(c);
  Counterexample cx = head(claim, c, from);
  for (std::size_t i = 0; i < c.groups.size(); ++i) {  // one line of values: local_*, group1_*, group2_*
    const SgLbStats& g = c.groups[i];
    const std::string p = i ? "group" + dec((from + i) % c.groups.size()) + "_" : "local_";
    cx.values.insert(cx.values.end(), {{p + "type", std::string(group_type_name(g.type))},
                                       {p + "weight", dec(g.v.group_weight)},
                                       {p + "idle_cpus", dec(g.v.idle_cpus)},
                                       {p + "nr_running", dec(g.v.sum_nr_running)},
                                       {p + "h_nr_running", dec(g.v.sum_h_nr_running)},
                                       {p + "capacity", dec(g.v.group_capacity)},
                                       {p + "util", dec(g.v.group_util)},
                                       {p + "runnable", dec(g.v.group_runnable)},
                                       {p + "load", dec(g.v.group_load)},
                                       {p + "avg_load", dec(g.v.avg_load)},
                                       {p + "sgc_imbalance", dec(c.sgc_imbalance[i])}});
  }
  SdLbStats picking;  // which group update_sd_lb_stats picks
  std::string busiest = "none";
  for (std::size_t i = 0; i < c.groups.size(); ++i) {
    if (i && update_sd_pick_busiest(picking, c.groups[i])) busiest = "group" + dec((from + i) % c.groups.size());
    update_sd_lb_stats_group(picking, c.groups[i], i == 0);
  }
  const uint64_t x = static_cast<uint64_t>(o.verdict.imbalance);
  cx.values.push_back({"busiest", busiest});
  cx.values.push_back({"total_load", dec(o.sds.total_load)});
  cx.values.push_back({"total_capacity", dec(o.sds.total_capacity)});
  cx.values.push_back({"sds_avg_load", dec(avg(o.sds.total_load, o.sds.total_capacity))});
  cx.values.push_back({"migration_type", std::string(migration_name(o.verdict.type))});
  cx.values.push_back({"imbalance", dec(x)});
  const std::string move = move_summary(claim.kind, o, x, cx.values);
  cx.summary = std::string(migration_name(o.verdict.type)) + " " + dec(x) + ": " + move + where_text(c);
  return cx;
}

std::optional<Counterexample> check_balance_case(const Claim& claim, const BalanceCase<uint64_t>& c) {
  for (std::size_t from = 0; from < c.groups.size(); ++from)
    if (!balance_holds(claim.kind, seen_from(c, from))) return balance_counterexample(claim, c);
  return std::nullopt;
}

std::string describe_balance_v4_domain(const Claim& c) {
  const BalanceDomain& d = c.domain.balance;
  const std::string w = dec(d.max_group_cpus), t = dec(d.max_tasks_per_cpu);
  return "find_busiest_group (v4.4, groups by average load) on " + levels_text(d) +
         "; idle, not_idle or newly_idle; 2 or 3 groups of 1.." + w +
         " CPUs as update_sg_lb_stats makes them: idle_cpus <= w, sum_nr_running <= " + t +
         " x busy CPUs, weighted load <= MAX_SHARES x nr, group_load (cpu_load[] history) <= " + t +
         " x MAX_SHARES w, capacity w..1024 w, util <= 1024 w, sgc->imbalance either way; a CPU of each group "
         "balancing";
}

Counterexample balance_v4_counterexample(const Claim& claim, const BalanceCaseV4<uint64_t>& domain_case) {
  const std::size_t from =
      first_failing(domain_case, [&](const BalanceCaseV4<uint64_t>& c) { return balance_v4_holds(claim.kind, c); });
  const BalanceCaseV4<uint64_t> c = seen_from(domain_case, from);
  const BalanceOutcomeV4<uint64_t> o = run_balance_v4(c);
  Counterexample cx = head(claim, c, from);
  for (std::size_t i = 0; i < c.groups.size(); ++i) {
    const SgLbStatsV4& g = c.groups[i];
    const std::string p = i ? "group" + dec((from + i) % c.groups.size()) + "_" : "local_";
    cx.values.insert(cx.values.end(), {{p + "type", std::string(group_type_v4_name(g.type))},
                                       {p + "weight", dec(g.group_weight)},
                                       {p + "idle_cpus", dec(g.idle_cpus)},
                                       {p + "nr_running", dec(g.sum_nr_running)},
                                       {p + "weighted_load", dec(g.sum_weighted_load)},
                                       {p + "load", dec(g.group_load)},
                                       {p + "capacity", dec(g.group_capacity)},
                                       {p + "util", dec(g.group_util)},
                                       {p + "avg_load", dec(g.avg_load)},
                                       {p + "load_per_task", dec(g.load_per_task)},
                                       {p + "sgc_imbalance", dec(g.sg_imbalanced)}});
  }
  SdLbStatsV4 picking;  // which group update_sd_lb_stats picks
  std::string busiest = "none";
  for (std::size_t i = 0; i < c.groups.size(); ++i)
    if (update_sd_lb_stats_group_v4<uint64_t>(picking, c.groups[i], i == 0, c.prefer_sibling,
                                              c.levels.front().imbalance_pct))
      busiest = "group" + dec((from + i) % c.groups.size());
  const uint64_t x = o.verdict.imbalance;
  cx.values.insert(cx.values.end(), {{"busiest", busiest},
                                     {"total_load", dec(o.sds.total_load)},
                                     {"total_capacity", dec(o.sds.total_capacity)},
                                     {"sds_avg_load", dec(o.after.avg_load)},
                                     {"verdict", o.verdict.busiest ? "busiest group found" : "balanced"},
                                     {"imbalance", dec(x)}});
  const SgLbStatsV4& l = o.sds.local;
  const SgLbStatsV4& b = o.sds.busiest;
  const std::string where = where_text(c);
  if (claim.kind == ClaimKind::lb_v4_idle_pulls_overloaded) {
    const std::size_t i = first_overloaded(c);
    const SgLbStatsV4& g = c.groups[i];
    const std::string name = "group" + dec((from + i) % c.groups.size());
    cx.summary = "balanced: local runs " + dec(l.sum_nr_running) + " tasks on " + dec(l.group_weight) +
                 " CPUs at avg_load " + dec(l.avg_load) + ", " + name + " runs " + dec(g.sum_nr_running) + " on " +
                 dec(g.group_weight) + " at avg_load " + dec(g.avg_load) + " (" + std::string(group_type_v4_name(g.type)) +
                 (busiest == name ? ", the busiest)" : busiest == "none" ? ", no busiest group)" : ", not the busiest)") +
                 where;
    return cx;
  }
  cx.summary = "imbalance " + dec(x) + ": " +
               load_move_text(l.group_load, l.group_capacity, b.group_load, b.group_capacity, x, cx.values) + where;
  return cx;
}

std::optional<Counterexample> check_balance_v4_case(const Claim& claim, const BalanceCaseV4<uint64_t>& c) {
  for (std::size_t from = 0; from < c.groups.size(); ++from)
    if (!balance_v4_holds(claim.kind, seen_from(c, from))) return balance_v4_counterexample(claim, c);
  return std::nullopt;
}

std::string describe_balance_v3_domain(const Claim& c) {
  const BalanceDomain& d = c.domain.balance;
  const std::string w = dec(d.max_group_cpus), t = dec(d.max_tasks_per_cpu);
  return "find_busiest_group (v3.10, capacity in CPUs) on " + levels_text(d) +
         "; idle, not_idle or newly_idle; 2 or 3 groups of 1.." + w +
         " CPUs as update_sg_lb_stats makes them: idle_cpus <= w, nr_running <= " + t +
         " x busy CPUs, weighted load <= MAX_SHARES x nr, group_load (cpu_load[] history) <= " + t +
         " x MAX_SHARES w, power w..1024 w, group_imb either way in a non-local group of 2+ CPUs running 2+ "
         "tasks; the first group's CPU balancing";
}

Counterexample balance_v3_counterexample(const Claim& claim, const BalanceCaseV3<uint64_t>& c) {
  const BalanceOutcomeV3<uint64_t> o = run_balance_v3(c);
  Counterexample cx = head(claim, c, 0);
  for (std::size_t i = 0; i < c.groups.size(); ++i) {
    const SgLbStatsV3& g = c.groups[i];
    const std::string p = i ? "group" + dec(i) + "_" : "local_";
    cx.values.insert(cx.values.end(), {{p + "weight", dec(g.group_weight)},
                                       {p + "idle_cpus", dec(g.idle_cpus)},
                                       {p + "nr_running", dec(g.sum_nr_running)},
                                       {p + "weighted_load", dec(g.sum_weighted_load)},
                                       {p + "load", dec(g.group_load)},
                                       {p + "power", dec(g.power)},
                                       {p + "capacity", dec(g.group_capacity)},
                                       {p + "has_capacity", dec(g.group_has_capacity)},
                                       {p + "avg_load", dec(g.avg_load)},
                                       {p + "group_imb", dec(g.group_imb)}});
  }
  SdLbStatsV3 picking;  // which group update_sd_lb_stats picks
  std::string busiest = "none";
  for (std::size_t i = 0; i < c.groups.size(); ++i)
    if (update_sd_lb_stats_group_v3<uint64_t>(picking, c.groups[i], i == 0, c.prefer_sibling))
      busiest = "group" + dec(i);
  const uint64_t x = o.verdict.imbalance;
  cx.values.insert(cx.values.end(), {{"busiest", busiest},
                                     {"total_load", dec(o.sds.total_load)},
                                     {"total_power", dec(o.sds.total_pwr)},
                                     {"sds_avg_load", dec(o.after.avg_load)},
                                     {"verdict", o.verdict.busiest ? "busiest group found" : "balanced"},
                                     {"imbalance", dec(x)}});
  const SgLbStatsV3& l = o.sds.local;
  const SgLbStatsV3& b = o.sds.busiest;
  const std::string where = where_text(c);
  if (claim.kind == ClaimKind::lb_v3_idle_pulls_overloaded) {
    const std::size_t i = first_overloaded(c);
    const SgLbStatsV3& g = c.groups[i];
    const std::string name = "group" + dec(i);
    cx.summary = "balanced: local runs " + dec(l.sum_nr_running) + " tasks on " + dec(l.group_weight) +
                 " CPUs at avg_load " + dec(l.avg_load) + ", " + name + " runs " + dec(g.sum_nr_running) + " on " +
                 dec(g.group_weight) + " (capacity " + dec(g.group_capacity) + ") at avg_load " + dec(g.avg_load) +
                 (busiest == name ? " (the busiest)" : busiest == "none" ? " (no busiest group)" : " (not the busiest)") +
                 where;
    return cx;
  }
  cx.summary = "imbalance " + dec(x) + ": " + load_move_text(l.group_load, l.power, b.group_load, b.power, x, cx.values) + where;
  return cx;
}

// Only the decoded orientation: the local group (whose group_imb v3.10 never computes) is the first.
std::optional<Counterexample> check_balance_v3_case(const Claim& claim, const BalanceCaseV3<uint64_t>& c) {
  if (balance_v3_holds(claim.kind, c)) return std::nullopt;
  return balance_v3_counterexample(claim, c);
}

}  // namespace cfsv
