// What one load_balance pass of the simulator may move against the verdict
// it computed (model/lb_pass.h), stated from the kernel's detach_tasks
// (v5.15; era 1 v4.4), and whether it turned the imbalance around. Used by
// the claim lb-pass/within-verdict (ClaimKind::sim_lb_pass, every engine)
// and properties/sim_lb_pass_test.cpp. docs/balancing.md, "One pass".
#pragma once
#include <cstdint>
#include <string>

#include "model/lb_pass.h"
#include "model/scenario.h"
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
// - a newly idle pass moves one task (CONFIG_PREEMPTION: newidle_pulls_one).
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

// A workload that makes load_balance work (the lb-pass claims' cases and
// properties/sim_lb_pass_test.cpp): 1..4 sockets x 1..4 cores x 1..2
// threads (at most 16 CPUs; with 2+ sockets NUMA nodes of one or two sockets
// half the time, and sometimes a distance table), one machine in six with
// CPUs of capacity 446; load_balance on, kernel_placement either way; groups
// /a and /b of 2..4096 shares; 1..2 x CPUs + 3 tasks, busy two in three (else
// 1..20 ms runs and sleeps), nice -10..10, in /, /a or /b, three in four
// pinned to one CPU (CPU 0 one time in two), most of those let go at 10 ms;
// 150 ms. The profile is the caller's (the claim's kernel).
template <class R> Scenario decode_lb_workload(R& r) {
  constexpr Nanos kMs = 1'000'000;
  Scenario s;
  Topology& t = s.topology;
  t.sockets = static_cast<unsigned>(r.range(1, 4)), t.cores = static_cast<unsigned>(r.range(1, 4));
  t.threads = static_cast<unsigned>(r.range(1, 2));
  if (t.nr_cpus() == 1) t.cores = 2;
  while (t.nr_cpus() > 16) --t.cores;
  if (t.sockets > 1 && r.range(0, 1)) {
    t.nodes = t.sockets % 2 == 0 && r.range(0, 1) ? t.sockets / 2 : t.sockets;
    const unsigned n = t.nr_nodes();
    if (n > 1 && r.range(0, 1)) {
      static constexpr unsigned kFar[] = {12, 20, 21, 30, 40};
      t.distance.assign(n * n, 10);
      for (unsigned a = 0; a < n; ++a)
        for (unsigned b = 0; b < a; ++b) t.distance[a * n + b] = t.distance[b * n + a] = kFar[r.range(0, 4)];
    }
  }
  if (r.range(0, 5) == 0) {
    t.capacity.assign(t.nr_cpus(), 1024);
    for (unsigned& c : t.capacity) c = r.range(0, 1) ? 1024 : 446;
  }
  const unsigned cpus = t.nr_cpus();
  s.feature_overrides = {{Feature::load_balance, true}, {Feature::kernel_placement, r.range(0, 1) == 1}};
  for (const char* g : {"/a", "/b"}) s.groups.push_back({.path = g, .shares = r.range(2, 4096)});
  static constexpr const char* kGroups[] = {"/", "/", "/a", "/b"};
  for (uint64_t i = 0, nr = r.range(1, 2 * cpus + 3); i < nr; ++i) {
    TaskSpec& task = s.tasks.emplace_back();
    task.name = "t" + std::to_string(i);
    if (r.range(0, 2) == 0) task.behaviour = RunPeriodic{r.range(1, 20) * kMs, r.range(1, 20) * kMs};
    task.group = kGroups[r.range(0, 3)];
    task.nice = static_cast<int>(r.range(0, 20)) - 10;
    if (r.range(0, 3)) {
      task.cpus.set(r.range(0, 1) ? 0 : r.range(0, cpus - 1));
      if (r.range(0, 3)) s.ops.push_back({.at = 10 * kMs, .op = op::SetAffinity{task.name, {}}, .loc = {}});
    }
  }
  s.duration = 150 * kMs;
  return s;
}

// A sink that checks every pass: the first pass beyond its verdict, and counts.
class LbPassWatch final : public SchedSink {
 public:
  void lb_pass(const Sched& s, const LbPass& p) override;
  std::string first_violation;  // "t=... " + describe + ": " + the rule, "" when none
  std::string first_reversal;   // the first pass that reverses() without its largest task
  uint64_t passes = 0, load_passes = 0, failed_load_passes = 0, reversals = 0, reversals_beyond_one = 0;
};

}  // namespace cfsv
