// Group shares from PELT, worked by hand: calc_group_shares (v4.15+),
// calc_cfs_shares (v3.10, v4.4), the tg load_avg update test, and v3.10's
// group entity contributions.
#include <gtest/gtest.h>

#include <cstdint>

#include "model/arith/pelt_shares.h"
#include "model/arith/pelt_v3.h"

namespace cfsv {
namespace {

constexpr LoadResolution kV5 = kLoadResolutionV5_7;

TEST(CalcGroupShares, OneGroupOnTwoCpusWithTwoAndOneNice0Tasks) {
  // tg shares 1024 (scale_load: 1048576). CPU 0 holds two nice-0 tasks
  // (load.weight 2048 << 10, load_avg 2048), CPU 1 one (1024 << 10, 1024).
  // tg->load_avg = 2048 + 1024 = 3072, each cfs_rq's contrib current.
  const uint64_t tg_shares = 1024 << 10;
  // CPU 0: load = max(2048, 2048); tg_weight = 3072 - 2048 + 2048 = 3072;
  // 1048576 * 2048 / 3072 = 699050.67 -> 699050.
  EXPECT_EQ(calc_group_shares<uint64_t>(tg_shares, 2048 << 10, 2048, 3072, 2048, kV5), 699050u);
  // CPU 1: 1048576 * 1024 / 3072 = 349525.33 -> 349525.
  EXPECT_EQ(calc_group_shares<uint64_t>(tg_shares, 1024 << 10, 1024, 3072, 1024, kV5), 349525u);
  // CPU 1's task just arrived: load_avg 0, contrib 0, tg->load_avg 2048. The
  // instantaneous weight stands in: load = max(1024, 0), tg_weight = 2048 - 0 + 1024.
  EXPECT_EQ(calc_group_shares<uint64_t>(tg_shares, 1024 << 10, 0, 2048, 0, kV5), 349525u);
  // CPU 0 after its load_avg decayed to 1500 with contrib still 2048 (under
  // the 1/64 threshold it would not be, but say it is): load = max(2048, 1500)
  // = 2048, tg_weight = 3072 - 2048 + 2048.
  EXPECT_EQ(calc_group_shares<uint64_t>(tg_shares, 2048 << 10, 1500, 3072, 2048, kV5), 699050u);
  // A blocked cfs_rq (load.weight 0) keeps shares from its load_avg 300:
  // tg_weight = 3072 - 300 + 300, 1048576 * 300 / 3072 = 102400.
  EXPECT_EQ(calc_group_shares<uint64_t>(tg_shares, 0, 300, 3072, 300, kV5), 102400u);
}

TEST(CalcGroupShares, ClampsToMinSharesUnscaled) {
  // The kernel's own example: tg shares scale_load(15) = 15360 over 8 CPUs,
  // one nice-0 task each: 15360 * 1024 / 8192 = 1920, below scale_load(MIN_SHARES).
  EXPECT_EQ(calc_group_shares<uint64_t>(15 << 10, 1024 << 10, 1024, 8192, 1024, kV5), 1920u);
  // No load on this CPU: 0, raised to MIN_SHARES = 2.
  EXPECT_EQ(calc_group_shares<uint64_t>(15 << 10, 0, 0, 8192, 0, kV5), kFairMinShares);
}

TEST(CalcCfsShares, V4_4AndV3_10UseTheInstantaneousWeightOverTheTrackedSum) {
  // v4.4 (shares unscaled, 1024): CPU 0 load.weight 2048, contrib 2048; CPU 1 1024;
  // tg->load_avg 3072: 1024 * 2048 / 3072 = 682.67 -> 682 and 1024 * 1024 / 3072 = 341.33 -> 341.
  EXPECT_EQ(calc_cfs_shares<uint64_t>(1024, 2048, 3072, 2048), 682u);
  EXPECT_EQ(calc_cfs_shares<uint64_t>(1024, 1024, 3072, 1024), 341u);
  // A stale contrib (1000 where the cfs_rq now has 2048 queued): tg_weight =
  // 3072 - 1000 + 2048 = 4120, 1024 * 2048 / 4120 = 509.0 -> 509.
  EXPECT_EQ(calc_cfs_shares<uint64_t>(1024, 2048, 3072, 1000), 509u);
  // Nothing queued: MIN_SHARES.
  EXPECT_EQ(calc_cfs_shares<uint64_t>(1024, 0, 3072, 1024), kFairMinShares);
}

struct TgUpdate {
  uint64_t contrib, tg_load_avg, updated;
};
TgUpdate tg_update(uint64_t load_avg, uint64_t contrib, uint64_t tg_load_avg, uint64_t force, uint64_t skip_root) {
  const uint64_t updated = update_tg_load_avg<uint64_t>(load_avg, contrib, tg_load_avg, force, skip_root);
  return {contrib, tg_load_avg, updated};
}

TEST(UpdateTgLoadAvg, MovesTheGroupSumOnlyBeyondOneSixtyFourthOfTheContribution) {
  // contrib 6400: the threshold is 100, strictly exceeded.
  EXPECT_EQ(tg_update(6500, 6400, 10000, 0, 0).updated, 0u);
  EXPECT_EQ(tg_update(6300, 6400, 10000, 0, 0).updated, 0u);
  const TgUpdate up = tg_update(6501, 6400, 10000, 0, 0);
  EXPECT_EQ(up.updated, 1u);
  EXPECT_EQ(up.contrib, 6501u);
  EXPECT_EQ(up.tg_load_avg, 10101u);
  const TgUpdate down = tg_update(6299, 6400, 10000, 0, 0);
  EXPECT_EQ(down.contrib, 6299u);
  EXPECT_EQ(down.tg_load_avg, 9899u);
  // contrib 0: any change moves it.
  EXPECT_EQ(tg_update(1, 0, 7, 0, 0).tg_load_avg, 8u);
}

TEST(UpdateTgLoadAvg, ForceUpdatesAlwaysAndTheRootSkipNever) {
  const TgUpdate forced = tg_update(6450, 6400, 10000, 1, 0);
  EXPECT_EQ(forced.updated, 1u);
  EXPECT_EQ(forced.tg_load_avg, 10050u);
  EXPECT_EQ(forced.contrib, 6450u);
  // Seed 000: the root task group's sum is left alone, forced or not.
  for (uint64_t force : {0, 1}) {
    const TgUpdate root = tg_update(9000, 6400, 10000, force, 1);
    EXPECT_EQ(root.updated, 0u);
    EXPECT_EQ(root.contrib, 6400u);
    EXPECT_EQ(root.tg_load_avg, 10000u);
  }
}

TEST(PeltV3_10Groups, CfsRqTgLoadContribMovesBeyondOneEighth) {
  pelt_v3_10::GroupCfsRqAvg<uint64_t> q{.tg_load_contrib = 800};
  pelt_v3_10::TaskGroupAvg<uint64_t> tg{.load_avg = 2000};
  // runnable 600 + blocked 300 = 900: |900 - 800| = 100 is not > 800 / 8.
  EXPECT_EQ(pelt_v3_10::update_cfs_rq_tg_load_contrib<uint64_t>(600, 300, q, tg, 0), 0u);
  EXPECT_EQ(q.tg_load_contrib, 800u);
  EXPECT_EQ(pelt_v3_10::update_cfs_rq_tg_load_contrib<uint64_t>(600, 301, q, tg, 0), 1u);
  EXPECT_EQ(q.tg_load_contrib, 901u);
  EXPECT_EQ(tg.load_avg, 2101u);
  // Forced: back to 900, a change of 1.
  EXPECT_EQ(pelt_v3_10::update_cfs_rq_tg_load_contrib<uint64_t>(600, 300, q, tg, 1), 1u);
  EXPECT_EQ(q.tg_load_contrib, 900u);
  EXPECT_EQ(tg.load_avg, 2100u);
}

TEST(PeltV3_10Groups, GroupEntityContributionWithTheRunnableCorrection) {
  // tg_load_contrib 1000 of tg->load_avg 3000, shares 1024:
  // 1000 * 1024 / 3001 = 341.2 -> 341; with tg->runnable_avg 512 (half a CPU)
  // 341 * 512 >> 10 = 170.5 -> 170; from 1024 on, no correction.
  const pelt_v3_10::GroupCfsRqAvg<uint64_t> q{.tg_load_contrib = 1000};
  EXPECT_EQ(pelt_v3_10::group_entity_contrib<uint64_t>(q, {.load_avg = 3000, .runnable_avg = 512, .shares = 1024}),
            170u);
  EXPECT_EQ(pelt_v3_10::group_entity_contrib<uint64_t>(q, {.load_avg = 3000, .runnable_avg = 1024, .shares = 1024}),
            341u);
  EXPECT_EQ(pelt_v3_10::group_entity_contrib<uint64_t>(q, {.load_avg = 3000, .runnable_avg = 1023, .shares = 1024}),
            341u * 1023 >> 10);
}

TEST(PeltV3_10Groups, AGroupEntityFirstUpdatesTheRunnableAverageThenItsContribution) {
  // The group's cfs_rq ran half the time: runnable_avg_sum 23871 of period
  // 47742. Fraction (23871 << 10) / 47743 = 511.99 -> 511, moved from 0:
  // tg->runnable_avg becomes 511. Then 1000 * 1024 / 3001 = 341, * 511 >> 10 = 170.
  pelt_v3_10::SchedAvg<uint64_t> se{.runnable_avg_sum = 23871, .runnable_avg_period = 47742, .load_avg_contrib = 100};
  pelt_v3_10::GroupCfsRqAvg<uint64_t> q{.tg_load_contrib = 1000};
  pelt_v3_10::TaskGroupAvg<uint64_t> tg{.load_avg = 3000, .runnable_avg = 0, .shares = 1024};
  const uint64_t delta = pelt_v3_10::update_entity_load_avg_contrib<uint64_t>(se, q, tg);
  EXPECT_EQ(q.tg_runnable_contrib, 511u);
  EXPECT_EQ(tg.runnable_avg, 511u);
  EXPECT_EQ(se.load_avg_contrib, 341u * 511 >> 10);
  EXPECT_EQ(delta, se.load_avg_contrib - 100);
  // A task with the same sums: 23871 * 1024 / 47743 = 511.99 -> 511.
  pelt_v3_10::SchedAvg<uint64_t> task = se;
  EXPECT_EQ(pelt_v3_10::update_entity_load_avg_contrib<uint64_t>(task, 1024, kLoadResolutionV3_10),
            511u - se.load_avg_contrib);
  EXPECT_EQ(task.load_avg_contrib, 511u);
}

}  // namespace
}  // namespace cfsv
