#include "proofs/sim_proofs.h"

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "model/arith/balance.h"
#include "model/arith/pelt_attach.h"
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

// One lemma's Z3 context (current while it lives) and the unknowns a
// counterexample lists.
struct Lemma {
  z3::context ctx;
  ContextScope scope{ctx};
  std::vector<std::pair<std::string, Sym>> inputs;
  // A fresh unknown, listed among a counterexample's inputs.
  Sym input(const std::string& name, unsigned bits) {
    const Sym v = Sym::var(name.c_str(), bits);
    inputs.push_back({name, v});
    return v;
  }
};

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
  Lemma lemma;
  const Sym zero(uint64_t{0}), one(uint64_t{1});
  Sym on_going = one, off_going = one;
  // prefix: every domain the stop's walk balances, the other balances too;
  // more: some domain's cost counts in the stop's walk and not in the other
  // (the sums of six costs below 2^40 cannot wrap, so none such means the
  // stop's walk costs no more: proved termwise, which bit-blasts at once where
  // the two 64-bit sums do not)
  z3::expr prefix = lemma.ctx.bool_val(true), more = lemma.ctx.bool_val(false);
  for (unsigned d = 0; d < kNewidleLevels; ++d) {
    const std::string n = std::to_string(d);
    // costs below 2^40 ns (zero-extended: the sum of six cannot wrap); pulled_task and nr_running only
    // compared with 0, so 8 bits say everything about them
    const Sym c = lemma.input("cost" + n, 40), pulled = lemma.input("pulled_task" + n, 8),
              nr = lemma.input("nr_running" + n, 8);
    prefix = prefix && z3::implies(on_going.expr() != zero.expr(), off_going.expr() != zero.expr());
    more = more || (select(on_going != zero, c, zero) > select(off_going != zero, c, zero)).expr();
    on_going = select(newidle_walk_stops(pulled, nr, true), zero, on_going);
    off_going = select(newidle_walk_stops(pulled, nr, false), zero, off_going);
  }
  const Query queries[] = {
      {"the stop's domains are a prefix of the walk's", !prefix},
      {"the stop's walk costs no more, domain by domain", more},
  };
  run_queries(res, queries, "newidle_walk_stops", lemma.inputs, timeout_ms,
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


// One sched_move_task of a queued, waiting task into its own group (v5.15,
// model/core.cpp), at one time `now` to which the dequeue's update brought
// the task and its cfs_rq (so their windows agree: one update period, no
// decay), on one cfs_rq level, against the early return (no change):
// - PELT: detach_entity_load_avg then attach_entity_load_avg
//   (model/arith/pelt_attach.h, the code the simulator runs);
// - the tg contribution: update_tg_load_avg after each (arith/pelt_shares.h);
// - vruntime: dequeue_entity's -= min_vruntime, update_min_vruntime with the
//   task gone (DEQUEUE_MOVE), enqueue_entity's += the new min_vruntime.
ProofResult prove_move_task(uint32_t timeout_ms) {
  using pelt_v5_15::SchedAvg;
  ProofResult res;
  Lemma lemma;
  z3::expr valid = lemma.ctx.bool_val(true);
  const Sym pc = lemma.input("period_contrib", 10), lut = lemma.input("last_update_time", 40);
  const Sym divider = pelt_v5_15::get_pelt_divider(SchedAvg<Sym>{.period_contrib = pc});
  // A state the updates leave: each average is its sum / divider (the sum is
  // avg * divider plus a remainder below divider); the task's averages are
  // part of its cfs_rq's; util at most 1024, weights of nice -20..19.
  const auto avg_of = [&](const std::string& who, unsigned load_bits) {
    SchedAvg<Sym> a{.last_update_time = lut, .period_contrib = pc};
    const Sym la = lemma.input(who + ".load_avg", load_bits), ua = lemma.input(who + ".util_avg", 11),
              ra = lemma.input(who + ".runnable_avg", 11);
    const Sym lr = lemma.input(who + ".load_sum_rest", 16), ur = lemma.input(who + ".util_sum_rest", 16),
              rr = lemma.input(who + ".runnable_sum_rest", 16);
    valid = valid && (lr < divider).expr() && (ur < divider).expr() && (rr < divider).expr() &&
            (ua <= Sym(uint64_t{1024})).expr() && (ra <= Sym(uint64_t{1024})).expr();
    a.load_avg = la, a.util_avg = ua, a.runnable_avg = ra;
    a.load_sum = la * divider + lr, a.util_sum = ua * divider + ur, a.runnable_sum = ra * divider + rr;
    return a;
  };
  const SchedAvg<Sym> cfs0 = avg_of("cfs_rq", 24), se_avg = avg_of("se", 17);
  const Sym w = lemma.input("se_weight", 17);
  valid = valid && (w >= Sym(uint64_t{15})).expr() && (w <= Sym(uint64_t{88761})).expr() &&
          (se_avg.load_avg <= w).expr() && (se_avg.load_avg <= cfs0.load_avg).expr() &&
          (se_avg.util_avg <= cfs0.util_avg).expr() && (se_avg.runnable_avg <= cfs0.runnable_avg).expr();
  // A task's load_sum is its runnable time, unweighted: load_avg = w * load_sum / divider.
  SchedAvg<Sym> se0 = se_avg;
  se0.load_sum = lemma.input("se.load_sum", 17);
  valid = valid && (se0.load_sum <= divider).expr() && (se0.load_avg == w * se0.load_sum / divider).expr();
  // The requeue's PELT and its two tg updates.
  SchedAvg<Sym> cfs = cfs0, se = se0;
  Sym contrib = lemma.input("tg_load_avg_contrib", 24), tg = lemma.input("tg_load_avg", 32);
  const Sym contrib0 = contrib, tg0 = tg, zero(uint64_t{0});
  valid = valid && (contrib <= tg).expr();
  pelt_v5_15::detach_entity_load_avg(cfs, se, w, false);  // v5.15, the claim's profile: sums rebuilt
  update_tg_load_avg(cfs.load_avg, contrib, tg, zero, zero);
  pelt_v5_15::attach_entity_load_avg(cfs, se, w);
  update_tg_load_avg(cfs.load_avg, contrib, tg, zero, zero);
  const auto same_avg = [](const SchedAvg<Sym>& a, const SchedAvg<Sym>& b) {
    return (a.load_avg == b.load_avg && a.util_avg == b.util_avg && a.runnable_avg == b.runnable_avg &&
            a.load_sum == b.load_sum && a.util_sum == b.util_sum && a.runnable_sum == b.runnable_sum)
        .expr();
  };
  // vruntime: the task v, min_vruntime mv, and curr's and the next leftmost's
  // when there are such (signed differences, as the kernel compares them).
  const Sym v = lemma.input("se.vruntime", 64), mv = lemma.input("min_vruntime", 64),
            cv = lemma.input("curr.vruntime", 64), lv = lemma.input("next_leftmost.vruntime", 64),
            has_curr = lemma.input("has_curr", 1), has_left = lemma.input("has_left", 1);
  const auto after = [](const Sym& a, const Sym& b) { return SymBool(z3::sgt((a - b).expr(), 0)); };
  valid = valid && !after(mv, v).expr() && !after(mv, cv).expr() && !after(mv, lv).expr() &&
          !after(v, lv).expr();  // the task is the leftmost (a requeue that moves min_vruntime)
  const SymBool curr(has_curr != zero), left(has_left != zero);
  // update_min_vruntime (kernel/sched/fair.c v5.15) with the task dequeued
  const Sym from_queue = select(curr, select(after(cv, lv), lv, cv), lv);
  const Sym candidate = select(left, from_queue, select(curr, cv, mv));
  const Sym mv1 = select(after(candidate, mv), candidate, mv);
  const Sym v1 = v - mv + mv1;
  const Query queries[] = {
      {"the task's and cfs_rq's PELT sums and averages are unchanged", valid && !(same_avg(cfs, cfs0) && same_avg(se, se0))},
      {"the tg contribution and tg->load_avg are unchanged",
       valid && !(contrib.expr() == contrib0.expr() && tg.expr() == tg0.expr())},
      {"the task's vruntime and min_vruntime are unchanged", valid && !(v1.expr() == v.expr() && mv1.expr() == mv.expr())},
  };
  run_queries(res, queries, "sched_move_task into the task's own group", lemma.inputs, timeout_ms,
              "proved for one requeue of a queued task at one time on one cfs_rq level (3 queries unsat)");
  return res;
}

// A group move of a task on one CPU (sched_move_task, v5.15): its entity's
// averages leave the old group's cfs_rq (detach_entity_load_avg) and join the
// new group's (attach_entity_load_avg), the templates the simulator runs
// (model/arith/pelt_attach.h). With the old cfs_rq's averages each at least
// the entity's (they include it), the two cfs_rqs' load, util and runnable
// averages total what they did: the contribution moves once, whole.
ProofResult prove_move_invariants(uint32_t timeout_ms) {
  using pelt_v5_15::SchedAvg;
  ProofResult res;
  Lemma lemma;
  const auto avg_of = [&](const std::string& who) {
    SchedAvg<Sym> a;
    a.period_contrib = lemma.input(who + ".period_contrib", 10);
    a.load_avg = lemma.input(who + ".load_avg", 32), a.util_avg = lemma.input(who + ".util_avg", 32);
    a.runnable_avg = lemma.input(who + ".runnable_avg", 32);
    return a;
  };
  const SchedAvg<Sym> from0 = avg_of("old_cfs_rq"), to0 = avg_of("new_cfs_rq"), se0 = avg_of("se");
  const Sym w = lemma.input("se_weight", 17);
  const z3::expr valid = (w >= Sym(uint64_t{2})).expr() && (se0.load_avg <= from0.load_avg).expr() &&
                         (se0.util_avg <= from0.util_avg).expr() && (se0.runnable_avg <= from0.runnable_avg).expr();
  SchedAvg<Sym> from = from0, to = to0, se = se0;
  pelt_v5_15::detach_entity_load_avg(from, se, w, false);  // v5.15, the claim's profile
  pelt_v5_15::attach_entity_load_avg(to, se, w);
  const auto total = [](const SchedAvg<Sym>& a, const SchedAvg<Sym>& b, Sym SchedAvg<Sym>::*f) { return a.*f + b.*f; };
  const auto kept = [&](Sym SchedAvg<Sym>::*f) { return (total(from, to, f) == total(from0, to0, f)).expr(); };
  const Query queries[] = {
      {"the two cfs_rqs' load_avg, util_avg and runnable_avg total what they did",
       valid && !(kept(&SchedAvg<Sym>::load_avg) && kept(&SchedAvg<Sym>::util_avg) &&
                  kept(&SchedAvg<Sym>::runnable_avg))},
      {"the entity's averages are unchanged",
       valid && !(se.load_avg.expr() == se0.load_avg.expr() && se.util_avg.expr() == se0.util_avg.expr() &&
                  se.runnable_avg.expr() == se0.runnable_avg.expr())},
  };
  run_queries(res, queries, "a group move's detach and attach", lemma.inputs, timeout_ms,
              "proved for a group move's PELT detach and attach over symbolic 32-bit averages (2 queries unsat); "
              "the invariants themselves are checked on runs, which Z3 does not make: tested, not proved");
  return res;
}

// One take of detach_tasks' loop (v5.15; era 1: v4.4, v3.10's move_tasks) at an imbalance
// r > 0, with the tests the simulator runs (model/arith/balance.h).
ProofResult prove_lb_take(uint32_t timeout_ms) {
  ProofResult res;
  Lemma lemma;
  const Sym r = lemma.input("imbalance", 64), load = lemma.input("load", 64), util = lemma.input("util", 64),
            failed = lemma.input("nr_balance_failed", 32);
  const Sym zero(uint64_t{0}), one(uint64_t{1});
  const z3::expr positive = z3::sgt(r.expr(), lemma.ctx.bv_val(0, Sym::kBits));
  const auto non_negative = [&](const Sym& v) { return z3::sge(v.expr(), lemma.ctx.bv_val(0, Sym::kBits)); };
  const Sym load1 = select(load == zero, one, load);  // max_t(unsigned long, task_h_load(p), 1)
  const z3::expr fits0 = detach_load_fits(load1, zero, r).expr();
  // below (r + 1) << f, as a 128-bit product so that nothing wraps
  const z3::expr wide_load = z3::zext(load.expr(), 64), wide_bound = z3::shl(z3::zext((r + one).expr(), 64),
                                                                              z3::zext(failed.expr(), 64));
  const Query queries[] = {
      {"migrate_load, nr_balance_failed 0: a fitting task leaves 0 <= r - load < r",
       positive && fits0 && !(non_negative(r - load1) && z3::slt((r - load1).expr(), r.expr()))},
      {"migrate_util: a fitting util leaves r - util >= 0", positive && (util <= r).expr() && !non_negative(r - util)},
      {"migrate_task: a task leaves r - 1 >= 0", positive && !non_negative(r - one)},
      {"migrate_load after failures: a fitting load is below (r + 1) << nr_balance_failed",
       positive && z3::ult(failed.expr(), lemma.ctx.bv_val(64, Sym::kBits)) &&
           detach_load_fits(load, failed, r).expr() && !z3::ult(wide_load, wide_bound)},
      {"era 1: a fitting load is at most 2r + 1",
       positive && detach_load_fits_v4(load, r).expr() && !(load <= r + r + one).expr()},
  };
  run_queries(res, queries, "detach_tasks' take", lemma.inputs, timeout_ms,
              "proved for one take at a positive imbalance (5 queries unsat), so by induction a pass with "
              "nr_balance_failed 0 moves at most X load, util or tasks; that the simulator's pass is that loop is "
              "tested, not proved");
  return res;
}

}  // namespace

std::string_view sim_lemma(const Claim& claim) {
  if (claim.kind == ClaimKind::sim_lb_pass_within_verdict) return kLbPassLemma;
  if (claim.kind == ClaimKind::sim_invariants) return kMoveInvariantsLemma;
  if (is_newidle_stop_kind(claim.kind)) return kNewidleLemma;
  return claim.features[Feature::move_task_skip_same_group] ? kMoveTaskLemma : kSimLemma;
}

ProofResult prove_sim(const Claim& claim, const CheckConfig& config) {
  const uint32_t timeout_ms = config.timeout_ms ? config.timeout_ms : default_timeout_ms(config.budget);
  if (is_newidle_stop_kind(claim.kind)) return prove_newidle_stop(timeout_ms);
  if (claim.kind == ClaimKind::sim_invariants) return prove_move_invariants(timeout_ms);
  if (claim.kind == ClaimKind::sim_lb_pass_within_verdict) return prove_lb_take(timeout_ms);
  // a sim_unobservable claim's proof is about the function its feature changes
  return claim.features[Feature::move_task_skip_same_group] ? prove_move_task(timeout_ms)
                                                            : prove_root_tg_skip(timeout_ms);
}

}  // namespace cfsv::proofs
