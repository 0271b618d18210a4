// sched_slice in its three variants on generated hierarchies.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "model/equal_weights.h"
#include "model/tunables.h"
#include "model/arith/weights.h"
#include "properties/arith_properties.h"
#include "properties/claim_checks.h"
#include "properties/runner.h"
#include "properties/slice_trace.h"

namespace cfsv::properties {
namespace {

// 0 <= period - n * slice <= floor(period * (1024 n + 4) / 2^32) + n
// (up to n * min_granularity above the period with BASE_SLICE).
RC_GTEST_PROP(SchedSlice, SlicesOfNNice0TasksOnOneCfsRqAddUpToThePeriodWithinNTimesTheirRounding, ()) {
  const uint64_t n = *gen_uniform(1, 512);
  const CpuTunables t = *gen_tunables();
  const LoadResolution r = *gen_load_resolution();
  for (SliceFeatures f : kSliceVariants) check_nice0_slices_sum(n, t, r, f);
}

// slice(light) <= slice(heavy) + floor(exact * (b + 4) / 2^32) + 1 at the changed level.
RC_GTEST_PROP(SchedSlice, AHeavierEntityNeverGetsAShorterSliceByMoreThanCalcDeltasRounding, ()) {
  const HeavierCase c = *gen_heavier_case();
  for (SliceFeatures f : kSliceVariants) check_heavier_never_shorter_beyond_rounding(c, f);
}

RC_GTEST_PROP(SliceMinGranularity, BaseSliceNeverFallsBelowMinGranularityOnRandomHierarchies, ()) {
  check_slice_min_granularity(*gen_slice_case(), kBaseSlice);
}

TEST(SchedSlice, IsNotStrictlyMonotoneInWeightAloneOnACfsRq) {
  // The exact share is the whole period for any weight; the 32-bit inverse
  // of a heavier load loses more: nice -17 gets 64 ns less than nice -16.
  const SliceTunables<uint64_t> t = slice_tunables(Tunables{});
  for (LoadResolution r : {kLoadResolutionV3, kLoadResolutionV5}) {
    auto alone = [&](int nice) {
      const uint64_t w = scale_load<uint64_t>(nice_to_weight(nice), r);
      const std::array<SliceLevel<uint64_t>, 1> chain = {{{w, w, 1}}};
      return sched_slice<uint64_t>(chain, 1, 1, t, kHierarchical, r);
    };
    EXPECT_EQ(alone(-16), 5'999'999u);
    EXPECT_EQ(alone(-17), 5'999'935u);
  }
}

TEST(SchedSlice, InTheV5EraScaleLoadDownLetsAOneUnitHeavierGroupEntityLoseAThird) {
  // Outside the monotonicity property's domain (weights not multiples of
  // 1024): a group entity of weight 2048 next to one of 1023 is alone at
  // v5 resolution (load 3071 >> 10 = 2), while 2049 makes the load 3072 >> 10 = 3.
  const LoadResolution r = kLoadResolutionV5;
  const SliceTunables<uint64_t> t = slice_tunables(Tunables{});
  auto slice = [&](uint64_t w) {
    const std::array<SliceLevel<uint64_t>, 1> chain = {{{w, w + 1023, 1}}};
    return sched_slice<uint64_t>(chain, 2, 2, t, kHierarchical, r);
  };
  EXPECT_EQ(slice(2048), 5'999'999u);
  EXPECT_EQ(slice(2049), 3'999'999u);
}

TEST(FlatEqualWeights, TheExactSetClaimNeedsBootTunablesNotASysctlLatencyJustAboveMinGranularity) {
  // check_claim uses boot tunables (latency = 8 * min_granularity). After
  // sysctl latency = 1000001 and min_granularity = 1000000 (nr_latency 2), a
  // lone nice -18 task (n = 1 < 2) gets 13 ns less than min_granularity.
  SliceCase c;
  c.tunables = {1, Tunables{}, true};
  c.tunables.tunables.latency_ns = 1'000'001;
  c.tunables.tunables.min_granularity_ns = 1'000'000;
  c.tunables.tunables.recompute_nr_latency();
  c.r = kLoadResolutionV3;
  c.levels = {{nice_to_weight(-18), {}}};
  ASSERT_EQ(c.tunables.tunables.nr_latency, 2u);
  EXPECT_EQ(trace_slice(c, kFlat).slice, 999'987u);
  const EngineResult r = run_testable([&] { check_equal_weights_exact_set(c, kFlat); }, smoke_config(1));
  EXPECT_EQ(r.verdict, Verdict::refuted);
  EXPECT_EQ(run_testable([&] { check_equal_weights_rounding(c, kFlat); }, smoke_config(1)).verdict, Verdict::passed);
}

TEST(FlatEqualWeights, BothClaimsAreRefutedUnderV310CalcDeltaMineArithmetic) {
  // Seed 003 was written against v3.10, whose calc_delta_mine rounds to
  // nearest with a 2^32 inverse: 29 nice-0 tasks (n >= nr_latency) get
  // exactly min_granularity, and its two 16-bit shifts lose more than
  // ceil(n * w * min_granularity / 2^32) for many light tasks.
  SliceCase c;
  c.tunables = {1, Tunables{}, false};
  c.r = kLoadResolutionV3_10;
  c.levels = {{1024, std::vector<Sibling>(28, {1024, 1})}};
  EXPECT_EQ(trace_slice(c, kFlat).slice, 750'000u);
  for (const char* id :
       {"slice-min-granularity/flat-equal-weights-exact-set", "slice-min-granularity/flat-equal-weights-rounding"}) {
    const Claim* registered = claim_by_id(id);
    ASSERT_NE(registered, nullptr) << id;
    Claim v3_10 = *registered;
    v3_10.features.set(Feature::calc_delta_mine);
    CheckConfig config = smoke_config(1);
    config.budget = Budget::ci;
    const EngineResult r = check_claim(v3_10, config);
    EXPECT_EQ(r.verdict, Verdict::refuted) << id << ": " << r.detail;
    EXPECT_NE(r.reproducer.find("calc_delta_mine"), std::string::npos) << r.reproducer;
  }
}

TEST(FlatEqualWeights, TheV310RowsGetTheirExpectedVerdictsInTheProofsDomainForEverySeed) {
  // check_claim generates the v3.10 rows in the proofs' domain (4 CPUs, at
  // most 32 tasks, calc_delta_mine): RapidCheck finds the exact set's
  // counterexample (n >= nr_latency yet slice == min_granularity) every time.
  const Claim* exact = claim_by_id("slice-min-granularity/flat-equal-weights-exact-set-v3.10");
  const Claim* rounding = claim_by_id("slice-min-granularity/flat-equal-weights-rounding-v3.10");
  ASSERT_NE(exact, nullptr);
  ASSERT_NE(rounding, nullptr);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const EngineResult r = check_claim(*exact, smoke_config(seed));
    EXPECT_EQ(r.verdict, Verdict::refuted) << seed << ": " << r.detail;
    EXPECT_NE(r.detail.find("nr_latency 8"), std::string::npos) << r.detail;
    EXPECT_NE(r.reproducer.find("calc_delta_mine"), std::string::npos) << r.reproducer;
    EXPECT_EQ(check_claim(*rounding, smoke_config(seed)).verdict, Verdict::passed) << seed;
  }
}

TEST(FlatEqualWeights, TheV310RowsOverTheWholeProofsDomain) {
  // Every point of the domain (40 nice levels x on_rq x n = 1..32): the
  // rounding row holds, the exact set fails only where n >= nr_latency and
  // calc_delta_mine rounds the slice up to min_granularity or past it.
  std::size_t exact_violations = 0;
  for (int nice = kNiceMin; nice <= kNiceMax; ++nice)
    for (bool on_rq : {false, true})
      for (uint64_t n = 1; n <= 32; ++n) {
        SliceCase c;
        c.tunables = {4, Tunables{}.for_cpus(4), false};
        c.r = kLoadResolutionV3_10;
        c.on_rq = on_rq;
        const uint64_t w = nice_to_weight(nice);
        c.levels = {{w, std::vector<Sibling>(n - 1, Sibling{w, 1})}};
        const uint64_t slice = trace_slice(c, kFlat).slice;
        ASSERT_TRUE(equal_weights_rounding_holds(slice, n, w, 2'250'000, true)) << nice << " " << on_rq << " " << n;
        if (!equal_weights_exact_set_holds(slice, n, 2'250'000, 8)) {
          ++exact_violations;
          EXPECT_GE(n, 8u);  // slice >= min_granularity where the period is n * min_granularity
          EXPECT_GE(slice, 2'250'000u);
        }
      }
  EXPECT_GT(exact_violations, 0u);
}

TEST(SliceMinGranularity, HierarchicalAndFlatAreRefutedOnRandomHierarchies) {
  for (const char* id : {"slice-min-granularity/hierarchical", "slice-min-granularity/flat"}) {
    const Claim* claim = claim_by_id(id);
    ASSERT_NE(claim, nullptr) << id;
    const EngineResult r = check_claim(*claim, smoke_config(1));
    EXPECT_EQ(r.verdict, Verdict::refuted) << id << ": " << r.detail;
    EXPECT_NE(r.reproducer.find("period = __sched_period("), std::string::npos) << r.reproducer;
    EXPECT_NE(r.reproducer.find("min_granularity = "), std::string::npos) << r.reproducer;
  }
}

TEST(SliceMinGranularity, RapidCheckFindsHierarchiesWhereOnlyTheUpperLevelsPushTheSliceBelow) {
  // Seed 003's point: where the flat slice keeps min_granularity, following
  // the upper entities can still lose it.
  const EngineResult r = run_testable(
      [] {
        const SliceCase c = *gen_slice_case(std::nullopt, false);
        const SliceTrace flat = trace_slice(c, kFlat), hier = trace_slice(c, kHierarchical);
        if (flat.slice >= flat.min_granularity && hier.slice < hier.min_granularity)
          refute(summary(c, hier), reproducer(c, hier));
      },
      smoke_config(1));
  EXPECT_EQ(r.verdict, Verdict::refuted) << r.detail;
  EXPECT_NE(r.detail.find("level 1"), std::string::npos) << r.detail;
}

TEST(SliceMinGranularity, TheSeed003ShapeIsACounterexampleToTheHierarchicalSlice) {
  // 4 groups x 20 nice-0 tasks on a 4-CPU machine, as the seed patch reports.
  SliceCase c;
  c.tunables = {4, Tunables{}.for_cpus(4), false};
  c.r = kLoadResolutionV3;
  c.levels = {{1024, std::vector<Sibling>(19, {1024, 1})}, {1024, std::vector<Sibling>(3, {1024, 20})}};
  const SliceTrace t = trace_slice(c, kHierarchical);
  EXPECT_EQ(t.period, 45'000'000u);
  EXPECT_EQ(t.levels[0].slice, 2'249'997u);
  EXPECT_EQ(t.slice, 562'498u);
  EXPECT_EQ(trace_slice(c, kBaseSlice).period, 180'000'000u);  // ALT_PERIOD: 80 tasks on the rq
  EXPECT_EQ(trace_slice(c, kBaseSlice).slice, 2'250'000u);
}

}  // namespace
}  // namespace cfsv::properties
