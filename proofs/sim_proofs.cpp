#include "proofs/sim_proofs.h"

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "model/arith/balance.h"
#include "model/arith/pelt_shares.h"
#include "proofs/bridge.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

namespace {
// update_tg_load_avg's three results from one symbolic state.
struct TgUpdate {
  Sym contrib, tg_load_avg, updated;
};
TgUpdate tg_update(const Sym& load_avg, const Sym& contrib, const Sym& tg_load_avg, const Sym& force,
                   const Sym& skip_root) {
  TgUpdate r{contrib, tg_load_avg, Sym(uint64_t{0})};
  r.updated = update_tg_load_avg(load_avg, r.contrib, r.tg_load_avg, force, skip_root);
  return r;
}
z3::expr same(const TgUpdate& a, const TgUpdate& b) {
  return a.contrib.expr() == b.contrib.expr() && a.tg_load_avg.expr() == b.tg_load_avg.expr() &&
         a.updated.expr() == b.updated.expr();
}

// Runs the (negated) lemmas; the first refuted one becomes the
// counterexample, with `inputs` evaluated in its model.
struct Query {
  const char* label;
  z3::expr formula;  // the negation of the lemma
};
void run_queries(ProofResult& res, std::span<const Query> queries, std::string_view what,
                 std::span<const std::pair<std::string, Sym>> inputs, uint32_t timeout_ms, std::string_view passed) {
  std::vector<std::string> unknown;
  for (const Query& q : queries) {
    const BridgeResult br = find(q.formula, timeout_ms);
    res.queries.push_back({q.label, br.outcome, br.seconds});
    res.seconds += br.seconds;
    if (br.outcome == Outcome::unknown) unknown.push_back(std::string(q.label) + ": " + br.reason);
    if (br.outcome != Outcome::refuted) continue;
    res.outcome = Outcome::refuted;
    res.detail = std::string(what) + ": " + q.label + " fails";
    res.counterexample.summary = res.detail;
    for (const auto& [name, v] : inputs)
      res.counterexample.values.push_back({name, br.model->eval(v.expr(), true).get_decimal_string(0)});
    return;
  }
  conclude(res, unknown, Outcome::passed, std::string(passed));
}

ProofResult prove_newidle_stop(uint32_t timeout_ms) {
  ProofResult res;
  z3::context ctx;
  ContextScope scope(ctx);
  std::vector<std::pair<std::string, Sym>> inputs;
  const Sym zero(uint64_t{0}), one(uint64_t{1});
  Sym on_going = one, off_going = one;
  // prefix: every domain the stop's walk balances, the other balances too;
  // more: some domain's cost counts in the stop's walk and not in the other
  // (the sums of six costs below 2^40 cannot wrap, so none such means the
  // stop's walk costs no more: proved termwise, which bit-blasts at once where
  // the two 64-bit sums do not)
  z3::expr prefix = ctx.bool_val(true), more = ctx.bool_val(false);
  for (unsigned d = 0; d < kNewidleLevels; ++d) {
    const std::string n = std::to_string(d);
    // costs below 2^40 ns (zero-extended: the sum of six cannot wrap); pulled_task and nr_running only
    // compared with 0, so 8 bits say everything about them
    const Sym c = Sym::var(("cost" + n).c_str(), 40), pulled = Sym::var(("pulled_task" + n).c_str(), 8),
              nr = Sym::var(("nr_running" + n).c_str(), 8);
    inputs.insert(inputs.end(), {{"cost" + n, c}, {"pulled_task" + n, pulled}, {"nr_running" + n, nr}});
    prefix = prefix && z3::implies(on_going.expr() != zero.expr(), off_going.expr() != zero.expr());
    more = more || (select(on_going != zero, c, zero) > select(off_going != zero, c, zero)).expr();
    on_going = select(newidle_walk_stops(pulled, nr, true), zero, on_going);
    off_going = select(newidle_walk_stops(pulled, nr, false), zero, off_going);
  }
  const Query queries[] = {
      {"the stop's domains are a prefix of the walk's", !prefix},
      {"the stop's walk costs no more, domain by domain", more},
  };
  run_queries(res, queries, "newidle_walk_stops", inputs, timeout_ms,
              "proved for the walk's stop test over 6 domains with symbolic costs, pulls and rq lengths (2 queries "
              "unsat); not proved for the simulator: that the runs first differ at such a stop, and what follows, "
              "is only tested");
  return res;
}

ProofResult prove_root_tg_skip(uint32_t timeout_ms) {
  ProofResult res;
  z3::context ctx;
  ContextScope scope(ctx);
  const Sym load_avg = Sym::var("load_avg"), contrib = Sym::var("tg_load_avg_contrib"),
            tg = Sym::var("tg_load_avg"), force = Sym::var("force", 1), root = Sym::var("is_root", 1);
  // skip_root as model/pelt.cpp passes it: is_root && the feature.
  const Sym skip_on = root, skip_off = Sym(uint64_t{0});
  const TgUpdate on = tg_update(load_avg, contrib, tg, force, skip_on),
                 off = tg_update(load_avg, contrib, tg, force, skip_off);
  const z3::expr is_root = root.expr() != ctx.bv_val(0, Sym::kBits);
  const Query queries[] = {
      {"non-root group: skip on == skip off", !is_root && !same(on, off)},
      {"root with the skip: nothing written, no update",
       is_root && !(on.contrib.expr() == contrib.expr() && on.tg_load_avg.expr() == tg.expr() &&
                    on.updated.expr() == ctx.bv_val(0, Sym::kBits))},
  };
  const std::pair<std::string, Sym> inputs[] = {{"load_avg", load_avg}, {"tg_load_avg_contrib", contrib},
                                                {"tg_load_avg", tg}, {"force", force}, {"is_root", root}};
  run_queries(res, queries, "update_tg_load_avg", inputs, timeout_ms,
              "proved for update_tg_load_avg over symbolic 64-bit state (2 queries unsat: a non-root group's "
              "results do not change; the root's tg->load_avg and contribution are left alone); not proved for "
              "the simulator: that no decision reads the root's tg->load_avg is only tested");
  return res;
}

}  // namespace

std::string_view sim_lemma(const Claim& claim) {
  return is_newidle_stop_kind(claim.kind) ? kNewidleLemma : kSimLemma;
}

ProofResult prove_sim(const Claim& claim, const CheckConfig& config) {
  const uint32_t timeout_ms = config.timeout_ms ? config.timeout_ms : default_timeout_ms(config.budget);
  return is_newidle_stop_kind(claim.kind) ? prove_newidle_stop(timeout_ms) : prove_root_tg_skip(timeout_ms);
}

}  // namespace cfsv::proofs
