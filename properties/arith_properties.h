// The bodies of the exploratory arithmetic properties (*_test.cpp). Each
// checks one generated case and calls refute() (runner.h) with a one-line
// summary and a reproducer when the property is false for it. (The claims'
// own checks are claims/check.h, run by check_claim().)
#pragma once
#include <array>
#include <cstdint>

#include "claims/claim.h"
#include "properties/generators.h"

namespace cfsv::properties {

// The three sched_slice variants (model/slice.h).
constexpr SliceFeatures kHierarchical{};
constexpr SliceFeatures kFlat{.flat_slice = true};
constexpr SliceFeatures kBaseSlice{.alt_period = true, .base_slice = true};
constexpr std::array<SliceFeatures, 3> kSliceVariants = {kHierarchical, kFlat, kBaseSlice};

// An implementation of __calc_delta under test (calc_delta, calc_delta_loop,
// or a deliberately wrong one).
using CalcDeltaFn = uint64_t (*)(uint64_t delta, uint64_t weight, const LoadWeight<uint64_t>& lw, LoadResolution r);

// f's result for c is within the bound of calc_delta_bound.h (c in its domain).
void check_calc_delta_bound(const CalcDeltaCase& c, CalcDeltaFn f);

// `claim`'s statement on one case, which may lie outside the claim's own
// domain (the exploratory properties try wider ones).
void check_claim_on(const Claim& claim, const SliceCase& c);

// n nice-0 tasks queued alone on one cfs_rq (the root): their n equal slices
// add up to the period less the rounding of n __calc_delta calls,
//   0 <= period - n * slice <= floor(period * (1024 n + 4) / 2^32) + n
// (calc_delta_bound.h (3) with exact = period / n, b = 1024 n). BASE_SLICE
// may raise each slice to min_granularity, so with it the sum may exceed
// the period, up to n * min_granularity (a sysctl-written latency below
// nr_latency * min_granularity).
void check_nice0_slices_sum(uint64_t n, const CpuTunables& t, LoadResolution r, SliceFeatures f);

// One entity of a hierarchy made heavier, everything else equal (its
// cfs_rq's load grows by the difference). Both weights are exact at the
// era's resolution (a task's nice weight at level 0, scale_load(shares) above).
struct HeavierCase {
  SliceCase light, heavy;
  std::size_t level = 0;
};
rc::Gen<HeavierCase> gen_heavier_case();
void showValue(const HeavierCase& c, std::ostream& os);

// The heavier entity's task never gets a slice shorter than the lighter one's
// by more than __calc_delta's shortfall at the changed level:
//   slice(light) <= slice(heavy) + floor(exact * (b + 4) / 2^32) + 1,
// exact = slice_in * a / b for the heavy entity (a its weight, b the load
// used, slice_in the slice entering that level). The exact quotient is
// monotone, the levels above are monotone and never stretch a difference,
// BASE_SLICE's max is monotone. Strict monotonicity is false: alone on a
// cfs_rq in a 6 ms period, nice -17 gets 64 ns less than nice -16.
void check_heavier_never_shorter_beyond_rounding(const HeavierCase& c, SliceFeatures f);

}  // namespace cfsv::properties
