// The load-balancing claims (claims/balance_case.h) on hand cases: v5.15's
// load overflow reverses an imbalance; the idle-CPU difference wraps only on
// a level v5.15 does not build; the decoder stays in the domain it states.
#include <gtest/gtest.h>

#include <vector>

#include "claims/check.h"
#include "properties/claim_checks.h"
#include "properties/runner.h"

namespace cfsv {
namespace {

// A Reader that returns the given values in order (0 past the end),
// each clamped into its range: a case written out by hand.
class ListReader {
 public:
  using value_type = uint64_t;
  explicit ListReader(std::vector<uint64_t> v) : v_(std::move(v)) {}
  std::size_t choose(std::size_t n) { return static_cast<std::size_t>(range(0, n - 1)); }
  uint64_t range(uint64_t lo, uint64_t hi) {
    const uint64_t x = i_ < v_.size() ? v_[i_++] : 0;
    EXPECT_TRUE(lo <= x && x <= hi) << "value " << i_ - 1 << ": " << x << " not in [" << lo << ", " << hi << "]";
    return x;
  }
  uint64_t range(uint64_t lo, uint64_t hi, uint64_t) { return range(lo, hi); }
  bool exhausted() const { return i_ >= v_.size(); }

 private:
  std::vector<uint64_t> v_;
  std::size_t i_ = 0;
};

// One group as decode_lb_group reads it: weight, idle CPUs, nr, h_nr,
// capacity (above w), util and runnable, each read from 0 up (either_end),
// load, sgc->imbalance.
std::vector<uint64_t> group(uint64_t w, uint64_t idle, uint64_t nr, uint64_t cap, uint64_t util, uint64_t runnable,
                            uint64_t load) {
  return {w, idle, nr, nr, 0, cap - w, 0, util, 0, runnable, load, 0};
}

// level: the index among the domain's levels of imbalance_pct 117 (the first
// structural choice: 117 is the second value of v5_15_levels(), the first of
// pkg_no_prefer_levels()).
std::vector<uint64_t> case_of(uint64_t pct_choice, uint64_t level, uint64_t idle,
                              const std::vector<std::vector<uint64_t>>& groups) {
  std::vector<uint64_t> out = {pct_choice, 3 - groups.size(), level, idle};
  for (const auto& g : groups) out.insert(out.end(), g.begin(), g.end());
  return out;
}

std::optional<Counterexample> check(const char* id, const std::vector<uint64_t>& values) {
  ListReader r(values);
  return check_case(*claim_by_id(id), r, Budget::smoke);
}

// v5_15_levels() of imbalance_pct 117: mc, mc-over-smt, die, numa, numa-over-numa.
constexpr uint64_t kV515Pct117 = 1, kMc = 0, kMcOverSmt = 1, kDie = 2, kNotIdle = 1, kIdle = 0;

TEST(BalanceClaims, AFullyBusyLocalGroupAboveTheDomainAverageReceivesLoadPastTheBusiestGroup) {
  // local fully busy at avg_load 500, busiest overloaded at 600, a third
  // group idle: sds->avg_load 366 < local's, so (sds->avg_load -
  // local->avg_load) wraps and min() takes (600 - 366) * 1024 / 1024 = 234.
  const std::vector<uint64_t> c = case_of(kV515Pct117, kDie, kNotIdle,
                                          {group(1, 0, 1, 1024, 1024, 1024, 500), group(1, 0, 2, 1024, 1024, 2048, 600),
                                           group(1, 1, 0, 1024, 0, 0, 0)});
  const std::optional<Counterexample> cx = check("lb-imbalance/no-reversal-load", c);
  ASSERT_TRUE(cx);
  EXPECT_EQ(value_of(cx->values, "local_type"), "fully_busy");
  EXPECT_EQ(value_of(cx->values, "group1_type"), "overloaded");
  EXPECT_EQ(value_of(cx->values, "busiest"), "group1");
  EXPECT_EQ(value_of(cx->values, "sds_avg_load"), "366");
  EXPECT_EQ(value_of(cx->values, "migration_type"), "migrate_load");
  EXPECT_EQ(value_of(cx->values, "imbalance"), "234");
  EXPECT_EQ(value_of(cx->values, "local_avg_load_after"), "734");
  EXPECT_EQ(value_of(cx->values, "busiest_avg_load_after"), "366");
  // With only two groups the domain's average lies between them: no reversal.
  const std::vector<uint64_t> two = case_of(
      kV515Pct117, kDie, kNotIdle, {group(1, 0, 1, 1024, 1024, 1024, 500), group(1, 0, 2, 1024, 1024, 2048, 600)});
  EXPECT_FALSE(check("lb-imbalance/no-reversal-load", two));
}

TEST(BalanceClaims, TheIdleCpuDifferenceWrapsOnlyOnASharedCacheLevelWithoutPreferSiblingAndWideGroups) {
  // local has spare capacity with 1 idle CPU of 4, busiest is overloaded with
  // 2 idle CPUs of 4: (1 - 2) as unsigned int, halved, is 2^31 - 1 tasks.
  const auto groups = [] {
    return std::vector<std::vector<uint64_t>>{group(4, 1, 3, 4096, 1000, 3000, 3000),
                                              group(4, 2, 6, 4096, 2048, 12000, 6000)};
  };
  // pkg_no_prefer_levels()[0]: SD_SHARE_PKG_RESOURCES alone.
  const std::optional<Counterexample> cx = check("lb-imbalance/no-reversal-tasks-pkg-no-prefer", case_of(0, 0, kIdle, groups()));
  ASSERT_TRUE(cx);
  EXPECT_EQ(value_of(cx->values, "migration_type"), "migrate_task");
  EXPECT_EQ(value_of(cx->values, "imbalance"), "2147483647");
  // With prefer_sibling (v5.15's mc-over-smt) the running-task difference is halved instead.
  EXPECT_FALSE(check("lb-imbalance/no-reversal-tasks", case_of(kV515Pct117, kMcOverSmt, kIdle, groups())));
}

TEST(BalanceClaims, V515sSharedCacheLevelsWithoutPreferSiblingHaveSingleCpuGroups) {
  // mc with no SMT below: a group of one CPU, so the nr_running branch.
  std::vector<uint64_t> c = case_of(kV515Pct117, kMc, kIdle, {group(1, 0, 1, 1024, 100, 1024, 1000),
                                                  group(1, 0, 4, 1024, 1024, 4096, 4000)});
  EXPECT_FALSE(check("lb-imbalance/no-reversal-tasks", c));
}

// Every seed finds both refutations within the smoke budget's 100 cases
// (about 1 in 16 and 1 in 22 random cases refutes, each checked from every
// group's CPU).
TEST(BalanceClaims, ThePropertiesEngineRefutesTheLoadAndPkgNoPreferClaimsAndPassesTheTaskClaimForEverySeed) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const CheckConfig config = properties::smoke_config(seed);
    const EngineResult load = properties::check_claim(*claim_by_id("lb-imbalance/no-reversal-load"), config);
    EXPECT_EQ(load.verdict, Verdict::refuted) << "seed " << seed << ": " << load.detail;
    EXPECT_EQ(value_of(load.counterexample.values, "migration_type"), "migrate_load") << load.reproducer;
    const EngineResult tasks = properties::check_claim(*claim_by_id("lb-imbalance/no-reversal-tasks"), config);
    EXPECT_EQ(tasks.verdict, Verdict::passed) << "seed " << seed << ": " << tasks.detail;
    const EngineResult wrap = properties::check_claim(*claim_by_id("lb-imbalance/no-reversal-tasks-pkg-no-prefer"), config);
    EXPECT_EQ(wrap.verdict, Verdict::refuted) << "seed " << seed << ": " << wrap.detail;
    EXPECT_EQ(value_of(wrap.counterexample.values, "migration_type"), "migrate_task") << wrap.reproducer;
  }
}


