#include "proofs/calc_delta_proofs.h"

#include <string>

#include "proofs/bridge.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

ProofResult prove_loop_equals_fls(LoadResolution r, uint32_t timeout_ms) {
  z3::context c;
  ContextScope scope(c);
  const Sym delta = Sym::var("delta"), weight = Sym::var("weight");
  const LoadWeight<Sym> lw{Sym::var("lw.weight"), Sym::var("lw.inv_weight")};
  const Sym loop = calc_delta_loop(delta, weight, lw, r), fls = calc_delta(delta, weight, lw, r);

  ProofResult res;
  res.conjecture = "calc_delta_loop(delta, weight, lw) == calc_delta(delta, weight, lw) for all 64-bit delta, weight, "
                   "lw.weight, lw.inv_weight (load shift " + std::to_string(r.shift) + ")";
  const BridgeResult br = prove(c.bool_val(true), (loop == fls).expr(), timeout_ms);
  res.queries.push_back({"load shift " + std::to_string(r.shift), br.outcome, br.seconds});
  res.seconds = br.seconds;
  res.outcome = br.outcome;
  if (br.outcome == Outcome::proved) {
    res.detail = "proved for all 2^256 inputs";
  } else if (br.outcome == Outcome::unknown) {
    res.detail = br.reason;
  } else {
    auto v = [&](const Sym& x) { return std::to_string(numeral(br.model->eval(x.expr(), true))); };
    res.counterexample.note = "first counterexample Z3 found";
    res.counterexample.values = {{"delta", v(delta)}, {"weight", v(weight)}, {"lw_weight", v(lw.weight)},
                                 {"inv_weight", v(lw.inv_weight)}, {"loop", v(loop)}, {"fls", v(fls)}};
    res.detail = "refuted: loop " + v(loop) + " != fls " + v(fls);
  }
  return res;
}

}  // namespace cfsv::proofs
