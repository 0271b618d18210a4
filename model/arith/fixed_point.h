// Branch-free integer primitives the scheduler arithmetic is written in.
//
// Every formula in model/ that proofs/ also checks is a template over a value
// type V. V is uint64_t when the model runs; proofs/ supplies a symbolic
// bit-vector type with the same operators and overloads of the functions
// below. Formulas never branch on a value: they use select(), min(), max().
#pragma once
#include <cstdint>

namespace cfsv {

inline uint64_t select(bool c, uint64_t a, uint64_t b) { return c ? a : b; }
inline uint64_t min(uint64_t a, uint64_t b) { return a < b ? a : b; }
inline uint64_t max(uint64_t a, uint64_t b) { return a > b ? a : b; }

// c ? a() : b() where forming a side costs (a decay, a division): the model's
// plain bool forms only the side it takes; a symbolic condition forms both
// and selects, the same formula as select(c, a(), b()).
template <class F, class G> auto select_lazy(bool c, F&& a, G&& b) { return c ? a() : b(); }
template <class C, class F, class G> auto select_lazy(const C& c, F&& a, G&& b) { return select(c, a(), b()); }

// mul_u64_u32_shr (include/linux/math64.h): (a * mul) >> shift with a 128-bit
// product, truncated to 64 bits. mul < 2^32, shift <= 32 at every call site.
inline uint64_t mul_u64_u32_shr(uint64_t a, uint64_t mul, uint64_t shift) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * mul) >> shift);
}

// The generic formulas below are shared by both value types.

// mul_u32_u32 (include/linux/math64.h): both factors truncated to 32 bits.
template <class V> V mul_u32_u32(V a, V b) {
  return (a & V(0xffffffffu)) * (b & V(0xffffffffu));
}

// fls (include/asm-generic/bitops/fls.h): 1-based index of the highest set bit
// of a 32-bit value, 0 for 0. The kernel's binary search, branch-free.
template <class V> V fls32(V x) {
  const V x0 = x;
  V r(32);
  auto step = [&](uint64_t mask, unsigned s) {
    auto c = (x & V(mask)) == V(0);
    x = select(c, x << V(s), x);
    r = select(c, r - V(s), r);
  };
  step(0xffff0000u, 16);
  step(0xff000000u, 8);
  step(0xf0000000u, 4);
  step(0xc0000000u, 2);
  step(0x80000000u, 1);
  return select(x0 == V(0), V(0), r);
}
// The same for the model's uint64_t, with the CPU's count of leading zeros
// (bits above 32 are only tested for x == 0, as the template does).
inline uint64_t fls32(uint64_t x) {
  const auto lo = static_cast<uint32_t>(x);
  if (lo == 0) return x == 0 ? 0 : 1;
  return 32 - static_cast<uint64_t>(__builtin_clz(lo));
}

}  // namespace cfsv
