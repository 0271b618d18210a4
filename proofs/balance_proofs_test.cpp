// The balancing claims' proofs: Sym computes what uint64_t computes for the
// verdicts of both eras; the claims' verdicts with their counterexamples
// re-run on uint64_t.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "claims/check.h"
#include "model/deterministic_random.h"
#include "proofs/proofs_test_util.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {
namespace {

// Load balancing (claims/balance_case.h).

// The values a uint64_t decode drew, replayed as Sym constants.
class RecordingReader {
 public:
  using value_type = uint64_t;
  explicit RecordingReader(DeterministicRandom& rng) : rng_(rng) {}
  std::size_t choose(std::size_t n) { return static_cast<std::size_t>(keep(rng_.below(n))); }
  uint64_t range(uint64_t lo, uint64_t hi) { return keep(rng_.below(4) ? rng_.range(lo, hi) : rng_.below(2) ? lo : hi); }
  uint64_t range(uint64_t lo, uint64_t hi, uint64_t) { return range(lo, hi); }
  bool exhausted() const { return false; }
  std::vector<uint64_t> drawn;

 private:
  uint64_t keep(uint64_t v) { return drawn.push_back(v), v; }
  DeterministicRandom& rng_;
};
class ReplayReader {
 public:
  using value_type = Sym;
  explicit ReplayReader(const std::vector<uint64_t>& v) : v_(v) {}
  std::size_t choose(std::size_t) { return static_cast<std::size_t>(v_.at(i_++)); }
  Sym range(uint64_t, uint64_t) { return Sym(v_.at(i_++)); }
  Sym range(const Sym&, const Sym&, uint64_t) { return Sym(v_.at(i_++)); }

