// check_claim(): verdicts by kind, determinism, silence, and a wrong variant caught.
#include "properties/claim_checks.h"

#include <gtest/gtest.h>

#include "claims/test_claims.h"
#include "properties/runner.h"

namespace cfsv::properties {
namespace {

const CheckConfig kSmoke = smoke_config(1);

TEST(ClaimChecks, EveryRegisteredClaimGetsTheVerdictItExpects) {
  for (const Claim& claim : all_claims()) {
    const EngineResult r = check_claim(claim, kSmoke);
    EXPECT_EQ(r.engine, Engine::properties);
    EXPECT_TRUE(agrees(claim.expect, r.verdict))
        << claim.id << ": expected " << to_string(claim.expect) << ", got " << to_string(r.verdict) << ": " << r.detail;
    if (r.verdict == Verdict::passed) {
      EXPECT_EQ(r.detail, "100 cases") << claim.id;
    }
    if (r.verdict == Verdict::refuted) {
      EXPECT_FALSE(r.reproducer.empty()) << claim.id;
      EXPECT_EQ(r.counterexample.claim, claim.id);
    }
  }
}

TEST(ClaimChecks, TestOnlyRecordsOfExistingKindsAreCheckedByTheirKindAndDomain) {
  for (const Claim& claim : test_only_claims()) {
    const EngineResult r = check_claim(claim, kSmoke);
    EXPECT_TRUE(agrees(claim.expect, r.verdict)) << claim.id << ": " << to_string(r.verdict) << ": " << r.detail;
    if (claim.expect == Expect::refuted) {
      EXPECT_EQ(value_of(r.counterexample.values, "depth"), std::to_string(claim.domain.min_depth)) << claim.id;
      EXPECT_EQ(value_of(r.counterexample.values, "era"), era_name(claim.domain.eras.front())) << claim.id;
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
  EXPECT_EQ(value_of(r.counterexample.values, "variant"), "hierarchical+alt_period") << r.reproducer;
}

TEST(ClaimChecks, BudgetsSetTheCaseCount) {
  EXPECT_EQ(max_success(Budget::smoke), 100);
  EXPECT_EQ(max_success(Budget::ci), 1000);
  EXPECT_EQ(max_success(Budget::long_), 100000);
}

}  // namespace
}  // namespace cfsv::properties
