// The error bound of __calc_delta against the exact rational quotient, and
// an exact oracle (unsigned __int128, no floating point) that checks it.
//
// Notation: a = scale_load_down(weight), b = scale_load_down(lw.weight) (the
// era's resolution: in v3 a = weight, b = lw.weight; in v5 the same ratio
// whenever both are multiples of 1024, e.g. nice weights and scale_load(shares)),
// inv = the inverse __calc_delta uses, exact = delta * a / b (a rational),
// Q = delta * a * inv / 2^32 (the quotient the kernel's inverse stands for).
//
// The kernel computes fact1 = a >> s1 (s1 = bits of a above 32), fact2 =
// fact1 * inv, fact3 = fact2 >> s2 (s2 = bits of fact2 above 32) and returns
// result = (delta * fact3) >> (32 - s1 - s2). With F = fact3 << (s1 + s2):
//   F <= a * inv, and each truncated shift loses less than 2^-31 of a * inv
//   (when s1 > 0, a >= 2^(31+s1); when s2 > 0, fact2 >= 2^(31+s2)), so
//   a * inv * (1 - 2^-30) <= F <= a * inv, and result = floor(delta * F / 2^32):
// (1) shifts:  Q * (1 - 2^-30) - 1 < result <= Q.
// The inverse: the lazy one is floor(WMULT_CONST / b), WMULT_CONST = 2^32 - 1,
// so 2^32 - b <= inv * b <= 2^32 - 1; a task's table inverse is round(2^32 / w)
// (floor at nice 13, 14, 16, 17), so 2^32 - b < inv * b <= 2^32 + b / 2:
// (2) inverse: exact * (1 - b / 2^32) <= Q <= exact * (1 + b / 2^33), and Q < exact when lazy.
// Together (with b/2^32 + 2^-30 <= (b + 4) / 2^32):
// (3) lazy:  0 <= exact - result <= exact * (b + 4) / 2^32 + 1
//            = delta * k / 2^32 + 1 with k = a * (b + 4) / b,
//     table: result - exact <= exact * b / 2^33 and the same lower bound.
// For a sched_slice level (a <= b) the slice is short by at most
// exact * (b + 4) / 2^32 + 1 ns: 5 ns (4 happen) for 9 nice-0 tasks sharing a
// 20.25 ms period; a quarter of the quotient once b nears 2^30 (inv = 3).
// Both terms are needed: RapidCheck refutes b + 1 for b + 4, and a dropped + 1.
//
// Domain: 1 <= b <= WMULT_CONST; inv * b in [2^32 - b, 2^32 + b / 2] (lazy or
// table inverse); a * inv < 2^64 (a weight ratio below 2^32; it keeps
// s1 + s2 <= 32, otherwise the shift is negative: undefined in the kernel and
// in the model); Q < 2^64 (otherwise the 128-bit product is silently truncated
// to 64 bits and the result wraps). Every sched_slice level (a <= b) and every
// calc_delta_fair call with delta < 2^55 is inside it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "properties/generators.h"

namespace cfsv::properties {

// Whether the case is inside the bound's domain (above).
bool in_calc_delta_bound_domain(const CalcDeltaCase& c);

// The first bound of (1)..(3) that `result` (what an implementation of
// __calc_delta returned for c) violates, or nullopt. c must be in the domain.
std::optional<std::string> calc_delta_bound_violation(const CalcDeltaCase& c, uint64_t result);

// floor(exact * (b + 4) / 2^32) + 1 with exact = delta * weight / load at the
// era's resolution: by (3), how far below exact a lazy __calc_delta can land.
uint64_t calc_delta_max_shortfall(uint64_t delta, uint64_t weight, uint64_t load, LoadResolution r);

}  // namespace cfsv::properties
