// Golden vectors: the model's tables and arithmetic against literal values
// from the kernel source (../shared/kernel-facts.md).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "model/arith/calc_delta.h"
#include "model/features.h"
#include "model/arith/slice.h"
#include "model/tunables.h"
#include "model/arith/weights.h"
#include "properties/source_text.h"

namespace cfsv {
namespace {

constexpr std::array<uint32_t, 40> kKernelWmult = {
    48388,     59856,     76040,     92818,     118348,    147320,    184698,    229616,
    287308,    360437,    449829,    563644,    704093,    875809,    1099582,   1376151,
    1717300,   2157191,   2708050,   3363326,   4194304,   5237765,   6557202,   8165337,
    10153587,  12820798,  15790321,  19976592,  24970740,  31350126,  39045157,  49367440,
    61356676,  76695844,  95443717,  119304647, 148102320, 186737708, 238609294, 286331153};

TEST(WeightTables, InverseWeightsEqualTheKernelsLiteralTable) {
  for (int i = 0; i < kNiceLevels; ++i) EXPECT_EQ(sched_prio_to_wmult[i], kKernelWmult[i]) << "nice " << i - 20;
}

TEST(WeightTables, InverseWeightsAreRounded2To32OverWeightExceptFourFlooredEntries) {
  for (int nice = kNiceMin; nice <= kNiceMax; ++nice) {
    const bool floored = nice == 13 || nice == 14 || nice == 16 || nice == 17;
    const uint32_t rounded = rounded_inverse_weight(nice_to_weight(nice));
    EXPECT_EQ(nice_to_wmult(nice) + (floored ? 1u : 0u), rounded) << "nice " << nice;
  }
}

TEST(WeightTables, WeightsAreAboutOnePointTwoFiveApartAndNice0Is1024) {
  EXPECT_EQ(nice_to_weight(0), 1024u);
  EXPECT_EQ(nice_to_weight(-17), 46273u);  // hand-tuned: not round(1024 * 1.25^3)
  for (int n = kNiceMin; n < kNiceMax; ++n) {
    const double ratio = double(nice_to_weight(n)) / nice_to_weight(n + 1);
    EXPECT_NEAR(ratio, 1.25, 0.06) << "nice " << n;
  }
}

TEST(CalcDeltaFair, MatchesTheKernelsGoldenValuesForOneMillisecond) {
  const std::array<std::pair<int, uint64_t>, 5> golden = {
      {{-20, 11536}, {-1, 801879}, {1, 1248780}, {5, 3056716}, {19, 68266666}}};
  for (LoadResolution r : {kLoadResolutionV3_13, kLoadResolutionV5_7}) {
    for (auto [nice, want] : golden) {
      const LoadWeight<uint64_t> se{scale_load<uint64_t>(nice_to_weight(nice), r), nice_to_wmult(nice)};
      EXPECT_EQ(calc_delta_fair<uint64_t>(1'000'000, se, r), want) << "nice " << nice;
    }
  }
}

TEST(CalcDeltaFair, V3_10sCalcDeltaMineRoundsToNearestWhereCalcDeltaTruncates) {
  // v3.10: calc_delta_mine, WMULT_CONST 2^32, SRR rounding. 10^6 * 1024 * inv / 2^32
  // is 11536.6 at nice -20 and 68266666.7 at nice 19: rounded up here, truncated by __calc_delta.
  const std::array<std::pair<int, uint64_t>, 5> golden = {
      {{-20, 11537}, {-1, 801879}, {1, 1248780}, {5, 3056716}, {19, 68266667}}};
  const LoadResolution r = kLoadResolutionV3_10;
  for (auto [nice, want] : golden) {
    const LoadWeight<uint64_t> se{scale_load<uint64_t>(nice_to_weight(nice), r), nice_to_wmult(nice)};
    EXPECT_EQ(calc_delta_fair<uint64_t>(1'000'000, se, r), want) << "nice " << nice;
  }
}

TEST(CalcDeltaMine, SplitsTheProductInTwoRoundedShiftsWhenItWouldOverflow) {
  // 45 ms x 1024 > 2^32: SRR(SRR(tmp, 16) * (2^32 / 20480), 16) = 2249998 (seed 003, flat, v3.10).
  const LoadResolution r = kLoadResolutionV3_10;
  EXPECT_EQ(calc_delta_mine<uint64_t>(45'000'000, 1024, {20 * 1024, 0}, r), 2'249'998u);
  EXPECT_EQ(calc_delta_mine<uint64_t>(20'250'000, 1024, {9 * 1024, 0}, r), 2'249'994u);
  EXPECT_EQ(calc_delta<uint64_t>(20'250'000, 1024, {9 * 1024, 0}, kLoadResolutionV3_13), 2'249'996u);
}

TEST(CalcDeltaFair, ReturnsDeltaUnchangedForNice0WhereALazyInverseWouldRoundDown) {
  const LoadResolution r = kLoadResolutionV5_7;
  const uint64_t w = nice_0_load<uint64_t>(r);
  const LoadWeight<uint64_t> task{w, nice_to_wmult(0)}, lazy{w, 0};  // lazy: WMULT_CONST / 1024
  EXPECT_EQ(calc_delta_fair<uint64_t>(1'000'000, task, r), 1'000'000u);
  EXPECT_EQ(calc_delta<uint64_t>(1'000'000, w, task, r), 1'000'000u);  // 2^22 inverse is exact
  EXPECT_EQ(calc_delta<uint64_t>(1'000'000, w, lazy, r), 999'999u);
  EXPECT_EQ(calc_delta_loop<uint64_t>(1'000'000, w, lazy, r), 999'999u);
}

TEST(Tunables, LogScalingFactorsForOneToEightCpus) {
  const std::array<uint64_t, 9> want = {0, 1, 2, 2, 3, 3, 3, 3, 4};
  for (unsigned cpus = 1; cpus <= 8; ++cpus)
    EXPECT_EQ(Tunables::scaling_factor(cpus, TunableScaling::log), want[cpus]) << cpus << " cpus";
  EXPECT_EQ(Tunables::scaling_factor(64, TunableScaling::log), 4u);
  EXPECT_EQ(Tunables::scaling_factor(64, TunableScaling::linear), 8u);
  EXPECT_EQ(Tunables::scaling_factor(64, TunableScaling::none), 1u);
}

TEST(Tunables, SeedThreesFourCpuMachineHas2250usMinGranularityAnd18msLatency) {
  const Tunables t = Tunables{}.for_cpus(4);
  EXPECT_EQ(t.min_granularity_ns, 2'250'000u);
  EXPECT_EQ(t.latency_ns, 18'000'000u);
  EXPECT_EQ(t.wakeup_granularity_ns, 3'000'000u);
  EXPECT_EQ(t.idle_min_granularity_ns, 750'000u);
}


TEST(SchedSlice, NineNice0TasksGetFourNanosecondsLessThanMinGranularity) {
  const Tunables t = Tunables{}.for_cpus(4);
  const LoadResolution r = kLoadResolutionV5_7;
  const uint64_t w = nice_0_load<uint64_t>(r);
  const std::array<SliceLevel<uint64_t>, 1> chain = {{{w, 9 * w, 1}}};
  EXPECT_EQ(sched_slice<uint64_t>(chain, 9, 9, slice_tunables(t), {}, r), 2'249'996u);
}

TEST(SchedSlice, Nice0AndNice1OnEightCpusSplitThe24msPeriod) {
  const Tunables t = Tunables{}.for_cpus(8);
  const LoadResolution r = kLoadResolutionV5_7;
  const uint64_t w0 = scale_load<uint64_t>(nice_to_weight(0), r), w1 = scale_load<uint64_t>(nice_to_weight(1), r);
  const std::array<SliceLevel<uint64_t>, 1> c0 = {{{w0, w0 + w1, 1}}}, c1 = {{{w1, w0 + w1, 1}}};
  EXPECT_EQ(sched_slice<uint64_t>(c0, 2, 2, slice_tunables(t), {}, r), 13'327'543u);
  EXPECT_EQ(sched_slice<uint64_t>(c1, 2, 2, slice_tunables(t), {}, r), 10'672'446u);
}

TEST(SchedSlice, SeedThreesShapeIsAQuarterOfMinGranularityWhenHierarchical) {
  // 4 equal groups x 20 nice-0 tasks, all on one CPU of a 4-CPU machine.
  const Tunables t = Tunables{}.for_cpus(4);
  for (LoadResolution r : {kLoadResolutionV3_10, kLoadResolutionV3_13, kLoadResolutionV5_7}) {
    const uint64_t w = nice_0_load<uint64_t>(r);
    const std::array<SliceLevel<uint64_t>, 2> chain = {{{w, 20 * w, 1}, {w, 4 * w, 1}}};
    const uint64_t hier = sched_slice<uint64_t>(chain, 20, 80, slice_tunables(t), {}, r);
    const uint64_t flat = sched_slice<uint64_t>(chain, 20, 80, slice_tunables(t), {.flat_slice = true}, r);
    const uint64_t base =
        sched_slice<uint64_t>(chain, 20, 80, slice_tunables(t), {.alt_period = true, .base_slice = true}, r);
    EXPECT_LT(hier, t.min_granularity_ns / 4 + 1);
    EXPECT_GT(hier, t.min_granularity_ns / 4 - 10);
    EXPECT_LT(flat, t.min_granularity_ns);  // rounding: a few ns short
    EXPECT_GT(flat, t.min_granularity_ns - 10);
    EXPECT_EQ(base, t.min_granularity_ns);  // period 80 x min_gran split 20 x 4 ways rounds down; floored
  }
}

TEST(Fls, MatchesTheBitWidthOfEvery32BitPowerOfTwoNeighbourhood) {
  EXPECT_EQ(fls32<uint64_t>(0), 0u);
  for (unsigned b = 0; b < 32; ++b) {
    const uint64_t p = uint64_t{1} << b;
    EXPECT_EQ(fls32<uint64_t>(p), b + 1);
    EXPECT_EQ(fls32<uint64_t>(p | (p - 1)), b + 1);
    if (b) {
      EXPECT_EQ(fls32<uint64_t>(p - 1), b);
    }
  }
}

}  // namespace
}  // namespace cfsv

namespace cfsv {
namespace {

TEST(Features, EveryFeatureNameRoundTripsAndProfilesDifferWhereTheKernelChanged) {
  for (const FeatureInfo& i : all_features()) {
    EXPECT_EQ(to_string(i.feature), i.name);
    EXPECT_EQ(feature_by_name(i.name), i.feature);
  }
  const FeatureSet v310 = profile_by_name("v3.10")->features, v44 = profile_by_name("v4.4")->features,
                   v515 = profile_by_name("v5.15")->features;
  EXPECT_TRUE(v310[Feature::calc_delta_mine] && !v44[Feature::calc_delta_mine] && !v515[Feature::calc_delta_mine]);
  EXPECT_TRUE(!v44[Feature::alt_period] && v515[Feature::alt_period] && v515[Feature::base_slice]);
  EXPECT_EQ(v310.load_resolution(), kLoadResolutionV3_10);
  EXPECT_EQ(v44.load_resolution(), kLoadResolutionV3_13);
  EXPECT_EQ(v515.load_resolution(), kLoadResolutionV5_7);
  EXPECT_EQ(&default_profile(), profile_by_name("v5.15"));
}

// Every feature is named in docs/ (as `name`), and each row of docs/model.md's
// era table ("| `feature` | v3.10 | v4.4 | v5.15 | what |") says "on" exactly
// where that profile turns the feature on.
TEST(Features, TheDocsNameEveryFeatureAndTheEraTableMatchesTheProfiles) {
  using testing_files::source_text;
  std::string all;
  for (const auto& e : std::filesystem::directory_iterator(std::string(CFSV_REGRESSIONS_DIR) + "/../docs"))
    if (e.path().extension() == ".md") all += source_text("docs/" + e.path().filename().string());
  const std::string model = source_text("docs/model.md");
  ASSERT_NE(model.find("| feature | v3.10 | v4.4 | v5.15 | what |"), std::string::npos);
  const char* eras[] = {"v3.10", "v4.4", "v5.15"};
  std::size_t rows = 0;
  for (const FeatureInfo& i : all_features()) {
    const std::string code = "`" + std::string(i.name) + "`";
    EXPECT_NE(all.find(code), std::string::npos) << i.name << " is not in docs/";
    const std::size_t at = model.find("\n| " + code + " | ");
    if (at == std::string::npos) continue;  // documented elsewhere (sched_feats, seeds, docs/*.md)
    ++rows;
    std::istringstream cells(model.substr(at + 1, model.find('\n', at + 1) - at - 1));
    std::string cell;
    std::getline(cells, cell, '|');  // before the first bar
    std::getline(cells, cell, '|');  // the name
    for (const char* era : eras) {
      ASSERT_TRUE(std::getline(cells, cell, '|')) << i.name;
      const bool on = profile_by_name(era)->features[i.feature];
      EXPECT_EQ(cell, on ? " on " : " - ") << i.name << " in " << era << ": docs/model.md says '" << cell << "'";
    }
  }
  EXPECT_GE(rows, 20u);  // the table was found and read
}

}  // namespace
}  // namespace cfsv
