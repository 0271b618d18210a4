// The invariants of the model's state, a registry of small named checks
// (invariants.cpp: one row each, a stable name, a one-line statement and a
// function), and the one checker that every engine and `cfsv run` use after
// each op and event (or every Nth: SimOptions::check_every).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ids.h"
#include "scenario.h"

namespace cfsv {

struct Sched;

struct InvariantInfo {
  std::string_view name;
  std::string_view statement;
};
std::span<const InvariantInfo> all_invariants();
const InvariantInfo* invariant_by_name(std::string_view name);

struct Violation {
  std::string invariant;  // a stable name from all_invariants()
  std::string detail;     // what exactly is wrong (which cfs_rq, task, values)
  std::string step;       // the op or event after which it was seen ("tick cpu3", "wake t1", "move t0 /g1")
  Nanos t = 0;            // simulated time
  std::string to_string() const;  // "t=1.5ms after tick cpu3: load-equals-sum: cfs_rq /g0@cpu3 ..."
};

// What just happened, for the report (formatted only when something fails).
struct Step {
  std::string_view kind;  // "op", "tick", "stop", "deadline", "wake-timer", "check"
  int32_t id = -1;        // the CPU (tick, stop) or task (deadline, wake-timer)
  const Op* op = nullptr;
};

// What the checks read besides the state: facts about the queued entities
// and the timelines, gathered once per check, and what the checker
// remembers between checks.
struct InvariantCensus {
  IdVec<CfsRqId, uint64_t> sum_load;           // weights of the entities queued on each cfs_rq
  IdVec<CfsRqId, uint32_t> nr, h_nr;           // entities queued on it; tasks queued in its subtree
  IdVec<EntityId, uint32_t> nodes;             // timeline nodes naming each entity
  IdVec<EntityId, uint8_t> own_curr;           // 1: the entity is the curr of its own cfs_rq
  std::vector<EntityId> lost;                  // entities queued on no cfs_rq
  IdVec<CfsRqId, uint64_t> last_min_vruntime;  // as of the previous check
};

class InvariantChecker {
 public:
  explicit InvariantChecker(std::size_t max_kept = 100) : max_kept_(max_kept) {}
  // Checks every invariant against the scheduler's state; returns how many
  // violations it found now. Remembers min_vruntime per cfs_rq between calls.
  std::size_t check(const Sched& s, const Step& step);

  // The first max_kept violations, in order.
  const std::vector<Violation>& violations() const { return kept_; }
  uint64_t total_violations() const { return total_; }
  uint64_t checks() const { return checks_; }
  // Violations per invariant, indexed like all_invariants().
  std::span<const uint64_t> per_invariant() const { return per_invariant_; }
  bool ok() const { return total_ == 0; }

 private:
  void fail(const Sched& s, const Step& step, std::size_t inv, std::string detail);

  std::size_t max_kept_;
  std::vector<Violation> kept_;
  uint64_t total_ = 0, checks_ = 0;
  std::vector<uint64_t> per_invariant_;
  std::size_t failed_now_ = 0;
  InvariantCensus census_;         // reused across calls (no allocation once sized)
  std::vector<std::string> details_;
};

// Names for reports.
std::string cfs_rq_name(const Sched& s, CfsRqId cfs_rq);  // "/g0@cpu3"
std::string entity_name(const Sched& s, EntityId se);      // "task t0" / "group /g0@cpu3"; "none"
std::string describe(const Sched& s, const Step& step);

}  // namespace cfsv
