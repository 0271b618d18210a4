// ByteReader: turns a fuzzer's input bytes into bounded integers.
//
// Each value takes as many little-endian bytes as its range needs (a range of
// 2^k values takes ceil(k/8) bytes) and is reduced into [lo, hi]. Once the
// input is used up every read returns lo (all-zero bytes), so any byte string,
// however short, decodes to a valid case and nothing reads past the end.
// It is also a Reader (claims/reader.h) for the claims' domain decoders.
// Used by every fuzz target and by nothing else: header-only, no allocation.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace cfsv::fuzz {

class ByteReader {
 public:
  using value_type = uint64_t;
  ByteReader(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  // An integer in [lo, hi] (inclusive; lo <= hi). Full 64-bit ranges are fine.
  uint64_t range(uint64_t lo, uint64_t hi) {
    const uint64_t span = hi - lo;  // number of values - 1
    if (span == 0) return lo;
    const unsigned nbytes = (std::bit_width(span) + 7) / 8;
    uint64_t v = 0;
    for (unsigned i = 0; i < nbytes && pos_ < size_; ++i) v |= uint64_t{data_[pos_++]} << (8 * i);
    return span == UINT64_MAX ? v : lo + v % (span + 1);
  }

  // The Reader forms: a dependent range (lo <= hi) and a structural choice in [0, n).
  uint64_t range(uint64_t lo, uint64_t hi, uint64_t) { return range(lo, hi); }
  std::size_t choose(std::size_t n) { return static_cast<std::size_t>(range(0, n - 1)); }

  uint64_t u64() { return range(0, UINT64_MAX); }
  uint32_t u32() { return static_cast<uint32_t>(range(0, UINT32_MAX)); }
  int integer(int lo, int hi) {
    return static_cast<int>(static_cast<int64_t>(lo) +
                            static_cast<int64_t>(range(0, static_cast<uint64_t>(static_cast<int64_t>(hi) - lo))));
  }
  bool boolean() { return range(0, 1) != 0; }

  // One element of a non-empty array.
  template <class T> const T& pick(std::span<const T> items) { return items[range(0, items.size() - 1)]; }

  std::size_t consumed() const { return pos_; }
  std::size_t remaining() const { return size_ - pos_; }
  bool exhausted() const { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace cfsv::fuzz
