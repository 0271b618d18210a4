#include "proofs/sym_reader.h"

#include <algorithm>
#include <bit>

namespace cfsv::proofs {

unsigned bits_for(uint64_t max_value) { return std::max(1u, static_cast<unsigned>(std::bit_width(max_value))); }

SymReader::SymReader(std::vector<uint64_t> path, uint64_t split_up_to)
    : path_(std::move(path)), split_up_to_(split_up_to), domain_(current_context().bool_val(true)) {}

std::size_t SymReader::choose(std::size_t n) { return static_cast<std::size_t>(path_.take(0, n - 1)); }

Sym SymReader::fresh(unsigned bits) { return Sym::var(("x" + std::to_string(count_++)).c_str(), bits); }

Sym SymReader::range(uint64_t lo, uint64_t hi) {
  if (hi - lo < split_up_to_) return Sym(path_.take(lo, hi));
  const uint64_t span = hi - lo;
  const Sym offset = fresh(bits_for(span));
  points_ *= static_cast<double>(span) + 1;
  if (span != (~uint64_t{0} >> (64 - bits_for(span)))) domain_ = domain_ && (offset <= Sym(span)).expr();
  return Sym(lo) + offset;
}

Sym SymReader::range(const Sym& lo, const Sym& hi, uint64_t max) {
  uint64_t l = 0, h = 0;
  if (lo.expr().simplify().is_numeral_u64(l) && hi.expr().simplify().is_numeral_u64(h)) return range(l, h);
  const Sym x = fresh(bits_for(max));
  points_ *= static_cast<double>(max) + 1;
  domain_ = domain_ && (lo <= x).expr() && (x <= hi).expr();
  return x;
}

}  // namespace cfsv::proofs
