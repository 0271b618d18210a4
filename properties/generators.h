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

#include "claims/slice_case.h"
#include "model/arith/calc_delta.h"
#include "model/arith/slice.h"
#include "model/tunables.h"

namespace cfsv::properties {

// Uniform in [lo, hi] at every size; shrinks toward lo.
rc::Gen<uint64_t> gen_uniform(uint64_t lo, uint64_t hi);
// Log-uniform in [lo, hi]: a bit width uniform over the range's widths, then
// uniform within it, so every magnitude is tried; shrinks toward lo.
rc::Gen<uint64_t> gen_log_uniform(uint64_t lo, uint64_t hi);

rc::Gen<int> gen_nice();  // -20..19; shrinks toward 0
// Two __calc_delta eras: v3.13's 32-bit loads or v5.7's 64-bit ones.
rc::Gen<LoadResolution> gen_load_resolution();
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

// A task and its path of cfs_rqs (claims/slice_case.h) on a wider domain
// than any claim's, for the exploratory properties: decoded by RcReader from
// depth 1..3, up to 4096 tasks, in `era` (else v3.13 or v5.7), then on a
// machine from gen_tunables(sysctl_writes). `weights` and `idle` as in a claim's domain.
using SliceCase = cfsv::SliceCase<uint64_t>;
rc::Gen<SliceCase> gen_slice_case(std::optional<Era> era = std::nullopt, bool sysctl_writes = true,
                                  Weights weights = Weights::any, bool idle = false);

}  // namespace cfsv::properties

namespace cfsv {
// RapidCheck prints a failing case with this (found by ADL on cfsv::SliceCase).
void showValue(const SliceCase<uint64_t>& c, std::ostream& os);
}  // namespace cfsv
