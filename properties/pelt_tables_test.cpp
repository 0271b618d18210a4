// Golden vectors for PELT: the tables model/arith/pelt_tables.cpp computes
// from their definitions, against the literal values of the kernel source
// (kernel/sched/sched-pelt.h v5.15; fair.c v3.10, v4.4 and v4.9), and the
// decay and contribution functions of each era on hand-worked values.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>

#include "model/arith/pelt.h"
#include "model/arith/pelt_v3.h"
#include "model/arith/pelt_v4.h"

namespace cfsv {
namespace {

constexpr std::array<uint32_t, 32> kKernelYnInv = {
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796,
    0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46,
    0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
    0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698};

// runnable_avg_yN_sum (kernel/sched/fair.c v3.10, v4.4, v4.9).
constexpr std::array<uint32_t, 33> kKernelYnSum = {
    0,     1002,  1982,  2941,  3880,  4798,  5697,  6576,  7437,  8279,  9103,  9909,  10698, 11470, 12226, 12966, 13690,
    14398, 15091, 15769, 16433, 17082, 17718, 18340, 18949, 19545, 20128, 20698, 21256, 21802, 22336, 22859, 23371};

// __accumulated_sum_N32 (kernel/sched/fair.c v4.9).
constexpr std::array<uint32_t, 12> kKernelAccumulatedSumN32 = {0,     23371, 35056, 40899, 43820, 45281,
                                                               46011, 46376, 46559, 46650, 46696, 46719};

const PeltTables& t() { return pelt_tables(); }

TEST(PeltTables, DecayTableEqualsTheKernelsRunnableAvgYnInv) {
  for (std::size_t i = 0; i < kKernelYnInv.size(); ++i) EXPECT_EQ(t().yN_inv[i], kKernelYnInv[i]) << "i " << i;
}

TEST(PeltTables, DecayTableIsTheFloorOf2To32Minus1TimesYToTheI) {
  // Independently of the generator's double pow: (2^32 - 1) * 2^(-i/32) in
  // long double, whose error is far below the distance of every entry to
  // the next integer, so the floor is exact. y^0 = 1 exactly.
  EXPECT_EQ(t().yN_inv[0], 0xffffffffu);
  for (int i = 1; i < 32; ++i) {
    const long double exact = 4294967295.0L * std::exp2(-i / 32.0L);
    const long double frac = exact - std::floor(exact);
    ASSERT_GT(std::fmin(frac, 1 - frac), 1e-6L) << "i " << i << ": too close to an integer to decide";
    EXPECT_EQ(t().yN_inv[i], static_cast<uint32_t>(std::floor(exact))) << "i " << i;
  }
}

TEST(PeltTables, LoadAvgMaxIs47742ReachedIn345Periods) {
  EXPECT_EQ(t().load_avg_max, 47742u);
  EXPECT_EQ(t().load_avg_max_n, 345u);
  EXPECT_EQ(kLoadAvgPeriod, 32u);
}

TEST(PeltTables, TheGeometricSumWithTheKernelsIntegerDecayConvergesToExactlyLoadAvgMax) {
  // s = decay_load(s, 1) + 1024, from an empty sum, in each era's decay_load:
  // it reaches 47742 and stays there.
  const auto converge = [](auto decay) {
    uint64_t s = 0;
    for (int step = 0; step < 1000; ++step) s = decay(s, uint64_t{1}) + 1024;
    return std::pair{s, decay(s, uint64_t{1}) + 1024};
  };
  for (auto [s, next] : {converge(pelt_v5_15::decay_load<uint64_t>), converge(pelt_v4_4::decay_load<uint64_t>),
                         converge(pelt_v3_10::decay_load<uint64_t>)}) {
    EXPECT_EQ(s, 47742u);
    EXPECT_EQ(next, s);
  }
}

TEST(PeltTables, RunnableAvgYnSumEqualsTheKernelsTableAndItsIntegerRecurrence) {
  uint64_t s = 0;
  for (std::size_t n = 0; n < kKernelYnSum.size(); ++n) {
    EXPECT_EQ(t().yN_sum[n], kKernelYnSum[n]) << "n " << n;
    EXPECT_EQ(s, kKernelYnSum[n]) << "((prev + 1024) * yN_inv[1]) >> 32 at n " << n;
    s = ((s + 1024) * kKernelYnInv[1]) >> 32;
  }
}

TEST(PeltTables, AccumulatedSumN32EqualsTheKernelsTable) {
  EXPECT_EQ(t().load_avg_max_n / kLoadAvgPeriod + 2, t().accumulated_sum_N32.size());
  for (std::size_t k = 0; k < kKernelAccumulatedSumN32.size(); ++k)
    EXPECT_EQ(t().accumulated_sum_N32[k], kKernelAccumulatedSumN32[k]) << "k " << k;
}

TEST(PeltTables, TableAtWithoutBranchesEqualsIndexing) {
  for (uint64_t i = 0; i < 33; ++i) {
    const auto generic_sum = table_at<uint64_t, 33>;  // the select chain, not the indexing overload
    const auto generic_inv = table_at<uint64_t, 32>;
    EXPECT_EQ(generic_sum(t().yN_sum, i), t().yN_sum[i]);
    if (i < 32) {
      EXPECT_EQ(generic_inv(t().yN_inv, i), t().yN_inv[i]);
    }
  }
}

TEST(DecayLoad, HandWorkedValuesInEachEra) {
  // LOAD_AVG_MAX * y = LOAD_AVG_MAX - 1024 exactly: 47742 * 0xfa83b2da >> 32.
  EXPECT_EQ(pelt_v5_15::decay_load<uint64_t>(47742, 1), 46718u);
  // 32 periods: halve, then y^0 = 0xffffffff / 2^32 takes one unit: 512 - 1.
  EXPECT_EQ(pelt_v5_15::decay_load<uint64_t>(1024, 32), 511u);
  // 40 periods: 1024 >> 1 = 512, * 0xd744fcc9 >> 32 = floor(430.55).
  EXPECT_EQ(pelt_v5_15::decay_load<uint64_t>(1024, 40), 430u);
  // Beyond 63 half-lives, nothing; at exactly 63 the shift keeps the top bit.
  EXPECT_EQ(pelt_v5_15::decay_load<uint64_t>(~uint64_t{0}, 32 * 63 + 1), 0u);
  EXPECT_EQ(pelt_v5_15::decay_load<uint64_t>(~uint64_t{0}, 32 * 63), 0u);  // (1 * 0xffffffff) >> 32
  // n = 0: v5.15 has no shortcut and multiplies by 0xffffffff / 2^32; v4.4 and v3.10 return val.
  EXPECT_EQ(pelt_v5_15::decay_load<uint64_t>(1000, 0), 999u);
  EXPECT_EQ(pelt_v5_15::decay_load<uint64_t>(uint64_t{1} << 40, 0), (uint64_t{1} << 40) - 256);
  EXPECT_EQ(pelt_v4_4::decay_load<uint64_t>(1000, 0), 1000u);
  EXPECT_EQ(pelt_v3_10::decay_load<uint64_t>(1000, 0), 1000u);
  // v3.10 multiplies in 64 bits: from 2^32 on, the product wraps.
  const uint64_t big = uint64_t{1} << 40;
  EXPECT_EQ(pelt_v4_4::decay_load<uint64_t>(big, 1), (big >> 32) * kKernelYnInv[1]);
  EXPECT_EQ(pelt_v3_10::decay_load<uint64_t>(big, 1), ((big * kKernelYnInv[1]) & ~uint64_t{0}) >> 32);
  EXPECT_NE(pelt_v3_10::decay_load<uint64_t>(big, 1), pelt_v4_4::decay_load<uint64_t>(big, 1));
  EXPECT_EQ(pelt_v3_10::decay_load<uint64_t>(47742, 5), pelt_v4_4::decay_load<uint64_t>(47742, 5));
}

TEST(DecayLoad, IsValTimesYToTheNRoundedDownForEveryN) {
  // val y^n, y = 2^(-1/32), from below: a table entry floor((2^32 - 1) y^i)
  // is short of 2^32 y^i by less than (1 + y^-i) / 2^32 < 2^-30 (relative),
  // and the shift and the product each round down by less than one unit.
  // 0 from n = 2017 on.
  for (uint64_t v : {uint64_t{1}, uint64_t{1023}, uint64_t{47742}, uint64_t{47742} << 10, (uint64_t{1} << 32) - 1,
                     uint64_t{1} << 40, ~uint64_t{0} >> 3}) {
    for (uint64_t n = 0; n <= 2100; ++n) {
      const long double exact = n > 2016 ? 0 : v * std::exp2(-static_cast<long double>(n) / 32);
      const long double low = exact * (1 - std::exp2(-30.0L)) - 2;
      for (uint64_t got : {pelt_v5_15::decay_load<uint64_t>(v, n), pelt_v4_4::decay_load<uint64_t>(v, n)}) {
        EXPECT_LE(got, exact) << v << " " << n;
        EXPECT_GE(got, low) << v << " " << n;
      }
      if (v < (uint64_t{1} << 32)) {
        EXPECT_EQ(pelt_v3_10::decay_load<uint64_t>(v, n), pelt_v4_4::decay_load<uint64_t>(v, n));
      }
    }
  }
}

TEST(AccumulatePeltSegments, HandWorkedValues) {
  // One boundary, d1 = 1024: 1024 * y = 1002.06 -> 1002; c2 = 47742 - 46718 - 1024 = 0.
  EXPECT_EQ(pelt_v5_15::accumulate_pelt_segments<uint64_t>(1, 1024, 0), 1002u);
  // Two boundaries: c1 = 1024 y^2 = 980.59 -> 980, c2 = 47742 - floor(45717.9) - 1024 = 1001, d3 = 7.
  EXPECT_EQ(pelt_v5_15::decay_load<uint64_t>(47742, 2), 45717u);
  EXPECT_EQ(pelt_v5_15::accumulate_pelt_segments<uint64_t>(2, 1024, 7), 980u + 1001u + 7u);
}

TEST(ComputeRunnableContrib, LoopFormEqualsTheTableUpTo32AndLoadAvgMaxFrom345) {
  for (uint64_t n = 0; n <= 32; ++n) EXPECT_EQ(pelt_v4_4::compute_runnable_contrib<uint64_t>(n), kKernelYnSum[n]);
  for (uint64_t n : {uint64_t{345}, uint64_t{346}, uint64_t{1000}, uint64_t{1} << 30})
    EXPECT_EQ(pelt_v4_4::compute_runnable_contrib<uint64_t>(n), 47742u) << "n " << n;
  // n = 64, by hand: one round gives 0 / 2 + 23371; n - 32 = 32 is not > 32;
  // decay_load(23371, 32) = (23371 >> 1) * 0xffffffff >> 32 = 11684; + yN_sum[32].
  EXPECT_EQ(pelt_v4_4::compute_runnable_contrib<uint64_t>(64), 11684u + 23371u);
  // n = 100: three rounds (23371, 35056, 40899), n = 4: decay_load(40899, 4) + yN_sum[4].
  EXPECT_EQ(pelt_v4_4::compute_runnable_contrib<uint64_t>(100),
            pelt_v4_4::decay_load<uint64_t>(40899, 4) + kKernelYnSum[4]);
}

TEST(ComputeRunnableContrib, V3_10AndV4_4AgreeEverywhere) {
  for (uint64_t n = 0; n < 400; ++n)
    EXPECT_EQ(pelt_v3_10::compute_runnable_contrib<uint64_t>(n), pelt_v4_4::compute_runnable_contrib<uint64_t>(n));
}

TEST(ComputeRunnableContrib, V4_9sTableFormDiffersFromTheLoopByOneAtNineValues) {
  // The loop halves and rounds down once per 32 periods; __accumulated_sum_N32
  // rounds once: for these n it is one higher.
  const std::array<uint64_t, 9> differ = {64, 96, 128, 160, 192, 224, 256, 288, 320};
  std::size_t next = 0;
  for (uint64_t n = 0; n < 400; ++n) {
    const uint64_t loop = pelt_v4_4::compute_runnable_contrib<uint64_t>(n);
    const uint64_t tabled = pelt_v4_4::compute_runnable_contrib_n32<uint64_t>(n);
    if (next < differ.size() && n == differ[next]) {
      EXPECT_EQ(tabled, loop + 1) << "n " << n;
      ++next;
    } else {
      EXPECT_EQ(tabled, loop) << "n " << n;
    }
  }
}

}  // namespace
}  // namespace cfsv
