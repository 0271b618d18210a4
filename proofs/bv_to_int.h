// A quantifier-free bit-vector formula as an equisatisfiable formula over
// Z3's integers, exactly (no approximation). Internal to proofs/.
//
// Each bit-vector term of width w becomes an integer in [0, 2^w): an
// unknown x an integer unknown with 0 <= x < 2^w; bvadd, bvsub, bvneg, a
// bvmul and a bvshl by a constant a linear sum kept unreduced until a
// comparison, a division or an extract needs its value, then reduced with a
// fresh integer quotient k: r = s - 2^w k, 0 <= r < 2^w (k bounded by the
// sum's interval, and no k at all when the interval shows there is no wrap;
// a constant c >= 2^(w-1) multiplies as c - 2^w, so bvsub's "+ (2^w - 1) y"
// wraps at most once); bvlshr, bvudiv, bvurem by a constant div and mod;
// extract of the low bits mod 2^n, of high bits div 2^l; concat and
// zero_extend arithmetic; a shift by an unknown amount s an ite over s's
// values (0 past w); a product of two unknowns and a division by an unknown
// stay nonlinear (q b + r = a, 0 <= r < b; b = 0 gives 2^w - 1, as
// SMT-LIB's bvudiv), or, where the narrower factor (less its low end) has at
// most 64 bits, written in binary (x y = lo y + sum of ite(bit_i, 2^i y, 0)),
// which is linear: Z3 did not decide the PELT queries with those products
// nonlinear. bvumul_noovfl is the product against 2^w. ite, the unsigned
// comparisons, equalities and the boolean structure carry over. Every fresh unknown is a function of the
// others (the quotient and remainder of a division are unique), so a model
// of one formula gives a model of the other.
#pragma once
#include <z3++.h>

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "proofs/bridge.h"

namespace cfsv::proofs {

struct IntFormula {
  z3::expr formula;  // over Int unknowns (and the original's Bool ones)
  std::vector<std::pair<z3::expr, z3::expr>> vars;  // each bit-vector unknown and its integer image
  bool linear = true;  // no product of two unknowns, no division by one
};

// The integer form of `bv_formula`, or the name of the first operator it
// does not translate (the caller then keeps the bit-vector query).
std::variant<IntFormula, std::string> bv_to_int(const z3::expr& bv_formula);

// find() (proofs/bridge.h) on the integer form: proved when it is unsat,
// refuted with a model of the bit-vector unknowns (checked to satisfy
// `bv_formula`, else unknown as a BUG), unknown on a timeout or when the
// formula has an operator bv_to_int does not translate (the reason says which).
// `seed`: Z3's random_seed.
BridgeResult find_int(const z3::expr& bv_formula, uint32_t timeout_ms, unsigned seed = 0);

}  // namespace cfsv::proofs
