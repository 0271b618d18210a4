// RapidCheck generators for the scheduler arithmetic: nice levels, weights in
// an era's load resolution, tunables for 1..64 CPUs, __calc_delta inputs and
// task-group hierarchies for sched_slice. Shared by the GoogleTest properties
// (*_test.cpp) and check_claim(); every generator shrinks toward the plain
// case (nice 0, default shares, the v3 era, default tunables, few entities).
#pragma once
#include <rapidcheck.h>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <vector>

#include "model/arith/calc_delta.h"
#include "model/arith/slice.h"
#include "model/tunables.h"

namespace cfsv::properties {

constexpr uint64_t kMinShares = 2;          // MIN_SHARES (kernel/sched/sched.h)
constexpr uint64_t kMaxShares = 1ull << 18;  // MAX_SHARES

// Uniform in [lo, hi] at every size; shrinks toward lo.
rc::Gen<uint64_t> gen_uniform(uint64_t lo, uint64_t hi);
// Log-uniform in [lo, hi]: a bit width uniform over the range's widths, then
// uniform within it, so every magnitude is tried; shrinks toward lo.
rc::Gen<uint64_t> gen_log_uniform(uint64_t lo, uint64_t hi);

rc::Gen<int> gen_nice();  // -20..19; shrinks toward 0
// The __calc_delta eras: kLoadResolutionV3 (v3.13..v4.6) or kLoadResolutionV5.
// kLoadResolutionV3_10 (calc_delta_mine) only comes from a claim that pins it.
rc::Gen<LoadResolution> gen_load_resolution();
const char* era_name(LoadResolution r);  // "v3.10", "v3.13", "v5"
// The inverse weight the era's weighted delta uses for this load
// (calc_delta_mine divides 2^32, __calc_delta WMULT_CONST).
uint64_t era_inv_weight(const LoadWeight<uint64_t>& lw, LoadResolution r);
// A task entity's weight: scale_load(sched_prio_to_weight[nice]).
rc::Gen<uint64_t> gen_task_weight(LoadResolution r);
// A group entity's weight as calc_group_shares leaves it: any integer in
// [MIN_SHARES, scale_load(MAX_SHARES)], often scale_load(shares) exactly.
rc::Gen<uint64_t> gen_group_weight(LoadResolution r);
// A weight exact at the era's resolution (a multiple of 2^r.shift, at least
// scale_load(2)): a task's, or scale_load(shares).
rc::Gen<uint64_t> gen_exact_weight(LoadResolution r);

// Tunables of a machine with 1..64 CPUs: the defaults scaled as at boot, or
// (one case in four, when sysctl_writes) latency and min_granularity written
// through sysctl within the kernel's limits [100 us, 1 s], sched_nr_latency
// recomputed. A write may leave latency below nr_latency * min_granularity,
// or below min_granularity itself, which the boot values never do.
struct CpuTunables {
  unsigned cpus = 1;
  Tunables tunables;
  bool sysctl_written = false;
};
rc::Gen<CpuTunables> gen_tunables(bool sysctl_writes = true);
SliceTunables<uint64_t> slice_tunables(const Tunables& t);

// One __calc_delta(delta, weight, lw) call in an era.
struct CalcDeltaCase {
  uint64_t delta = 0;
  uint64_t weight = 0;
  LoadWeight<uint64_t> lw{0, 0};
  LoadResolution r;
};
// A runqueue's load (lazy inverse, lw.inv_weight = 0) inside the domain of
// the error bound (calc_delta_bound.h): any era, every magnitude.
rc::Gen<CalcDeltaCase> gen_calc_delta_lazy();
// A task's load with its table inverse (calc_delta_fair's lw), same domain.
rc::Gen<CalcDeltaCase> gen_calc_delta_table();
// Wherever the kernel's shift is defined (scale_load_down(weight) * inverse
// < 2^64): any delta (results may wrap), any lw.weight including 0 and
// >= WMULT_CONST, lazy, table or arbitrary 32-bit cached inverses.
rc::Gen<CalcDeltaCase> gen_calc_delta_defined();
void showValue(const CalcDeltaCase& c, std::ostream& os);

// Another entity queued on a cfs_rq of the task's path: a task
// (h_nr_running 1) or a group entity with the tasks queued below it.
struct Sibling {
  uint64_t weight = 0;
  uint64_t h_nr_running = 1;
};
// One cfs_rq on the task's path: the path entity (the task at level 0, the
// group entity owning the level below otherwise) and the others queued there.
struct PathLevel {
  uint64_t weight = 0;
  std::vector<Sibling> others;
};

// A task and its hierarchy of 1..3 cfs_rqs on one CPU. The chain handed to
// sched_slice is derived so the counts agree: a cfs_rq's load is the sum of
// the weights queued on it, a group entity is on_rq iff its cfs_rq has a
// queued entity, and the rq's h_nr_running counts every queued task.
struct SliceCase {
  CpuTunables tunables;
  LoadResolution r;
  bool on_rq = true;  // the task's se->on_rq (0: being placed, e.g. at fork)
  std::vector<PathLevel> levels;

  bool level_on_rq(std::size_t i) const;
  uint64_t nr_running(std::size_t i = 0) const;  // of the cfs_rq at level i
  uint64_t rq_h_nr_running() const;
  std::vector<SliceLevel<uint64_t>> chain() const;
};
// era: the load resolution to use, or both eras when unset; sysctl_writes:
// as for gen_tunables.
rc::Gen<SliceCase> gen_slice_case(std::optional<LoadResolution> era = std::nullopt, bool sysctl_writes = true);
// The same, with 0..1023 other tasks of the task's weight on its own cfs_rq
// (n equal-weight tasks, n = nr_running + !on_rq).
rc::Gen<SliceCase> gen_equal_weights_case(std::optional<LoadResolution> era = std::nullopt, bool sysctl_writes = true);
// The proofs engine's domain for the flat-equal-weights claims
// (proofs/prove.cpp): depth 1, seed 003's 4-CPU boot tunables (latency
// 18 ms, min_granularity 2.25 ms, nr_latency 8), the era r, a task of any
// nice level, on_rq either way, n = 1..max_n tasks of its weight on its
// cfs_rq (n = nr_running + !on_rq).
rc::Gen<SliceCase> gen_equal_weights_proof_case(LoadResolution r, uint64_t max_n);
void showValue(const SliceCase& c, std::ostream& os);
// "weight" per sibling, "weightxTASKS" for a group, runs as "w (N times)".
void show_siblings(const std::vector<Sibling>& others, std::ostream& os);

}  // namespace cfsv::properties
