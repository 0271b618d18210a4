// The statements of the flat-equal-weights claims (model/claims.cpp) on
// concrete values, shared by the properties and fuzz engines (the proofs
// engine states them over Sym in proofs/slice_proofs.h, slice_conjecture).
// n = nr_running + !on_rq: the entities the task's cfs_rq has with the task
// on it; w_down = scale_load_down(the task's weight).
#pragma once
#include <cstdint>


namespace cfsv {

// flat-equal-weights-exact-set[-v3.10]: sched_slice >= min_granularity iff n < sched_nr_latency.
inline bool equal_weights_exact_set_holds(uint64_t slice, uint64_t n, uint64_t min_granularity, uint64_t nr_latency) {
  return (slice >= min_granularity) == (n < nr_latency);
}

// flat-equal-weights-rounding[-v3.10]: the shortfall allowed below
// min_granularity, ceil(n * w * min_granularity / 2^32), plus
// ceil(2^15 / (n * w)) in the -v3.10 row's statement (mine_term: its
// calc_delta_mine's two rounded 16-bit shifts). n * w > 0.
inline uint64_t equal_weights_rounding_allowance(uint64_t n, uint64_t w_down, uint64_t min_granularity,
                                                 bool mine_term) {
  const unsigned __int128 nw = static_cast<unsigned __int128>(n) * w_down, x = nw * min_granularity;
  uint64_t allowance = static_cast<uint64_t>((x >> 32) + ((x & 0xffffffffu) != 0));
  if (mine_term) allowance += static_cast<uint64_t>(((static_cast<unsigned __int128>(1) << 15) + nw - 1) / nw);
  return allowance;
}

// The rounding claim itself.
inline bool equal_weights_rounding_holds(uint64_t slice, uint64_t n, uint64_t w_down, uint64_t min_granularity,
                                         bool mine_term) {
  return slice + equal_weights_rounding_allowance(n, w_down, min_granularity, mine_term) >= min_granularity;
}

}  // namespace cfsv
