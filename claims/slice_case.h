// The domain of a slice claim, decoded once for every engine: a task (with
// Domain::idle, maybe SCHED_IDLE) on its path of cfs_rqs (depth 1..3) with
// the entities queued beside it, in one era, on a machine's boot tunables
// (min_granularity maybe written after boot). decode_slice_case() reads it from any
// Reader (claims/reader.h); slice_conjecture() is the claim's statement on
// it. Both are templates over the value type: uint64_t or proofs' Sym.
#pragma once
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "claims/claim.h"
#include "claims/reader.h"
#include "model/arith/fair_math.h"
#include "model/arith/slice.h"
#include "model/arith/weights.h"
#include "model/tunables.h"

namespace cfsv {

// The boot tunables of a machine with `cpus` CPUs (log scaling, no sysctl write).
inline SliceTunables<uint64_t> boot_tunables(unsigned cpus) { return slice_tunables(Tunables{}.for_cpus(cpus)); }
inline bool operator==(const SliceTunables<uint64_t>& a, const SliceTunables<uint64_t>& b) {
  return a.latency == b.latency && a.min_granularity == b.min_granularity && a.nr_latency == b.nr_latency &&
         a.idle_min_granularity == b.idle_min_granularity;
}
// A slice claim's tunables on `cpus` CPUs: the boot ones, min_granularity as
// the domain writes it (debugfs, v5.13+: sched_nr_latency stays).
inline SliceTunables<uint64_t> domain_tunables(const Domain& d, unsigned cpus) {
  SliceTunables<uint64_t> t = boot_tunables(cpus);
  if (d.min_granularity) t.min_granularity = d.min_granularity;
  return t;
}
template <class V> SliceTunables<V> tunables_as(const SliceTunables<uint64_t>& t) {
  return {V(t.latency), V(t.min_granularity), V(t.nr_latency), V(t.idle_min_granularity)};
}

// Nice levels by rank, so that rank 0 (what readers shrink toward) is nice 0:
// 0, -1, 1, -2, 2, ..., 19, -20.
constexpr int nice_of_rank(uint64_t rank) {
  const int k = static_cast<int>(rank);
  return k % 2 ? -(k + 1) / 2 : k / 2;
}
constexpr uint64_t rank_of_nice(int nice) {
  return nice >= 0 ? 2 * static_cast<uint64_t>(nice) : 2 * static_cast<uint64_t>(-nice) - 1;
}
template <class V> V nice_weight_of_rank(const V& rank) {
  if constexpr (std::is_same_v<V, uint64_t>) return nice_to_weight(nice_of_rank(rank));  // the same, faster
  V w(0);
  for (int k = 0; k < kNiceLevels; ++k) w = select(rank == V(k), V(nice_to_weight(nice_of_rank(k))), w);
  return w;
}

// One cfs_rq on the task's path: the path entity queued on it (the task at
// level 0, above it the group entity owning the level below) and the others.
template <class V> struct SlicePathLevel {
  V weight;         // the path entity's se->load.weight
  V on_rq;          // its se->on_rq, 0 or 1
  V others;         // the other entities queued on this cfs_rq
  V others_weight;  // their total load.weight
  V others_tasks;   // the tasks queued under them (their h_nr_running), one or more each
};

template <class V> struct SliceCase {
  Era era = Era::v5_7;
  unsigned cpus = 1;
  SliceTunables<uint64_t> tunables{};
  V nice_rank{0};                       // the task's nice level is nice_of_rank(nice_rank)
  std::vector<SlicePathLevel<V>> levels;  // the task's first
  // Domain::idle: the task is SCHED_IDLE (weight WEIGHT_IDLEPRIO, nice_rank
  // unused); the other entities on its cfs_rq are all se_is_idle. 0 or 1.
  V idle{0}, others_idle{0};

  V nr_running() const { return levels[0].on_rq + levels[0].others; }  // the task's cfs_rq's
  V rq_h_nr_running() const {  // every task queued on the rq (ALT_PERIOD's count)
    V n = levels[0].on_rq;
    for (const SlicePathLevel<V>& l : levels) n = n + l.others_tasks;
    return n;
  }
  V n() const { return levels[0].others + V(1); }  // entities on the task's cfs_rq with it queued
  // se_is_idle(task) and its cfs_rq's idle_nr_running: only whether every
  // queued entity is idle matters (sched_idle_cfs_rq), so the others count
  // all or none.
  SliceIdle<V> slice_idle() const {
    return {idle, select(levels[0].on_rq != V(0), idle, V(0)) + select(others_idle != V(0), levels[0].others, V(0))};
  }
  // sched_slice's view: each path entity with the load of the cfs_rq it is on.
  std::vector<SliceLevel<V>> chain() const {
    std::vector<SliceLevel<V>> out;
    for (const SlicePathLevel<V>& l : levels)
      out.push_back({l.weight, select(l.on_rq != V(0), l.weight, V(0)) + l.others_weight, l.on_rq});
    return out;
  }
};

// The case's slice under the claim's sched_slice variant (the model's own).
template <class V> V run_slice(const SliceCase<V>& c, SliceFeatures f) {
  const std::vector<SliceLevel<V>> chain = c.chain();
  return sched_slice<V>(std::span<const SliceLevel<V>>(chain), c.nr_running(), c.rq_h_nr_running(),
                        tunables_as<V>(c.tunables), f, resolution_of(c.era), c.slice_idle());
}

// Reads a case of the domain. Structure (era, machine, depth) comes from
// choose(); every value from a range, dependent ranges where a count bounds
// another: at most max_tasks tasks with the task queued, each other entity
// holding at least one task, a group entity queued iff its cfs_rq is not
// empty. Any integer total weight in [others * MIN, others * MAX] is the sum
// of `others` group weights, so every decoded case is one a runqueue can have.
template <Reader R> SliceCase<typename R::value_type> decode_slice_case(R& r, const Domain& d, Budget b) {
  using V = typename R::value_type;
  SliceCase<V> c;
  c.era = d.eras[r.choose(d.eras.size())];
  if (d.min_cpus == d.max_cpus) {
    c.cpus = d.min_cpus;
  } else {
    const std::vector<unsigned> machines = distinct_tunables_cpus(d);
    c.cpus = machines[r.choose(machines.size())];
  }
  c.tunables = domain_tunables(d, c.cpus);
  const unsigned depth = d.min_depth + static_cast<unsigned>(r.choose(d.max_depth - d.min_depth + 1));
  c.levels.reserve(depth);
  const LoadResolution res = resolution_of(c.era);
  const uint64_t max_others = d.max_tasks.at(b) - 1;  // tasks besides the task
  const uint64_t min_w = kFairMinShares, max_w = scale_load<uint64_t>(kFairMaxShares, res);
  const uint64_t idle_w = scale_load<uint64_t>(kWeightIdlePrio, res);  // an idle task's, an idle group's most

  c.nice_rank = r.range(0, kNiceLevels - 1);
  if (d.idle) c.idle = r.range(0, 1);
  V room(max_others);  // tasks the levels so far leave for the others
  for (unsigned i = 0; i < depth; ++i) {
    SlicePathLevel<V> l{V(0), V(0), V(0), V(0), V(0)};
    if (i == 0) {
      V w = nice_weight_of_rank(c.nice_rank);
      if (d.idle) w = select(c.idle != V(0), V(kWeightIdlePrio), w);
      l.weight = scale_load(w, res);
      l.on_rq = r.range(0, 1);
    } else {
      const SlicePathLevel<V>& below = c.levels.back();
      l.weight = r.range(min_w, max_w);
      l.on_rq = select(below.on_rq != V(0) || below.others != V(0), V(1), V(0));
    }
    l.others = r.range(V(0), room, max_others);
    const bool equal = i == 0 && d.weights == Weights::equal_on_task_rq;
    if (i == 0 && d.idle) c.others_idle = equal ? c.idle : r.range(0, 1);
    if (equal) {  // tasks of the task's weight (idle ones if it is)
      l.others_tasks = l.others;
      l.others_weight = l.others * l.weight;
    } else {
      l.others_tasks = r.range(l.others, room, max_others);
      V spread = l.others * V(max_w - min_w);  // idle entities weigh at most WEIGHT_IDLEPRIO
      if (i == 0 && d.idle) spread = select(c.others_idle != V(0), l.others * V(idle_w - min_w), spread);
      l.others_weight = l.others * V(min_w) + r.range(V(0), spread, max_others * (max_w - min_w));
    }
    room = room - l.others_tasks;
    c.levels.push_back(l);
  }
  return c;
}

// equal_weights_rounding's allowance below min_granularity: ceil(n * w *
// min_granularity / 2^32), w = scale_load_down(the task's weight), from
// WMULT_CONST / (n * w) rounding down; calc_delta_mine's two rounded 16-bit
// shifts add ceil(2^15 / (n * w)).
template <class V> V rounding_allowance(const SliceCase<V>& c) {
  const LoadResolution res = resolution_of(c.era);
  const V nw = c.n() * scale_load_down(c.levels[0].weight, res);
  V allowance = (nw * V(c.tunables.min_granularity) + V(0xffffffffu)) >> V(32);
  if (res.calc_delta_mine) allowance = allowance + (V(1u << 15) + nw - V(1)) / nw;
  return allowance;
}

// The claim's statement on a case and its slice: bool for uint64_t, Z3's
// boolean for Sym. n * w * min_granularity fits in 64 bits for n up to 10^7
// at the boot tunables of up to 8 CPUs.
template <class V> auto slice_conjecture(ClaimKind k, const SliceCase<V>& c, const V& slice, SliceFeatures f) {
  const SliceTunables<V> t = tunables_as<V>(c.tunables);
  switch (k) {
    case ClaimKind::equal_weights_exact_set: return (slice >= t.min_granularity) == (c.n() < t.nr_latency);
    case ClaimKind::equal_weights_rounding: return slice + rounding_allowance(c) >= t.min_granularity;
    case ClaimKind::idle_floor_only_shortens: {
      const V before = run_slice(c, without_idle_floor(f));
      return slice <= before && (slice == before || c.idle != V(0));
    }
    default: break;
  }
  return slice >= t.min_granularity;
}

}  // namespace cfsv
