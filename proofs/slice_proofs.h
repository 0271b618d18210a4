// slice-min-granularity: the model's sched_slice instantiated with Sym over a
// symbolic hierarchy (depth 1..3), a conjecture about its result, and the
// counterexample report. Internal to proofs/.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/arith/slice.h"
#include "proofs/bridge.h"
#include "proofs/prove.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

// Concrete tunables as the value type V (uint64_t or Sym).
template <class V> SliceTunables<V> tunables_as(const SliceTunables<uint64_t>& t) {
  return {V(t.latency), V(t.min_granularity), V(t.nr_latency)};
}

// The inputs of one sched_slice call, in either value type.
template <class V> struct SliceInputs {
  V nice_index;                      // the task's index into sched_prio_to_weight (nice + 20)
  V nr_running;                      // the task's cfs_rq->nr_running
  V rq_h_nr_running;                 // rq->cfs.h_nr_running (ALT_PERIOD's count)
  std::vector<SliceLevel<V>> chain;  // the task's entity first
};

// What the queries range over: the tunables of seed 003's 4-CPU machine
// (v5.15 profile), the era's load resolution, at most max_nr_running tasks
// on the rq (the task included).
struct SliceSetup {
  SliceTunables<uint64_t> tunables;
  LoadResolution resolution;
  uint64_t max_nr_running = 1000;
};
SliceSetup default_slice_setup();

// A slice function under test, with both instantiations: the symbolic one is
// proven, the concrete one re-runs every counterexample.
struct SliceFn {
  std::function<Sym(const SliceInputs<Sym>&, const SliceTunables<Sym>&, LoadResolution)> sym;
  std::function<uint64_t(const SliceInputs<uint64_t>&, const SliceTunables<uint64_t>&, LoadResolution)> concrete;
  SliceFeatures features;  // which count the period uses (alt_period), for the report
  bool is_model = false;   // the model's sched_slice: its per-level slices are re-checked too
};
template <class F> SliceFn make_slice_fn(F f, SliceFeatures features) { return {f, f, features, false}; }
SliceFn model_slice(SliceFeatures f);  // model/slice.h sched_slice, nothing else

// The conjectures about slice = sched_slice(...). n = nr_running + !on_rq is
// the number of entities the task's cfs_rq has with the task on it.
enum class SliceConjecture {
  at_least_min_gran,             // slice >= min_granularity
  equal_weights_exact_set,       // (slice >= min_granularity) == (n < sched_nr_latency)
  equal_weights_rounding_bound,  // slice >= min_granularity - ceil(n * w * min_granularity / 2^32)
                                 //   (- ceil(2^15 / (n * w)) under calc_delta_mine)
};

template <class V>
auto slice_conjecture(SliceConjecture c, const SliceInputs<V>& in, const V& slice, const SliceTunables<V>& t,
                      LoadResolution r) {
  using cfsv::select;
  const SliceLevel<V>& task = in.chain[0];
  const V n = in.nr_running + select(task.on_rq != V(0), V(0), V(1));
  switch (c) {
    case SliceConjecture::equal_weights_exact_set: return (slice >= t.min_granularity) == (n < t.nr_latency);
    case SliceConjecture::equal_weights_rounding_bound: {
      // ceil(n * w * min_gran / 2^32), from WMULT_CONST / (n * w) rounding
      // down; calc_delta_mine's rounded 16-bit halves add ceil(2^15 / (n * w)).
      const V nw = n * scale_load_down(task.weight, r);
      V deficit_bound = (nw * t.min_granularity + V(0xffffffffu)) >> V(32);
      if (r.calc_delta_mine) deficit_bound = deficit_bound + (V(1u << 15) + nw - V(1)) / nw;
      return slice + deficit_bound >= t.min_granularity;
    }
    case SliceConjecture::at_least_min_gran: break;
  }
  return slice >= t.min_granularity;
}

// Which part of the hierarchy the conjecture quantifies over.
enum class SliceDomain {
  any_weights,              // tasks and groups of any weight
  equal_weights_on_task_rq  // every entity on the task's cfs_rq weighs what the task does
};

// When the conjecture is refuted, a counterexample of this shape is searched
// for next (it is still a counterexample of the same conjecture).
enum class Preference {
  none,
  equal_weights,     // every level queued, its cfs_rq's entities all of the chain entity's weight
  upper_levels_cut,  // equal_weights with siblings at every level, depth >= 2, and the levels above
                     // the task at least halving its slice (seed 003's shape)
};

struct SliceProofSpec {
  std::string conjecture;  // one line
  SliceConjecture kind = SliceConjecture::at_least_min_gran;
  SliceDomain domain = SliceDomain::any_weights;
  Preference prefer = Preference::none;
  std::vector<unsigned> depths = {1, 2, 3};
  bool split_by_nice = false;  // one query per nice level (else the index is symbolic)
};

// The symbolic hierarchy of one depth: inputs, the constraints that keep them
// consistent (on_rq up the chain, loads vs counts), and the shapes above.
struct SliceSpace {
  unsigned depth = 0;
  SliceInputs<Sym> in;
  std::vector<Sym> others;         // per level: entities on that cfs_rq besides the chain's
  std::vector<Sym> others_weight;  // per level: their total weight
  z3::expr domain;
  z3::expr equal_siblings;    // every level
  z3::expr equal_on_task_rq;  // level 0 only
  z3::expr all_queued;        // every level on_rq
};
// Needs a ContextScope for `c`.
SliceSpace make_slice_space(z3::context& c, unsigned depth, const SliceSetup& setup);

// The inputs a model assigns (every variable completed).
SliceInputs<uint64_t> evaluate(const SliceSpace& s, const z3::model& m);

// Builds the counterexample report of `m`: every intermediate, from the
// recorded mul_u64_u32_shr calls (fact, shift) and from re-running the
// uint64_t instantiation. `mismatch` is set when the two disagree.
Counterexample slice_counterexample(const SliceSpace& s, const z3::model& m, const Sym& slice,
                                    const std::vector<MulCall>& calls, const SliceFn& fn, const SliceSetup& setup,
                                    std::string& mismatch);

// Runs one query per depth (and per nice level if split): proved if every
// query is, refuted at the first that is (then the preferred shape is
// searched for), unknown otherwise.
ProofResult run_slice_proof(const SliceProofSpec& spec, const SliceFn& fn, const SliceSetup& setup,
                            uint32_t timeout_ms);

}  // namespace cfsv::proofs
