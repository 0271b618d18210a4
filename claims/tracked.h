// Tracked<V>: a value type that carries, with each value, whether a wrap went
// into it: an addition or multiplication past 2^64, bits shifted out to the
// left, or u32() cutting a value of 2^32 or more (the kernel's u32 fields and
// locals). The model's templates run on it unchanged, so an overflow claim
// reads the wraps of the kernel's own arithmetic. Subtraction is not a wrap
// here: the kernel subtracts clocks and contributions modulo 2^64 on purpose.
// Branch-free code computes both sides of every `if`; a wrap counts only
// where it reaches the value: select() takes the flag of the side it picks,
// and a product with an exact 0 is an exact 0.
// V is uint64_t or the proofs' Sym; the overloads of add_wraps, mul_wraps and
// the primitives for V are found by argument-dependent lookup.
#pragma once
#include <cstdint>
#include <utility>

#include "model/arith/fixed_point.h"

namespace cfsv {

inline bool add_wraps(uint64_t a, uint64_t b) { return a + b < a; }
inline bool mul_wraps(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r);
}

template <class V> class Tracked {
 public:
  using Flag = decltype(std::declval<V>() < std::declval<V>());
  Tracked(uint64_t v) : v_(v), wrapped_(no()) {}  // NOLINT: implicit, as the templates write V(32)
  Tracked(V v, Flag wrapped) : v_(std::move(v)), wrapped_(std::move(wrapped)) {}
  static Tracked exact(V v) { return {std::move(v), no()}; }

  const V& value() const { return v_; }
  const Flag& wrapped() const { return wrapped_; }

  friend Tracked operator+(const Tracked& a, const Tracked& b) {
    return {a.v_ + b.v_, a.wrapped_ || b.wrapped_ || add_wraps(a.v_, b.v_)};
  }
  friend Tracked operator-(const Tracked& a, const Tracked& b) { return {a.v_ - b.v_, a.wrapped_ || b.wrapped_}; }
  friend Tracked operator*(const Tracked& a, const Tracked& b) {
    const Flag a_counts = a.wrapped_ && b.v_ != V(0), b_counts = b.wrapped_ && a.v_ != V(0);
    return {a.v_ * b.v_, a_counts || b_counts || mul_wraps(a.v_, b.v_)};
  }
  friend Tracked operator/(const Tracked& a, const Tracked& b) { return {a.v_ / b.v_, a.wrapped_ || b.wrapped_}; }
  friend Tracked operator&(const Tracked& a, const Tracked& b) { return {a.v_ & b.v_, a.wrapped_ || b.wrapped_}; }
  friend Tracked operator|(const Tracked& a, const Tracked& b) { return {a.v_ | b.v_, a.wrapped_ || b.wrapped_}; }
  friend Tracked operator>>(const Tracked& a, const Tracked& b) { return {a.v_ >> b.v_, a.wrapped_ || b.wrapped_}; }
  friend Tracked operator<<(const Tracked& a, const Tracked& b) {
    const V r = a.v_ << b.v_;
    return {r, a.wrapped_ || b.wrapped_ || (r >> b.v_) != a.v_};
  }
  friend Flag operator==(const Tracked& a, const Tracked& b) { return a.v_ == b.v_; }
  friend Flag operator!=(const Tracked& a, const Tracked& b) { return a.v_ != b.v_; }
  friend Flag operator<(const Tracked& a, const Tracked& b) { return a.v_ < b.v_; }
  friend Flag operator<=(const Tracked& a, const Tracked& b) { return a.v_ <= b.v_; }
  friend Flag operator>(const Tracked& a, const Tracked& b) { return a.v_ > b.v_; }
  friend Flag operator>=(const Tracked& a, const Tracked& b) { return a.v_ >= b.v_; }

  friend Tracked select(const Flag& c, const Tracked& a, const Tracked& b) {
    return {select(c, a.v_, b.v_), flag_select(c, a.wrapped_, b.wrapped_)};
  }
  friend Tracked min(const Tracked& a, const Tracked& b) { return select(a < b, a, b); }
  friend Tracked max(const Tracked& a, const Tracked& b) { return select(a > b, a, b); }
  // mul_u64_u32_shr's product is exact (128 bits) and, at a shift of 32,
  // fits 64 bits again: no wrap of its own.
  friend Tracked mul_u64_u32_shr(const Tracked& a, const Tracked& mul, const Tracked& shift) {
    return {mul_u64_u32_shr(a.v_, mul.v_, shift.v_), a.wrapped_ || mul.wrapped_ || shift.wrapped_};
  }
  // The kernel's u32: a cut of 2^32 or more is a wrap.
  friend Tracked u32(const Tracked& x) {
    return {x.v_ & V(uint64_t{0xffffffffu}), x.wrapped_ || x.v_ > V(uint64_t{0xffffffffu})};
  }

 private:
  static Flag no() { return V(0) != V(0); }
  static Flag flag_select(const Flag& c, const Flag& a, const Flag& b) { return (c && a) || (!c && b); }
  V v_;
  Flag wrapped_;
};

}  // namespace cfsv
