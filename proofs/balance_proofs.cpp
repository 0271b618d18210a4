#include "proofs/balance_proofs.h"

#include <string>

#include "claims/check.h"
#include "proofs/bridge.h"
#include "proofs/sym_reader.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

namespace {

// The case Z3's model gives: every group's figures, re-classified on uint64_t.
BalanceCase<uint64_t> evaluate(const BalanceCase<Sym>& c, const z3::model& m) {
  const auto at = [&m](const Sym& s) { return numeral(m.eval(s.expr(), true)); };
  BalanceCase<uint64_t> out;
  out.levels = c.levels;
  out.level = at(c.level);
  out.idle = at(c.idle);
  const LbLevel& level = out.levels.at(out.level);
  out.share_pkg_resources = level.share_pkg_resources;
  out.numa = level.numa;
  out.prefer_sibling = level.prefer_sibling;
  out.one_cpu_groups = level.one_cpu_groups;
  for (std::size_t i = 0; i < c.groups.size(); ++i) {
    const SgWakeupStats<Sym>& v = c.groups[i].v;
    const SgWakeupStats<uint64_t> raw{at(v.group_load),       at(v.group_util),       at(v.group_runnable),
                                      at(v.group_capacity),   0,                      at(v.sum_nr_running),
                                      at(v.sum_h_nr_running), at(v.idle_cpus),        at(v.group_weight)};
    out.sgc_imbalance.push_back(at(c.sgc_imbalance[i]));
    out.groups.push_back(lb_group(level.imbalance_pct, raw, out.sgc_imbalance.back()));
  }
  return out;
}

// An era-1 case's level and idle type, and a group's sums, as Z3's model gives them.
template <template <class> class Case> Case<uint64_t> evaluate_head(const Case<Sym>& c, const z3::model& m) {
  Case<uint64_t> out;
  out.levels = c.levels;
  out.level = numeral(m.eval(c.level.expr(), true));
  out.idle = numeral(m.eval(c.idle.expr(), true));
  const LbLevel& level = out.levels.at(out.level);
  out.prefer_sibling = level.prefer_sibling;
  out.one_cpu_groups = level.one_cpu_groups;
  return out;
}
template <template <class> class Stats> Stats<uint64_t> evaluate_sums(const Stats<Sym>& g, const z3::model& m) {
  const auto at = [&m](const Sym& s) { return numeral(m.eval(s.expr(), true)); };
  Stats<uint64_t> v;
  v.group_weight = at(g.group_weight);
  v.idle_cpus = at(g.idle_cpus);
  v.sum_nr_running = at(g.sum_nr_running);
  v.sum_weighted_load = at(g.sum_weighted_load);
  v.group_load = at(g.group_load);
  return v;
}

// The era-1 case Z3's model gives, each group's tail recomputed on uint64_t.
BalanceCaseV4<uint64_t> evaluate(const BalanceCaseV4<Sym>& c, const z3::model& m) {
  const auto at = [&m](const Sym& s) { return numeral(m.eval(s.expr(), true)); };
  BalanceCaseV4<uint64_t> out = evaluate_head(c, m);
  const LbLevel& level = out.levels.at(out.level);
  for (const SgLbStatsV4T<Sym>& g : c.groups) {
    SgLbStatsV4 v = evaluate_sums(g, m);
    v.group_capacity = at(g.group_capacity);
    v.group_util = at(g.group_util);
    v.sg_imbalanced = at(select(g.sg_imbalanced, Sym(1), Sym(0))) != 0;
    update_sg_lb_stats_tail_v4<uint64_t>(level.imbalance_pct, v);
    out.groups.push_back(v);
  }
  return out;
}

// The v3.10 case Z3's model gives, each group's tail recomputed on uint64_t.
BalanceCaseV3<uint64_t> evaluate(const BalanceCaseV3<Sym>& c, const z3::model& m) {
  const auto at = [&m](const Sym& s) { return numeral(m.eval(s.expr(), true)); };
  BalanceCaseV3<uint64_t> out = evaluate_head(c, m);
  const LbLevel& level = out.levels.at(out.level);
  for (const SgLbStatsV3T<Sym>& g : c.groups) {
    SgLbStatsV3 v = evaluate_sums(g, m);
    v.power = at(g.power);
    finish_lb_group_v3<uint64_t>(v, at(select(g.group_imb, Sym(1), Sym(0))) != 0,
                                 level.imbalance_pct == kV3SmtImbalancePct);
    out.groups.push_back(v);
  }
  return out;
}

template <class Case> std::string label(const Case& c) {
  std::string s = "imbalance_pct " + std::to_string(c.levels.front().imbalance_pct) + " (";
  for (std::size_t i = 0; i < c.levels.size(); ++i) s += (i ? ", " : "") + std::string(c.levels[i].name);
  return s + "), " + std::to_string(c.groups.size()) + " groups";
}

// The queries, one per path; decode(reader) gives the symbolic case, holds(c)
// the statement, check(concrete) and explain(concrete) the uint64_t re-run.
template <class Decode, class Holds, class Check, class Explain>
ProofResult prove_paths(const CheckConfig& config, Decode decode, Holds holds, Check check, Explain explain) {
  const uint32_t timeout_ms = config.timeout_ms ? config.timeout_ms : default_timeout_ms(config.budget);
  ProofResult res;
  std::vector<std::string> unknown;
  z3::context ctx;  // one for every query
  ContextScope scope(ctx);
  std::optional<std::vector<uint64_t>> path = std::vector<uint64_t>{};
  while (path) {
    SymReader reader(std::move(*path));
    const auto c = decode(reader);
    path = reader.next();
    const std::string where = label(c);
    const z3::expr negated = reader.domain() && !holds(c).expr();
    const BridgeResult br = find(negated, timeout_ms);
    res.queries.push_back({where, br.outcome, br.seconds});
    res.seconds += br.seconds;
    if (br.outcome == Outcome::unknown) unknown.push_back(where + ": " + br.reason);
    if (br.outcome != Outcome::refuted) continue;
    const auto concrete = evaluate(c, *br.model);
    refute_with(res, check(concrete), [&] { return explain(concrete); }, where);
    return res;
  }
  conclude(res, unknown);
  return res;
}

}  // namespace

