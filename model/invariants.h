// The one invariant checker (DESIGN "Layers"): every engine and `cfsv run`
// check the model's state with it after each op and event. Each invariant has
// a stable name and a one-line statement (all_invariants()).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scenario.h"

namespace cfsv {

class Sim;

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

class InvariantChecker {
 public:
  explicit InvariantChecker(std::size_t max_kept = 100) : max_kept_(max_kept) {}
  // Checks every invariant against the simulator's state; returns how many
  // were violated now. Remembers min_vruntime per cfs_rq between calls.
  std::size_t check(const Sim& sim, const Step& step);

  // The first max_kept violations, in order.
  const std::vector<Violation>& violations() const { return kept_; }
  uint64_t total_violations() const { return total_; }
  uint64_t checks() const { return checks_; }
  // Violations per invariant, indexed like all_invariants().
  std::span<const uint64_t> per_invariant() const { return per_invariant_; }
  bool ok() const { return total_ == 0; }

 private:
  void fail(const Sim& sim, const Step& step, std::size_t inv, std::string detail);

  std::size_t max_kept_;
  std::vector<Violation> kept_;
  uint64_t total_ = 0, checks_ = 0;
  std::vector<uint64_t> per_invariant_;
  std::size_t failed_now_ = 0;
  // Scratch and history, reused across calls (no allocation once sized).
  std::vector<uint64_t> last_min_vruntime_;
  std::vector<uint64_t> sum_load_;
  std::vector<uint32_t> count_nr_, count_h_, occurrences_;
};

// Names for reports.
std::string cfs_rq_name(const Sim& sim, int32_t cfs_rq);  // "/g0@cpu3"
std::string entity_name(const Sim& sim, int32_t se);      // "task t0" / "group /g0@cpu3"
std::string describe(const Sim& sim, const Step& step);

}  // namespace cfsv
