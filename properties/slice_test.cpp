// sched_slice in its three variants on generated hierarchies, and the
// claims' statements beyond and across their own domains.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "claims/check.h"
#include "model/arith/weights.h"
#include "model/tunables.h"
#include "properties/arith_properties.h"
#include "properties/claim_checks.h"
#include "properties/enumerating_reader.h"
#include "properties/runner.h"

namespace cfsv::properties {
namespace {

const Claim& claim(std::string_view id) {
  const Claim* c = claim_by_id(id);
  if (!c) throw std::runtime_error("no claim " + std::string(id));
  return *c;
}

// n tasks of one nice level alone on one cfs_rq (the task's, depth 1).
SliceCase equal_tasks(Era era, const SliceTunables<uint64_t>& t, int nice, uint64_t n, bool on_rq = true) {
  const uint64_t w = scale_load<uint64_t>(nice_to_weight(nice), resolution_of(era));
  SliceCase c;
  c.era = era;
  c.tunables = t;
  c.nice_rank = rank_of_nice(nice);
  c.levels = {{w, on_rq ? 1u : 0u, n - 1, (n - 1) * w, n - 1}};
  return c;
}

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

// The claims' decoder only makes cases a runqueue can have, within the
// domain's bounds (here a wide one: depth 1..3, 4096 tasks, both eras).
RC_GTEST_PROP(SliceDomain, EveryDecodedCaseIsOneARunqueueCanHaveWithinTheDomainsBounds, ()) {
  const SliceCase c = *gen_slice_case(std::nullopt, false);
  const LoadResolution r = resolution_of(c.era);
  const uint64_t max_w = scale_load<uint64_t>(kFairMaxShares, r);
  RC_ASSERT(c.levels.size() >= 1u && c.levels.size() <= 3u);
  RC_ASSERT(c.rq_h_nr_running() + (c.levels[0].on_rq ? 0u : 1u) <= 4096u);
  RC_ASSERT(c.levels[0].weight == scale_load<uint64_t>(nice_to_weight(nice_of_rank(c.nice_rank)), r));
  for (std::size_t i = 0; i < c.levels.size(); ++i) {
    const SlicePathLevel<uint64_t>& l = c.levels[i];
    RC_ASSERT(l.on_rq <= 1u);
    RC_ASSERT(l.others_tasks >= l.others);
    RC_ASSERT(l.others_weight >= l.others * kFairMinShares && l.others_weight <= l.others * max_w);
    if (i > 0) {
      RC_ASSERT(l.weight >= kFairMinShares && l.weight <= max_w);
      const SlicePathLevel<uint64_t>& below = c.levels[i - 1];
      RC_ASSERT((l.on_rq == 1) == (below.on_rq == 1 || below.others > 0));  // queued iff its cfs_rq is not empty
    }
  }
}

// The idle domain's cases too: an idle task weighs WEIGHT_IDLEPRIO, idle
// others at most that each (an idle task's, or an idle group's shares).
RC_GTEST_PROP(SliceDomain, AnIdleCaseWeighsWhatIdleEntitiesCanWeigh, ()) {
  const SliceCase c = *gen_slice_case(std::nullopt, false, *rc::gen::element(Weights::any, Weights::equal_on_task_rq),
                                      true);
  const LoadResolution r = resolution_of(c.era);
  const SlicePathLevel<uint64_t>& l = c.levels[0];
  RC_ASSERT(c.idle <= 1u && c.others_idle <= 1u);
  if (c.idle) RC_ASSERT(l.weight == scale_load<uint64_t>(kWeightIdlePrio, r));
  else RC_ASSERT(l.weight == scale_load<uint64_t>(nice_to_weight(nice_of_rank(c.nice_rank)), r));
  if (c.others_idle) RC_ASSERT(l.others_weight <= l.others * scale_load<uint64_t>(kWeightIdlePrio, r));
  RC_ASSERT(l.others_weight >= l.others * kFairMinShares);
  RC_ASSERT(c.slice_idle().idle_nr_running <= c.nr_running());
}

// v5.16's claim beyond its domain: 1..64 CPUs' boot tunables, both eras, 4096 tasks.
RC_GTEST_PROP(SliceIdleFloor, OnlyShortensOnRandomHierarchiesAtBootTunables, ()) {
  check_claim_on(claim("slice-idle-floor/only-shortens"), *gen_slice_case(std::nullopt, false, Weights::any, true));
}

// The base_slice claim far beyond its domain: 1..64 CPUs, sysctl writes, both eras, 4096 tasks.
RC_GTEST_PROP(SliceMinGranularity, BaseSliceNeverFallsBelowMinGranularityOnRandomHierarchies, ()) {
  check_claim_on(claim("slice-min-granularity/base_slice"), *gen_slice_case());
}

TEST(SchedSlice, IsNotStrictlyMonotoneInWeightAloneOnACfsRq) {
  // The exact share is the whole period for any weight; the 32-bit inverse
  // of a heavier load loses more: nice -17 gets 64 ns less than nice -16.
  const SliceTunables<uint64_t> t = slice_tunables(Tunables{});
  for (LoadResolution r : {kLoadResolutionV3_13, kLoadResolutionV5_7}) {
    auto alone = [&](int nice) {
      const uint64_t w = scale_load<uint64_t>(nice_to_weight(nice), r);
      const std::array<SliceLevel<uint64_t>, 1> chain = {{{w, w, 1}}};
      return sched_slice<uint64_t>(chain, 1, 1, t, kHierarchical, r);
    };
    EXPECT_EQ(alone(-16), 5'999'999u);
    EXPECT_EQ(alone(-17), 5'999'935u);
  }
}

TEST(SchedSlice, InTheV57EraScaleLoadDownLetsAOneUnitHeavierGroupEntityLoseAThird) {
  // Weights that are not multiples of 1024: a group entity of weight 2048
  // next to one of 1023 is alone at v5.7 resolution (load 3071 >> 10 = 2),
  // while 2049 makes the load 3072 >> 10 = 3.
  const LoadResolution r = kLoadResolutionV5_7;
  const SliceTunables<uint64_t> t = slice_tunables(Tunables{});
  auto slice = [&](uint64_t w) {
    const std::array<SliceLevel<uint64_t>, 1> chain = {{{w, w + 1023, 1}}};
    return sched_slice<uint64_t>(chain, 2, 2, t, kHierarchical, r);
  };
  EXPECT_EQ(slice(2048), 5'999'999u);
  EXPECT_EQ(slice(2049), 3'999'999u);
}

TEST(FlatEqualWeights, TheExactSetClaimNeedsBootTunablesNotASysctlLatencyJustAboveMinGranularity) {
  // The claim's domain has boot tunables (latency = 8 * min_granularity).
  // After sysctl latency = 1000001 and min_granularity = 1000000
  // (nr_latency 2), a lone nice -18 task (n = 1 < 2) gets 13 ns less than
  // min_granularity.
  Tunables t;
  t.latency_ns = 1'000'001;
  t.min_granularity_ns = 1'000'000;
  t.recompute_nr_latency();
  ASSERT_EQ(t.nr_latency, 2u);
  const SliceCase c = equal_tasks(Era::v3_13, slice_tunables(t), -18, 1);
  EXPECT_EQ(trace_slice(c, kFlat).slice, 999'987u);
  const EngineResult r = run_testable(
      [&] { check_claim_on(claim("slice-min-granularity/flat-equal-weights-exact-set"), c); }, smoke_config(1));
  EXPECT_EQ(r.verdict, Verdict::refuted);
  EXPECT_EQ(
      run_testable([&] { check_claim_on(claim("slice-min-granularity/flat-equal-weights-rounding"), c); },
                   smoke_config(1))
          .verdict,
      Verdict::passed);
}

TEST(FlatEqualWeights, TheRoundingAllowanceTakesItsCalcDeltaMineTermInTheV310Era) {
  // 9 nice-0 tasks on seed 003's machine: calc_delta_mine gives 2249994 ns,
  // 6 ns short, past ceil(9 * 1024 * 2250000 / 2^32) = 5; its rounded 16-bit
  // shifts add ceil(2^15 / (9 * 1024)) = 4.
  const SliceCase v3_10 = equal_tasks(Era::v3_10, boot_tunables(4), 0, 9);
  EXPECT_EQ(trace_slice(v3_10, kFlat).slice, 2'249'994u);
  EXPECT_EQ(rounding_allowance(v3_10), 5u + 4u);
  SliceCase v5_7 = v3_10;
  v5_7.era = Era::v5_7;
  v5_7.levels[0].weight <<= 10;
  v5_7.levels[0].others_weight <<= 10;
  EXPECT_EQ(rounding_allowance(v5_7), 5u);
  EXPECT_EQ(trace_slice(v5_7, kFlat).slice, 2'249'996u);
}

TEST(FlatEqualWeights, TheV310RowsGetTheirExpectedVerdictsForEverySeed) {
  // RapidCheck finds the exact set's counterexample (n >= nr_latency yet
  // slice >= min_granularity) in the claim's domain every time.
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const EngineResult r = check_claim(claim("slice-min-granularity/flat-equal-weights-exact-set-v3.10"),
                                       smoke_config(seed));
    EXPECT_EQ(r.verdict, Verdict::refuted) << seed << ": " << r.detail;
    EXPECT_NE(r.detail.find("sched_nr_latency 8"), std::string::npos) << r.detail;
    EXPECT_NE(r.reproducer.find("era=v3.10"), std::string::npos) << r.reproducer;
    EXPECT_EQ(check_claim(claim("slice-min-granularity/flat-equal-weights-rounding-v3.10"), smoke_config(seed))
                  .verdict,
              Verdict::passed)
        << seed;
  }
}

TEST(FlatEqualWeights, EveryCaseOfTheEqualWeightClaimsDomainsGetsTheClaimsVerdict) {
  // The whole ci domain, case by case through the claims' own decoder
  // (40 nice levels x on_rq x n = 1..32): every row expected to hold holds
  // on every case; the v3.10 exact set fails only where n >= nr_latency
  // and calc_delta_mine rounds the slice up to min_granularity or past it.
  for (const Claim& c : all_claims()) {
    if (c.domain.weights != Weights::equal_on_task_rq) continue;
    std::size_t cases = 0, violations = 0;
    for_each_slice_case(c.domain, Budget::ci, [&](const SliceCase& k) {
      ++cases;
      if (!check_slice_case(c, k)) return;
      ++violations;
      EXPECT_GE(k.n(), k.tunables.nr_latency) << c.id;
      EXPECT_GE(trace_slice(k, kFlat).slice, k.tunables.min_granularity) << c.id;
    });
    EXPECT_EQ(cases, 40u * 2u * 32u) << c.id;
    if (c.expect == Expect::holds) {
      EXPECT_EQ(violations, 0u) << c.id;
    } else {
      EXPECT_GT(violations, 0u) << c.id;
    }
  }
}

TEST(SliceMinGranularity, HierarchicalAndFlatAreRefutedOnTheirDomains) {
  for (const char* id : {"slice-min-granularity/hierarchical", "slice-min-granularity/flat"}) {
    const EngineResult r = check_claim(claim(id), smoke_config(1));
    EXPECT_EQ(r.verdict, Verdict::refuted) << id << ": " << r.detail;
    EXPECT_NE(r.reproducer.find("period="), std::string::npos) << r.reproducer;
    EXPECT_NE(r.reproducer.find("level 0 (task): weight="), std::string::npos) << r.reproducer;
    EXPECT_EQ(r.counterexample.claim, id);
    EXPECT_EQ(r.detail, r.counterexample.summary);
  }
}

TEST(SliceMinGranularity, RapidCheckFindsHierarchiesWhereOnlyTheUpperLevelsPushTheSliceBelow) {
  // Seed 003's point: where the flat slice keeps min_granularity, following
  // the upper entities can still lose it.
  const EngineResult r = run_testable(
      [] {
        const SliceCase c = *gen_slice_case(std::nullopt, false);
        const SliceTrace flat = trace_slice(c, kFlat), hier = trace_slice(c, kHierarchical);
        if (flat.slice >= c.tunables.min_granularity && hier.slice < c.tunables.min_granularity)
          refute("flat " + std::to_string(flat.slice) + " ns, hierarchical " + std::to_string(hier.slice) + " ns",
                 format_counterexample(slice_case_counterexample(c, kHierarchical, hier)));
      },
      smoke_config(1));
  EXPECT_EQ(r.verdict, Verdict::refuted) << r.detail;
  EXPECT_NE(r.reproducer.find("level 1 (group)"), std::string::npos) << r.reproducer;
}

TEST(SliceMinGranularity, TheSeed003ShapeIsACounterexampleToTheHierarchicalSlice) {
  // 4 groups x 20 nice-0 tasks on a 4-CPU machine, as the seed patch reports.
  SliceCase c;
  c.era = Era::v3_13;
  c.cpus = 4;
  c.tunables = boot_tunables(4);
  c.levels = {{1024, 1, 19, 19 * 1024, 19}, {1024, 1, 3, 3 * 1024, 60}};
  const SliceTrace t = trace_slice(c, kHierarchical);
  EXPECT_EQ(t.period, 45'000'000u);
  EXPECT_EQ(t.levels[0].slice, 2'249'997u);
  EXPECT_EQ(t.slice, 562'498u);
  EXPECT_EQ(trace_slice(c, kBaseSlice).period, 180'000'000u);  // ALT_PERIOD: 80 tasks on the rq
  EXPECT_EQ(trace_slice(c, kBaseSlice).slice, 2'250'000u);
  EXPECT_TRUE(check_slice_case(claim("slice-min-granularity/hierarchical"), c));
  EXPECT_FALSE(check_slice_case(claim("slice-min-granularity/base_slice"), c));
}

// v5.16's floor by hand, 2 CPUs (latency 12 ms, min_granularity 1.5 ms): a
// SCHED_IDLE task (3072) and one more entity on its cfs_rq, in a group of
// weight 2 beside a nice-0 task (1048576), so the path leaves it ~11 ns and
// the floor decides. sched_idle_cfs_rq reads the task's own cfs_rq.
TEST(SliceIdleFloor, AnIdleTaskGetsIdleMinGranularityUnlessEveryEntityOnItsCfsRqIsIdle) {
  SliceCase c;
  c.era = Era::v5_7;
  c.cpus = 2;
  c.tunables = boot_tunables(2);
  c.idle = 1;
  c.levels = {{3072, 1, 1, 3072, 1}, {2, 1, 1, 1'048'576, 1}};
  const SliceFeatures on = claim("slice-idle-floor/only-shortens").features.slice();
  ASSERT_TRUE(on.idle_floor && on.base_slice);
  EXPECT_EQ(c.slice_idle().idle_nr_running, 1u);  // the task; the other is not idle
  EXPECT_EQ(run_slice(c, on), 750'000u);
  EXPECT_EQ(run_slice(c, without_idle_floor(on)), 1'500'000u);
  EXPECT_TRUE(check_slice_case(claim("slice-min-granularity/idle-floor"), c));
  EXPECT_FALSE(check_slice_case(claim("slice-idle-floor/only-shortens"), c));
  c.others_idle = 1;  // both idle: sched_idle_cfs_rq, min_granularity
  EXPECT_EQ(c.slice_idle().idle_nr_running, 2u);
  EXPECT_EQ(run_slice(c, on), 1'500'000u);
  EXPECT_FALSE(check_slice_case(claim("slice-min-granularity/idle-floor"), c));
  c.idle = 0, c.levels[0].weight = 1'048'576;  // a nice-0 task among idle ones keeps min_granularity
  EXPECT_EQ(run_slice(c, on), 1'500'000u);
  // A waking idle task with nothing queued on its cfs_rq: nr_running 0 is not
  // sched_idle_cfs_rq, so the idle floor applies (place_entity's vslice).
  c.idle = 1, c.levels = {{3072, 0, 0, 0, 0}, {2, 0, 1, 1'048'576, 1}};
  EXPECT_EQ(run_slice(c, on), 750'000u);
}

}  // namespace
}  // namespace cfsv::properties
