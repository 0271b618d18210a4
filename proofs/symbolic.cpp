#include "proofs/symbolic.h"

#include <stdexcept>
#include <string>
#include <unordered_set>

#include "model/arith/fixed_point.h"

namespace cfsv::proofs {

namespace {
thread_local z3::context* tl_context = nullptr;
thread_local MulTrace* tl_trace = nullptr;
}  // namespace

z3::context& current_context() {
  if (!tl_context) throw std::logic_error("proofs: Sym used outside a ContextScope");
  return *tl_context;
}

ContextScope::ContextScope(z3::context& c) : previous_(tl_context) { tl_context = &c; }
ContextScope::~ContextScope() { tl_context = previous_; }

Sym::Sym(uint64_t v) : e_(current_context().bv_val(v, kBits)) {}

Sym::Sym(z3::expr e) : e_(std::move(e)) {
  if (!e_.is_bv() || e_.get_sort().bv_size() != kBits) throw std::logic_error("proofs: Sym needs a 64-bit bit-vector");
}

Sym Sym::var(const char* name, unsigned bits) {
  z3::context& c = current_context();
  const z3::expr v = c.bv_const(name, bits);
  return Sym(bits == kBits ? v : z3::zext(v, kBits - bits));
}

Sym select(const SymBool& c, const Sym& a, const Sym& b) { return Sym(z3::ite(c.expr(), a.expr(), b.expr())); }
Sym min(const Sym& a, const Sym& b) { return select(a < b, a, b); }
Sym max(const Sym& a, const Sym& b) { return select(a > b, a, b); }

Sym mul_u64_u32_shr(const Sym& a, const Sym& mul, const Sym& shift) {
  const z3::expr product = z3::zext(a.expr(), 32) * z3::zext(mul.expr().extract(31, 0), 64);
  const z3::expr result = z3::lshr(product, z3::zext(shift.expr(), 32)).extract(Sym::kBits - 1, 0);
  MulTrace::record({a.expr(), mul.expr(), shift.expr(), result}, false);
  return Sym(result);
}

SymBool add_wraps(const Sym& a, const Sym& b) { return a + b < a; }
SymBool mul_wraps(const Sym& a, const Sym& b) { return SymBool(!z3::bvmul_no_overflow(a.expr(), b.expr(), false)); }

Sym mul_u32_u32(const Sym& a, const Sym& b) {
  const Sym r = cfsv::mul_u32_u32<Sym>(a, b);
  MulTrace::record({a.expr(), b.expr(), current_context().bv_val(0, Sym::kBits), r.expr()}, true);
  return r;
}

MulTrace::MulTrace() : previous_(tl_trace) { tl_trace = this; }
MulTrace::~MulTrace() { tl_trace = previous_; }
void MulTrace::record(const MulCall& c, bool u32) {
  if (tl_trace) (u32 ? tl_trace->u32_calls_ : tl_trace->calls_).push_back(c);
}

z3::expr replace(const z3::expr& e, const z3::expr& from, const z3::expr& to) {
  z3::expr_vector f(e.ctx()), t(e.ctx());
  f.push_back(from);
  t.push_back(to);
  return z3::expr(e).substitute(f, t);
}

void for_each_subterm(const z3::expr& e, const std::function<void(const z3::expr&)>& visit) {
  std::unordered_set<unsigned> seen;
  std::function<void(const z3::expr&)> walk = [&](const z3::expr& t) {
    if (!t.is_app() || !seen.insert(t.id()).second) return;
    for (unsigned i = 0; i < t.num_args(); ++i) walk(t.arg(i));
    visit(t);
  };
  walk(e);
}

uint64_t numeral(const z3::expr& e) {
  uint64_t v = 0;
  if (!e.is_numeral_u64(v)) throw std::runtime_error("proofs: not a 64-bit numeral: " + e.to_string());
  return v;
}

uint64_t fold(const Sym& s) { return numeral(s.expr().simplify()); }

}  // namespace cfsv::proofs
