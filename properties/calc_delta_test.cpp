// __calc_delta against the exact rational quotient (bound derived in
// calc_delta_bound.h), and its two forms against each other.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "model/arith/weights.h"
#include "properties/arith_properties.h"
#include "properties/calc_delta_bound.h"
#include "properties/runner.h"

namespace cfsv::properties {
namespace {

uint64_t fls_form(uint64_t d, uint64_t w, const LoadWeight<uint64_t>& lw, LoadResolution r) {
  return calc_delta(d, w, lw, r);
}
uint64_t loop_form(uint64_t d, uint64_t w, const LoadWeight<uint64_t>& lw, LoadResolution r) {
  return calc_delta_loop(d, w, lw, r);
}

// Bound (3), lazy inverse: 0 <= exact - result <= exact * (b + 4) / 2^32 + 1,
// plus (1) Q * (1 - 2^-30) - 1 < result <= Q and (2) 2^32 - b <= inv * b < 2^32.
RC_GTEST_PROP(CalcDelta, StaysWithinItsErrorBoundOfTheExactQuotientOnARunqueuesLoad, ()) {
  const CalcDeltaCase c = *gen_calc_delta_lazy();
  check_calc_delta_bound(c, fls_form);
  check_calc_delta_bound(c, loop_form);
}

// Bound (3), a task's table inverse: exact - result <= exact * (b + 4) / 2^32 + 1
// and result - exact <= exact * b / 2^33, plus (1) and (2).
RC_GTEST_PROP(CalcDelta, StaysWithinItsErrorBoundOfTheExactQuotientOnATasksTableInverse, ()) {
  const CalcDeltaCase c = *gen_calc_delta_table();
  check_calc_delta_bound(c, fls_form);
  check_calc_delta_bound(c, loop_form);
}

TEST(CalcDeltaBound, HoldsForEveryNiceLevelsTableInverseAndCalcDeltaFair) {
  // calc_delta_fair's shape: NICE_0_LOAD over each task load, at a 1 ms and a 2^55 ns delta.
  for (LoadResolution r : {kLoadResolutionV3_13, kLoadResolutionV5_7})
    for (int nice = kNiceMin; nice <= kNiceMax; ++nice)
      for (uint64_t delta : {uint64_t{1'000'000}, uint64_t{1} << 55}) {
        const CalcDeltaCase c{delta, nice_0_load<uint64_t>(r),
                              {scale_load<uint64_t>(nice_to_weight(nice), r), nice_to_wmult(nice)}, r};
        ASSERT_TRUE(in_calc_delta_bound_domain(c)) << "nice " << nice;
        EXPECT_EQ(calc_delta_bound_violation(c, calc_delta_fair(delta, c.lw, r)), std::nullopt) << "nice " << nice;
      }
}

TEST(CalcDeltaBound, IsTightToAFewNanosecondsForNineNice0TasksIn20msPeriod) {
  // The flat slice of 9 nice-0 tasks is 2249996, 4 ns short; the bound allows 5.
  const uint64_t w = nice_0_load<uint64_t>(kLoadResolutionV5_7);
  EXPECT_EQ(calc_delta_max_shortfall(9 * 2'250'000, w, 9 * w, kLoadResolutionV5_7), 5u);
  EXPECT_EQ(calc_delta<uint64_t>(9 * 2'250'000, w, {9 * w, 0}, kLoadResolutionV5_7), 2'250'000u - 4);
}

TEST(CalcDeltaBound, OutsideItsDomainTheResultWrapsAndALongerDeltaGivesLess) {
  // nice 19's table inverse: Q = delta * 68.27 overflows 2^64 between 2^57 and 2^58.
  const LoadResolution r = kLoadResolutionV5_7;
  const LoadWeight<uint64_t> nice19{scale_load<uint64_t>(nice_to_weight(19), r), nice_to_wmult(19)};
  const CalcDeltaCase inside{uint64_t{1} << 57, nice_0_load<uint64_t>(r), nice19, r};
  const CalcDeltaCase outside{uint64_t{1} << 58, nice_0_load<uint64_t>(r), nice19, r};
  EXPECT_TRUE(in_calc_delta_bound_domain(inside));
  EXPECT_FALSE(in_calc_delta_bound_domain(outside));
  EXPECT_LT(calc_delta_fair(outside.delta, nice19, r), calc_delta_fair(inside.delta, nice19, r));
}

// A property that can fail: an inverse of floor(2^32 / W) instead of
// floor(WMULT_CONST / W) gives 2^32 / W exactly when W is a power of two,
// one more than the kernel's; the same checker refutes it.
uint64_t with_2_to_32_inverse(uint64_t d, uint64_t w, const LoadWeight<uint64_t>& lw, LoadResolution r) {
  const uint64_t b = scale_load_down(lw.weight, r);
  return calc_delta<uint64_t>(d, w, {lw.weight, lw.inv_weight ? lw.inv_weight : (uint64_t{1} << 32) / b}, r);
}

TEST(CalcDeltaBound, CatchesAnInverseOf2To32OverWInsteadOfWmultConstOverW) {
  const EngineResult r = run_testable(
      [] { check_calc_delta_bound(*gen_calc_delta_lazy(), with_2_to_32_inverse); }, smoke_config(1));
  EXPECT_EQ(r.verdict, Verdict::refuted) << r.detail;
  EXPECT_NE(r.detail.find("__calc_delta out of its error bound"), std::string::npos) << r.detail;
}

}  // namespace
}  // namespace cfsv::properties
