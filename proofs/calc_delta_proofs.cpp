#include "proofs/calc_delta_proofs.h"

#include <stdexcept>
#include <string>

#include "claims/calc_delta_case.h"
#include "claims/check.h"
#include "proofs/bridge.h"
#include "proofs/sym_reader.h"
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

// Both __calc_delta forms on the same case (the context must be current).
struct BothForms {
  CalcDeltaCase<Sym> c;
  Form loop, fls;
};
BothForms both_forms(const CalcDeltaCase<Sym>& c) {
  const LoadResolution r = resolution_of(c.era);
  return {c, run_form([&c, r] { return calc_delta_loop(c.delta, c.weight, c.lw, r); }),
          run_form([&c, r] { return calc_delta(c.delta, c.weight, c.lw, r); })};
}
// Both forms on fully symbolic 64-bit inputs.
BothForms both_forms(Era era) {
  return both_forms({era, Sym::var("delta"), Sym::var("weight"), {Sym::var("lw.weight"), Sym::var("lw.inv_weight")}});
}

CalcDeltaCase<uint64_t> evaluate(const CalcDeltaCase<Sym>& c, const z3::model& m) {
  auto v = [&m](const Sym& x) { return numeral(m.eval(x.expr(), true)); };
  return {c.era, v(c.delta), v(c.weight), {v(c.lw.weight), v(c.lw.inv_weight)}};
}

// Whether the loop form's term, with each of its two normalisations replaced
// by the fls form's on the same arguments, is the fls form's term.
bool same_but_normalisation(const BothForms& f) {
  z3::expr loop = f.loop.result.expr();
  auto swap = [&loop](Sym fact, Sym shift) {
    Sym fact_fls = fact, shift_fls = shift;
    detail::normalise_loop(fact, shift);
    detail::normalise_fls(fact_fls, shift_fls);
    z3::expr_vector from(loop.ctx()), to(loop.ctx());
    from.push_back(fact.expr());
    from.push_back(shift.expr());
    to.push_back(fact_fls.expr());
    to.push_back(shift_fls.expr());
    loop = loop.substitute(from, to);
    return shift_fls;
  };
  const Sym shift = swap(scale_load_down(f.c.weight, resolution_of(f.c.era)), Sym(kWmultShift));
  swap(Sym(f.fls.u32.result), shift);
  return z3::eq(loop, f.fls.result.expr());
}

// The claim asked directly, every era of the domain: refuted with a
// counterexample, or unknown (the SAT solver has to re-prove multipliers).
ProofResult direct_query(const Claim& claim, ProofResult res, uint32_t timeout_ms) {
  for (std::optional<std::vector<uint64_t>> path = std::vector<uint64_t>{}; path;) {
    SymReader reader(std::move(*path));
    const BothForms f = both_forms(decode_calc_delta_case(reader, claim.domain));
    path = reader.next();
    const std::string era = "era " + std::string(era_name(f.c.era));
    const BridgeResult br = prove(reader.domain(), (f.loop.result == f.fls.result).expr(), timeout_ms);
    res.queries.push_back({era + ": calc_delta_loop == calc_delta", br.outcome, br.seconds});
    if (br.outcome == Outcome::proved) continue;
    res.outcome = br.outcome;
    res.detail = era + ": " + br.reason;
    if (br.outcome == Outcome::refuted) {
      res.counterexample = calc_delta_counterexample(claim, evaluate(f.c, *br.model));
      res.counterexample.note = "the first counterexample Z3 found";
      res.detail = res.counterexample.summary;
    }
    return res;
  }
  res.outcome = Outcome::proved;
  res.detail = "by direct queries on the domain";
  return res;
}

}  // namespace

// The two forms differ only in how they normalise fact (detail::normalise_loop
// and detail::normalise_fls); a direct equality query makes the SAT solver
// re-prove two multipliers equal and times out. So the proof is:
//   1. the two normalisations agree, fact and shift, on every 64-bit fact
//      and shift: two queries (fact, shift) with no multiplier or divider,
//      for every era;
//   2. in each era, the loop form's term with its two normalisations
//      replaced by the fls form's is the fls form's term (congruence,
//      checked structurally: the forms share every other subterm).
// Only if step 1 fails is the claim asked directly on the domain.
ProofResult prove_loop_equals_fls(const Claim& claim, const CheckConfig& config) {
  const uint32_t timeout_ms = config.timeout_ms ? config.timeout_ms : default_timeout_ms(config.budget);
  z3::context c;
  ContextScope scope(c);
  ProofResult res;
  Sym fact_loop = Sym::var("fact"), shift_loop = Sym::var("shift"), fact_fls = fact_loop, shift_fls = shift_loop;
  detail::normalise_loop(fact_loop, shift_loop);
  detail::normalise_fls(fact_fls, shift_fls);
  const std::pair<const char*, z3::expr> steps[] = {
      {"both normalisations give the same fact, every 64-bit fact", (fact_loop == fact_fls).expr()},
      {"both normalisations give the same shift, every 64-bit fact and shift", (shift_loop == shift_fls).expr()}};
  for (const std::pair<const char*, z3::expr>& step : steps) {
    const BridgeResult br = prove(c.bool_val(true), step.second, timeout_ms);
    res.queries.push_back({step.first, br.outcome, br.seconds});
    if (br.outcome != Outcome::proved) return direct_query(claim, res, timeout_ms);
  }
  for (std::optional<std::vector<uint64_t>> path = std::vector<uint64_t>{}; path;) {
    SymReader reader(std::move(*path));
    const BothForms f = both_forms(decode_calc_delta_case(reader, claim.domain));
    path = reader.next();
    if (!same_but_normalisation(f))
      throw std::logic_error("proofs: the __calc_delta forms differ in more than their normalisation");
  }
  res.outcome = Outcome::proved;
  res.detail = "on every input of the domain: both normalisations agree on every 64-bit fact and shift, and the "
               "forms differ in nothing else";
  return res;
}

ProofResult prove_fact_fits_u32(Era era, uint32_t timeout_ms) {
  z3::context c;
  ContextScope scope(c);
  const BothForms forms = both_forms(era);
  const Form &loop = forms.loop, &fls = forms.fls;
  const z3::expr product = c.bv_const("product", Sym::kBits);
  const z3::expr u32_max = c.bv_val(0xffffffffu, Sym::kBits);
  const z3::expr fits = z3::ule(replace(loop.u64.mul, loop.u32.result, product), u32_max) &&
                        z3::ule(replace(fls.u64.mul, fls.u32.result, product), u32_max);
  const BridgeResult br = prove(c.bool_val(true), fits, timeout_ms);
  ProofResult res;
  res.conjecture = "the fact __calc_delta passes to mul_u64_u32_shr is < 2^32, both forms, every input";
  res.outcome = br.outcome;
  res.seconds = br.seconds;
  res.queries.push_back({"era " + std::string(era_name(era)), br.outcome, br.seconds});
  res.detail = br.outcome == Outcome::unknown ? br.reason : std::string(to_string(br.outcome));
  return res;
}

}  // namespace cfsv::proofs
