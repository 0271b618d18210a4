// The bridge's restarts (proofs/bridge.h, with_restarts): an undecided
// query asked again under other seeds, each with its share of the budget.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "proofs/bridge.h"
#include "proofs/bv_to_int.h"

namespace cfsv::proofs {
namespace {

// Undecided attempts are asked again under other seeds with their shares of
// the budget; the first decision ends it, and its seconds are every attempt's.
TEST(Restarts, AnUndecidedQueryIsAskedAgainUnderOtherSeedsUntilOneDecidesWithinTheBudget) {
  std::vector<std::pair<uint32_t, unsigned>> asked;
  const auto decided_by = [&](unsigned seed) {
    return [&asked, seed](uint32_t timeout_ms, unsigned s) {
      asked.emplace_back(timeout_ms, s);
      BridgeResult r;
      r.outcome = s == seed && asked.size() > 1 ? Outcome::proved : Outcome::unknown;
      r.reason = "timeout after " + std::to_string(timeout_ms) + " ms";
      r.seconds = 0.5;
      return r;
    };
  };
  const BridgeResult third = with_restarts(60'000, decided_by(2));
  EXPECT_EQ(third.outcome, Outcome::proved);
  EXPECT_EQ(third.seconds, 1.5);
  EXPECT_EQ(asked, (std::vector<std::pair<uint32_t, unsigned>>{{2000, 0}, {2000, 1}, {4000, 2}}));
  asked.clear();
  const BridgeResult last = with_restarts(60'000, decided_by(0));  // seed 0 again, with the rest of the budget
  EXPECT_EQ(last.outcome, Outcome::proved);
  EXPECT_EQ(asked.back(), (std::pair<uint32_t, unsigned>{44'000, 0}));
  uint32_t total = 0;
  for (const auto& [t, seed] : asked) total += t;
  EXPECT_EQ(total, 60'000u);
  asked.clear();
  const BridgeResult none = with_restarts(60'000, decided_by(7));
  EXPECT_EQ(none.outcome, Outcome::unknown);
  EXPECT_EQ(asked.size(), 5u);
  EXPECT_EQ(none.reason, "timeout after 44000 ms (the last of 5 attempts: seeds 0 to 3, then 0 again)");
  // Both solvers take a seed (Z3 rejects a parameter it does not know).
  z3::context ctx;
  const z3::expr x = ctx.bv_const("x", 16);
  for (unsigned seed = 0; seed < 4; ++seed) {
    const z3::expr f = x * 3 + 7 == ctx.bv_val(154, 16) && z3::ult(x, 100);  // x = 49
    const BridgeResult bits = find(f, 10'000, seed), ints = find_int(f, 10'000, seed);
    EXPECT_EQ(bits.outcome, Outcome::refuted) << seed << ": " << bits.reason;
    EXPECT_EQ(ints.outcome, Outcome::refuted) << seed << ": " << ints.reason;
  }
}

// A query solved in a context of its own: the same verdicts, and a model in
// the caller's context.
TEST(Restarts, AQueryInAContextOfItsOwnGetsItsVerdictAndAModelInTheCallersContext) {
  z3::context ctx;
  const z3::expr x = ctx.bv_const("x", 16);
  const z3::expr sat = x * 3 + 7 == ctx.bv_val(154, 16) && z3::ult(x, 100);  // x = 49
  for (const bool ints : {false, true}) {
    const auto solve = [ints](const z3::expr& q) { return ints ? find_int(q, 10'000) : find(q, 10'000); };
    const BridgeResult found = in_own_context(sat, solve);
    ASSERT_EQ(found.outcome, Outcome::refuted) << found.reason;
    ASSERT_TRUE(found.model.has_value());
    EXPECT_EQ(found.model->eval(x, true).get_numeral_uint(), 49u);
    EXPECT_TRUE(found.model->eval(sat, true).is_true());
    EXPECT_EQ(in_own_context(sat && x == ctx.bv_val(50, 16), solve).outcome, Outcome::proved);
  }
}

}  // namespace
}  // namespace cfsv::proofs