// Era 1 (claims/balance_v4_case.h). One group as decode_lb_group_v4 reads
// it: weight, idle CPUs, nr_running, weighted load, the history load (read
// as group_load on levels whose load index for the idle type is not 0),
// capacity above w, util, sgc->imbalance.
std::vector<uint64_t> group_v4(uint64_t w, uint64_t idle, uint64_t nr, uint64_t weighted, uint64_t history,
                               uint64_t cap, uint64_t util) {
  return {w, idle, nr, weighted, history, cap - w, util, 0};  // sgc->imbalance: 3 sets it
}
// v4_4_levels(): imbalance_pct 110, 117, 125; of 125: die, die-over-smt, numa.
std::vector<uint64_t> case_v4(uint64_t idle, const std::vector<std::vector<uint64_t>>& groups) {
  std::vector<uint64_t> out = {2, groups.size() - 2, 2, idle};
  for (const auto& g : groups) out.insert(out.end(), g.begin(), g.end());
  return out;
}
constexpr uint64_t kNewlyIdle = 2;

TEST(BalanceClaimsV4, TheGroupImbalanceScenariosNumaBalanceLeavesTheIdleCoreIdle) {
  // examples/wasted_group_imbalance.scn on v4.4, CPU 3's CPU_IDLE balance of
  // the NUMA domain (docs/balancing.md, "Era 1"): node 0 runs r's task (its
  // group's whole weight) and two make threads on 3 of its 4 cores, target
  // loads 1258 in all: avg_load 1258 * 1024 / 4096 = 314; node 1 runs six
  // make threads on 4 cores, loads 752: avg_load 188, overloaded (util 4096 *
  // 125 > 4096 * 100). find_busiest_group: local->avg_load 314 >= busiest's
  // 188, so balanced: nothing is pulled.
  const auto groups = [](uint64_t local_load) {
    return std::vector<std::vector<uint64_t>>{group_v4(4, 1, 3, local_load, local_load, 4096, 3072),
                                              group_v4(4, 0, 6, 752, 752, 4096, 4096)};
  };
  const std::optional<Counterexample> cx = check("lb-v4.4/idle-pulls-overloaded", case_v4(kIdle, groups(1258)));
  ASSERT_TRUE(cx);
  EXPECT_EQ(value_of(cx->values, "level"), "numa");
  EXPECT_EQ(value_of(cx->values, "local_avg_load"), "314");
  EXPECT_EQ(value_of(cx->values, "group1_avg_load"), "188");
  EXPECT_EQ(value_of(cx->values, "group1_type"), "group_overloaded");
  EXPECT_EQ(value_of(cx->values, "verdict"), "balanced");
  // Lighter on node 0 (r's task as heavy as a make thread: 3 x 125), the idle core pulls.
  EXPECT_FALSE(check("lb-v4.4/idle-pulls-overloaded", case_v4(kIdle, groups(375))));
  // A newly idle CPU would: group_no_capacity forces the balance (idle cores never run one).
  EXPECT_FALSE(check("lb-v4.4/idle-pulls-overloaded", case_v4(kNewlyIdle, groups(1258))));
}

