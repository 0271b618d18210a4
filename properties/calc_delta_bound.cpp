#include "properties/calc_delta_bound.h"

#include <sstream>

namespace cfsv::properties {

namespace {
using u128 = unsigned __int128;
constexpr u128 k2To32 = u128{1} << 32;

// floor(x * m / 2^s) without overflow while (x >> s) * m < 2^128 and
// (2^s - 1) * m < 2^128: x = hi * 2^s + lo.
u128 mul_shr(u128 x, u128 m, unsigned s) {
  const u128 lo_mask = (u128{1} << s) - 1;
  return (x >> s) * m + (((x & lo_mask) * m) >> s);
}

std::string u128_str(u128 v) {
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v);
  return s;
}

struct Terms {
  uint64_t a, b, inv;
  u128 num;  // delta * a: exact = num / b
  u128 n;    // delta * a * inv: Q = n / 2^32
};

Terms terms(const CalcDeltaCase& c) {
  Terms t;
  t.a = scale_load_down(c.weight, c.r);
  t.b = scale_load_down(c.lw.weight, c.r);
  t.inv = update_inv_weight(c.lw, c.r);
  t.num = u128{c.delta} * t.a;
  t.n = t.num * t.inv;
  return t;
}
}  // namespace

bool in_calc_delta_bound_domain(const CalcDeltaCase& c) {
  const Terms t = terms(c);
  if (t.b == 0 || t.b > kWmultConst || t.inv == 0 || t.inv > kWmultConst) return false;
  const u128 p = u128{t.inv} * t.b;
  if (p < k2To32 - t.b || p > k2To32 + t.b / 2) return false;
  if (u128{t.a} * t.inv >= (u128{1} << 64)) return false;
  return u128{c.delta} * (u128{t.a} * t.inv) < (u128{1} << 96);
}

std::optional<std::string> calc_delta_bound_violation(const CalcDeltaCase& c, uint64_t result) {
  const Terms t = terms(c);
  const bool lazy = c.lw.inv_weight == 0;
  const u128 p = u128{t.inv} * t.b;
  const u128 rb = u128{result} * t.b;
  std::ostringstream os;
  os << "a " << t.a << ", b " << t.b << ", inv " << t.inv << ", result " << result << ", exact "
     << u128_str(t.num) << "/" << t.b << ": ";
  // (2) the inverse itself.
  if (p < k2To32 - t.b || p > (lazy ? k2To32 - 1 : k2To32 + t.b / 2)) {
    os << "inv * b = " << u128_str(p) << " outside [2^32 - b, " << (lazy ? "2^32 - 1]" : "2^32 + b/2]");
    return os.str();
  }
  // (1) the normalising shifts and the final truncation.
  if (u128{result} << 32 > t.n) {
    os << "result > Q = delta * a * inv / 2^32 = " << u128_str(t.n >> 32);
    return os.str();
  }
  if (t.n * ((u128{1} << 30) - 1) >= (u128{result} + 1) << 62) {
    os << "result <= Q * (1 - 2^-30) - 1 with Q = " << u128_str(t.n >> 32);
    return os.str();
  }
  // (3) against the exact quotient.
  if (lazy && rb > t.num) {
    os << "result > exact";
    return os.str();
  }
  if (t.num > rb && t.num - rb > mul_shr(t.num, u128{t.b} + 4, 32) + t.b) {
    os << "exact - result > exact * (b + 4) / 2^32 + 1";
    return os.str();
  }
  if (rb > t.num && rb - t.num > mul_shr(t.num, t.b, 33)) {
    os << "result - exact > exact * b / 2^33";
    return os.str();
  }
  return std::nullopt;
}

uint64_t calc_delta_max_shortfall(uint64_t delta, uint64_t weight, uint64_t load, LoadResolution r) {
  const uint64_t a = scale_load_down(weight, r), b = scale_load_down(load, r);
  // floor(delta * a * (b + 4) / (b * 2^32)) + 1
  return static_cast<uint64_t>(mul_shr(u128{delta} * a, u128{b} + 4, 32) / b) + 1;
}

}  // namespace cfsv::properties
