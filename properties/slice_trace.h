// Every intermediate of one sched_slice call, for counterexamples. The slice
// after each level is the model's own sched_slice on the chain's prefix, so
// the trace is not a second copy of the arithmetic.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "properties/generators.h"

namespace cfsv::properties {

struct SliceLevelTrace {
  SliceLevel<uint64_t> level;
  uint64_t load = 0;        // the load __calc_delta divides by: cfs_rq load, plus weight if !on_rq
  uint64_t inv_weight = 0;  // its lazy inverse (era_inv_weight)
  uint64_t slice = 0;       // the slice after this level
};

struct SliceTrace {
  SliceFeatures features;
  uint64_t nr_for_period = 0;  // (alt_period ? rq h_nr_running : nr_running) + !on_rq
  uint64_t period = 0;         // __sched_period(nr_for_period)
  std::vector<SliceLevelTrace> levels;  // the levels sched_slice follows
  uint64_t slice = 0;                   // sched_slice's result
  uint64_t min_granularity = 0;
};

SliceTrace trace_slice(const SliceCase& c, SliceFeatures f);

// "sched_slice 562499 ns (min_granularity 2250000 ns): v3 era, 4 CPUs, period
// 45000000 (nr 20); level 0: weight 1024 / load 20480 -> 2249998; ..."
std::string summary(const SliceCase& c, const SliceTrace& t);
// One intermediate per line: era, tunables, counts, period, each level's
// weight, cfs_rq load, on_rq, load used, inv_weight and slice, the siblings.
std::string reproducer(const SliceCase& c, const SliceTrace& t);

std::string to_string(SliceFeatures f);  // "hierarchical", "flat", "alt_period+base_slice", ...

}  // namespace cfsv::properties
