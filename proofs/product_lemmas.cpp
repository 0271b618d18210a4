#include "proofs/product_lemmas.h"

#include <algorithm>
#include <chrono>

#include "proofs/symbolic.h"

namespace cfsv::proofs {

namespace {

constexpr unsigned kWide = 96;  // every instance compares in 96 bits

// floor(a c / 2^32) over the integers, with a < 2^64 and c < 2^32.
struct IntProduct {
  z3::expr a, c, r;
};

IntProduct int_product(z3::context& ctx, const char* a, const char* c) {
  const z3::expr x = ctx.int_const(a), k = ctx.int_const(c);
  return {x, k, (x * k) / ctx.int_val("4294967296")};  // integer division of non-negatives: the floor
}

z3::expr in_range(const IntProduct& p) {
  z3::context& ctx = p.a.ctx();
  return p.a >= 0 && p.a < ctx.int_val("18446744073709551616") && p.c >= 0 && p.c < ctx.int_val("4294967296");
}

// Each lemma's proof over the integers: queries whose unsatisfiability
// proves it. mono goes in three steps, each with only the hypotheses it
// needs (Z3's nonlinear arithmetic decides each at once, the whole in seconds
// or not at all): a1 c1 <= a2 c1, a2 c1 <= a2 c2, then floor is monotone.
std::vector<z3::expr> proof(std::string_view name, z3::context& ctx) {
  const IntProduct p = int_product(ctx, "a", "c");
  if (name == "le") return {in_range(p) && p.r > p.a};
  if (name == "half") return {in_range(p) && p.c >= ctx.int_val("2147483648") && p.r < p.a / 2};
  const IntProduct q = int_product(ctx, "a2", "c2");
  const z3::expr a1c1 = p.a * p.c, a2c1 = q.a * p.c, a2c2 = q.a * q.c;
  return {p.a >= 0 && p.a <= q.a && p.c >= 0 && a1c1 > a2c1, q.a >= 0 && p.c >= 0 && p.c <= q.c && a2c1 > a2c2,
          in_range(p) && in_range(q) && a1c1 <= a2c1 && a2c1 <= a2c2 && p.r > q.r};
}

// A product term found in a formula: t = bvlshr(bvmul(x, y), 32) in n bits.
struct Product {
  z3::expr term, x, y;
};

bool is_shift_by_32(const z3::expr& e) {
  if (!e.is_app() || e.decl().decl_kind() != Z3_OP_BLSHR || e.num_args() != 2) return false;
  uint64_t s = 0;
  const z3::expr mul = e.arg(0);
  return e.arg(1).simplify().is_numeral_u64(s) && s == 32 && mul.is_app() && mul.decl().decl_kind() == Z3_OP_BMUL &&
         mul.num_args() == 2 && (e.get_sort().bv_size() == 64 || e.get_sort().bv_size() >= kWide);
}

// Every product term of `e`, inner ones first, each once.
std::vector<Product> find_products(const z3::expr& e) {
  std::vector<Product> out;
  for_each_subterm(e, [&](const z3::expr& t) {
    if (is_shift_by_32(t)) out.push_back({t, t.arg(0).arg(0), t.arg(0).arg(1)});
  });
  return out;
}

z3::expr widen(const z3::expr& v) {
  const unsigned n = v.get_sort().bv_size();
  return n >= kWide ? v : z3::zext(v, kWide - n);
}

// v < 2^bits: its bits from `bits` up are 0.
z3::expr below_pow2(const z3::expr& v, unsigned bits) {
  return widen(v).extract(kWide - 1, bits) == v.ctx().bv_val(0, kWide - bits);
}

}  // namespace

const std::vector<ProductLemma>& product_lemmas() {
  static const std::vector<ProductLemma> kLemmas = {
      {"le", "floor(a c / 2^32) <= a"},
      {"half", "c >= 2^31 => floor(a c / 2^32) >= floor(a / 2)"},
      {"mono", "a1 <= a2 and c1 <= c2 => floor(a1 c1 / 2^32) <= floor(a2 c2 / 2^32)"},
  };
  return kLemmas;
}

LemmaProof prove_product_lemmas(uint32_t timeout_ms) {
  LemmaProof last;
  last.outcome = Outcome::proved;
  for (const ProductLemma& l : product_lemmas()) {
    z3::context ctx;
    const std::vector<z3::expr> steps = proof(l.name, ctx);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      z3::solver s(ctx, "QF_NIA");
      s.set(query_params(ctx, timeout_ms));
      s.add(steps[i]);
      const auto t0 = std::chrono::steady_clock::now();
      const z3::check_result r = s.check();
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const Outcome o = r == z3::unsat ? Outcome::proved : Outcome::unknown;
      const std::string step = steps.size() == 1 ? "" : " (step " + std::to_string(i + 1) + ")";
      last.queries.push_back(
          {"lemma " + std::string(l.name) + step + " over the integers: " + std::string(l.statement), o, seconds});
      if (o == Outcome::proved) continue;
      last.outcome = Outcome::unknown;
      last.reason += (last.reason.empty() ? "" : "; ") + std::string("lemma ") + std::string(l.name) + step + " " +
                     (r == z3::sat ? "is false" : "not proved: " + unknown_reason(s, timeout_ms, seconds));
    }
  }
  return last;
}

