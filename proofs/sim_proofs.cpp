#include "proofs/sim_proofs.h"

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
}  // namespace

ProofResult prove_sim(const Claim&, const CheckConfig& config) {
  const uint32_t timeout_ms = config.timeout_ms ? config.timeout_ms : default_timeout_ms(config.budget);
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
  const struct {
    const char* label;
    z3::expr formula;  // the negation of the lemma
  } queries[] = {
      {"non-root group: skip on == skip off", !is_root && !same(on, off)},
      {"root with the skip: nothing written, no update",
       is_root && !(on.contrib.expr() == contrib.expr() && on.tg_load_avg.expr() == tg.expr() &&
                    on.updated.expr() == ctx.bv_val(0, Sym::kBits))},
  };
  std::vector<std::string> unknown;
  for (const auto& q : queries) {
    const BridgeResult br = find(q.formula, timeout_ms);
    res.queries.push_back({q.label, br.outcome, br.seconds});
    res.seconds += br.seconds;
    if (br.outcome == Outcome::unknown) unknown.push_back(std::string(q.label) + ": " + br.reason);
    if (br.outcome != Outcome::refuted) continue;
    res.outcome = Outcome::refuted;
    res.detail = std::string("update_tg_load_avg: ") + q.label + " fails";
    res.counterexample.summary = res.detail;
    const std::pair<const char*, const Sym*> inputs[] = {
        {"load_avg", &load_avg}, {"tg_load_avg_contrib", &contrib}, {"tg_load_avg", &tg}, {"force", &force},
        {"is_root", &root}};
    for (const auto& [name, v] : inputs)
      res.counterexample.values.push_back({name, br.model->eval(v->expr(), true).get_decimal_string(0)});
    return res;
  }
  conclude(res, unknown, Outcome::passed,
           "proved for update_tg_load_avg over symbolic 64-bit state (2 queries unsat: a non-root group's "
           "results do not change; the root's tg->load_avg and contribution are left alone); not proved for "
           "the simulator: that no decision reads the root's tg->load_avg is only tested");
  return res;
}

}  // namespace cfsv::proofs
