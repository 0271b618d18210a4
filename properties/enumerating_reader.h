// Every case of a small domain through the claims' own decoder: a Reader
// (claims/reader.h) that walks every choice and every value of every range.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "claims/slice_case.h"

namespace cfsv::properties {

class EnumeratingReader {
 public:
  using value_type = uint64_t;
  explicit EnumeratingReader(std::vector<uint64_t> path) : path_(std::move(path)) {}
  std::size_t choose(std::size_t n) { return static_cast<std::size_t>(path_.take(0, n - 1)); }
  uint64_t range(uint64_t lo, uint64_t hi) { return path_.take(lo, hi); }
  uint64_t range(uint64_t lo, uint64_t hi, uint64_t) { return path_.take(lo, hi); }
  std::optional<std::vector<uint64_t>> next() const { return path_.next(); }

 private:
  DepthFirstPath path_;
};

// Calls f(case) for every case of the domain (at budget b).
template <class F> void for_each_slice_case(const Domain& d, Budget b, F f) {
  for (std::optional<std::vector<uint64_t>> path = std::vector<uint64_t>{}; path;) {
    EnumeratingReader r(std::move(*path));
    f(decode_slice_case(r, d, b));
    path = r.next();
  }
}

}  // namespace cfsv::properties