TEST(BalanceClaimsV4, FixSmallImbalanceMovesAWholeTaskPastTheBalancePoint) {
  // not_idle at NUMA level: local runs one task of load 1024 on one busy
  // core of 2 (avg_load 512), busiest runs 2 tasks of 1024 on 2 cores
  // (avg_load 1024), sds avg_load 768. calculate_imbalance: min(1024 - 768,
  // ~0) * 2048 and (768 - 512) * 2048, / 1024 = 512 < load_per_task 1024, so
  // fix_small_imbalance: imbn 2 (local's task not lighter), gap 1024 + 512 >=
  // 512 + 1024: move one task's load, 1024. Local's avg_load becomes 1024,
  // busiest's 512: reversed.
  const std::optional<Counterexample> cx =
      check("lb-v4.4/no-reversal-load", case_v4(kNotIdle, {group_v4(2, 0, 1, 1024, 1024, 2048, 1024),
                                                           group_v4(2, 0, 2, 2048, 2048, 2048, 2048)}));
  ASSERT_TRUE(cx);
  EXPECT_EQ(value_of(cx->values, "imbalance"), "1024");
  EXPECT_EQ(value_of(cx->values, "local_avg_load_after"), "1024");
  EXPECT_EQ(value_of(cx->values, "busiest_avg_load_after"), "512");
}

