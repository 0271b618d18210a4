// The bit-vector to integer translation (proofs/bv_to_int.h): it agrees with
// bit-blasting on small formulas, wraps included, and decides PELT entry
// queries, a refutation re-checked on the uint64_t model.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "claims/check.h"
#include "claims/pelt_case.h"
#include "model/arith/pelt_tables.h"
#include "proofs/bridge.h"
#include "proofs/bv_to_int.h"
#include "proofs/pelt_paths_test_util.h"
#include "proofs/proofs_test_util.h"
#include "proofs/sym_reader.h"
#include "proofs/symbolic.h"
#include "proofs/table_entries.h"

namespace cfsv::proofs {
namespace {

// find() and find_int() give the same verdict (find_int's model is checked
// against the bit-vector formula inside it).
void agree(const z3::expr& f, Outcome expected) {
  const BridgeResult bits = find(f, kTimeoutMs), ints = find_int(f, kTimeoutMs);
  EXPECT_EQ(bits.outcome, expected) << f << ": " << bits.reason;
  EXPECT_EQ(ints.outcome, expected) << f << ": " << ints.reason;
}

TEST(BvToInt, AgreesWithBitBlastingOnWrapsShiftsDivisionsAndExtracts) {
  z3::context c;
  const z3::expr x = c.bv_const("x", 8), y = c.bv_const("y", 8), s = c.bv_const("s", 8);
  agree(z3::ult(x + y, x), Outcome::refuted);                         // an addition wraps
  agree(z3::ule(x, 254) && z3::ult(x + 1, x), Outcome::proved);        // ... but not below 255
  agree(z3::ugt(x - y, x), Outcome::refuted);                         // a subtraction wraps
  agree(x * 200 == 7, Outcome::proved);                               // 200 x is even modulo 2^8
  agree(x * 201 == 7, Outcome::refuted);                              // 201 is invertible modulo 2^8
  agree(x * y == 1 && z3::ugt(x, 1) && z3::ugt(y, 1), Outcome::refuted);  // 3 * 171 = 513 = 1 mod 256
  agree(x * y == 8 && z3::ult(x, 4) && z3::ult(y, 4), Outcome::proved);  // no wrap below 16
  agree(z3::lshr(x, s) != 0 && z3::uge(s, 8), Outcome::proved);       // a shift by the width or more is 0
  agree(z3::lshr(x, s) == 3 && x == 200, Outcome::refuted);           // 200 >> 6 = 3
  agree(z3::lshr(x, s) == 5 && x == 200, Outcome::proved);            // 200, 100, 50, 25, 12, 6, 3, 1
  agree(z3::udiv(x, y) == 255 && x == 3, Outcome::refuted);           // y = 0: SMT-LIB's all ones
  agree(z3::udiv(x, y) == 7 && z3::urem(x, y) == 3 && z3::ult(x, 24), Outcome::proved);
  agree(z3::udiv(x, y) == 7 && z3::urem(x, y) == 3 && x == 52, Outcome::refuted);  // 7 * 7 + 3
  agree(x.extract(3, 0) == 9 && z3::lshr(x, 4) == 2 && x != 41, Outcome::proved);
  agree(z3::concat(x, y) == c.bv_val(0x1234, 16) && x + y != 0x46, Outcome::proved);
  agree(z3::zext(x, 8) * z3::zext(y, 8) == c.bv_val(65025, 16), Outcome::refuted);  // 255 * 255, no wrap in 16 bits
  agree(z3::zext(x, 8) * z3::zext(y, 8) == c.bv_val(65026, 16), Outcome::proved);
  agree(z3::ite(z3::ult(x, y), x, y) == 9 && z3::ult(y, 9), Outcome::proved);
  const std::variant<IntFormula, std::string> xor_ = bv_to_int((x ^ y) == 1);
  ASSERT_TRUE(std::holds_alternative<std::string>(xor_));
  EXPECT_EQ(std::get<std::string>(xor_), "bvxor");  // the caller keeps the bit-vector query
  EXPECT_EQ(find_int((x ^ y) == 1, kTimeoutMs).outcome, Outcome::unknown);
}

// The last path of pelt-util/bounded-1025 (v5.15): a running queued entity,
// every sum at its bound, an update within 4 periods (5 table entries).
constexpr int kBusyTick = 7;

TEST(BvToInt, ProvesABusyTickEntryQueryOfTheUtilClaimWithItsProductsAndDivisionLinear) {
  z3::context ctx;
  ContextScope scope(ctx);
  const PeltPath p = path_of(claim("pelt-util/bounded-1025"), kBusyTick);
  EXPECT_EQ(fold(p.c["on_rq"]), 1u);
  EXPECT_EQ(fold(p.c["running"]), 1u);
  const std::optional<std::vector<EntryQuery>> split = entry_queries(p.negated, p.domain, kTimeoutMs, 100);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->size(), 5u);
  const std::variant<IntFormula, std::string> f = bv_to_int(entry(*split, 1).query.simplify());
  ASSERT_TRUE(std::holds_alternative<IntFormula>(f)) << std::get<std::string>(f);
  EXPECT_TRUE(std::get<IntFormula>(f).linear);  // runnable * contrib and util_sum / divider in binary
  const BridgeResult r = find_int(entry(*split, 1).query, kTimeoutMs);
  EXPECT_EQ(r.outcome, Outcome::proved) << r.reason;
}

TEST(BvToInt, RefutesABoundBelowTheTruthWithAModelTheUint64ModelFails) {
  z3::context ctx;
  ContextScope scope(ctx);
  Claim weaker = claim("pelt-util/bounded-1025");
  weaker.domain.pelt.util_limit = 1000;  // a running entity's util_avg reaches ~1024
  const PeltPath p = path_of(weaker, kBusyTick);
  const std::optional<std::vector<EntryQuery>> split = entry_queries(p.negated, p.domain, kTimeoutMs, 100);
  ASSERT_TRUE(split.has_value());
  const BridgeResult r = find_int(entry(*split, 1).query, kTimeoutMs);
  ASSERT_EQ(r.outcome, Outcome::refuted) << r.reason;
  PeltCase<uint64_t> concrete{p.c.era, {}};
  for (const PeltValue<Sym>& x : p.c.in) concrete.in.push_back({x.name, numeral(r.model->eval(x.v.expr(), true))});
  const std::optional<Counterexample> cx = check_pelt_case(weaker, concrete);
  ASSERT_TRUE(cx.has_value());
  EXPECT_NE(cx->summary.find("> 1000"), std::string::npos) << cx->summary;
}

}  // namespace
}  // namespace cfsv::proofs
