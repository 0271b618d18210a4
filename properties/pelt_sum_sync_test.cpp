// v5.17's relaxed PELT sum syncs (feature pelt_relaxed_sum_sync, on in v6.4;
// kernel/sched/fair.c v6.4, model/arith/pelt_attach.h and model/pelt.cpp):
// a cfs_rq's sums lose the entity's sums and are floored at
// avg * PELT_MIN_DIVIDER, where v5.15.100 rebuilds them from the averages.
// The floor is max_t(u32, ...), which keeps only the low 32 bits of a u64
// load_sum or runnable_sum (until 089d84203ad4, "sched/fair: Fold the
// sched_avg update", Dec 2025, compares them as their own type). Worked by hand.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "claims/check.h"
#include "model/arith/pelt_attach.h"
#include "properties/rc_reader.h"
#include "properties/sim_pelt_test_util.h"

namespace cfsv {
namespace {

using pelt_v5_15::SchedAvg;
using simtest::kMs;

constexpr uint64_t kMinDivider = 47742 - 1024;  // PELT_MIN_DIVIDER
constexpr uint64_t k2To32 = uint64_t{1} << 32;

TEST(PeltSumSync, ADequeueTakesTheEntitysWeightedSumAwayWhereV5_15RebuildsItFromTheAverage) {
  // cfs_rq: period_contrib 500, divider 46718 + 500 = 47218; load_avg 3072,
  // load_sum 3072 * 47218 + 1000. The entity (weight 1024): load_avg 1024,
  // load_sum 47000, period_contrib 300.
  const SchedAvg<uint64_t> cfs0{.load_sum = 3072 * 47218 + 1000, .period_contrib = 500, .load_avg = 3072};
  const SchedAvg<uint64_t> se{.load_sum = 47000, .period_contrib = 300, .load_avg = 1024};
  SchedAvg<uint64_t> v5 = cfs0, v6 = cfs0;
  pelt_v5_15::dequeue_load_avg<uint64_t>(v5, se, 1024, false);
  pelt_v5_15::dequeue_load_avg<uint64_t>(v6, se, 1024, true);
  EXPECT_EQ(v5.load_avg, 2048u);
  EXPECT_EQ(v6.load_avg, 2048u);
  // v5.15.100: 2048 * the entity's divider, 46718 + 300.
  EXPECT_EQ(v5.load_sum, 2048u * 47018);  // 96,292,864
  // v6.4: 145,054,696 - 1024 * 47000 = 96,926,696, above the floor 2048 * 46718 = 95,678,464.
  EXPECT_EQ(v6.load_sum, 96'926'696u);
}

TEST(PeltSumSync, TheFloorKeepsOnlyTheLow32BitsOfALoadSumOf2To32OrMore) {
  // Three nice -20 entities (weight 88761) always runnable, divider 47000:
  // load_sum 3 * 88761 * 47000 = 12,515,301,000, above 2^32. One leaves:
  // 8,343,534,000 left, floor 2 * 88761 * 46718 = 8,293,472,796; max_t(u32, ...)
  // compares 8,343,534,000 - 2^32 = 4,048,566,704 with 8,293,472,796 - 2^32
  // = 3,998,505,500 and keeps the first: half the sum is gone.
  const SchedAvg<uint64_t> cfs0{.load_sum = uint64_t{3} * 88761 * 47000, .period_contrib = 282, .load_avg = 3 * 88761};
  const SchedAvg<uint64_t> se{.load_sum = 47000, .period_contrib = 282, .load_avg = 88761};
  SchedAvg<uint64_t> v5 = cfs0, v6 = cfs0;
  pelt_v5_15::dequeue_load_avg<uint64_t>(v5, se, 88761, false);
  pelt_v5_15::dequeue_load_avg<uint64_t>(v6, se, 88761, true);
  EXPECT_EQ(v5.load_sum, uint64_t{2} * 88761 * 47000);
  EXPECT_EQ(v6.load_sum, 4'048'566'704u);
  EXPECT_EQ(v6.load_sum, uint64_t{2} * 88761 * 47000 - k2To32);
  // What the next update divides: 86,139 where v5.15 has 177,522.
  EXPECT_EQ(v6.load_sum / 47000, 86'139u);
  EXPECT_EQ(pelt_v5_15::floor_sum_u32<uint64_t>(k2To32 + 5, 0), 5u);
}

TEST(PeltSumSync, ADetachTakesUtilAndRunnableSumsAwayAndFloorsThemAtTheMinimumDivider) {
  // cfs_rq (divider 47218): util_avg 700 with a util_sum below 700 * 46718
  // (30,000,000), runnable_avg 700, runnable_sum 700 * 47218 + 7. The
  // entity: util and runnable 300, sums 300 * 47218.
  SchedAvg<uint64_t> cfs0{.runnable_sum = 700 * 47218 + 7, .util_sum = 30'000'000, .period_contrib = 500};
  cfs0.runnable_avg = cfs0.util_avg = 700;
  SchedAvg<uint64_t> se{.runnable_sum = 300 * 47218, .util_sum = 300 * 47218, .period_contrib = 500};
  se.runnable_avg = se.util_avg = 300;
  SchedAvg<uint64_t> v5 = cfs0, v6 = cfs0;
  pelt_v5_15::detach_entity_load_avg<uint64_t>(v5, se, 1024, false);
  pelt_v5_15::detach_entity_load_avg<uint64_t>(v6, se, 1024, true);
  EXPECT_EQ(v5.util_avg, 400u);
  EXPECT_EQ(v6.util_avg, 400u);
  EXPECT_EQ(v5.util_sum, 400u * 47218);  // rebuilt
  // 30,000,000 - 14,165,400 = 15,834,600 is below the floor 400 * 46718.
  EXPECT_EQ(v6.util_sum, 400u * kMinDivider);
  EXPECT_EQ(v5.runnable_sum, 400u * 47218);
  EXPECT_EQ(v6.runnable_sum, 400u * 47218 + 7);  // the difference, above the floor
}

// One CPU: three busy nice -20 tasks in the root (load 3 * 88761) and a busy
// nice-0 task in /g. The root cfs_rq's load_sum is about 267,307 * 47,000,
// above 2^32. Each tick of /g's task runs update_cfs_group, whose
// reweight_entity takes /g's entity out of the root's sums and puts it back:
// v5.15.100 rebuilds load_sum from load_avg; v6.4 keeps the low 32 bits.
TEST(PeltSumSync, V6_4CutsTheRootLoadSumToItsLow32BitsAtAGroupEntitysReweight) {
  const auto run_to = [](const std::string& kernel, Nanos t) {
    Scenario sc = simtest::basic(kernel);
    sc.groups = {{"/g", 1024}};
    sc.tasks = {simtest::task("a", -20), simtest::task("b", -20), simtest::task("c", -20),
                simtest::task("d", 0, "/g")};
    sc.duration = 100 * kMs;
    auto sim = std::make_unique<Sim>(sc);
    sim->run_to(t);
    EXPECT_TRUE(sim->checker()->ok()) << sim->checker()->violations().front().to_string();
    return sim;
  };
  const auto v5 = run_to("v5.15", 1 * kMs), v6 = run_to("v6.4", 1 * kMs);
  EXPECT_EQ(simtest::root_avg(*v5, 0).load_avg, 3u * 88761 + 1024);  // all attached at fork
  EXPECT_EQ(simtest::root_avg(*v6, 0).load_avg, 3u * 88761 + 1024);
  EXPECT_GE(simtest::root_avg(*v5, 0).load_sum, k2To32);
  EXPECT_LT(simtest::root_avg(*v6, 0).load_sum, k2To32);  // cut at d's first reweight
  // By 2 ms the root's load_avg is what is left below 2^32: at most
  // 2^32 / PELT_MIN_DIVIDER = 91,933, about a third of the load queued.
  uint64_t cut = 0;
  for (const Nanos t : {2 * kMs, 100 * kMs}) {
    const auto a = run_to("v5.15", t), b = run_to("v6.4", t);
    const cfsv::SchedAvg& root5 = simtest::root_avg(*a, 0);
    const cfsv::SchedAvg& root6 = simtest::root_avg(*b, 0);
    EXPECT_GE(root5.load_avg, 3u * 88761) << "at " << t;
    EXPECT_LE(root5.load_avg, 268'000u) << "at " << t;  // v5.15's rebuilds round up a little
    if (t == 2 * kMs) {
      EXPECT_LE(root6.load_avg, k2To32 / kMinDivider);
      cut = root6.load_avg;
    } else {  // it climbs back with PELT's 32-ms half-life, cut again whenever d's reweight finds it above 2^32
      EXPECT_GT(root6.load_avg, cut);
      EXPECT_LT(root6.load_avg + 10'000, root5.load_avg);
    }
    // A task's own averages do not read the root's sums: they agree.
    EXPECT_EQ(simtest::task_avg(*a, "a").load_avg, simtest::task_avg(*b, "a").load_avg) << "at " << t;
  }
}

// The claim pelt-sync/floor-kept (kind pelt_sync_floor, claims/pelt_case.h).

const Claim& sync_claim(bool relaxed) {
  return *claim_by_id(relaxed ? "pelt-sync/floor-kept" : "pelt-sync/floor-kept-v5.15");
}

// A cfs_rq of load_avg `load` in sync (period_contrib 0: load_sum = load *
// 46718), nothing else, and a weightless entity leaving it by dequeue_load_avg.
PeltCase<uint64_t> sync_case(uint64_t load) {
  PeltCase<uint64_t> c;
  for (const char* n : {"detach", "se_period_contrib", "se_load_sum", "se_load_avg", "se_util_avg", "se_util_sum",
                        "se_runnable_avg", "se_runnable_sum", "period_contrib", "util_avg", "util_sum",
                        "runnable_avg", "runnable_sum"})
    c.in.push_back({n, 0});
  c.in.push_back({"se_weight", 2});
  c.in.push_back({"load_avg", load});
  c.in.push_back({"load_sum", load * kMinDivider});
  return c;
}

TEST(PeltSyncClaim, TheRelaxedFloorHoldsUpToALoadOf91933AndNotAbove) {
  // 91,933 * 46,718 = 4,294,925,894 < 2^32 = 4,294,967,296 <= 91,934 * 46,718.
  EXPECT_TRUE(pelt_holds(sync_claim(true), sync_case(91'933)));
  EXPECT_FALSE(pelt_holds(sync_claim(true), sync_case(91'934)));
  EXPECT_TRUE(pelt_holds(sync_claim(false), sync_case(91'934)));
  EXPECT_TRUE(pelt_holds(sync_claim(false), sync_case(uint64_t{1} << 40)));
  const std::optional<Counterexample> cx = check_pelt_case(sync_claim(true), sync_case(91'934));
  ASSERT_TRUE(cx.has_value());
  // Both sides of max_t(u32, ...) are 4,294,972,612, whose low 32 bits are 5,316.
  EXPECT_EQ(cx->summary, "load_sum 5316 < load_avg x PELT_MIN_DIVIDER 4294972612 after dequeue_load_avg (era v5.15)");
}

// What the decoder reads is in its domain: both in sync, the cfs_rq's
// averages at least the entity's, load_avg from the entity's sum.
RC_GTEST_PROP(PeltSyncClaim, TheDecoderReadsAnEntityAndACfsRqInSync, ()) {
  properties::RcReader r;
  const PeltCase<uint64_t> c = decode_pelt_case(r, sync_claim(true));
  const uint64_t se_div = kMinDivider + c["se_period_contrib"], div = kMinDivider + c["period_contrib"];
  RC_ASSERT(c["se_load_avg"] == c["se_weight"] * c["se_load_sum"] / se_div);
  RC_ASSERT(c["se_load_sum"] <= se_div);
  for (const std::string n : {"load", "util", "runnable"}) {
    RC_ASSERT(c[n + "_avg"] >= c["se_" + n + "_avg"]);
    RC_ASSERT(c[n + "_sum"] / div == c[n + "_avg"]);
    if (n != "load") RC_ASSERT(c["se_" + n + "_sum"] / se_div == c["se_" + n + "_avg"]);
  }
  RC_ASSERT(c["util_avg"] <= 1024u);
  RC_ASSERT(c["load_avg"] <= uint64_t{1} << 40);
}

}  // namespace
}  // namespace cfsv
