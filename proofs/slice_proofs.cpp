#include "proofs/slice_proofs.h"

#include <bit>
#include <memory>
#include <optional>
#include <span>

#include "model/tunables.h"
#include "model/arith/weights.h"

namespace cfsv::proofs {

namespace {

constexpr uint64_t kMinShares = 2;        // MIN_SHARES
constexpr uint64_t kMaxShares = 1 << 18;  // MAX_SHARES
constexpr uint64_t kWmultConstMine = uint64_t{1} << 32;  // calc_delta_mine's WMULT_CONST (64-bit, v3.2..v3.12)

unsigned bits_for(uint64_t max_value) { return std::max(1u, static_cast<unsigned>(std::bit_width(max_value))); }

std::string dec(uint64_t v) { return std::to_string(v); }

}  // namespace

SliceSetup default_slice_setup() {
  const Tunables t = Tunables{}.for_cpus(4);  // seed 003's machine: 2.25 ms, 18 ms, 8
  return {{t.latency_ns, t.min_granularity_ns, t.nr_latency}, kLoadResolutionV5, 1000};
}

SliceFn model_slice(SliceFeatures f) {
  auto run = [f](const auto& in, const auto& t, LoadResolution r) {
    using V = std::decay_t<decltype(in.nr_running)>;
    return sched_slice<V>(std::span<const SliceLevel<V>>(in.chain), in.nr_running, in.rq_h_nr_running, t, f, r);
  };
  SliceFn fn = make_slice_fn(run, f);
  fn.is_model = true;
  return fn;
}

SliceSpace make_slice_space(z3::context& c, unsigned depth, const SliceSetup& setup) {
  const LoadResolution r = setup.resolution;
  const uint64_t max_nr = setup.max_nr_running;
  const uint64_t min_entity = scale_load<uint64_t>(kMinShares, r);
  const uint64_t max_entity = scale_load<uint64_t>(kMaxShares, r);
  const unsigned nr_bits = bits_for(max_nr);
  const unsigned load_bits = bits_for(max_nr * max_entity);

  auto on = [](const Sym& on_rq) { return on_rq != Sym(0); };
  z3::expr dom = c.bool_val(true);
  auto require = [&dom](const SymBool& b) { dom = dom && b.expr(); };

  SliceSpace s{depth, {Sym(0), Sym(0), Sym(0), {}}, {}, {}, c.bool_val(true), c.bool_val(true), c.bool_val(true),
               c.bool_val(true)};
  SliceInputs<Sym>& in = s.in;

  // The task: a nice level's weight, from the table by a symbolic index.
  in.nice_index = Sym::var("nice_index", 6);
  require(in.nice_index < Sym(kNiceLevels));
  Sym task_weight(0);
  for (int i = 0; i < kNiceLevels; ++i)
    task_weight = select(in.nice_index == Sym(i), Sym(sched_prio_to_weight[i]), task_weight);

  in.nr_running = Sym::var("nr_running", nr_bits);
  in.rq_h_nr_running = Sym::var("rq_h_nr_running", nr_bits);

  Sym all_others(0);
  for (unsigned i = 0; i < depth; ++i) {
    const std::string l = "level" + std::to_string(i) + ".";
    const Sym on_rq = Sym::var((l + "on_rq").c_str(), 1);
    Sym weight(0), others(0);
    if (i == 0) {
      weight = scale_load(task_weight, r);
      require(in.nr_running >= on_rq);
      others = in.nr_running - on_rq;
    } else {
      const Sym shares = Sym::var((l + "shares").c_str(), bits_for(kMaxShares));
      require(shares >= Sym(kMinShares) && shares <= Sym(kMaxShares));
      weight = scale_load(shares, r);
      others = Sym::var((l + "others").c_str(), nr_bits);
      all_others = all_others + others;
    }
    // The other entities on this cfs_rq: each a task or a group of MIN_SHARES..MAX_SHARES.
    const Sym others_weight = Sym::var((l + "others_weight").c_str(), load_bits);
    require(others_weight >= others * Sym(min_entity) && others_weight <= others * Sym(max_entity));
    in.chain.push_back({weight, select(on(on_rq), weight, Sym(0)) + others_weight, on_rq});
    s.others.push_back(others);
    s.others_weight.push_back(others_weight);
    s.equal_siblings = s.equal_siblings && (others_weight == others * weight).expr();
    s.all_queued = s.all_queued && on(on_rq).expr();
    if (i == 0) s.equal_on_task_rq = (others_weight == others * weight).expr();
  }
  // A queued entity's parents are queued; a parent is queued iff its cfs_rq
  // (the one below it) is not empty.
  for (unsigned i = 0; i + 1 < depth; ++i) {
    const SymBool below = on(in.chain[i].on_rq), above = on(in.chain[i + 1].on_rq);
    require(!below || above);
    require(above || s.others[i] == Sym(0));
    require(!above || below || s.others[i] >= Sym(1));
  }
  // At most max_nr tasks with the task queued; every other entity holds one or more.
  const Sym not_queued = select(on(in.chain[0].on_rq), Sym(0), Sym(1));
  require(in.nr_running + not_queued <= Sym(max_nr));
  require(in.rq_h_nr_running >= in.nr_running + all_others);
  require(in.rq_h_nr_running + not_queued <= Sym(max_nr));
  s.domain = dom;
  return s;
}

SliceInputs<uint64_t> evaluate(const SliceSpace& s, const z3::model& m) {
  auto v = [&m](const Sym& x) { return numeral(m.eval(x.expr(), true)); };
  SliceInputs<uint64_t> out{v(s.in.nice_index), v(s.in.nr_running), v(s.in.rq_h_nr_running), {}};
  for (const SliceLevel<Sym>& l : s.in.chain) out.chain.push_back({v(l.weight), v(l.cfs_rq_weight), v(l.on_rq)});
  return out;
}

Counterexample slice_counterexample(const SliceSpace& s, const z3::model& m, const Sym& slice,
                                    const std::vector<MulCall>& calls, const SliceFn& fn, const SliceSetup& setup,
                                    std::string& mismatch) {
  const LoadResolution r = setup.resolution;
  const SliceTunables<uint64_t>& t = setup.tunables;
  auto ev = [&m](const z3::expr& e) { return numeral(m.eval(e, true)); };
  auto fail = [&mismatch](const std::string& what) {
    if (mismatch.empty()) mismatch = what;
  };

  const SliceInputs<uint64_t> in = evaluate(s, m);
  const uint64_t concrete = fn.concrete(in, t, r);
  const uint64_t symbolic = ev(slice.expr());
  if (concrete != symbolic)
    fail("sched_slice: uint64_t gives " + dec(concrete) + ", Z3's evaluation " + dec(symbolic));

  const bool queued = in.chain[0].on_rq != 0;
  const uint64_t count = (fn.features.alt_period ? in.rq_h_nr_running : in.nr_running) + (queued ? 0 : 1);
  const uint64_t period = sched_period<uint64_t>(count, t);
  if (!calls.empty() && ev(calls[0].a) != period)
    fail("period: uint64_t gives " + dec(period) + ", Z3's evaluation " + dec(ev(calls[0].a)));

  Counterexample cx;
  cx.values = {{"depth", dec(s.depth)},
               {"nice", std::to_string(static_cast<int>(in.nice_index) + kNiceMin)},
               {"nr_running", dec(in.nr_running)},
               {"rq_h_nr_running", dec(in.rq_h_nr_running)},
               {"period", dec(period)},
               {"min_granularity", dec(t.min_granularity)},
               {"slice", dec(concrete)}};

  SliceFeatures prefix_features = fn.features;
  prefix_features.base_slice = false;
  prefix_features.flat_slice = false;
  const std::size_t levels_run = fn.features.flat_slice ? 1 : in.chain.size();
  const uint64_t wmult = r.calc_delta_mine ? kWmultConstMine : kWmultConst;
  for (std::size_t i = 0; i < in.chain.size(); ++i) {
    const SliceLevel<uint64_t>& l = in.chain[i];
    const uint64_t lw = l.cfs_rq_weight + (l.on_rq ? 0 : l.weight);  // the load sched_slice divides by
    std::vector<Value> level = {{"weight", dec(l.weight)},
                                {"cfs_rq_weight", dec(l.cfs_rq_weight)},
                                {"on_rq", dec(l.on_rq)},
                                {"nr_running", dec(ev(s.others[i].expr()) + l.on_rq)},
                                {"lw_weight", dec(lw)},
                                {"inv_weight", dec(update_inv_weight<uint64_t>({lw, 0}, r, wmult))}};
    std::optional<uint64_t> traced;  // this level's mul_u64_u32_shr result (__calc_delta only)
    if (i < calls.size()) {
      const uint64_t a = ev(calls[i].a), fact = ev(calls[i].mul), shift = ev(calls[i].shift);
      traced = ev(calls[i].result);
      if (shift < 128 && cfsv::mul_u64_u32_shr(a, fact, shift) != *traced)
        fail("level " + dec(i) + ": mul_u64_u32_shr(" + dec(a) + ", " + dec(fact) + ", " + dec(shift) + ") is " +
             dec(cfsv::mul_u64_u32_shr(a, fact, shift)) + ", Z3's evaluation " + dec(*traced));
      level.push_back({"fact", dec(fact)});
      level.push_back({"shift", dec(shift)});
    }
    if (i < levels_run && fn.is_model) {
      // The slice after this level: the model's sched_slice over the chain up to it.
      SliceInputs<uint64_t> prefix = in;
      prefix.chain.resize(i + 1);
      const uint64_t after = sched_slice<uint64_t>(std::span<const SliceLevel<uint64_t>>(prefix.chain), in.nr_running,
                                                   in.rq_h_nr_running, t, prefix_features, r);
      if (traced && *traced != after)
        fail("level " + dec(i) + " slice: uint64_t gives " + dec(after) + ", Z3's evaluation " + dec(*traced));
      level.push_back({"slice", dec(after)});
    } else if (traced) {
      level.push_back({"slice", dec(*traced)});
    }
    cx.levels.push_back(std::move(level));
  }
  return cx;
}

namespace {

// One query's hierarchy, slice and conjecture, in its own context.
struct Built {
  std::unique_ptr<z3::context> ctx = std::make_unique<z3::context>();
  std::optional<SliceSpace> space;
  std::optional<Sym> slice;
  std::vector<MulCall> calls;
  std::optional<z3::expr> domain, conjecture;
};

struct Case {
  unsigned depth;
  int nice_index;  // -1: symbolic
};

std::string case_label(const Case& c) {
  std::string s = "depth " + std::to_string(c.depth);
  if (c.nice_index >= 0) s += ", nice " + std::to_string(c.nice_index + kNiceMin);
  return s;
}

std::unique_ptr<Built> build(const SliceProofSpec& spec, const SliceFn& fn, const SliceSetup& setup, Case k) {
  auto b = std::make_unique<Built>();
  ContextScope scope(*b->ctx);
  b->space.emplace(make_slice_space(*b->ctx, k.depth, setup));
  const SliceTunables<Sym> t = tunables_as<Sym>(setup.tunables);
  {
    MulTrace trace;
    b->slice.emplace(fn.sym(b->space->in, t, setup.resolution));
    b->calls = trace.calls();
  }
  b->conjecture.emplace(slice_conjecture(spec.kind, b->space->in, *b->slice, t, setup.resolution).expr());
  z3::expr dom = b->space->domain;
  if (spec.domain == SliceDomain::equal_weights_on_task_rq) dom = dom && b->space->equal_on_task_rq;
  if (k.nice_index >= 0) dom = dom && (b->space->in.nice_index == Sym(static_cast<uint64_t>(k.nice_index))).expr();
  b->domain.emplace(dom);
  return b;
}

// The preferred counterexample shape, or nullopt where it cannot occur.
std::optional<z3::expr> preference(const Built& b, Preference p) {
  ContextScope scope(*b.ctx);
  if (p == Preference::none) return std::nullopt;
  z3::expr e = b.space->equal_siblings && b.space->all_queued;
  if (p == Preference::upper_levels_cut) {
    if (b.space->depth < 2 || b.calls.empty()) return std::nullopt;
    e = e && (*b.slice <= Sym(b.calls[0].result) / Sym(2)).expr();
    for (const Sym& o : b.space->others) e = e && (o >= Sym(1)).expr();  // siblings at every level
  }
  return e;
}

std::string_view preference_text(Preference p) {
  switch (p) {
    case Preference::none: break;
    case Preference::equal_weights: return "every level queued with equal sibling weights";
    case Preference::upper_levels_cut:
      return "every level queued with siblings of its weight, the levels above the task at least halving its slice";
  }
  return "";
}

std::string value_of(const Counterexample& c, std::string_view name) {
  for (const Value& v : c.values)
    if (v.name == name) return v.text;
  return "?";
}

}  // namespace

ProofResult run_slice_proof(const SliceProofSpec& spec, const SliceFn& fn, const SliceSetup& setup,
                            uint32_t timeout_ms) {
  ProofResult res;
  res.conjecture = spec.conjecture;
  std::vector<Case> cases;
  for (unsigned d : spec.depths) {
    if (!spec.split_by_nice) cases.push_back({d, -1});
    for (int i = 0; spec.split_by_nice && i < kNiceLevels; ++i) cases.push_back({d, i});
  }

  // Declared before `model`: a model must not outlive its context.
  std::unique_ptr<Built> refuted_by;
  std::optional<z3::model> model;
  std::vector<std::string> unknown;
  std::string how;
  std::optional<Case> refuted_case;
  for (const Case& k : cases) {
    std::unique_ptr<Built> b = build(spec, fn, setup, k);
    BridgeResult br = prove(*b->domain, *b->conjecture, timeout_ms);
    res.queries.push_back({case_label(k), br.outcome, br.seconds});
    if (br.outcome == Outcome::unknown) unknown.push_back(case_label(k) + ": " + br.reason);
    if (br.outcome != Outcome::refuted) continue;
    model = std::move(br.model);
    refuted_by = std::move(b);
    refuted_case = k;
    how = "the first one Z3 found, " + case_label(k);
    break;
  }
  // Then a counterexample of the preferred shape, if there is one.
  for (unsigned d : spec.depths) {
    if (!refuted_case) break;
    const Case k{d, refuted_case->nice_index};
    std::unique_ptr<Built> p = build(spec, fn, setup, k);
    const std::optional<z3::expr> shape = preference(*p, spec.prefer);
    if (!shape) continue;
    BridgeResult pr = find(*p->domain && !*p->conjecture && *shape, timeout_ms);
    res.queries.push_back({case_label(k) + ", preferred shape", pr.outcome, pr.seconds});
    if (pr.outcome != Outcome::refuted) continue;
    model = std::move(pr.model);  // before the context it belongs to replaces the old one
    refuted_by = std::move(p);
    how = "preferred shape: " + std::string(preference_text(spec.prefer)) + "; " + case_label(k);
    break;
  }

  for (const QueryStat& q : res.queries) res.seconds += q.seconds;
  if (refuted_by) {
    std::string mismatch;
    res.counterexample =
        slice_counterexample(*refuted_by->space, *model, *refuted_by->slice, refuted_by->calls, fn, setup, mismatch);
    res.counterexample.note = how;
    model.reset();
    if (!mismatch.empty()) {
      res.outcome = Outcome::unknown;
      res.detail = "BUG: Z3's model and the uint64_t model disagree: " + mismatch;
      return res;
    }
    res.outcome = Outcome::refuted;
    res.detail = "refuted at depth " + value_of(res.counterexample, "depth") + ": slice " +
                 value_of(res.counterexample, "slice") + " ns, min_granularity " +
                 value_of(res.counterexample, "min_granularity") + " ns";
    return res;
  }
  if (!unknown.empty()) {
    res.outcome = Outcome::unknown;
    res.detail = unknown.front();
    for (std::size_t i = 1; i < unknown.size(); ++i) res.detail += "; " + unknown[i];
    return res;
  }
  res.outcome = Outcome::proved;
  std::string depths;
  for (unsigned d : spec.depths) depths += (depths.empty() ? "" : ",") + std::to_string(d);
  res.detail = "proved for depth " + depths + ", at most " + std::to_string(setup.max_nr_running) + " tasks: " +
               std::to_string(res.queries.size()) + (res.queries.size() == 1 ? " query" : " queries") + " unsat";
  return res;
}

}  // namespace cfsv::proofs
