// Every intermediate of one sched_slice call, and the counterexample of a
// slice claim that every engine prints: per level the weight, the cfs_rq's
// load and counts, the load __calc_delta divides by, its inverse, fact and
// shift where known, and the slice after that level; then period, tunables,
// era. The slice after a level is the model's sched_slice on the path up to
// it, so the trace is no second copy of the arithmetic.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "claims/counterexample.h"
#include "claims/slice_case.h"

namespace cfsv {

std::string to_string(SliceFeatures f);  // "hierarchical", "flat", "hierarchical+alt_period+base_slice", ...

// What __calc_delta passed to mul_u64_u32_shr at one level (known to the proofs engine).
struct MulStep {
  uint64_t fact = 0;
  uint64_t shift = 0;
};

struct SliceLevelTrace {
  uint64_t load = 0;              // the load divided by: the cfs_rq's, plus the entity's weight if !on_rq
  uint64_t inv_weight = 0;        // its inverse in the era (WMULT_CONST / load; 2^32 / load for calc_delta_mine)
  std::optional<uint64_t> slice;  // the slice after this level, when sched_slice follows it
};

struct SliceTrace {
  uint64_t nr = 0;      // __sched_period's count: (rq h_nr_running if alt_period, else nr_running) + !on_rq
  uint64_t period = 0;  // __sched_period(nr)
  std::vector<SliceLevelTrace> levels;
  uint64_t slice = 0;   // sched_slice's result
};
SliceTrace trace_slice(const SliceCase<uint64_t>& c, SliceFeatures f);

// The case and its trace `t` under `f` as values, one list per level;
// `steps`: fact and shift per level, if known. No claim, no summary.
Counterexample slice_case_counterexample(const SliceCase<uint64_t>& c, SliceFeatures f, const SliceTrace& t,
                                         std::span<const MulStep> steps = {});

// The case as `claim`'s counterexample: a one-line summary of what fails, the
// case's values and results under the claim's sched_slice, one list per level.
Counterexample slice_counterexample(const Claim& claim, const SliceCase<uint64_t>& c, const SliceTrace& t,
                                    std::span<const MulStep> steps = {});
Counterexample slice_counterexample(const Claim& claim, const SliceCase<uint64_t>& c);

}  // namespace cfsv