 private:
  const std::vector<uint64_t>& v_;
  std::size_t i_ = 0;
};

uint64_t fold_bool(const SymBool& b) { return fold(select(b, Sym(1), Sym(0))); }

TEST(Sym, ComputesWhatUint64ComputesForTheBalancingVerdict) {
  z3::context ctx;
  ContextScope scope(ctx);
  DeterministicRandom rng{3};
  unsigned moves = 0;
  for (const char* id : {"lb-imbalance/no-reversal-load", "lb-imbalance/no-reversal-tasks-pkg-no-prefer"}) {
    const Claim& c = claim(id);
    for (int i = 0; i < 150; ++i) {
      RecordingReader r(rng);
      const BalanceCase<uint64_t> k = decode_balance_case(r, c.domain);
      ReplayReader sr(r.drawn);
      const BalanceCase<Sym> sk = decode_balance_case(sr, c.domain);
      const BalanceOutcome<uint64_t> o = run_balance(k);
      const BalanceOutcome<Sym> so = run_balance(sk);
      for (std::size_t g = 0; g < k.groups.size(); ++g)
        EXPECT_EQ(fold(sk.groups[g].type), static_cast<uint64_t>(k.groups[g].type)) << id << " case " << i;
      EXPECT_EQ(fold_bool(so.sds.has_busiest), o.sds.has_busiest) << id << " case " << i;
      EXPECT_EQ(fold(so.sds.busiest.v.group_load), o.sds.busiest.v.group_load) << id << " case " << i;
      EXPECT_EQ(fold(so.verdict.type), static_cast<uint64_t>(o.verdict.type)) << id << " case " << i;
      EXPECT_EQ(fold(so.verdict.imbalance), static_cast<uint64_t>(o.verdict.imbalance)) << id << " case " << i;
      EXPECT_EQ(fold_bool(balance_holds(c.kind, sk)), balance_holds(c.kind, k)) << id << " case " << i;
      moves += o.verdict.imbalance != 0;
    }
  }
  EXPECT_GT(moves, 30u);  // the cases reach the verdicts that move something
}

// The refutations re-run on uint64_t, with the wraps and the overflow they
// show. (The task claim's proof, 4 queries and ~40 s, is
// Engine/EveryRegisteredClaim.GetsTheVerdictItExpects/lb_imbalance_no_reversal_tasks.)
TEST(BalanceProofs, TheLoadOverflowAndTheIdleCpuWrapAreRefuted) {
  const ProofResult load = prove_smoke("lb-imbalance/no-reversal-load");
  ASSERT_EQ(load.outcome, Outcome::refuted) << load.detail;
  const std::vector<Value>& lv = load.counterexample.values;
  EXPECT_EQ(value_of(lv, "migration_type"), "migrate_load");
  // one of min()'s unsigned differences wrapped: the domain's average below the
  // local group's or above the busiest one's
  const uint64_t avg = value(lv, "sds_avg_load");
  EXPECT_TRUE(avg < value(lv, "local_load") * kSchedCapacityScale / value(lv, "local_capacity") ||
              avg > value(lv, *value_of(lv, "busiest") + "_avg_load"))
      << format_counterexample(load.counterexample);
  const ProofResult wrap = prove_smoke("lb-imbalance/no-reversal-tasks-pkg-no-prefer");
  ASSERT_EQ(wrap.outcome, Outcome::refuted) << wrap.detail;
  const std::vector<Value>& wv = wrap.counterexample.values;
  EXPECT_EQ(value_of(wv, "migration_type"), "migrate_task");
  EXPECT_GE(value(wv, "imbalance"), uint64_t{1} << 30);  // (local - busiest idle CPUs) >> 1 as unsigned int
}


TEST(Sym, ComputesWhatUint64ComputesForTheEra1BalancingVerdict) {
  z3::context ctx;
  ContextScope scope(ctx);
  DeterministicRandom rng{5};
  unsigned moves = 0, balanced = 0;
  for (const char* id : {"lb-v4.4/no-reversal-load", "lb-v4.4/idle-pulls-overloaded"}) {
    const Claim& c = claim(id);
    for (int i = 0; i < 150; ++i) {
      RecordingReader r(rng);
      const BalanceCaseV4<uint64_t> k = decode_balance_case_v4(r, c.domain);
      ReplayReader sr(r.drawn);
      const BalanceCaseV4<Sym> sk = decode_balance_case_v4(sr, c.domain);
      const BalanceOutcomeV4<uint64_t> o = run_balance_v4(k);
      const BalanceOutcomeV4<Sym> so = run_balance_v4(sk);
      for (std::size_t g = 0; g < k.groups.size(); ++g) {
        EXPECT_EQ(fold(sk.groups[g].type), static_cast<uint64_t>(k.groups[g].type)) << id << " case " << i;
        EXPECT_EQ(fold(sk.groups[g].avg_load), k.groups[g].avg_load) << id << " case " << i;
      }
      EXPECT_EQ(fold_bool(so.sds.has_busiest), o.sds.has_busiest) << id << " case " << i;
      EXPECT_EQ(fold(so.sds.busiest.avg_load), o.sds.busiest.avg_load) << id << " case " << i;
      EXPECT_EQ(fold_bool(so.verdict.busiest), o.verdict.busiest) << id << " case " << i;
      EXPECT_EQ(fold(so.verdict.imbalance), o.verdict.imbalance) << id << " case " << i;
      EXPECT_EQ(fold_bool(balance_v4_holds(c.kind, sk)), balance_v4_holds(c.kind, k)) << id << " case " << i;
      moves += o.verdict.imbalance != 0;
      balanced += !o.verdict.busiest;
    }
  }
  EXPECT_GT(moves, 30u);  // the cases reach both verdicts
  EXPECT_GT(balanced, 30u);
}

// The same for v3.10's verdict (claims/balance_v3_case.h), capacities and group_imb included.
TEST(Sym, ComputesWhatUint64ComputesForV310sBalancingVerdict) {
  z3::context ctx;
  ContextScope scope(ctx);
  DeterministicRandom rng{7};
  unsigned moves = 0, balanced = 0, imb = 0;
  for (const char* id : {"lb-v3.10/no-reversal-load", "lb-v3.10/idle-pulls-overloaded"}) {
    const Claim& c = claim(id);
    for (int i = 0; i < 150; ++i) {
      RecordingReader r(rng);
      const BalanceCaseV3<uint64_t> k = decode_balance_case_v3(r, c.domain);
      ReplayReader sr(r.drawn);
      const BalanceCaseV3<Sym> sk = decode_balance_case_v3(sr, c.domain);
      const BalanceOutcomeV3<uint64_t> o = run_balance_v3(k);
      const BalanceOutcomeV3<Sym> so = run_balance_v3(sk);
      for (std::size_t g = 0; g < k.groups.size(); ++g) {
        EXPECT_EQ(fold(sk.groups[g].group_capacity), k.groups[g].group_capacity) << id << " case " << i;
        EXPECT_EQ(fold_bool(sk.groups[g].group_imb), k.groups[g].group_imb) << id << " case " << i;
        EXPECT_EQ(fold(sk.groups[g].avg_load), k.groups[g].avg_load) << id << " case " << i;
        imb += k.groups[g].group_imb;
      }
      EXPECT_EQ(fold_bool(so.sds.has_busiest), o.sds.has_busiest) << id << " case " << i;
      EXPECT_EQ(fold_bool(so.verdict.busiest), o.verdict.busiest) << id << " case " << i;
      EXPECT_EQ(fold(so.verdict.imbalance), o.verdict.imbalance) << id << " case " << i;
      EXPECT_EQ(fold_bool(balance_v3_holds(c.kind, sk)), balance_v3_holds(c.kind, k)) << id << " case " << i;
      moves += o.verdict.imbalance != 0;
      balanced += !o.verdict.busiest;
    }
  }
  EXPECT_GT(moves, 30u);  // the cases reach both verdicts, and group_imb
  EXPECT_GT(balanced, 30u);
  EXPECT_GT(imb, 10u);
}

// Era 1: both claims refuted, each model re-run on uint64_t and read back.
TEST(BalanceProofs, Era1sLoadMoveCanReverseAndAnIdleCpuCanLeaveAnOverloadedGroupAlone) {
  const ProofResult load = prove_smoke("lb-v4.4/no-reversal-load");
  ASSERT_EQ(load.outcome, Outcome::refuted) << load.detail;
  const std::vector<Value>& lv = load.counterexample.values;
  EXPECT_EQ(value_of(lv, "verdict"), "busiest group found");
  const uint64_t x = value(lv, "imbalance");
  ASSERT_GT(x, 0u);
  const std::string b = *value_of(lv, "busiest");
  const uint64_t b_load = value(lv, b + "_load");
  EXPECT_TRUE(x > b_load || (value(lv, "local_load") + x) * kSchedCapacityScale / value(lv, "local_capacity") >
                                (b_load - x) * kSchedCapacityScale / value(lv, b + "_capacity"))
      << format_counterexample(load.counterexample);
  const ProofResult idle = prove_smoke("lb-v4.4/idle-pulls-overloaded");
  ASSERT_EQ(idle.outcome, Outcome::refuted) << idle.detail;
  const std::vector<Value>& iv = idle.counterexample.values;
  EXPECT_EQ(value_of(iv, "verdict"), "balanced");
  EXPECT_NE(value_of(iv, "idle"), "not_idle");
  EXPECT_LT(value(iv, "local_nr_running"), value(iv, "local_weight"));
  EXPECT_EQ(value(iv, "local_sgc_imbalance"), 0u);
}


}  // namespace
}  // namespace cfsv::proofs
