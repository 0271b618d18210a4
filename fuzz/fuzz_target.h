// What every fuzz target shares: the libFuzzer entry points and how a check
// fails (a readable line on stderr, then abort(), which libFuzzer and the
// replay tests both report as a crash).
#pragma once
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

// Defined by each target; LLVMFuzzerInitialize(int*, char***) is optional.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

namespace cfsv::fuzz {

// printf-style: "<target>: check failed: <what>" on stderr, then abort().
[[noreturn]] [[gnu::format(printf, 2, 3)]] inline void fail(const char* target, const char* fmt, ...) {
  std::fprintf(stderr, "%s: check failed: ", target);
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  std::abort();
}

// Decimal text of a 128-bit value (printf has no conversion for it).
inline std::string to_dec(unsigned __int128 v) {
  char buf[40];
  char* p = buf + sizeof buf;
  *--p = '\0';
  do {
    *--p = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  return p;
}

}  // namespace cfsv::fuzz
