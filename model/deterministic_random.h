// The one PRNG of the suite (FoundationDB's DeterministicRandom idea): one
// seed, one owned generator, splitmix64, so a seed gives the same stream on
// every compiler and standard library (no <random> distributions).
#pragma once
#include <cstdint>

namespace cfsv {

class DeterministicRandom {
 public:
  explicit DeterministicRandom(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }
  // Uniform enough for inputs and scenarios: next() % n, n > 0.
  uint64_t below(uint64_t n) { return next() % n; }
  // In [lo, hi], the whole 64-bit range included.
  uint64_t range(uint64_t lo, uint64_t hi) { return hi - lo == UINT64_MAX ? next() : lo + below(hi - lo + 1); }

 private:
  uint64_t state_;
};

}  // namespace cfsv
