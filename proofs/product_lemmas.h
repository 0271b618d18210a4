// Lemmas about PELT's fixed-point product, and the abstraction that lets a
// bit-vector query use them. Internal to proofs/.
//
// decay_load multiplies a 64-bit value by a 32-bit table entry and keeps the
// top bits: mul_u64_u32_shr(a, c, 32) (v4.4, v5.15) or v3.10's plain
// (a * c) >> 32. Bit-blasting such a product is what a SAT solver cannot
// reason about in time, while the facts a PELT proof needs of it are simple
// ones of floor(a * c / 2^32) (for a < 2^64, c < 2^32), proved once in Z3's
// integer arithmetic (prove_product_lemmas):
//  - le:   floor(a c / 2^32) <= a;
//  - half: c >= 2^31  =>  floor(a c / 2^32) >= floor(a / 2);
//  - mono: a1 <= a2 and c1 <= c2  =>  floor(a1 c1 / 2^32) <= floor(a2 c2 / 2^32).
// abstract_products() finds every product term `bvlshr(bvmul(X, Y), 32)` of a
// formula (Sym's mul_u64_u32_shr builds it in 96 bits from zero-extended
// operands; v3.10's form is 64-bit), replaces each by a fresh unknown and
// conjoins the lemmas' instances over those unknowns, each under the guard
// that makes the term exactly floor(X Y / 2^32): X < 2^64, Y < 2^32 and, in
// 64 bits, X < 2^32 (then X Y does not wrap; SMT-LIB's bvmul is the product
// modulo 2^n and bvlshr the quotient by 2^32 rounded down). An unsat
// abstraction is a proof of the original formula's unsatisfiability given
// the lemmas; a model of it may be spurious.
#pragma once
#include <z3++.h>

#include <string>
#include <string_view>
#include <vector>

#include "proofs/bridge.h"

namespace cfsv::proofs {

struct ProductLemma {
  std::string_view name;       // "le", "half", "mono"
  std::string_view statement;  // one line, as above
};
const std::vector<ProductLemma>& product_lemmas();

// Each lemma's integer queries, one QueryStat each ("lemma le over the
// integers: ..."); proved when every one is unsat (a tenth of a second).
struct LemmaProof {
  Outcome outcome = Outcome::unknown;
  std::vector<QueryStat> queries;
  std::string reason;  // when not proved
};
LemmaProof prove_product_lemmas(uint32_t timeout_ms);

// A formula with its products abstracted: `formula` with each replaced by a
// fresh unknown, and the lemmas' instances (guarded) to assume with it.
struct Abstracted {
  z3::expr formula;
  z3::expr lemmas;
  unsigned products = 0;
};
Abstracted abstract_products(const z3::expr& formula);

// The distinct multipliers Y of `formula`'s product terms, inner products first.
std::vector<z3::expr> product_multipliers(const z3::expr& formula);

// find() on `formula` with its products abstracted: proved (given the
// lemmas) when the abstraction is unsat; refuted, with the model, only when
// that model satisfies `formula` itself; else unknown (the lemmas do not
// decide it). `products` counts the products abstracted.
BridgeResult find_abstracted(const z3::expr& formula, uint32_t timeout_ms, unsigned& products);

}  // namespace cfsv::proofs
