// What an invariant check (model/invariants.cpp's registry) reads and where
// it writes a violation: internal to the checker and its check headers.
#pragma once
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "invariants.h"
#include "sched.h"

namespace cfsv::inv {

// Only a failing check formats; out of line, its buffer costs the passing
// checks nothing (under ASan a 512-byte local is poisoned on every call).
template <class... A> [[gnu::noinline, gnu::cold]] std::string fmt(const char* f, A... a) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

inline std::string format_time(Nanos t) {
  return fmt("%" PRIu64 ".%06" PRIu64 "ms", t / 1000000, t % 1000000);
}

// What a check reads, and where it writes each violation's detail (found
// under the row that runs).
struct Ctx {
  const Sched& s;
  const InvariantCensus& c;
  std::vector<std::pair<std::size_t, std::string>>& found;
  // The era's bounds, worked out once a check (they depend on the era only).
  uint64_t util_bound = 0;     // pelt-util-avg-bound's
  uint64_t v4_load_bound = 0;  // pelt-load-avg-bound's without v5.15's tracking
  bool attaches = false;       // v5.15's and v4.4's tracking attach entities to cfs_rqs
  std::size_t row = 0;
  void fail(std::string detail) { found.emplace_back(row, std::move(detail)); }
  std::string cfs_rq(CfsRqId q) const { return cfs_rq_name(s, q); }
  std::string entity(EntityId e) const { return entity_name(s, e); }
};

[[gnu::always_inline]] inline bool queued(TaskState st) { return st == TaskState::running || st == TaskState::runnable; }
inline std::string state_name(TaskState st) { return std::string(to_string(st)); }

}  // namespace cfsv::inv
