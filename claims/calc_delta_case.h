// The domain of a calc-delta claim, decoded once for every engine: one
// __calc_delta(delta, weight, lw) call in one of the domain's eras, wherever
// the kernel's arithmetic is defined: scale_load_down(weight) * inv_weight
// < 2^64 (past it __calc_delta's shift goes negative: undefined in the kernel
// and in the model). lw.inv_weight is 32-bit, 0 meaning "not yet computed".
#pragma once
#include <cstdint>

#include "claims/claim.h"
#include "claims/reader.h"
#include "model/arith/calc_delta.h"

namespace cfsv {

template <class V> struct CalcDeltaCase {
  Era era = Era::v5_7;
  V delta;
  V weight;
  LoadWeight<V> lw;
};

template <Reader R> CalcDeltaCase<typename R::value_type> decode_calc_delta_case(R& r, const Domain& d) {
  using V = typename R::value_type;
  constexpr uint64_t kU64Max = ~uint64_t{0};
  const Era era = d.eras[r.choose(d.eras.size())];
  const LoadResolution res = resolution_of(era);
  const LoadWeight<V> lw{r.range(0, kU64Max), r.range(0, 0xffffffffu)};
  // The inverse __calc_delta uses is at least 1, so the largest defined
  // scale_load_down(weight) is kU64Max / inv, and weight runs up to it with
  // any bits below the resolution.
  const V max_down = V(kU64Max) / update_inv_weight(lw, res);
  const V max_weight = select(max_down > V(kU64Max >> res.shift), V(kU64Max),
                              (max_down << V(res.shift)) | V((uint64_t{1} << res.shift) - 1));
  const V weight = r.range(V(0), max_weight, kU64Max);
  const V delta = r.range(0, kU64Max);
  return {era, delta, weight, lw};
}

}  // namespace cfsv