// The load claim falls within the smoke budget's 100 cases for every seed;
// the idle claim's premise needs the idle type, a spare local group, an
// overloaded other group and no pinned flag at once (19 of seeds 1..20
// within 100 cases, not 5): the ci budget's 1,000.
TEST(BalanceClaimsV4, ThePropertiesEngineRefutesBothEra1ClaimsForEverySeed) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    CheckConfig config = properties::smoke_config(seed);
    const EngineResult load = properties::check_claim(*claim_by_id("lb-v4.4/no-reversal-load"), config);
    EXPECT_EQ(load.verdict, Verdict::refuted) << "seed " << seed << ": " << load.detail;
    config.budget = Budget::ci;
    const EngineResult idle = properties::check_claim(*claim_by_id("lb-v4.4/idle-pulls-overloaded"), config);
    EXPECT_EQ(idle.verdict, Verdict::refuted) << "seed " << seed << ": " << idle.detail;
    EXPECT_EQ(value_of(idle.counterexample.values, "verdict"), "balanced") << idle.reproducer;
  }
}

// v3.10 (claims/balance_v3_case.h). One group as decode_lb_group_v3 reads
// it: weight, idle CPUs, nr_running, weighted load, the history load, power
// above w, group_imb's draw (3 sets it where it can be set).
std::vector<uint64_t> group_v3(uint64_t w, uint64_t idle, uint64_t nr, uint64_t weighted, uint64_t history,
                               uint64_t power) {
  return {w, idle, nr, weighted, history, power - w, 0};
}
// v3_10_levels() of imbalance_pct 125: mc, mc-over-smt, cpu, numa.
std::vector<uint64_t> case_v3(uint64_t idle, const std::vector<std::vector<uint64_t>>& groups) {
  std::vector<uint64_t> out = {1, groups.size() - 2, 3, idle};
  for (const auto& g : groups) out.insert(out.end(), g.begin(), g.end());
  return out;
}

TEST(BalanceClaimsV3, TheGroupImbalanceScenariosNumaBalanceLeavesTheIdleCoresIdle) {
  // examples/wasted_group_imbalance.scn on v3.10, an idle CPU of node 0 at
  // the NUMA level: node 0 runs r's task (its group's whole weight, 1024) on
  // 1 of 4 CPUs: avg_load 1024 * 1024 / 4096 = 256; node 1 runs the eight
  // make threads (their group's 1024 over 4 CPUs): avg_load 256, 8 tasks on
  // a capacity of 4, so the busiest. local->avg_load 256 >= busiest's 256:
  // balanced, nothing pulled (docs/balancing.md, "The Group Imbalance scenario").
  const auto groups = [](uint64_t local_load) {
    return std::vector<std::vector<uint64_t>>{group_v3(4, 3, 1, local_load, local_load, 4096),
                                              group_v3(4, 0, 8, 1024, 1024, 4096)};
  };
  const std::optional<Counterexample> cx = check("lb-v3.10/idle-pulls-overloaded", case_v3(kIdle, groups(1024)));
  ASSERT_TRUE(cx);
  EXPECT_EQ(value_of(cx->values, "level"), "numa");
  EXPECT_EQ(value_of(cx->values, "local_avg_load"), "256");
  EXPECT_EQ(value_of(cx->values, "group1_avg_load"), "256");
  EXPECT_EQ(value_of(cx->values, "group1_capacity"), "4");
  EXPECT_EQ(value_of(cx->values, "busiest"), "group1");
  EXPECT_EQ(value_of(cx->values, "verdict"), "balanced");
  // r's task half as heavy: local avg_load 128, below both; 3 idle CPUs > 0 + 1: a busiest group.
  EXPECT_FALSE(check("lb-v3.10/idle-pulls-overloaded", case_v3(kIdle, groups(512))));
}

}  // namespace
}  // namespace cfsv
