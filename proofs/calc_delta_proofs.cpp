#include "proofs/calc_delta_proofs.h"

#include <stdexcept>
#include <string>

#include "proofs/bridge.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

namespace {

// One __calc_delta form's result and its two recorded multiplications.
struct Form {
  Sym result;
  MulCall u32, u64;
};

template <class F> Form run_form(F form) {
  MulTrace trace;
  const Sym result = form();
  if (trace.u32_calls().size() != 1 || trace.calls().size() != 1 || !z3::eq(trace.calls()[0].result, result.expr()))
    throw std::logic_error("proofs: __calc_delta is not one mul_u32_u32 then one mul_u64_u32_shr");
  return {result, trace.u32_calls()[0], trace.calls()[0]};
}

// Both __calc_delta forms over the same fully symbolic inputs (the context must be current).
struct BothForms {
  Sym delta, weight;
  LoadWeight<Sym> lw;
  Form loop, fls;
};
BothForms both_forms(LoadResolution r) {
  const Sym delta = Sym::var("delta"), weight = Sym::var("weight");
  const LoadWeight<Sym> lw{Sym::var("lw.weight"), Sym::var("lw.inv_weight")};
  return {delta, weight, lw, run_form([&] { return calc_delta_loop(delta, weight, lw, r); }),
          run_form([&] { return calc_delta(delta, weight, lw, r); })};
}

z3::expr substitute(const z3::expr& e, const z3::expr& from, const z3::expr& to) {
  z3::expr_vector f(e.ctx()), t(e.ctx());
  f.push_back(from);
  t.push_back(to);
  return z3::expr(e).substitute(f, t);
}

}  // namespace

// The two forms differ only in how they normalise fact; a direct equality
// query makes the SAT solver re-prove two multipliers equal and times out.
// So the proof cuts at the multiplications (each step a Z3 query over all
// inputs, the next one using the last one's equality):
//   1. mul_u32_u32 gets the same fact (inv_weight is the same term in both);
//   2. with that, mul_u64_u32_shr gets the same fact and shift, for any
//      product mul_u32_u32 may return;
//   3. then the results are the same term: equal by congruence.
ProofResult prove_loop_equals_fls(LoadResolution r, uint32_t timeout_ms) {
  z3::context c;
  ContextScope scope(c);
  // References, not structured bindings: lambdas below capture them (clang < 16).
  const BothForms forms = both_forms(r);
  const Sym &delta = forms.delta, &weight = forms.weight;
  const LoadWeight<Sym>& lw = forms.lw;
  const Form &loop = forms.loop, &fls = forms.fls;
  const std::string res_label = "load shift " + std::to_string(r.shift);

  ProofResult res;
  res.conjecture = "calc_delta_loop(delta, weight, lw) == calc_delta(delta, weight, lw) for all 64-bit delta, weight, "
                   "lw.weight, lw.inv_weight (" + res_label + ")";
  auto step = [&](const std::string& label, const z3::expr& conjecture) {
    const BridgeResult br = prove(c.bool_val(true), conjecture, timeout_ms);
    res.queries.push_back({res_label + ": " + label, br.outcome, br.seconds});
    res.seconds += br.seconds;
    if (br.outcome == Outcome::refuted) {
      auto v = [&](const z3::expr& x) { return std::to_string(numeral(br.model->eval(x, true))); };
      res.counterexample.note = "the first counterexample Z3 found (" + label + ")";
      res.counterexample.values = {{"delta", v(delta.expr())},         {"weight", v(weight.expr())},
                                   {"lw_weight", v(lw.weight.expr())}, {"inv_weight", v(lw.inv_weight.expr())},
                                   {"loop", v(loop.result.expr())},    {"fls", v(fls.result.expr())}};
      res.detail = "refuted at " + label + ": loop " + v(loop.result.expr()) + ", fls " + v(fls.result.expr());
    } else if (br.outcome == Outcome::unknown) {
      res.detail = label + ": " + br.reason;
    }
    res.outcome = br.outcome;
    return br.outcome == Outcome::proved;
  };

  if (!z3::eq(loop.u32.mul, fls.u32.mul))
    throw std::logic_error("proofs: the two forms compute inv_weight differently");
  if (!step("fact at mul_u32_u32", loop.u32.a == fls.u32.a)) return res;
  // Step 2 generalises the (now shared) product to any 64-bit value: stronger,
  // and it leaves the solver no multiplier to bit-blast.
  const z3::expr product = c.bv_const("product", Sym::kBits);
  auto generalise = [&](const z3::expr& e) { return substitute(e, fls.u32.result, product); };
  const z3::expr loop_mul = generalise(substitute(loop.u64.mul, loop.u32.a, fls.u32.a));
  const z3::expr loop_shift = generalise(substitute(loop.u64.shift, loop.u32.a, fls.u32.a));
  if (!step("fact and shift at mul_u64_u32_shr",
            loop_mul == generalise(fls.u64.mul) && loop_shift == generalise(fls.u64.shift)))
    return res;
  z3::expr_vector from(c), to(c);
  from.push_back(loop.u64.mul);
  from.push_back(loop.u64.shift);
  to.push_back(fls.u64.mul);
  to.push_back(fls.u64.shift);
  if (!z3::eq(z3::expr(loop.result.expr()).substitute(from, to), fls.result.expr())) {
    res.outcome = Outcome::unknown;
    res.detail = "BUG: with equal arguments the two mul_u64_u32_shr calls are not the same term";
    return res;
  }
  res.detail = "proved for all 2^256 inputs: equal arguments at both multiplications, then congruence";
  return res;
}

ProofResult prove_fact_fits_u32(LoadResolution r, uint32_t timeout_ms) {
  z3::context c;
  ContextScope scope(c);
  const BothForms forms = both_forms(r);
  const Form &loop = forms.loop, &fls = forms.fls;
  const z3::expr product = c.bv_const("product", Sym::kBits);
  const z3::expr u32_max = c.bv_val(0xffffffffu, Sym::kBits);
  const z3::expr fits = z3::ule(substitute(loop.u64.mul, loop.u32.result, product), u32_max) &&
                        z3::ule(substitute(fls.u64.mul, fls.u32.result, product), u32_max);
  const BridgeResult br = prove(c.bool_val(true), fits, timeout_ms);
  ProofResult res;
  res.conjecture = "the fact __calc_delta passes to mul_u64_u32_shr is < 2^32, both forms, every input";
  res.outcome = br.outcome;
  res.seconds = br.seconds;
  res.queries.push_back({"load shift " + std::to_string(r.shift), br.outcome, br.seconds});
  res.detail = br.outcome == Outcome::unknown ? br.reason : std::string(to_string(br.outcome));
  return res;
}

}  // namespace cfsv::proofs
