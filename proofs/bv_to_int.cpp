#include "proofs/bv_to_int.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

namespace cfsv::proofs {

namespace {

// Interval bounds, exact below 2^125 in magnitude and saturated there (a
// saturated bound only leaves a quotient unbounded: the encoding stays exact).
using i128 = __int128;
constexpr i128 kInf = i128{1} << 125;
constexpr unsigned kMaxWidth = 120;

i128 clamp(i128 v) { return std::clamp(v, -kInf, kInf); }
bool finite(i128 v) { return v > -kInf && v < kInf; }
i128 pow2(unsigned k) { return i128{1} << k; }
i128 mul_sat(i128 a, i128 b) {
  if (a == 0 || b == 0) return 0;
  const i128 ma = a < 0 ? -a : a, mb = b < 0 ? -b : b;
  if (ma >= kInf / mb) return (a < 0) != (b < 0) ? -kInf : kInf;
  return a * b;
}
i128 floor_div(i128 a, i128 d) {  // d > 0
  i128 q = a / d;
  if (a % d != 0 && a < 0) --q;
  return q;
}
std::string decimal(i128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  std::string s;
  for (i128 m = neg ? -v : v; m > 0; m /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
  return neg ? "-" + s : s;
}

struct Unsupported {
  std::string op;
};

// An integer term and its interval [lo, hi].
struct Term {
  z3::expr e;
  i128 lo, hi;
};

class Translator {
 public:
  explicit Translator(z3::context& c) : c_(c), side_(c) {}

  z3::expr boolean(const z3::expr& e);
  z3::expr side() const { return z3::mk_and(side_); }
  std::vector<std::pair<z3::expr, z3::expr>> vars;
  bool linear = true;

 private:
  z3::expr num(i128 v) { return c_.int_val(decimal(v).c_str()); }
  Term constant(i128 v) { return {num(v), v, v}; }
  z3::expr fresh(const char* prefix) { return z3::expr(c_, Z3_mk_fresh_const(c_, prefix, c_.int_sort())); }
  void require(const z3::expr& b) { side_.push_back(b); }
  Term lin(const z3::expr& e);  // an integer congruent to e modulo 2^width(e)
  Term val(const z3::expr& e) { return reduce(lin(e), width(e)); }  // e's value, in [0, 2^width)
  Term translate(const z3::expr& e);
  Term reduce(const Term& t, unsigned n);
  Term div_pow2(const Term& t, unsigned k);
  Term lshr(const Term& a, const Term& s, unsigned w);
  Term udiv(const Term& a, const Term& b, unsigned w, bool remainder);
  Term times(const z3::expr& e);
  Term product(const Term& x, const Term& y);
  static unsigned width(const z3::expr& e) {
    const unsigned w = e.get_sort().bv_size();
    if (w > kMaxWidth) throw Unsupported{"a " + std::to_string(w) + "-bit term"};
    return w;
  }

  z3::context& c_;
  z3::expr_vector side_;  // the fresh unknowns' definitions and every unknown's range
  std::unordered_map<unsigned, Term> terms_;
  std::unordered_map<unsigned, z3::expr> bools_;
};

Term Translator::reduce(const Term& t, unsigned n) {
  const i128 m = pow2(n);
  if (t.lo >= 0 && t.hi < m) return t;
  const bool bounded = finite(t.lo) && finite(t.hi);
  const i128 klo = floor_div(t.lo, m), khi = floor_div(t.hi, m);
  if (bounded && klo == khi) return {t.e - num(klo * m), t.lo - klo * m, t.hi - klo * m};
  const z3::expr k = fresh("k");
  const z3::expr r = t.e - num(m) * k;
  require(r >= 0 && r < num(m));
  if (bounded) require(k >= num(klo) && k <= num(khi));
  return {r, 0, m - 1};
}

Term Translator::div_pow2(const Term& t, unsigned k) {  // t >= 0
  if (k == 0) return t;
  if (k >= kMaxWidth || t.hi < pow2(k)) return constant(0);
  return {t.e / num(pow2(k)), t.lo >> k, t.hi >> k};
}

// a >> s for an unknown s, as a barrel shifter: s = sum of b_i 2^i (+ 2^t
// times a rest, t the bits of w - 1), each stage a div by 2^(2^i) when its
// bit b_i is set; 0 when the rest is not 0.
Term Translator::lshr(const Term& a, const Term& s, unsigned w) {
  if (s.lo >= w) return constant(0);
  unsigned t = 0;
  while (pow2(t) < w) ++t;
  const z3::expr rest = fresh("s");
  z3::expr sum = num(pow2(t)) * rest;
  require(rest >= 0);
  if (finite(s.hi)) require(rest <= num(s.hi >> t));
  Term acc = a;
  for (unsigned i = 0; i < t; ++i) {
    const z3::expr bit = fresh("b");
    require(bit >= 0 && bit <= 1);
    sum = sum + num(pow2(i)) * bit;
    const unsigned by = 1u << i;
    const Term d = by >= w ? constant(0) : div_pow2(acc, by);
    acc = {z3::ite(bit == 1, d.e, acc.e), std::min(acc.lo, d.lo), acc.hi};
  }
  require(s.e == sum);
  return {z3::ite(rest == 0, acc.e, num(0)), std::min<i128>(acc.lo, 0), acc.hi};
}

// x y for unknowns x, y >= 0: the one with the narrower interval, less its
// low end, written in binary with fresh booleans, x y = lo y + sum of
// ite(bit_i, 2^i y, 0): linear and exact. A nonlinear product only when both
// intervals are wider than 2^64.
Term Translator::product(const Term& x, const Term& y) {
  const bool x_narrow = x.hi - x.lo <= y.hi - y.lo;
  const Term& n = x_narrow ? x : y;
  const Term& o = x_narrow ? y : x;
  const Term bounds{x.e * y.e, mul_sat(x.lo, y.lo), mul_sat(x.hi, y.hi)};
  if (!finite(n.lo) || !finite(n.hi) || n.hi - n.lo >= pow2(64)) {
    linear = false;
    return bounds;
  }
  z3::expr bits = num(0), sum = num(n.lo) * o.e;
  for (unsigned i = 0; pow2(i) <= n.hi - n.lo; ++i) {
    const z3::expr b = z3::expr(c_, Z3_mk_fresh_const(c_, "bit", c_.bool_sort()));
    bits = bits + z3::ite(b, num(pow2(i)), num(0));
    sum = sum + z3::ite(b, num(pow2(i)) * o.e, num(0));
  }
  require(n.e - num(n.lo) == bits);
  return {sum, bounds.lo, bounds.hi};
}

// bvudiv / bvurem by an unknown b: q b + r = a, 0 <= r < b; b = 0 gives
// q = 2^w - 1 and r = a (SMT-LIB).
Term Translator::udiv(const Term& a, const Term& b, unsigned w, bool remainder) {
  const z3::expr q = fresh("q"), r = fresh("r");
  const i128 qmax = b.lo > 0 ? a.hi / b.lo : pow2(w) - 1;
  const z3::expr divides = a.e == product({q, 0, qmax}, b).e + r && r < b.e;
  require(q >= 0 && q <= num(qmax) && r >= 0);
  require(b.lo > 0 ? divides : z3::ite(b.e == 0, q == num(pow2(w) - 1) && r == a.e, divides));
  return remainder ? Term{r, 0, a.hi} : Term{q, 0, qmax};
}

// bvmul: the constants' product c (as c - 2^w when c >= 2^(w-1)) times the
// unknown factors, a product of two of them reduced first.
Term Translator::times(const z3::expr& e) {
  const unsigned w = width(e);
  i128 c = 1;
  std::vector<z3::expr> unknown;
  for (unsigned i = 0; i < e.num_args(); ++i) {
    if (std::string s; e.arg(i).is_numeral(s)) {
      // modulo 2^128, then 2^w (w <= 120): exact modulo 2^w
      const unsigned __int128 m = static_cast<unsigned __int128>(c) * static_cast<unsigned __int128>(lin(e.arg(i)).lo);
      c = static_cast<i128>(m & static_cast<unsigned __int128>(pow2(w) - 1));
    } else {
      unknown.push_back(e.arg(i));
    }
  }
  if (c >= pow2(w - 1)) c -= pow2(w);
  if (unknown.empty()) return constant(c < 0 ? c + pow2(w) : c);
  Term t = unknown.size() == 1 ? lin(unknown[0]) : val(unknown[0]);
  for (std::size_t i = 1; i < unknown.size(); ++i) t = reduce(product(reduce(t, w), val(unknown[i])), w);
  if (c == 1) return t;
  const i128 a = mul_sat(c, t.lo), b = mul_sat(c, t.hi);
  return {num(c) * t.e, std::min(a, b), std::max(a, b)};
}

Term Translator::lin(const z3::expr& e) {
  if (const auto at = terms_.find(e.id()); at != terms_.end()) return at->second;
  Term t = translate(e);
  terms_.emplace(e.id(), t);
  return t;
}

Term Translator::translate(const z3::expr& e) {
  if (!e.is_bv() || !e.is_app()) throw Unsupported{e.get_sort().to_string() + " term"};
  const unsigned w = width(e);
  if (std::string s; e.is_numeral(s)) {
    i128 v = 0;
    for (const char ch : s) v = v * 10 + (ch - '0');
    return constant(v);
  }
  const Z3_decl_kind k = e.decl().decl_kind();
  const auto arg = [&](unsigned i) { return e.arg(i); };
  switch (k) {
    case Z3_OP_UNINTERPRETED: {
      if (e.num_args() != 0) break;
      const z3::expr x = z3::expr(c_, Z3_mk_fresh_const(c_, e.decl().name().str().c_str(), c_.int_sort()));
      require(x >= 0 && x < num(pow2(w)));
      vars.emplace_back(e, x);
      return {x, 0, pow2(w) - 1};
    }
    case Z3_OP_BADD:
    case Z3_OP_BSUB: {
      Term t = lin(arg(0));
      for (unsigned i = 1; i < e.num_args(); ++i) {
        const Term b = lin(arg(i));
        t = k == Z3_OP_BADD ? Term{t.e + b.e, clamp(t.lo + b.lo), clamp(t.hi + b.hi)}
                            : Term{t.e - b.e, clamp(t.lo - b.hi), clamp(t.hi - b.lo)};
      }
      return t;
    }
    case Z3_OP_BNEG: {
      const Term a = lin(arg(0));
      return {-a.e, -a.hi, -a.lo};
    }
    case Z3_OP_BMUL: return times(e);
    case Z3_OP_BSHL: {
      const Term s = val(arg(1));
      if (s.lo != s.hi) break;  // a shift left by an unknown: not in the PELT queries
      if (s.lo >= w) return constant(0);
      const i128 m = pow2(static_cast<unsigned>(s.lo));
      const Term a = lin(arg(0));
      return {a.e * num(m), mul_sat(a.lo, m), mul_sat(a.hi, m)};
    }
    case Z3_OP_BLSHR: {
      const Term a = val(arg(0)), s = val(arg(1));
      if (s.lo == s.hi) return s.lo >= w ? constant(0) : div_pow2(a, static_cast<unsigned>(s.lo));
      return lshr(a, s, w);
    }
    case Z3_OP_BUDIV:
    case Z3_OP_BUDIV_I:
    case Z3_OP_BUREM:
    case Z3_OP_BUREM_I: {
      const bool rem = k == Z3_OP_BUREM || k == Z3_OP_BUREM_I;
      const Term a = val(arg(0)), b = val(arg(1));
      if (b.lo != b.hi) return udiv(a, b, w, rem);
      if (b.lo == 0) return rem ? a : constant(pow2(w) - 1);
      if (rem) return {z3::mod(a.e, num(b.lo)), 0, std::min(a.hi, b.lo - 1)};
      return {a.e / num(b.lo), a.lo / b.lo, a.hi / b.lo};
    }
    case Z3_OP_BAND: {  // x & (2^n - 1) only
      if (e.num_args() != 2) break;
      const int ci = arg(0).is_numeral() ? 0 : arg(1).is_numeral() ? 1 : -1;
      if (ci < 0) break;
      const i128 mask = lin(arg(ci)).lo;
      if ((mask & (mask + 1)) != 0) break;
      unsigned n = 0;
      while (pow2(n) <= mask) ++n;
      return reduce(lin(arg(1 - ci)), n);
    }
    case Z3_OP_CONCAT: {
      Term t = val(arg(0));
      for (unsigned i = 1; i < e.num_args(); ++i) {
        const unsigned wb = width(arg(i));
        const Term b = val(arg(i));
        t = {t.e * num(pow2(wb)) + b.e, t.lo * pow2(wb) + b.lo, t.hi * pow2(wb) + b.hi};
      }
      return t;
    }
    case Z3_OP_ZERO_EXT: return val(arg(0));
    case Z3_OP_EXTRACT: {
      const unsigned hi = e.hi(), lo = e.lo();
      if (lo == 0) return reduce(lin(arg(0)), hi + 1);  // lin is exact modulo 2^width(arg), a multiple of 2^(hi+1)
      return reduce(div_pow2(val(arg(0)), lo), hi - lo + 1);
    }
    case Z3_OP_ITE: {
      const Term a = lin(arg(1)), b = lin(arg(2));
      return {z3::ite(boolean(arg(0)), a.e, b.e), std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
    }
    default: break;
  }
  throw Unsupported{e.decl().name().str()};
}

z3::expr Translator::boolean(const z3::expr& e) {
  if (const auto at = bools_.find(e.id()); at != bools_.end()) return at->second;
  if (!e.is_app()) throw Unsupported{"a quantifier"};
  const Z3_decl_kind k = e.decl().decl_kind();
  const auto bv = [&](unsigned i) { return val(e.arg(i)).e; };
  const auto b = [&](unsigned i) { return boolean(e.arg(i)); };
  z3::expr out = c_.bool_val(true);
  switch (k) {
    case Z3_OP_TRUE:
    case Z3_OP_FALSE: out = e; break;
    case Z3_OP_UNINTERPRETED:
      if (e.num_args() != 0) throw Unsupported{e.decl().name().str()};
      out = e;
      break;
    case Z3_OP_NOT: out = !b(0); break;
    case Z3_OP_AND:
    case Z3_OP_OR: {
      z3::expr_vector args(c_);
      for (unsigned i = 0; i < e.num_args(); ++i) args.push_back(b(i));
      out = k == Z3_OP_AND ? z3::mk_and(args) : z3::mk_or(args);
      break;
    }
    case Z3_OP_IMPLIES: out = z3::implies(b(0), b(1)); break;
    case Z3_OP_XOR: out = b(0) != b(1); break;
    case Z3_OP_IFF: out = b(0) == b(1); break;
    case Z3_OP_EQ:
      if (e.arg(0).is_bool()) out = b(0) == b(1);
      else out = bv(0) == bv(1);
      break;
    case Z3_OP_DISTINCT: {
      if (e.num_args() != 2) throw Unsupported{"distinct of more than two"};
      out = e.arg(0).is_bool() ? b(0) != b(1) : bv(0) != bv(1);
      break;
    }
    case Z3_OP_ITE: out = z3::ite(b(0), b(1), b(2)); break;
    case Z3_OP_BUMUL_NO_OVFL: out = product(val(e.arg(0)), val(e.arg(1))).e < num(pow2(width(e.arg(0)))); break;
    case Z3_OP_ULEQ: out = bv(0) <= bv(1); break;
    case Z3_OP_ULT: out = bv(0) < bv(1); break;
    case Z3_OP_UGEQ: out = bv(0) >= bv(1); break;
    case Z3_OP_UGT: out = bv(0) > bv(1); break;
    default: throw Unsupported{e.decl().name().str()};
  }
  bools_.emplace(e.id(), out);
  return out;
}

}  // namespace

std::variant<IntFormula, std::string> bv_to_int(const z3::expr& bv_formula) {
  Translator t(bv_formula.ctx());
  try {
    const z3::expr f = t.boolean(bv_formula);
    return IntFormula{f && t.side(), t.vars, t.linear};
  } catch (const Unsupported& u) {
    return u.op;
  }
}

BridgeResult find_int(const z3::expr& bv_formula, uint32_t timeout_ms, unsigned seed) {
  z3::context& c = bv_formula.ctx();
  const auto t0 = std::chrono::steady_clock::now();
  const z3::expr simplified = bv_formula.simplify();  // folds the constants, writes subtraction as + (2^w - 1) y
  std::variant<IntFormula, std::string> tr = bv_to_int(simplified);
  BridgeResult out;
  if (const std::string* op = std::get_if<std::string>(&tr)) {
    out.reason = "not translated to the integers: " + *op;
    return out;
  }
  const IntFormula& f = std::get<IntFormula>(tr);
  z3::solver s(c);
  z3::params p = query_params(c, timeout_ms, seed);
  p.set("arith.solver", 2u);
  s.set(p);
  s.add(f.formula);
  const z3::check_result r = s.check();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r == z3::unsat) {
    out.outcome = Outcome::proved;
    return out;
  }
  if (r == z3::unknown) {
    out.reason = "over the integers: " + unknown_reason(s, timeout_ms, out.seconds);
    return out;
  }
  const z3::model im = s.get_model();
  z3::model bm(c);
  for (const auto& [bv, x] : f.vars) {
    z3::func_decl d = bv.decl();
    z3::expr v = c.bv_val(im.eval(x, true).get_decimal_string(0).c_str(), bv.get_sort().bv_size());
    bm.add_const_interp(d, v);
  }
  for (unsigned i = 0; i < im.num_consts(); ++i) {  // the formula's Bool unknowns, kept as they are
    z3::func_decl d = im.get_const_decl(i);
    if (d.range().is_bool()) {
      z3::expr v = im.get_const_interp(d);
      bm.add_const_interp(d, v);
    }
  }
  if (!bm.eval(bv_formula, true).is_true()) {
    out.reason = "BUG: the integer form's model does not satisfy the bit-vector formula";
    return out;
  }
  out.outcome = Outcome::refuted;
  out.model = bm;
  return out;
}

}  // namespace cfsv::proofs
