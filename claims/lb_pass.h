// What one load_balance pass of the simulator may move against the verdict
// it computed (model/lb_pass.h), stated from the kernel's detach_tasks
// (v5.15; era 1 v4.4), and whether it turned the imbalance around. Used by
// the claim lb-pass/within-verdict (ClaimKind::sim_lb_pass, every engine)
// and properties/sim_lb_pass_test.cpp. docs/balancing.md, "One pass".
#pragma once
#include <cstdint>
#include <string>

#include "model/lb_pass.h"
#include "model/sink.h"

namespace cfsv {

// "" when the pass kept to its verdict, else the first rule it broke:
// - it moved a task (ld_moved >= 1) against X > 0 (detach_tasks takes
//   nothing at env->imbalance <= 0);
// - every take came while the imbalance was still positive: left + the
//   last take > 0, and X - left covers the last and the largest take;
// - migrate_task: each task took 1 (X - left == tasks), so tasks <= X;
// - migrate_util: util moved <= X (left >= 0);
// - migrate_load, v5.15: the last task's shr_bound(load, nr_balance_failed)
//   fit what was left, so with nr_balance_failed 0 the load moved is <= X;
// - migrate_load, era 1 (v4.4): the last task's load / 2 fit what was left;
// - a newly idle pass moves one task (CONFIG_PREEMPTION).
std::string pass_beyond_verdict(const LbPass& p);

// A migrate_load pass's load moved, X - left, in the take's unit (v5.15:
// max(task_h_load, 1) per task; era 1: task_h_load).
uint64_t load_moved(const LbPass& p);
// Whether a migrate_load pass turned the imbalance around, judged by the
// figures it computed the verdict from: the local group's load plus what
// moved, per capacity, above the busiest group's load less it. With
// without_largest, the move less its largest task (a reversal no smaller
// pass of whole tasks, in that order, would have avoided).
bool reverses(const LbPass& p, bool without_largest);

// One line: "v5.15 cpu3<-cpu0 level 1 not_idle migrate_load X=612 left=-5 failed=0 tasks=1 (last 617, max
// 617); local load 0 cap 2048 nr 0 idle 2; busiest load 1840 cap 2048 nr 3 idle 0".
std::string describe(const LbPass& p);

// A sink that checks every pass: the first pass beyond its verdict, and counts.
class LbPassWatch final : public SchedSink {
 public:
  void lb_pass(const Sched& s, const LbPass& p) override;
  std::string first_violation;  // "t=... " + describe + ": " + the rule, "" when none
  std::string first_reversal;   // the first pass that reverses() without its largest task
  uint64_t passes = 0, load_passes = 0, failed_load_passes = 0, reversals = 0, reversals_beyond_one = 0;
};

}  // namespace cfsv
