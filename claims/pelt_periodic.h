// A periodic task's util_avg (ClaimKind::pelt_periodic_util): a nice-0 task
// alone on its CPU runs `run` and sleeps `period - run` units of 1024 ns in
// turn from zero sums at time 0, updated as the kernel updates it
// (__update_load_avg_se, v5.15) at every switch (dequeue when it sleeps,
// enqueue when it wakes) and, while it runs, at every tick. From 32 k
// periods on (k half-lives), every util_avg an update computes lies in
// [lo, hi] (docs/claims.md derives the bound):
//   hi = 1024 R / P + 1024 R S / (46764 P) + 4,
//   lo = 1024 R / P - 1024 R S / (46764 P) - 1024 / 2^k - 4,
// R = run, S = period - run, P = period, in units; 46764 = floor(1024 y /
// (1 - y)), the ideal divider without period_contrib; 4 > 1 + 1024 * 94 /
// 46718, how far the integer signal may be from the ideal (docs/pelt.md).
// The history runs on the value type V (uint64_t, or the proofs' Sym with
// `settle` folding each step); its schedule is the parameters', in uint64_t.
#pragma once
#include <algorithm>
#include <cstdint>

#include "model/arith/pelt.h"

namespace cfsv {

inline constexpr uint64_t kPeriodicMinPeriod = kPeltPeriodUs;       // units: 1 PELT period (1.05 ms)
inline constexpr uint64_t kPeriodicMaxPeriod = 64 * kPeltPeriodUs;  // 64 periods (67 ms)
inline constexpr uint64_t kPeriodicMaxHalfLives = 8;
inline constexpr uint64_t kPeriodicMinTick = 256, kPeriodicMaxTick = 4 * kPeltPeriodUs;  // units
inline constexpr uint64_t kPeriodicIdealDivider = 46764;  // floor(1024 y / (1 - y)), y^32 = 1/2
inline constexpr uint64_t kPeriodicSlack = 4;             // > 1 + 1024 * 94 / 46718

struct PeltPeriodic {
  uint64_t period = kPeriodicMinPeriod, run = 0;  // units of 1024 ns; sleep = period - run
  uint64_t half_lives = 1;                        // k: checked from 32 k periods on
  uint64_t tick = 0;                              // units between ticks while running; 0: no tick
  bool sleep_first = false;
};

// The bound, as above, over the integers (lo rounded up, hi down; lo >= 0).
struct PeriodicBounds {
  uint64_t lo, hi;
};
inline PeriodicBounds periodic_bounds(const PeltPeriodic& p) {
  const uint64_t sleep = p.period - p.run, den = p.period * kPeriodicIdealDivider;  // all below 2^43
  const uint64_t mean = 1024 * p.run * kPeriodicIdealDivider, ripple = 1024 * p.run * sleep;
  const uint64_t slack = kPeriodicSlack * den;
  const uint64_t transient = (1024 * den + (uint64_t{1} << p.half_lives) - 1) >> p.half_lives;
  const uint64_t below = ripple + transient + slack;
  return {mean > below ? (mean - below + den - 1) / den : 0, (mean + ripple + slack) / den};
}

// When the checks start and the history ends, in units.
inline uint64_t periodic_warm(const PeltPeriodic& p) { return p.half_lives * kLoadAvgPeriod * kPeltPeriodUs; }
inline uint64_t periodic_end(const PeltPeriodic& p) { return periodic_warm(p) + 2 * p.period + 2 * kPeltPeriodUs; }

// The history: after each update, visit(time in units, decayed, sa). The
// state is settled (settle(v) for each field) after every update.
template <class V, class Settle, class Visit> void periodic_history(const PeltPeriodic& p, Settle settle, Visit visit) {
  pelt_v5_15::SchedAvg<V> sa{};
  const uint64_t end = periodic_end(p), sleep = p.period - p.run;
  const V weight = nice_0_load<V>(kLoadResolutionV5_7);
  bool running = !p.sleep_first;
  for (uint64_t t = 0, next_switch = running ? p.run : sleep; t < end;) {
    const uint64_t tick = p.tick && running ? (t / p.tick + 1) * p.tick : next_switch;
    const uint64_t next = std::min(next_switch, tick);
    const V on(running ? 1 : 0);
    const V decayed =
        pelt_v5_15::update_load_avg_se(V(next << kPeltUnitShift), sa, weight, on, on, on, kLoadResolutionV5_7);
    for (V* f : {&sa.last_update_time, &sa.load_sum, &sa.runnable_sum, &sa.util_sum, &sa.period_contrib,
                 &sa.load_avg, &sa.runnable_avg, &sa.util_avg})
      *f = settle(*f);
    visit(next, settle(decayed), sa);
    t = next;
    if (t == next_switch) {
      running = !running;
      next_switch = t + (running ? p.run : sleep);
    }
  }
}

// The claim: every util_avg an update from periodic_warm(p) on recomputes
// lies in `b` (bool for uint64_t, Z3's boolean for Sym).
template <class V, class Settle> auto periodic_within(const PeltPeriodic& p, const PeriodicBounds& b, Settle settle) {
  const uint64_t warm = periodic_warm(p);
  auto ok = V(0) == V(0);
  periodic_history<V>(p, settle, [&](uint64_t t, const V& decayed, const pelt_v5_15::SchedAvg<V>& sa) {
    if (t >= warm) ok = ok && (decayed == V(0) || (V(b.lo) <= sa.util_avg && sa.util_avg <= V(b.hi)));
  });
  return ok;
}

}  // namespace cfsv