ProofResult prove_balance(const Claim& claim, const CheckConfig& config) {
  switch (family_of(claim.kind)) {
    case ClaimFamily::balance_v3:
      return prove_paths(
          config, [&](SymReader& r) { return decode_balance_case_v3(r, claim.domain); },
          [&](const BalanceCaseV3<Sym>& c) { return balance_v3_holds(claim.kind, c); },
          [&](const BalanceCaseV3<uint64_t>& c) { return check_balance_v3_case(claim, c); },
          [&](const BalanceCaseV3<uint64_t>& c) { return balance_v3_counterexample(claim, c); });
    case ClaimFamily::balance_v4:
      return prove_paths(
          config, [&](SymReader& r) { return decode_balance_case_v4(r, claim.domain); },
          [&](const BalanceCaseV4<Sym>& c) { return balance_v4_holds(claim.kind, c); },
          [&](const BalanceCaseV4<uint64_t>& c) { return check_balance_v4_case(claim, c); },
          [&](const BalanceCaseV4<uint64_t>& c) { return balance_v4_counterexample(claim, c); });
    case ClaimFamily::balance:
      return prove_paths(
          config, [&](SymReader& r) { return decode_balance_case(r, claim.domain); },
          [&](const BalanceCase<Sym>& c) { return balance_holds(claim.kind, c); },
          [&](const BalanceCase<uint64_t>& c) { return check_balance_case(claim, c); },
          [&](const BalanceCase<uint64_t>& c) { return balance_counterexample(claim, c); });
    case ClaimFamily::slice:
    case ClaimFamily::calc_delta:
    case ClaimFamily::pelt:
    case ClaimFamily::sim: break;
  }
  ProofResult res;
  res.outcome = Outcome::unknown;
  res.detail = "not a load-balancing claim";
  return res;
}

}  // namespace cfsv::proofs
