// The PELT claims' pieces (claims/pelt_case.h, claims/tracked.h): the wraps
// Tracked sees, the decoder's states within the sum bounds every update claim
// keeps, the findings the claims record, and a wrong statement caught.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "claims/check.h"
#include "properties/claim_checks.h"
#include "properties/rc_reader.h"
#include "properties/runner.h"

namespace cfsv::properties {
namespace {

using T = Tracked<uint64_t>;
constexpr uint64_t kTop = uint64_t{1} << 63;

TEST(Tracked, FlagsEachKindOfWrapAndOnlyWhereItReachesTheValue) {
  EXPECT_TRUE((T(kTop) + T(kTop)).wrapped());
  EXPECT_FALSE((T(kTop) + T(kTop - 1)).wrapped());
  EXPECT_TRUE((T(uint64_t{1} << 32) * T(uint64_t{1} << 32)).wrapped());
  EXPECT_FALSE((T(uint64_t{1} << 32) * T(uint64_t{1} << 31)).wrapped());
  EXPECT_TRUE((T(kTop) << T(1)).wrapped());
  EXPECT_FALSE((T(kTop >> 1) << T(1)).wrapped());
  EXPECT_TRUE(u32(T(uint64_t{1} << 32)).wrapped());
  EXPECT_FALSE(u32(T(0xffffffffu)).wrapped());
  EXPECT_FALSE((T(0) - T(1)).wrapped());  // the kernel's modular differences
  const T wrapped = T(kTop) + T(kTop);
  EXPECT_TRUE((wrapped + T(1)).wrapped());
  EXPECT_FALSE((wrapped * T(0)).wrapped());  // an exact 0 stays exact
  EXPECT_TRUE((wrapped * T(3)).wrapped());
  EXPECT_FALSE(select(false, wrapped, T(5)).wrapped());
  EXPECT_TRUE(select(true, wrapped, T(5)).wrapped());
  EXPECT_EQ(mul_u64_u32_shr(T(~uint64_t{0}), T(0xffffffffu), T(32)).value(),
            cfsv::mul_u64_u32_shr(~uint64_t{0}, 0xffffffffu, 32));
}

const Claim& claim(std::string_view id) { return *claim_by_id(id); }

// Every update case the decoder reads is a valid state: the sum bounds the
// claims assume are the decoder's ranges.
RC_GTEST_PROP(PeltClaims, TheDecoderReadsOnlyValidStates, ()) {
  for (const char* id : {"pelt-sums/no-overflow", "pelt-sums/no-overflow-v3.10"}) {
    RcReader r;
    const PeltCase<uint64_t> c = decode_pelt_case(r, claim(id));
    const uint64_t w = c.era == PeltEra::v4_4 ? scale_load_down(c["weight"], resolution_of(c.era)) : 0;
    RC_ASSERT(pelt_sums_bounded(c.era, w, [&c](std::string_view n) { return c[n]; }));
    if (c.era != PeltEra::v3_10) RC_ASSERT(c["running"] <= c["on_rq"]);
  }
}

PeltCase<uint64_t> v3_10_task(int nice) {
  // Runnable, 346 periods since the last update: runnable_avg_sum reaches 48389.
  return {PeltEra::v3_10,
          {{"last_update_time", 0},
           {"now", 363102208},
           {"nice_rank", rank_of_nice(nice)},
           {"weight", nice_to_weight(nice)},
           {"on_rq", 1},
           {"runnable_avg_period", 33109},
           {"runnable_avg_sum", 33109},
           {"load_avg_contrib", 0}}};
}

TEST(PeltClaims, V3_10sContributionWrapsAtNiceMinus20Only) {
  const std::optional<Counterexample> cx = check_pelt_case(claim("pelt-sums/no-overflow-v3.10"), v3_10_task(-20));
  ASSERT_TRUE(cx);
  EXPECT_EQ(value_of(cx->values, "wrapped"), "load_avg_contrib") << format_counterexample(*cx);
  EXPECT_EQ(value_of(cx->values, "after_runnable_avg_sum"), "48389");
  EXPECT_EQ(value_of(cx->values, "after_load_avg_contrib"), "1");  // 48389 * 88761 mod 2^32 / 48390
  EXPECT_FALSE(check_pelt_case(claim("pelt-sums/no-overflow-v3.10"), v3_10_task(-19)));
  // The wrapped contribution is small, so the load claim still holds there.
  EXPECT_FALSE(check_pelt_case(claim("pelt-load/at-most-weight"), v3_10_task(-20)));
}

TEST(PeltClaims, V5_15sUtilReaches1025FromAFullSumButNot1026) {
  // util_sum at its bound (divider + 47) << 10 at period_contrib 0, one period running.
  const PeltCase<uint64_t> c{PeltEra::v5_15,
                             {{"last_update_time", 0},
                              {"now", 1048576},
                              {"weight", 2},
                              {"on_rq", 1},
                              {"running", 1},
                              {"period_contrib", 0},
                              {"runnable", 1},
                              {"load_sum", 46718},
                              {"util_sum", 47887360},
                              {"runnable_sum", 47887360},
                              {"load_avg", 0},
                              {"util_avg", 0},
                              {"runnable_avg", 0}}};
  const std::optional<Counterexample> cx = check_pelt_case(claim("pelt-util/bounded"), c);
  ASSERT_TRUE(cx);
  EXPECT_EQ(value_of(cx->values, "after_util_avg"), "1025") << format_counterexample(*cx);
  EXPECT_EQ(cx->summary, "util_avg 1025 > 1024 after one update (era v5.15)");
  EXPECT_FALSE(check_pelt_case(claim("pelt-util/bounded-1025"), c));
}

TEST(PeltClaims, TheEnginesCatchAStatementTheModelBreaks) {
  // The 1025 claim's check with a limit of 1020: refuted, by a state the
  // decoder reads with util_avg <= 1020.
  Claim wrong = claim("pelt-util/bounded-1025");
  wrong.domain.pelt.util_limit = 1020;
  const EngineResult r = check_claim(wrong, smoke_config(1));
  EXPECT_EQ(r.verdict, Verdict::refuted) << r.detail;
  // The tg claims as registered pass.
  EXPECT_EQ(check_claim(claim("pelt-tg/threshold"), smoke_config(1)).verdict, Verdict::passed);
  EXPECT_EQ(check_claim(claim("pelt-tg/force-exact"), smoke_config(1)).verdict, Verdict::passed);
}

TEST(PeltClaims, AnUnforcedUpdateWithinTheThresholdLeavesTheContribution) {
  // contrib 6400: 1/64 is 100. A load of 6500 is within it, 6501 is not.
  const auto tg = [](uint64_t load) {
    return PeltCase<uint64_t>{PeltEra::v5_15, {{"contrib", 6400}, {"load_avg", load}, {"others", 1000}}};
  };
  EXPECT_EQ(pelt_tg(tg(6500), uint64_t{0}).contrib, 6400u);
  EXPECT_EQ(pelt_tg(tg(6501), uint64_t{0}).contrib, 6501u);
  EXPECT_EQ(pelt_tg(tg(6501), uint64_t{0}).tg_load_avg, 7501u);
  EXPECT_EQ(pelt_tg(tg(6500), uint64_t{1}).tg_load_avg, 7500u);
}

// The periodic claim (claims/pelt_periodic.h): its bound by hand, a case
// inside it, and the check failing once the ripple or the transient is
// left out of the bound.
const auto same = [](uint64_t v) { return v; };

TEST(PeltPeriodic, TheBoundIsTheDerivedFormulaRoundedInward) {
  // 25% of 4 periods (R 1024, S 3072 units), k = 4: mean 256, ripple
  // 1024 * 1024 * 3072 / (46764 * 4096) = 16.82, transient 1024 / 16 = 64, slack 4:
  // hi = floor(256 + 16.82 + 4) = 276, lo = ceil(256 - 16.82 - 64 - 4) = ceil(171.18) = 172.
  const PeriodicBounds b = periodic_bounds({4096, 1024, 4, 0, false});
  EXPECT_EQ(b.lo, 172u);
  EXPECT_EQ(b.hi, 276u);
  // Half of 64 periods, k = 8: mean 512, ripple 358.8, transient 4: [146, 874].
  const PeriodicBounds w = periodic_bounds({65536, 32768, 8, 0, false});
  EXPECT_EQ(w.lo, 146u);
  EXPECT_EQ(w.hi, 874u);
  EXPECT_EQ(periodic_bounds({4096, 4096, 8, 0, false}).hi, 1028u);  // always running: 1024 + 4
  EXPECT_EQ(periodic_bounds({4096, 0, 1, 0, false}).lo, 0u);        // never running
}

TEST(PeltPeriodic, AQuarterDutyTaskStaysInsideItsBoundAndTheClaimRecordsEveryCheckedUpdate) {
  const PeltCase<uint64_t> c{PeltEra::v5_15,
                             {{"period", 4096}, {"run", 1024}, {"half_lives", 4}, {"tick", 977}, {"sleep_first", 0}}};
  EXPECT_TRUE(pelt_holds(claim("pelt-util/periodic-ripple"), c));
  const Counterexample cx = pelt_counterexample(claim("pelt-util/periodic-ripple"), c);
  EXPECT_EQ(cx.summary, "util_avg within [172, 276] (era v5.15)");
  // 2 P + 2 = 10 periods are checked; 7 of the updates there (switches, ticks) cross a boundary.
  EXPECT_EQ(value_of(cx.values, "updates_checked"), "7");
}

TEST(PeltPeriodic, TheCheckFailsWithoutTheRippleOrWithoutTheTransient) {
  // Half of 64 periods swings between 339 and 682: outside mean +- (slack + transient).
  const PeltPeriodic slow{65536, 32768, 8, 0, false};
  EXPECT_TRUE(periodic_within<uint64_t>(slow, periodic_bounds(slow), same));
  EXPECT_FALSE(periodic_within<uint64_t>(slow, {512 - 4 - 4, 512 + 4}, same));
  // One half-life from zero, a quarter-duty task is near 150, not 256 - 16.82 - 4.
  const PeltPeriodic young{4096, 1024, 1, 0, false};
  EXPECT_TRUE(periodic_within<uint64_t>(young, periodic_bounds(young), same));
  EXPECT_FALSE(periodic_within<uint64_t>(young, {236, 276}, same));
}

}  // namespace
}  // namespace cfsv::properties
