// Statistics computed online, in memory that does not grow with simulated
// time: per-CPU stretch lengths, per-task wakeup latency, per-group CPU time
// over membership, and the same per phase. Stats is a sink (model/sink.h);
// the per-task counters it reports (CPU time, wait, switches, migrations)
// are the model's own (sched_entity and schedstats-like fields).
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sink.h"

namespace cfsv {

// A task's CPU time (sum_exec_runtime brought up to `at`), its time runnable
// but not running, and a CPU's busy, idle (online) and offline time, at a
// time `at` no earlier than the last event (nothing happened in between).
Nanos cpu_time_at(const Sched& s, TaskId task, Nanos at);
Nanos wait_at(const Sched& s, TaskId task, Nanos at);
Nanos busy_at(const Sched& s, CpuId cpu, Nanos at);
Nanos idle_at(const Sched& s, CpuId cpu, Nanos at);
Nanos offline_at(const Sched& s, CpuId cpu, Nanos at);

// Stretch lengths: exact counts for the first kKept distinct lengths seen;
// stretches of any other length are only counted (other()).
class StretchHistogram {
 public:
  static constexpr std::size_t kKept = 64;
  void add(Nanos length);
  std::span<const std::pair<Nanos, uint64_t>> kept() const { return kept_; }  // by length
  uint64_t other() const { return other_; }
  uint64_t total() const;

 private:
  std::vector<std::pair<Nanos, uint64_t>> kept_;
  uint64_t other_ = 0;
};

// "3.000000ms x 333, 1.000000ms x 1": the most common lengths first (at most
// `top`, ties by length), then ", ..." when some are not shown, and
// ", N of other lengths" for the ones a StretchHistogram did not keep.
std::string format_histogram(std::span<const std::pair<Nanos, uint64_t>> by_length, uint64_t other = 0,
                             std::size_t top = 8);
std::string format_histogram(const std::map<Nanos, uint64_t>& h, std::size_t top = 8);

// Log-linear buckets, as HdrHistogram's: a value below 2^(kSubBits+1) has a
// bucket of its own; above, each power of two is cut into 2^kSubBits equal
// buckets, so a bucket is at most 1/1024 of its values wide. Only the buckets
// used are kept (at most ~55,000 for the whole 64-bit range).
class LatencyHistogram {
 public:
  static constexpr unsigned kSubBits = 10;
  void add(Nanos v);
  uint64_t count() const { return count_; }
  Nanos sum() const { return sum_; }
  Nanos max() const { return max_; }
  // The nearest-rank percentile, in per mille (500: the median): exact below
  // 2048 ns, otherwise the top of its bucket (at most 1/1024 above the exact
  // value), never above max(). 0 when empty.
  Nanos percentile(unsigned permille) const;
  std::size_t buckets() const { return counts_.size(); }

  static uint32_t bucket_of(Nanos v);
  static Nanos bucket_top(uint32_t bucket);

 private:
  std::map<uint32_t, uint64_t> counts_;
  uint64_t count_ = 0;
  Nanos sum_ = 0, max_ = 0;
};

struct LatencySummary {  // wakeup (or fork) to switch-in
  uint64_t count = 0;
  double avg_ns = 0;  // exact mean
  Nanos p50_ns = 0, p99_ns = 0, max_ns = 0;
  static LatencySummary of(const LatencyHistogram& h);
};

struct TaskFigures {
  TaskId task;
  Nanos cpu_ns = 0, wait_ns = 0;
  uint64_t switches = 0, migrations = 0;
  LatencySummary latency;
  int32_t pid = 0;  // which task the slot held (a churn child's slot is reused)
};
struct GroupFigures {
  GroupId group;
  Nanos cpu_ns = 0;  // its tasks' CPU time while they were in it or in a group below it
};
// A churning task's children (TaskSpec::churn), live or exited, as one:
// forks and exits, and the sums of their figures; latency: fork to first run.
struct ChildrenFigures {
  TaskId parent;
  uint64_t forked = 0, exited = 0;
  Nanos cpu_ns = 0, wait_ns = 0;
  uint64_t switches = 0, migrations = 0;
  LatencySummary latency;
};
// The figures of the time [start, end): the whole run, or one phase.
struct Interval {
  Nanos start = 0, end = 0;
  std::vector<TaskFigures> tasks;    // every task spawned by `end` but reaped churn children, by id
  std::vector<GroupFigures> groups;  // every group created by `end`, by id
  std::vector<ChildrenFigures> children;  // every churning task's children, by the parent's id
};

class Stats final : public SchedSink {
 public:
  void sched_switch(const Sched& s, const SwitchEvent& e) override;
  void sched_wakeup(const Sched& s, TaskId task, bool new_task) override;
  void group_move(const Sched& s, TaskId task, GroupId to) override;

  // [0, at), at >= the last event's time.
  Interval whole(const Sched& s, Nanos at) const;
  // Ends the current phase at `at` (>= the last event's time, before any event
  // at `at`); the next starts there. A phase of length 0 is dropped.
  void close_phase(const Sched& s, Nanos at);
  const std::vector<Interval>& phases() const { return phases_; }
  // One CPU's stretches up to `at`, the running one included.
  StretchHistogram stretches(const Sched& s, CpuId cpu, Nanos at) const;

  // Entries held (histogram lengths and buckets, per-task and per-group
  // slots): bounded by the tasks, groups and CPUs, not by time.
  std::size_t retained() const;

 private:
  void fit(const Sched& s);  // the per-task, per-group and per-CPU tables
  void charge(const Sched& s, TaskId task, Nanos ns);
  Interval cumulative(const Sched& s, Nanos at) const;  // latency left empty

  std::vector<StretchHistogram> stretch_;     // per CPU
  std::vector<Nanos> charged_to_;             // per CPU: its curr's time is charged up to here
  std::vector<Nanos> group_cpu_;              // per group, cumulative
  std::vector<Nanos> woken_at_;               // per task: the pending wakeup's time, or kNone
  std::vector<LatencyHistogram> latency_;     // per task, whole run
  std::vector<LatencyHistogram> phase_latency_;  // per task, current phase
  // Per churning task: its children's latencies, whole run and current phase.
  std::vector<LatencyHistogram> children_latency_, phase_children_latency_;
  Interval last_;                             // cumulative figures where the current phase began
  std::vector<Interval> phases_;
};

}  // namespace cfsv
