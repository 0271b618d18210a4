// SymReader: a Reader (claims/reader.h) of fresh Z3 unknowns, so that the
// claims' own domain decoders build each query's domain. Internal to proofs/.
//  - range(lo, hi): a fresh bit-vector of the bits hi - lo needs, plus lo;
//  - range(lo, hi, max): a fresh bit-vector of the bits max needs, bounded by
//    lo and hi (both may be terms);
//  - choose(n): the value `path` gives (0 past its end). A claim's proof is
//    one query per path; next() is the path of the next query.
// Every bound goes into domain(). Ranges of at most `split_up_to` values
// (with constant bounds) are split like choices: one query per value; with
// kSplitAll every value is, and each path is one point of the domain.
#pragma once
#include <z3++.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "claims/reader.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

class SymReader {
 public:
  using value_type = Sym;
  // Needs a ContextScope.
  static constexpr uint64_t kSplitAll = ~uint64_t{0};
  explicit SymReader(std::vector<uint64_t> path = {}, uint64_t split_up_to = 1);
  std::size_t choose(std::size_t n);
  Sym range(uint64_t lo, uint64_t hi);
  Sym range(const Sym& lo, const Sym& hi, uint64_t max);

  const z3::expr& domain() const { return domain_; }
  std::optional<std::vector<uint64_t>> next() const { return path_.next(); }
  // How many points the unknowns range over (an upper bound where a range is dependent).
  double points() const { return points_; }

 private:
  Sym fresh(unsigned bits);
  DepthFirstPath path_;
  uint64_t split_up_to_;
  z3::expr domain_;
  unsigned count_ = 0;
  double points_ = 1;
};

// The number of bits `max_value` needs (at least 1).
unsigned bits_for(uint64_t max_value);

}  // namespace cfsv::proofs
