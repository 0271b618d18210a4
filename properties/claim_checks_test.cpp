// check_claim(): verdicts by kind, determinism, silence, and a wrong variant caught.
#include "properties/claim_checks.h"

#include <gtest/gtest.h>

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

TEST(ClaimChecks, ATestOnlyRecordOfAnExistingKindIsCheckedByItsKindAndDomain) {
  // Records no engine has seen: a claim is its kind and domain, not its id.
  const Claim two_cpus{"test/flat-equal-weights-exact-set-1-to-2-cpus",
                       "test",
                       "exact set on 1 or 2 CPUs",
                       ClaimKind::equal_weights_exact_set,
                       {1, 1, {16, 16, 16}, Weights::equal_on_task_rq, 1, 2, {Era::v3_13}},
                       FeatureSet{Feature::flat_slice}};
  EXPECT_EQ(check_claim(two_cpus, kSmoke).verdict, Verdict::passed);
  Claim deep = two_cpus;
  deep.id = "test/hierarchical-depth-2-only";
  deep.kind = ClaimKind::slice_at_least_min_gran;
  deep.domain = {2, 2, {64, 64, 64}, Weights::any, 4, 4, {Era::v4_7}};
  deep.features = FeatureSet{};
  deep.expect = Expect::refuted;
  const EngineResult r = check_claim(deep, kSmoke);
  EXPECT_EQ(r.verdict, Verdict::refuted) << r.detail;
  EXPECT_EQ(value_of(r.counterexample.values, "depth"), "2");
  EXPECT_EQ(value_of(r.counterexample.values, "era"), "v4.7");
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
