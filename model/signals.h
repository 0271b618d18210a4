// The signals `cfsv run --series` samples: one table of named values read
// from the scheduler's state (sched.h), each with its unit and the kinds of
// object it applies to. A new signal is one row of kSignals (signals.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sched.h"

namespace cfsv {

// The objects a signal reads. A signal's full name is the kind's prefix and
// its name: `state` (a task's), `se.weight`, `cfs_rq.nr_running`, `tg.shares`.
enum SignalOn : unsigned {
  on_task = 1,    // a task (task_struct and its counters); no prefix
  on_entity = 2,  // "se.": a sched_entity, a task's or a group's on one CPU (tg->se[cpu])
  on_cfs_rq = 4,  // "cfs_rq.": a CPU's root cfs_rq, or a group's on one CPU (tg->cfs_rq[cpu])
  on_group = 8,   // "tg.": a task group as a whole (struct task_group)
};
constexpr SignalOn kSignalKinds[] = {on_task, on_entity, on_cfs_rq, on_group};
std::string_view prefix_of(SignalOn kind);

// What one sample reads: the object of one kind. A task's target has task
// and se; an entity's se; a cfs_rq's cfs_rq; a group's group.
struct SignalTarget {
  TaskId task;
  EntityId se;
  CfsRqId cfs_rq;
  GroupId group;
};

struct Signal {
  std::string_view name;       // unique among the rows of each kind it applies to
  std::string_view unit;       // "ns", "weight", "tasks", "cpu", "state", "count": one chart panel per unit
  unsigned on;                 // SignalOn bits: the kinds it applies to
  std::string_view statement;  // what it is, in the kernel's terms
  // The value at s.now, or nullopt when the object has none then (a task that
  // has exited). A row of several kinds tells them apart by which id is set.
  std::optional<int64_t> (*get)(const Sched& s, const SignalTarget& t);
};

std::span<const Signal> all_signals();
// "se.weight" for (the weight row, on_entity).
std::string full_name(const Signal& g, SignalOn kind);
// The row and kind a full name names; nullopt when none.
struct SignalRef {
  const Signal* signal;
  SignalOn kind;
};
std::optional<SignalRef> signal_by_name(std::string_view full);

// The codes of the `state` signal.
constexpr int64_t kStateSleeping = 0, kStateRunnable = 1, kStateRunning = 2;

}  // namespace cfsv
