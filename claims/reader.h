// What a domain decoder reads from (claims/slice_case.h, calc_delta_case.h).
// Three readers implement it: RapidCheck's generators (properties/), a fuzz
// input's bytes (fuzz/byte_reader.h) and fresh Z3 unknowns (proofs/). Every
// constraint of a domain is a range, so a concrete reader never rejects a case
// and the Z3 reader's ranges are the query's whole domain.
#pragma once
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace cfsv {

template <class R>
concept Reader = requires(R r, typename R::value_type v, uint64_t u, std::size_t n) {
  // A structural choice in [0, n): which era, depth, machine. Concrete in
  // every reader (the Z3 reader enumerates them: one query per path).
  { r.choose(n) } -> std::convertible_to<std::size_t>;
  // A value in [lo, hi].
  { r.range(u, u) } -> std::convertible_to<typename R::value_type>;
  // A value in [lo, hi] for bounds that depend on earlier values; the decoder
  // guarantees lo <= hi <= max (max sizes the Z3 unknown).
  { r.range(v, v, u) } -> std::convertible_to<typename R::value_type>;
};

// Every path through a tree of decisions, depth first, for readers that
// enumerate (every case of a small domain; the proofs' structural choices):
// take() is one decision in [first, last], the path's value there (`first`
// past the path's end); next() is the path after this one, nullopt after the last.
class DepthFirstPath {
 public:
  explicit DepthFirstPath(std::vector<uint64_t> path = {}) : path_(std::move(path)) {}
  uint64_t take(uint64_t first, uint64_t last) {
    const uint64_t v = taken_.size() < path_.size() ? path_[taken_.size()] : first;
    taken_.push_back({v, last});
    return v;
  }
  std::optional<std::vector<uint64_t>> next() const {
    for (std::size_t i = taken_.size(); i-- > 0;) {
      if (taken_[i].first == taken_[i].second) continue;
      std::vector<uint64_t> p;
      for (std::size_t k = 0; k < i; ++k) p.push_back(taken_[k].first);
      p.push_back(taken_[i].first + 1);
      return p;
    }
    return std::nullopt;
  }

 private:
  std::vector<uint64_t> path_;
  std::vector<std::pair<uint64_t, uint64_t>> taken_;  // value, last
};

}  // namespace cfsv
