#include "proofs/balance_proofs.h"

#include <string>

#include "claims/check.h"
#include "proofs/bridge.h"
#include "proofs/sym_reader.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

namespace {

// "imbalance_pct 117 (mc, die, numa), 3 groups": the path's choices.
std::string label(const BalanceCase<Sym>& c) {
  std::string s = "imbalance_pct " + std::to_string(c.levels.front().imbalance_pct) + " (";
  for (std::size_t i = 0; i < c.levels.size(); ++i) s += (i ? ", " : "") + std::string(c.levels[i].name);
  return s + "), " + std::to_string(c.groups.size()) + " groups";
}

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

}  // namespace

ProofResult prove_balance(const Claim& claim, const CheckConfig& config) {
  const uint32_t timeout_ms = config.timeout_ms ? config.timeout_ms : default_timeout_ms(config.budget);
  ProofResult res;
  std::vector<std::string> unknown;
  z3::context ctx;  // one for every query
  ContextScope scope(ctx);
  std::optional<std::vector<uint64_t>> path = std::vector<uint64_t>{};
  while (path) {
    SymReader reader(std::move(*path));
    const BalanceCase<Sym> c = decode_balance_case(reader, claim.domain);
    path = reader.next();
    const std::string where = label(c);
    const z3::expr negated = reader.domain() && !balance_holds(claim.kind, c).expr();
    const BridgeResult br = find(negated, timeout_ms);
    res.queries.push_back({where, br.outcome, br.seconds});
    res.seconds += br.seconds;
    if (br.outcome == Outcome::unknown) unknown.push_back(where + ": " + br.reason);
    if (br.outcome != Outcome::refuted) continue;
    const BalanceCase<uint64_t> concrete = evaluate(c, *br.model);
    refute_with(res, check_balance_case(claim, concrete), [&] { return balance_counterexample(claim, concrete); },
                where);
    return res;
  }
  conclude(res, unknown);
  return res;
}

}  // namespace cfsv::proofs
