// The symbolic value type the model's templates are instantiated with: Sym
// is a 64-bit Z3 bit-vector with the unsigned C++ semantics of uint64_t,
// SymBool a Z3 boolean. Internal to proofs/.
#pragma once
#include <z3++.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace cfsv::proofs {

// The context Sym(uint64_t) builds constants in: set for this thread by a
// ContextScope (the bridge opens one per query).
z3::context& current_context();

class ContextScope {
 public:
  explicit ContextScope(z3::context& c);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  z3::context* previous_;
};

class SymBool {
 public:
  explicit SymBool(z3::expr e) : e_(std::move(e)) {}
  const z3::expr& expr() const { return e_; }
  friend SymBool operator!(const SymBool& a) { return SymBool(!a.e_); }
  friend SymBool operator&&(const SymBool& a, const SymBool& b) { return SymBool(a.e_ && b.e_); }
  friend SymBool operator||(const SymBool& a, const SymBool& b) { return SymBool(a.e_ || b.e_); }
  friend SymBool operator==(const SymBool& a, const SymBool& b) { return SymBool(a.e_ == b.e_); }

 private:
  z3::expr e_;
};

class Sym {
 public:
  static constexpr unsigned kBits = 64;
  Sym(uint64_t v);  // NOLINT: implicit, as the templates write V(32)
  explicit Sym(z3::expr e);
  // A fresh unknown of `bits` bits (<= 64), zero-extended to 64: values known
  // to fit in fewer bits keep the bit-blasted circuits small.
  static Sym var(const char* name, unsigned bits = kBits);

  const z3::expr& expr() const { return e_; }

  friend Sym operator+(const Sym& a, const Sym& b) { return Sym(a.e_ + b.e_); }
  friend Sym operator-(const Sym& a, const Sym& b) { return Sym(a.e_ - b.e_); }
  friend Sym operator*(const Sym& a, const Sym& b) { return Sym(a.e_ * b.e_); }
  friend Sym operator/(const Sym& a, const Sym& b) { return Sym(z3::udiv(a.e_, b.e_)); }
  friend Sym operator&(const Sym& a, const Sym& b) { return Sym(a.e_ & b.e_); }
  friend Sym operator|(const Sym& a, const Sym& b) { return Sym(a.e_ | b.e_); }
  friend Sym operator<<(const Sym& a, const Sym& b) { return Sym(z3::shl(a.e_, b.e_)); }
  friend Sym operator>>(const Sym& a, const Sym& b) { return Sym(z3::lshr(a.e_, b.e_)); }

  friend SymBool operator==(const Sym& a, const Sym& b) { return SymBool(a.e_ == b.e_); }
  friend SymBool operator!=(const Sym& a, const Sym& b) { return SymBool(a.e_ != b.e_); }
  friend SymBool operator<(const Sym& a, const Sym& b) { return SymBool(z3::ult(a.e_, b.e_)); }
  friend SymBool operator<=(const Sym& a, const Sym& b) { return SymBool(z3::ule(a.e_, b.e_)); }
  friend SymBool operator>(const Sym& a, const Sym& b) { return SymBool(z3::ugt(a.e_, b.e_)); }
  friend SymBool operator>=(const Sym& a, const Sym& b) { return SymBool(z3::uge(a.e_, b.e_)); }

 private:
  z3::expr e_;
};

// The model's branch-free primitives (model/fixed_point.h), found by ADL.
Sym select(const SymBool& c, const Sym& a, const Sym& b);
Sym min(const Sym& a, const Sym& b);
Sym max(const Sym& a, const Sym& b);

// mul_u64_u32_shr (include/linux/math64.h, u64 a, u32 mul): mul is cut to
// 32 bits as the kernel's parameter type does, the product is exact (96 bits,
// the kernel's 128-bit product with its top 32 bits always zero), the result
// its low 64 bits after the shift. It equals model/fixed_point.h's uint64_t
// version whenever mul < 2^32, which __calc_delta always passes (proven:
// prove_fact_fits_u32); the narrower multiplier halves solve times.
Sym mul_u64_u32_shr(const Sym& a, const Sym& mul, const Sym& shift);

// Whether a + b and a * b wrap past 2^64 (claims/tracked.h's for Sym).
SymBool add_wraps(const Sym& a, const Sym& b);
SymBool mul_wraps(const Sym& a, const Sym& b);

// mul_u32_u32 (model/fixed_point.h) for Sym: the model's template, recorded.
Sym mul_u32_u32(const Sym& a, const Sym& b);

// Every mul_u32_u32 and mul_u64_u32_shr call made on this thread while a
// MulTrace is alive is recorded. In __calc_delta, mul_u32_u32 receives fact
// after the first normalisation and mul_u64_u32_shr the final fact and shift:
// a counterexample reports them from here, and the loop == fls proof cuts
// there, without a copy of the formula.
struct MulCall {
  z3::expr a, mul, shift, result;  // shift: 0 for mul_u32_u32
};
class MulTrace {
 public:
  MulTrace();
  ~MulTrace();
  MulTrace(const MulTrace&) = delete;
  MulTrace& operator=(const MulTrace&) = delete;
  const std::vector<MulCall>& calls() const { return calls_; }          // mul_u64_u32_shr
  const std::vector<MulCall>& u32_calls() const { return u32_calls_; }  // mul_u32_u32
  static void record(const MulCall& c, bool u32);

 private:
  std::vector<MulCall> calls_, u32_calls_;
  MulTrace* previous_;
};

// `e` with every occurrence of the term `from` replaced by `to`.
z3::expr replace(const z3::expr& e, const z3::expr& from, const z3::expr& to);

// Calls visit on each distinct application in `e` (a DAG: each once), its
// arguments before it.
void for_each_subterm(const z3::expr& e, const std::function<void(const z3::expr&)>& visit);

// The value of a closed (constant) Sym, folded by z3 simplify; for tests and
// for evaluating a model. Throws std::runtime_error if it is not a numeral.
uint64_t fold(const Sym& s);
uint64_t numeral(const z3::expr& e);

}  // namespace cfsv::proofs
