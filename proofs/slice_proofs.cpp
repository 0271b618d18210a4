#include "proofs/slice_proofs.h"

#include <span>
#include <string>

#include "claims/slice_trace.h"

namespace cfsv::proofs {

namespace {
std::string dec(uint64_t v) { return std::to_string(v); }
}  // namespace

SliceFn model_slice(SliceFeatures f) {
  SliceFn fn = make_slice_fn([f](const auto& c) { return run_slice(c, f); });
  fn.is_model = true;
  return fn;
}

std::unique_ptr<SliceQuery> build_slice_query(const Claim& claim, Budget b, const SliceFn& fn,
                                              std::vector<uint64_t> path, uint64_t split_up_to,
                                              std::shared_ptr<z3::context> ctx) {
  auto q = std::make_unique<SliceQuery>();
  q->ctx = ctx ? std::move(ctx) : std::make_shared<z3::context>();
  ContextScope scope(*q->ctx);
  q->reader.emplace(std::move(path), split_up_to);
  q->c.emplace(decode_slice_case(*q->reader, claim.domain, b));
  {
    MulTrace trace;
    q->slice.emplace(fn.sym(*q->c));
    q->calls = trace.calls();
  }
  q->conjecture.emplace(slice_conjecture(claim.kind, *q->c, *q->slice, claim.features.slice()).expr());
  q->next = q->reader->next();
  return q;
}

SliceCase<uint64_t> evaluate(const SliceCase<Sym>& c, const z3::model& m) {
  auto v = [&m](const Sym& x) { return numeral(m.eval(x.expr(), true)); };
  SliceCase<uint64_t> out{c.era, c.cpus, c.tunables, v(c.nice_rank), {}, v(c.idle), v(c.others_idle)};
  for (const SlicePathLevel<Sym>& l : c.levels)
    out.levels.push_back({v(l.weight), v(l.on_rq), v(l.others), v(l.others_weight), v(l.others_tasks)});
  return out;
}

namespace {

std::string query_label(const SliceCase<Sym>& c) {
  return "era " + std::string(era_name(c.era)) + ", " + dec(c.cpus) + (c.cpus == 1 ? " CPU" : " CPUs") +
         ", depth " + dec(c.levels.size());
}

// The preferred counterexample shape on this query, or nullopt where it
// cannot occur. Both shapes take a nice-0 task among other nice-0 tasks,
// every level queued with at most 31 siblings of its own weight: small,
// readable numbers, and few unknowns left for the solver.
std::optional<z3::expr> shape(const SliceQuery& q, Shape s) {
  if (s == Shape::none) return std::nullopt;
  ContextScope scope(*q.ctx);
  const std::vector<SlicePathLevel<Sym>>& levels = q.c->levels;
  if (s == Shape::idle_beside_one) {  // v5.16's floor at its plainest
    if (levels.size() != 1) return std::nullopt;
    const SlicePathLevel<Sym>& l = levels[0];
    const uint64_t nice0 = scale_load<uint64_t>(nice_to_weight(0), resolution_of(q.c->era));
    return (q.c->idle == Sym(1) && q.c->others_idle == Sym(0) && q.c->nice_rank == Sym(0) && l.on_rq == Sym(1) &&
            l.others == Sym(1) && l.others_tasks == Sym(1) && l.others_weight == Sym(nice0))
        .expr();
  }
  z3::expr e = (q.c->nice_rank == Sym(0) && levels[0].others_tasks == levels[0].others).expr();
  for (const SlicePathLevel<Sym>& l : levels)
    e = e && (l.on_rq == Sym(1) && l.others_weight == l.others * l.weight && l.others <= Sym(31) &&
              l.others_tasks <= Sym(64))
                 .expr();
  if (s == Shape::upper_levels_cut) {  // seed 003's: groups of the default shares, the levels above cutting
    if (levels.size() < 2 || q.calls.empty()) return std::nullopt;
    for (const SlicePathLevel<Sym>& l : levels)
      e = e && (l.weight == levels[0].weight && l.others >= Sym(1)).expr();
    e = e && (*q.slice <= Sym(q.calls[0].result) / Sym(2)).expr();
  }
  return e;
}

std::string_view shape_text(Shape s) {
  switch (s) {
    case Shape::none: break;
    case Shape::equal_siblings: return "nice-0 tasks, every level queued with siblings of its weight";
    case Shape::idle_beside_one: return "a SCHED_IDLE task and a nice-0 task, both queued on one cfs_rq";
    case Shape::upper_levels_cut:
      return "nice-0 tasks in groups of nice-0 weight, siblings at every level, the levels above the task at "
             "least halving its slice";
  }
  return "";
}

// The counterexample of a model of `q`, every value re-computed by the
// uint64_t model; `mismatch` says where Z3's evaluation differs.
Counterexample counterexample_of(const Claim& claim, const SliceQuery& q, const z3::model& m, const SliceFn& fn,
                                 std::string& mismatch) {
  auto ev = [&m](const z3::expr& e) { return numeral(m.eval(e, true)); };
  auto fail = [&mismatch](const std::string& what) {
    if (mismatch.empty()) mismatch = what;
  };
  const SliceCase<uint64_t> c = evaluate(*q.c, m);
  SliceTrace t = trace_slice(c, claim.features.slice());
  t.slice = fn.concrete(c);
  if (const uint64_t z3_slice = ev(q.slice->expr()); t.slice != z3_slice)
    fail("sched_slice: uint64_t gives " + dec(t.slice) + ", Z3's evaluation " + dec(z3_slice));
  if (!q.calls.empty() && ev(q.calls[0].a) != t.period)
    fail("period: uint64_t gives " + dec(t.period) + ", Z3's evaluation " + dec(ev(q.calls[0].a)));
  std::vector<MulStep> steps;
  for (std::size_t i = 0; i < q.calls.size() && i < t.levels.size(); ++i) {
    const uint64_t a = ev(q.calls[i].a), fact = ev(q.calls[i].mul), shift = ev(q.calls[i].shift);
    const uint64_t traced = ev(q.calls[i].result);
    steps.push_back({fact, shift});
    if (shift < 128 && cfsv::mul_u64_u32_shr(a, fact, shift) != traced)
      fail("level " + dec(i) + ": mul_u64_u32_shr(" + dec(a) + ", " + dec(fact) + ", " + dec(shift) + ") is " +
           dec(cfsv::mul_u64_u32_shr(a, fact, shift)) + ", Z3's evaluation " + dec(traced));
    if (fn.is_model && t.levels[i].slice && *t.levels[i].slice != traced)
      fail("level " + dec(i) + " slice: uint64_t gives " + dec(*t.levels[i].slice) + ", Z3's evaluation " +
           dec(traced));
  }
  return slice_counterexample(claim, c, t, steps);
}

}  // namespace

ProofResult prove_slice(const Claim& claim, const CheckConfig& config, const SliceFn& fn) {
  const uint32_t timeout_ms = config.timeout_ms ? config.timeout_ms : default_timeout_ms(config.budget);
  ProofResult res;
  std::vector<std::string> unknown;
  std::unique_ptr<SliceQuery> refuted_by;  // declared before `model`: a model must not outlive its context
  std::optional<z3::model> model;
  std::string how;

  // How many points the domain has: a query per path, or a point each. One
  // context for every query: they share most of their terms.
  const std::shared_ptr<z3::context> shared = std::make_shared<z3::context>();
  double points = 0;
  for (std::optional<std::vector<uint64_t>> path = std::vector<uint64_t>{}; path;) {
    const std::unique_ptr<SliceQuery> q = build_slice_query(claim, config.budget, fn, std::move(*path), 1, shared);
    points += q->reader->points();
    path = q->next;
  }
  const bool enumerate = points <= kMaxPointsToEnumerate;

  // One query (or point) decided: `negated` is the domain and the negated
  // conjecture, in shape `s`. A whole query is first asked with the last
  // __calc_delta's result generalised to any value: a tiny query, enough
  // where the conjecture holds whatever that result is (BASE_SLICE's floor).
  QueryStat every{"every point of the domain, one by one (" + dec(static_cast<uint64_t>(points)) + ")",
                  Outcome::proved, 0};
  auto decide = [&](const SliceQuery& q, const z3::expr& negated, const std::string& label) {
    if (enumerate) {
      BridgeResult br = find_ground(negated);
      every.seconds += br.seconds;
      if (br.outcome != Outcome::proved) every.outcome = br.outcome;
      return br;
    }
    if (!q.calls.empty()) {
      const z3::expr any = q.ctx->bv_const("any_slice", Sym::kBits);
      BridgeResult br = find(replace(negated, q.calls.back().result, any), timeout_ms);
      if (br.outcome == Outcome::proved) {
        res.queries.push_back({label + ", the last __calc_delta generalised", br.outcome, br.seconds});
        return br;
      }
    }
    BridgeResult br = find(negated, timeout_ms);
    res.queries.push_back({label, br.outcome, br.seconds});
    return br;
  };

  // A pass over every query (or point) of the domain; stops at the first refutation.
  auto pass = [&](Shape s) {
    for (std::optional<std::vector<uint64_t>> path = std::vector<uint64_t>{}; path && !refuted_by;) {
      std::unique_ptr<SliceQuery> q = build_slice_query(claim, config.budget, fn, std::move(*path),
                                                        enumerate ? SymReader::kSplitAll : 1, shared);
      path = q->next;
      const std::string where = query_label(*q->c), label = where + (s == Shape::none ? "" : ", preferred shape");
      const std::optional<z3::expr> e = shape(*q, s);
      if (s != Shape::none && !e) continue;
      BridgeResult br = decide(*q, q->reader->domain() && !*q->conjecture && (e ? *e : q->ctx->bool_val(true)), label);
      if (br.outcome == Outcome::unknown && s == Shape::none) unknown.push_back(label + ": " + br.reason);
      if (br.outcome != Outcome::refuted) continue;
      model = std::move(br.model);
      refuted_by = std::move(q);
      how = (s == Shape::none ? "the first one " + std::string(enumerate ? "in the domain's order" : "Z3 found")
                              : "preferred shape: " + std::string(shape_text(s))) + "; " + where;
    }
  };
  pass(claim.prefer);
  if (!refuted_by && claim.prefer != Shape::none) pass(Shape::none);
  if (enumerate) res.queries.push_back(every);

  for (const QueryStat& q : res.queries) res.seconds += q.seconds;
  if (refuted_by) {
    std::string mismatch;
    res.counterexample = counterexample_of(claim, *refuted_by, *model, fn, mismatch);
    res.counterexample.note = how;
    model.reset();
    if (!mismatch.empty()) {
      res.outcome = Outcome::unknown;
      res.detail = "BUG: Z3's model and the uint64_t model disagree: " + mismatch;
      return res;
    }
    res.outcome = Outcome::refuted;
    res.detail = res.counterexample.summary;
    return res;
  }
  conclude(res, unknown, Outcome::proved,
           enumerate ? "point by point: each of the " + dec(static_cast<uint64_t>(points)) +
                           " points of the domain folds to true"
                     : "");
  return res;
}

}  // namespace cfsv::proofs
