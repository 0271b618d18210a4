// The invariants of the model's state, a registry of small named checks
// (invariants.cpp: one row each, a stable name, a one-line statement and a
// function), and the one checker that every engine and `cfsv run` use after
// each op and event (or every Nth: SimOptions::check_every).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ids.h"
#include "scenario.h"
#include "sched.h"

namespace cfsv {

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

// What the checks read besides the state, gathered as the checker goes: the
// sums over the queued entities first, then each cfs_rq's timeline just
// before that cfs_rq's checks (so per-entity facts are complete before the
// task checks); and what the checker remembers between checks. A check of
// some CPUs only gathers for their cfs_rqs (`in_scope`): the sums of the
// others are not read, the timeline counts of the entities it names are
// zeroed again before the next check (`counted`), and the whole-state sums
// (tg-load-avg-sum) are kept up to date from the changes of the cfs_rqs in
// scope.
struct InvariantCensus {
  struct Queue {                // per cfs_rq, over the entities queued on it
    uint64_t sum_load = 0;      // their weights
    uint32_t nr = 0, h_nr = 0, idle_h_nr = 0;  // how many; the tasks queued in its subtree; SCHED_IDLE ones
    uint32_t idle_nr = 0;                      // the queued entities that are se_is_idle
    uint32_t attached = 0;      // entities whose PELT averages are attached to it
  };
  struct Entity {
    uint32_t nodes = 0;     // timeline nodes naming it
    bool own_curr = false;  // the curr of its own cfs_rq
  };
  IdVec<CfsRqId, Queue> queue;                 // valid for the cfs_rqs in scope
  IdVec<EntityId, Entity> entity;              // zero but for the entities in `counted`
  std::vector<EntityId> counted;               // the entities this check's timelines name
  std::vector<uint8_t> in_scope;               // per cfs_rq: this check looks at it
  std::vector<CfsRqId> scope;                  // the same cfs_rqs, in order
  std::vector<TimelineKey> timeline;           // the nodes of the cfs_rq being checked, in order
  std::vector<EntityId> lost;                  // entities queued on no cfs_rq
  uint32_t dead_groups = 0;                    // destroyed groups (none: nothing can refer to one)
  IdVec<CfsRqId, uint64_t> last_min_vruntime;  // as of the previous check
  IdVec<CfsRqId, uint64_t> tg_contrib;         // each cfs_rq's tg_load_avg_contrib, as last seen
  IdVec<GroupId, uint64_t> tg_contrib_sum;     // their sum per group (valid with tg_sums_valid)
  bool tg_sums_valid = false;                  // false: the next check sums them from scratch
};

class InvariantChecker {
 public:
  explicit InvariantChecker(std::size_t max_kept = 100) : max_kept_(max_kept) {}
  // Checks every invariant against the scheduler's state; returns how many
  // violations it found now. Remembers min_vruntime per cfs_rq between calls.
  // With `only`, the checks look at the objects of those CPUs alone (a
  // cfs_rq, the entities queued on it, a task by its CPU): the ones a step
  // touched (Sched::touched_cpus). The whole-state checks still cover every
  // group, their sums updated from the cfs_rqs in scope; every entity is
  // still looked at for being queued on no cfs_rq.
  std::size_t check(const Sched& s, const Step& step, const CpuMask* only = nullptr);
  // Back to a new checker's state (nothing seen, nothing remembered), the
  // buffers kept.
  void reset();

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
  std::vector<uint8_t> cpu_scope_;  // per CPU: this check looks at it
  std::vector<std::pair<std::size_t, std::string>> found_;  // (invariant, detail) of this check
};

// Names for reports.
std::string cfs_rq_name(const Sched& s, CfsRqId cfs_rq);  // "/g0@cpu3"
std::string entity_name(const Sched& s, EntityId se);      // "task t0" / "group /g0@cpu3"; "none"
std::string describe(const Sched& s, const Step& step);

}  // namespace cfsv
