#include "claims/check.h"

namespace cfsv {

std::optional<Counterexample> check_slice_case(const Claim& claim, const SliceCase<uint64_t>& c) {
  const SliceFeatures f = claim.features.slice();
  if (slice_conjecture(claim.kind, c, run_slice(c, f), f)) return std::nullopt;
  return slice_counterexample(claim, c);
}

Counterexample calc_delta_counterexample(const Claim& claim, const CalcDeltaCase<uint64_t>& c) {
  const LoadResolution res = resolution_of(c.era);
  const uint64_t loop = calc_delta_loop(c.delta, c.weight, c.lw, res), fls = calc_delta(c.delta, c.weight, c.lw, res);
  auto dec = [](uint64_t v) { return std::to_string(v); };
  Counterexample cx;
  cx.claim = std::string(claim.id);
  cx.summary = "calc_delta_loop " + dec(loop) + (loop == fls ? " == " : " != ") + "calc_delta " + dec(fls) +
               " (era " + std::string(era_name(c.era)) + ")";
  cx.values = {{"delta", dec(c.delta)},
               {"weight", dec(c.weight)},
               {"lw_weight", dec(c.lw.weight)},
               {"inv_weight", dec(c.lw.inv_weight)},
               {"inv_weight_used", dec(update_inv_weight(c.lw, res))},
               {"loop", dec(loop)},
               {"fls", dec(fls)},
               {"era", std::string(era_name(c.era))}};
  return cx;
}

}  // namespace cfsv
