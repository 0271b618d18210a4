// The signals `cfsv run --series` samples: one table of named values read
// from the scheduler's state (sched.h), each with its unit and the kinds of
// object it applies to. A new signal is one row of kSignals (signals.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "sched.h"

namespace cfsv {

// The objects a signal reads (bits: a task's target is task | entity).
enum SignalOn : unsigned {
  on_task = 1,    // a task (task_struct and its counters)
  on_entity = 2,  // a sched_entity: a task's, or a group's on one CPU (tg->se[cpu])
  on_cfs_rq = 4,  // a cfs_rq: a CPU's root one, or a group's on one CPU (tg->cfs_rq[cpu])
  on_group = 8,   // a task group as a whole (struct task_group)
};

// What one sample reads: the ids that apply to its kinds (the others none).
struct SignalTarget {
  TaskId task;
  EntityId se;
  CfsRqId cfs_rq;
  GroupId group;
};

struct Signal {
  std::string_view name;       // unique: "se.vruntime", "cfs_rq.nr_running", ...
  std::string_view unit;       // "ns", "weight", "tasks", "cpu", "state": one chart panel per unit
  unsigned on;                 // SignalOn bits
  std::string_view statement;  // what it is, in the kernel's terms
  // The value at s.now, or nullopt when the object has none then (a task that
  // has exited, a group not created yet).
  std::optional<int64_t> (*get)(const Sched& s, const SignalTarget& t);
};

std::span<const Signal> all_signals();
const Signal* signal_by_name(std::string_view name);  // nullptr when unknown

// The codes of the `state` signal.
constexpr int64_t kStateSleeping = 0, kStateRunnable = 1, kStateRunning = 2;

}  // namespace cfsv
