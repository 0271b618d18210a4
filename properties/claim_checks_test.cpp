// check_claim(): verdicts, determinism, silence, and a wrong variant caught.
#include "properties/claim_checks.h"

#include <gtest/gtest.h>

#include "properties/runner.h"

namespace cfsv::properties {
namespace {

const CheckConfig kSmoke = smoke_config(1);

TEST(ClaimChecks, EveryClaimWithAPropertyGetsTheVerdictItExpects) {
  for (const Claim& claim : all_claims()) {
    const EngineResult r = check_claim(claim, kSmoke);
    EXPECT_EQ(r.engine, Engine::properties);
    if (r.verdict == Verdict::unknown && r.detail == "no property for this claim") continue;
    EXPECT_TRUE(agrees(claim.expect, r.verdict))
        << claim.id << ": expected " << to_string(claim.expect) << ", got " << to_string(r.verdict) << ": " << r.detail;
    if (r.verdict == Verdict::passed) {
      EXPECT_EQ(r.detail, "100 cases") << claim.id;
    }
    if (r.verdict == Verdict::refuted) {
      EXPECT_FALSE(r.reproducer.empty()) << claim.id;
    }
  }
}

TEST(ClaimChecks, TheSameSeedGivesTheSameVerdictAndCounterexample) {
  const Claim& claim = *claim_by_id("slice-min-granularity/hierarchical");
  for (uint64_t seed : {1u, 2u, 12345u}) {
    const CheckConfig config = smoke_config(seed);
    const EngineResult a = check_claim(claim, config), b = check_claim(claim, config);
    EXPECT_EQ(a.verdict, b.verdict) << "seed " << seed;
    EXPECT_EQ(a.detail, b.detail) << "seed " << seed;
    EXPECT_EQ(a.reproducer, b.reproducer) << "seed " << seed;
  }
}

TEST(ClaimChecks, AClaimWithoutAPropertyIsUnknown) {
  const Claim made_up{"no-such-claim", "test", FeatureSet{}, "invariant holds", "nothing", Expect::holds};
  const EngineResult r = check_claim(made_up, kSmoke);
  EXPECT_EQ(r.verdict, Verdict::unknown);
  EXPECT_EQ(r.detail, "no property for this claim");
}

TEST(ClaimChecks, PrintNothingOnStdoutOrStderr) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  for (const Claim& claim : all_claims()) check_claim(claim, kSmoke);
  const std::string out = testing::internal::GetCapturedStdout(), err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "");
}

TEST(ClaimChecks, CatchABaseSliceWithoutItsFloor) {
  // The base_slice claim's own check, run on ALT_PERIOD without BASE_SLICE.
  const Claim& real = *claim_by_id("slice-min-granularity/base_slice");
  Claim wrong = real;
  wrong.features.set(Feature::base_slice, false);
  EXPECT_EQ(check_claim(real, kSmoke).verdict, Verdict::passed);
  const EngineResult r = check_claim(wrong, kSmoke);
  EXPECT_EQ(r.verdict, Verdict::refuted) << r.detail;
  EXPECT_NE(r.detail.find("hierarchical+alt_period sched_slice"), std::string::npos) << r.detail;
}

TEST(ClaimChecks, HaveAPropertyForEveryArithmeticClaimOfIssue2) {
  for (const char* id :
       {"slice-min-granularity/hierarchical", "slice-min-granularity/flat", "slice-min-granularity/base_slice",
        "slice-min-granularity/flat-equal-weights-exact-set", "slice-min-granularity/flat-equal-weights-rounding",
        "calc-delta/loop-equals-fls"}) {
    const Claim* claim = claim_by_id(id);
    ASSERT_NE(claim, nullptr) << id << " is no longer in model/claims.cpp";
    EXPECT_NE(check_claim(*claim, kSmoke).verdict, Verdict::unknown) << id;
  }
}

TEST(ClaimChecks, BudgetsSetTheCaseCount) {
  EXPECT_EQ(max_success(Budget::smoke), 100);
  EXPECT_EQ(max_success(Budget::ci), 1000);
  EXPECT_EQ(max_success(Budget::long_), 100000);
}

}  // namespace
}  // namespace cfsv::properties
