// RcReader: a Reader (claims/reader.h) drawing from RapidCheck generators, so
// the claims' domain decoders become generators. Call it inside a property
// (or rc::gen::exec). A range of up to 64 values is drawn uniformly, a wider
// one log-uniformly (every magnitude); every draw shrinks toward its low end.
#pragma once
#include <cstddef>
#include <cstdint>

#include "properties/generators.h"

namespace cfsv::properties {

class RcReader {
 public:
  using value_type = uint64_t;
  std::size_t choose(std::size_t n) { return static_cast<std::size_t>(*gen_uniform(0, n - 1)); }
  uint64_t range(uint64_t lo, uint64_t hi) { return hi - lo < 64 ? *gen_uniform(lo, hi) : *gen_log_uniform(lo, hi); }
  uint64_t range(uint64_t lo, uint64_t hi, uint64_t) { return range(lo, hi); }
  bool exhausted() const { return false; }  // model/ops_decoder.h: generators never run out
};

}  // namespace cfsv::properties