std::vector<z3::expr> product_multipliers(const z3::expr& formula) {
  std::vector<z3::expr> out;
  for (const Product& p : find_products(formula))
    if (std::none_of(out.begin(), out.end(), [&](const z3::expr& y) { return z3::eq(y, p.y); })) out.push_back(p.y);
  return out;
}

Abstracted abstract_products(const z3::expr& formula) {
  z3::context& ctx = formula.ctx();
  const std::vector<Product> found = find_products(formula);
  z3::expr_vector from(ctx), to(ctx);
  for (std::size_t i = 0; i < found.size(); ++i) {
    from.push_back(found[i].term);
    to.push_back(ctx.bv_const(("product" + std::to_string(i)).c_str(), found[i].term.get_sort().bv_size()));
  }
  const auto cut = [&](const z3::expr& e) { return z3::expr(e).substitute(from, to); };
  // Each product's operands and result (after the cut), widened, and its guard.
  struct Inst {
    z3::expr x, y, r, guard;
  };
  std::vector<Inst> inst;
  for (std::size_t i = 0; i < found.size(); ++i) {
    const z3::expr x = cut(found[i].x), y = cut(found[i].y);
    z3::expr guard = below_pow2(x, 64) && below_pow2(y, 32);
    if (found[i].term.get_sort().bv_size() < kWide) guard = guard && below_pow2(x, 32);
    inst.push_back({widen(x), widen(y), widen(to[static_cast<unsigned>(i)]), guard});
  }
  z3::expr lemmas = ctx.bool_val(true);
  const z3::expr half = ctx.bv_val(uint64_t{1} << 31, kWide), one = ctx.bv_val(1, kWide);
  for (const Inst& p : inst) {
    lemmas = lemmas && z3::implies(p.guard, z3::ule(p.r, p.x));                                        // le
    lemmas = lemmas && z3::implies(p.guard && z3::uge(p.y, half), z3::uge(p.r, z3::lshr(p.x, one)));  // half
    for (const Inst& q : inst)                                                                         // mono
      if (&p != &q)
        lemmas = lemmas && z3::implies(p.guard && q.guard && z3::ule(p.x, q.x) && z3::ule(p.y, q.y), z3::ule(p.r, q.r));
  }
  return {cut(formula), lemmas, static_cast<unsigned>(found.size())};
}

BridgeResult find_abstracted(const z3::expr& formula, uint32_t timeout_ms, unsigned& products) {
  const Abstracted a = abstract_products(formula);
  products += a.products;
  BridgeResult br = find(a.formula && a.lemmas, timeout_ms);
  if (br.outcome == Outcome::refuted && !br.model->eval(formula, true).is_true()) {
    br.outcome = Outcome::unknown;
    br.model.reset();
    br.reason = "the products' lemmas do not decide it (a model of the abstraction is none of the formula)";
  }
  return br;
}

}  // namespace cfsv::proofs
