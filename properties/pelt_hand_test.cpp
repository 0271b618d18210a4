// Hand-checked PELT cases: a task's signals in each era against the ideal
// signal of the kernel's definition, computed in long double, and against
// the closed forms a reader can check with a calculator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "model/arith/pelt.h"
#include "model/arith/pelt_v3.h"
#include "model/arith/pelt_v4.h"
#include "model/arith/weights.h"

namespace cfsv {
namespace {

constexpr uint64_t kPeriodNs = 1024 * 1024;  // one PELT period: 1.048576 ms
constexpr uint64_t kMs = 1'000'000;
const long double kY = std::exp2(-1.0L / 32);  // y^32 = 1/2

// The ideal signal: units of 1024 ns, periods of 1024 units, each unit
// weighted y^(periods completed since), no rounding and no LOAD_AVG_MAX.
// `sum` counts the units where the flag was set.
struct IdealPelt {
  long double sum = 0;
  uint64_t pc = 0;  // units into the current period
  void advance(uint64_t units, bool on) {
    for (uint64_t i = 0; i < units; ++i) {
      sum += on ? 1 : 0;
      if (++pc == 1024) sum *= kY, pc = 0;
    }
  }
  // v5.15: scale * sum over the largest sum at this point of the period, 1024 y / (1 - y) + pc.
  long double avg_v5(long double scale) const { return scale * sum / (1024 * kY / (1 - kY) + pc); }
  // v4.4: scale * sum over the ideal LOAD_AVG_MAX, 1024 / (1 - y).
  long double avg_v4(long double scale) const { return scale * sum / (1024 / (1 - kY)); }
};

// How far the integer signal may be from the ideal one. Each update crossing
// period boundaries rounds the sum down by less than 2 units (decay_load and
// c1 floor, c2's floor rounds up by less than 1); those errors decay like
// the signal, so they add up to less than 2 / (1 - y) < 94 units of a sum
// near 46718; the final division floors once more.
long double tolerance(long double scale) { return 1 + scale * 94 / 46718; }

// One span of a schedule: until `end` ns the task was on_rq / running.
struct Span {
  uint64_t end;
  bool on_rq, running;
};

// A task alternating run_ns running and sleep_ns asleep from time 0, one
// update at every switch (the kernel updates at dequeue and enqueue), until
// `until` ns; sleep_ns 0 means always running, updated every tick (1 ms).
std::vector<Span> duty_cycle(uint64_t run_ns, uint64_t sleep_ns, uint64_t until) {
  std::vector<Span> s;
  for (uint64_t t = 0; t < until;) {
    if (sleep_ns == 0) {
      s.push_back({t += kMs, true, true});
      continue;
    }
    s.push_back({t += run_ns, true, true});
    s.push_back({t += sleep_ns, false, false});
  }
  return s;
}

// Replays a schedule through __update_load_avg_se (v5.15) and the ideal
// signals; after every update that recomputed the averages, `check` sees the
// state, the ideal on_rq and running signals and the time.
template <class Check>
void replay_v5(uint64_t weight, const std::vector<Span>& spans, Check check,
               pelt_v5_15::SchedAvg<uint64_t> sa = {}, uint64_t start = 0) {
  IdealPelt on, run;
  uint64_t prev = start;
  for (const Span& s : spans) {
    const uint64_t decayed = pelt_v5_15::update_load_avg_se<uint64_t>(
        s.end, sa, scale_load(weight, kLoadResolutionV5_7), s.on_rq, s.on_rq, s.running, kLoadResolutionV5_7);
    const uint64_t units = s.end / 1024 - prev / 1024;  // the remainder carries over
    on.advance(units, s.on_rq);
    run.advance(units, s.running);
    prev = s.end;
    if (decayed) check(sa, on, run, s.end);
  }
}

TEST(PeltV5_15, Nice0TaskRunningOneSecondFromAFreshStartReaches1024) {
  pelt_v5_15::SchedAvg<uint64_t> last;
  int checks = 0;
  replay_v5(1024, duty_cycle(kMs, 0, 1000 * kMs), [&](const auto& sa, const IdealPelt& on, const IdealPelt& run, uint64_t) {
    EXPECT_NEAR(sa.load_avg, on.avg_v5(1024), tolerance(1024));
    EXPECT_NEAR(sa.runnable_avg, on.avg_v5(1024), tolerance(1024));
    EXPECT_NEAR(sa.util_avg, run.avg_v5(1024), tolerance(1024));
    last = sa;
    ++checks;
  });
  EXPECT_GT(checks, 900);  // 1 ms updates, 1.048576 ms periods: most updates cross one
  // After 954 periods y^954 < 1e-8: the ideal is 1024 to 6 digits, the model
  // reaches it or stops one short (its sum one unit under the divider).
  EXPECT_GE(last.load_avg, 1023u);
  EXPECT_LE(last.load_avg, 1024u);
  EXPECT_GE(last.util_avg, 1023u);
  EXPECT_LE(last.util_avg, 1024u);
  EXPECT_GE(last.runnable_avg, 1023u);
}

// The continuous-time ripple of a square wave through a y^(t / period)
// filter: the signal peaks at the end of a run and bottoms at its start.
struct Ripple {
  long double low, high;
};
Ripple duty_ripple(uint64_t run_ns, uint64_t cycle_ns) {
  const long double lambda = std::log(2.0L) / (32.0L * kPeriodNs);  // per ns
  const long double high =
      1024 * (1 - std::exp(-lambda * run_ns)) / (1 - std::exp(-lambda * static_cast<long double>(cycle_ns)));
  return {high * std::exp(-lambda * static_cast<long double>(cycle_ns - run_ns)), high};
}

TEST(PeltV5_15, QuarterDutyCycleTaskConvergesNear256) {
  // 1 ms cycles: 254.0 .. 258.0; 4 ms cycles: 248.1 .. 264.0.
  for (uint64_t cycle : {1 * kMs, 4 * kMs}) {
    const Ripple r = duty_ripple(cycle / 4, cycle);
    EXPECT_LT(r.low, 256);
    EXPECT_GT(r.high, 256);
    int late_checks = 0;
    replay_v5(1024, duty_cycle(cycle / 4, cycle - cycle / 4, 2000 * kMs),
              [&](const auto& sa, const IdealPelt& on, const IdealPelt& run, uint64_t now) {
                EXPECT_NEAR(sa.load_avg, on.avg_v5(1024), tolerance(1024)) << "cycle " << cycle << " at " << now;
                EXPECT_NEAR(sa.util_avg, run.avg_v5(1024), tolerance(1024)) << "cycle " << cycle << " at " << now;
                if (now < 1000 * kMs) return;
                ++late_checks;
                EXPECT_GE(sa.util_avg, r.low - tolerance(1024)) << "cycle " << cycle << " at " << now;
                EXPECT_LE(sa.util_avg, r.high + tolerance(1024)) << "cycle " << cycle << " at " << now;
              });
    EXPECT_GT(late_checks, 200) << "cycle " << cycle;
  }
}

TEST(PeltV5_15, LoadAndUtilHalveIn32PeriodsAfterATaskStops) {
  // Running until a period boundary t_s (954 periods, ~1 s), then blocked and
  // updated every 1 ms (as update_blocked_averages would) for 32 periods.
  // Over those 32 boundaries the sum halves and each decay_load rounds down
  // by less than one unit: S' in (S/2 - 32, S/2]. With pc = 0 at both ends
  // the divider is the same, 32 units are 1024 * 32 / 46718 < 0.71 of load_avg,
  // and with both floors 2 * L32 - L0 lies in (-3.42, 1): -3..0 (util_sum's
  // units are 1024 times finer: -2..0).
  const uint64_t ts = 954 * kPeriodNs, half_life = ts + 32 * kPeriodNs;
  std::vector<Span> spans = duty_cycle(kMs, 0, ts - kMs);
  spans.push_back({ts, true, true});
  for (uint64_t t = ts + kMs; t < half_life; t += kMs) spans.push_back({t, false, false});
  spans.push_back({half_life, false, false});
  pelt_v5_15::SchedAvg<uint64_t> at_stop, at_32ms, at_half_life;
  replay_v5(1024, spans, [&](const auto& sa, const IdealPelt& on, const IdealPelt& run, uint64_t now) {
    EXPECT_NEAR(sa.load_avg, on.avg_v5(1024), tolerance(1024)) << "at " << now;
    EXPECT_NEAR(sa.util_avg, run.avg_v5(1024), tolerance(1024)) << "at " << now;
    if (now == ts) at_stop = sa;
    if (now == ts + 32 * kMs) at_32ms = sa;
    if (now == half_life) at_half_life = sa;
  });
  ASSERT_EQ(at_stop.last_update_time, ts);
  ASSERT_EQ(at_stop.period_contrib, 0u);
  ASSERT_EQ(at_half_life.period_contrib, 0u);
  const int64_t l0 = at_stop.load_avg, u0 = at_stop.util_avg;
  EXPECT_GE(int64_t(2 * at_half_life.load_avg) - l0, -3) << l0 << " -> " << at_half_life.load_avg;
  EXPECT_LE(int64_t(2 * at_half_life.load_avg) - l0, 0) << l0 << " -> " << at_half_life.load_avg;
  EXPECT_GE(int64_t(2 * at_half_life.util_avg) - u0, -2) << u0 << " -> " << at_half_life.util_avg;
  EXPECT_LE(int64_t(2 * at_half_life.util_avg) - u0, 0) << u0 << " -> " << at_half_life.util_avg;
  // "32 ms" is 30.5 periods: then 30 boundaries have passed, 530 units into
  // the next period; the signal is still above half (within rounding of the ideal, checked above).
  ASSERT_EQ(at_32ms.last_update_time >> 10, (ts + 32 * kMs) >> 10);
  EXPECT_GT(2 * at_32ms.load_avg, at_stop.load_avg);
}

TEST(PeltV5_15, ABlockedEntitysUpdateIsTheUpdateOfOneNotOnTheRunqueue) {
  pelt_v5_15::SchedAvg<uint64_t> a;
  pelt_v5_15::update_load_avg_se<uint64_t>(50 * kMs, a, 1024 << 10, 1, 1, 1, kLoadResolutionV5_7);
  pelt_v5_15::SchedAvg<uint64_t> b = a;
  pelt_v5_15::update_load_avg_se<uint64_t>(60 * kMs, a, 1024 << 10, 0, 0, 0, kLoadResolutionV5_7);
  pelt_v5_15::update_load_avg_blocked_se<uint64_t>(60 * kMs, b, 1024 << 10, kLoadResolutionV5_7);
  EXPECT_EQ(a, b);
  EXPECT_LT(a.load_avg, 1024u);
}

TEST(PeltV5_15, UtilAvgCanReach1025) {
  // A task always running, updated once per period 44 units into it: each
  // update adds c1 = floor(980 * 0xfa83b2da / 2^32) = floor(959.0006) = 959,
  // c2 = 0, d3 = 44: 1003 units. util_sum (<< 10, decayed with 1/1024-unit
  // floors) approaches 1003 * 1024 / (1 - 0xfa83b2da / 2^32) = 47931.5k,
  // the divider is 46718 + 44: 47931.5k / 46762 = 1025.0. load_sum (whole
  // units) stays at or below the divider, so load_avg stays at the weight.
  pelt_v5_15::SchedAvg<uint64_t> sa;
  uint64_t util_max = 0, runnable_max = 0, load_max = 0;
  for (uint64_t t = 44 * 1024; t < 3000 * kPeriodNs; t += kPeriodNs) {
    pelt_v5_15::update_load_avg_se<uint64_t>(t, sa, 1024 << 10, 1, 1, 1, kLoadResolutionV5_7);
    util_max = std::max(util_max, sa.util_avg);
    runnable_max = std::max(runnable_max, sa.runnable_avg);
    load_max = std::max(load_max, sa.load_avg);
  }
  EXPECT_EQ(sa.period_contrib, 44u);
  EXPECT_EQ(util_max, 1025u);
  EXPECT_EQ(runnable_max, 1025u);
  EXPECT_EQ(load_max, 1024u);
  EXPECT_GT(sa.util_sum, pelt_v5_15::get_pelt_divider(sa) << 10);
}

TEST(PeltV5_15, AStaleAverageRisesAtTheFirstBoundaryAfterTheEntityWentIdle) {
  // A nice -20 task queued for 25 units crosses no boundary: load_sum 25,
  // load_avg still 0. The next update, idle, crosses one: load_sum =
  // floor(25 y) = 24 and load_avg = 88761 * 24 / (46718 + 1023) = 44 > 0.
  pelt_v5_15::SchedAvg<uint64_t> sa;
  const uint64_t w = uint64_t{nice_to_weight(-20)} << 10;
  EXPECT_EQ(pelt_v5_15::update_load_avg_se<uint64_t>(25 * 1024, sa, w, 1, 1, 0, kLoadResolutionV5_7), 0u);
  EXPECT_EQ(sa.load_sum, 25u);
  EXPECT_EQ(sa.load_avg, 0u);
  EXPECT_EQ(pelt_v5_15::update_load_avg_blocked_se<uint64_t>(2047 * 1024, sa, w, kLoadResolutionV5_7), 1u);
  EXPECT_EQ(sa.load_sum, 24u);
  EXPECT_EQ(sa.period_contrib, 1023u);
  EXPECT_EQ(sa.load_avg, 44u);
}

// Replays a schedule through v4.4's __update_load_avg for an entity (weight
// on_rq * w) with the ideal signals.
template <class Check>
void replay_v4(uint64_t weight, const std::vector<Span>& spans, Check check, uint64_t scale_freq = 1024) {
  pelt_v4_4::SchedAvg<uint64_t> sa;
  IdealPelt on, run;
  uint64_t prev = 0;
  for (const Span& s : spans) {
    const uint64_t decayed = pelt_v4_4::update_load_avg<uint64_t>(s.end, sa, s.on_rq ? weight : 0, s.running,
                                                                  nullptr, scale_freq);
    const uint64_t units = (s.end - prev) >> 10;  // the remainder is dropped
    on.advance(units, s.on_rq);
    run.advance(units, s.running);
    prev = s.end;
    if (decayed) check(sa, on, run, s.end);
  }
}

TEST(PeltEras, V5_15sDividerReachesTheWeightWhereV4_4sLoadAvgMaxDividerStopsShort) {
  // A nice-5 task (weight 335) always running, for 2 s.
  const uint64_t w = nice_to_weight(5);
  const auto spans = duty_cycle(kMs, 0, 2000 * kMs);
  uint64_t v5_max = 0, v4_max = 0;
  replay_v5(w, spans, [&](const auto& sa, const IdealPelt& on, const IdealPelt&, uint64_t now) {
    EXPECT_NEAR(sa.load_avg, on.avg_v5(w), tolerance(w));
    if (now < 1000 * kMs) return;
    EXPECT_GE(sa.load_avg, w - 1);
    EXPECT_LE(sa.load_avg, w);
    v5_max = std::max(v5_max, sa.load_avg);
  });
  EXPECT_EQ(v5_max, w);
  // v4.4 divides by LOAD_AVG_MAX while the sum tops out near
  // LOAD_AVG_MAX - 1024 + period_contrib: load_avg stays between
  // 335 * 46718 / 47742 = 327.8 and just under 335.
  replay_v4(w, spans, [&](const auto& sa, const IdealPelt& on, const IdealPelt& run, uint64_t now) {
    EXPECT_NEAR(sa.load_avg, on.avg_v4(w), tolerance(w));
    EXPECT_NEAR(sa.util_avg, run.avg_v4(1024), tolerance(1024));
    if (now < 1000 * kMs) return;
    EXPECT_GE(sa.load_avg, 327u);
    v4_max = std::max(v4_max, sa.load_avg);
  });
  EXPECT_LT(v4_max, w);
}

TEST(PeltV4_4, QuarterDutyCycleAndHalfFrequencyStayWithinRoundingOfTheIdeal) {
  replay_v4(1024, duty_cycle(kMs, 3 * kMs, 2000 * kMs),
            [&](const auto& sa, const IdealPelt& on, const IdealPelt& run, uint64_t) {
              EXPECT_NEAR(sa.load_avg, on.avg_v4(1024), tolerance(1024));
              EXPECT_NEAR(sa.util_avg, run.avg_v4(1024), tolerance(1024));
            });
  // At scale_freq 512 (half capacity) every unit counts half: util_avg is
  // half the ideal. cap_scale(contrib, 512) rounds down once more per update.
  uint64_t last_util = 0;
  replay_v4(1024, duty_cycle(kMs, 0, 1000 * kMs), [&](const auto& sa, const IdealPelt&, const IdealPelt& run, uint64_t) {
    EXPECT_NEAR(sa.util_avg, run.avg_v4(512), tolerance(512) + 1);
    last_util = sa.util_avg;
  }, 512);
  EXPECT_GE(last_util, 500u);
  EXPECT_LT(last_util, 512u);
}

TEST(PeltV4_4, AnUpdateSpanning345PeriodsAddsLoadAvgMaxAndLiftsLoadAvgAboveTheWeight) {
  // __compute_runnable_contrib(n >= 345) returns LOAD_AVG_MAX, the sum of
  // 1024 y^k from k = 0, one period more than the n periods it stands for:
  // a task runnable but not updated for 400 ms (waiting behind many others)
  // ends with load_sum = decay_load(...) + 1024 * 47742 + 1024 * d3 and a
  // load_avg above its weight. v5.15's segments keep it at or below.
  const std::vector<Span> busy = duty_cycle(kMs, 0, 1000 * kMs);
  pelt_v4_4::SchedAvg<uint64_t> v4;
  for (const Span& s : busy) pelt_v4_4::update_load_avg<uint64_t>(s.end, v4, 1024, 1, nullptr);
  const uint64_t later = 1400 * kMs;
  ASSERT_EQ(pelt_v4_4::update_load_avg<uint64_t>(later, v4, 1024, 0, nullptr), 1u);
  const uint64_t d3 = v4.period_contrib;
  EXPECT_GT(v4.load_avg, 1024u);
  EXPECT_GE(v4.load_sum, 1024 * (47742 + d3));
  EXPECT_EQ(v4.load_avg, v4.load_sum / 47742);

  pelt_v5_15::SchedAvg<uint64_t> v5;
  replay_v5(1024, busy, [&](const auto& sa, const IdealPelt&, const IdealPelt&, uint64_t) { v5 = sa; });
  pelt_v5_15::update_load_avg_se<uint64_t>(later, v5, 1024 << 10, 1, 1, 0, kLoadResolutionV5_7);
  EXPECT_LE(v5.load_avg, 1024u);
}

TEST(PeltEras, V4_4DropsTheSubUnitRemainderWhereV5_15CarriesIt) {
  // Two updates 1536 ns apart: v4.4 counts 1 + 1 units (last_update_time =
  // now), v5.15 counts 1 then (3072 - 1024) >> 10 = 2 (last_update_time += 1024).
  pelt_v4_4::SchedAvg<uint64_t> v4;
  pelt_v5_15::SchedAvg<uint64_t> v5;
  for (uint64_t now : {1536, 3072}) {
    pelt_v4_4::update_load_avg<uint64_t>(now, v4, 1024, 1, nullptr);
    pelt_v5_15::update_load_avg_se<uint64_t>(now, v5, 1024 << 10, 1, 1, 1, kLoadResolutionV5_7);
  }
  EXPECT_EQ(v4.period_contrib, 2u);
  EXPECT_EQ(v4.last_update_time, 3072u);
  EXPECT_EQ(v5.period_contrib, 3u);
  EXPECT_EQ(v5.last_update_time, 3072u);
  EXPECT_EQ(v5.load_sum, 3u);
  EXPECT_EQ(v4.load_sum, 2u * 1024);
}

TEST(PeltEras, TimeGoingBackwardsResetsTheClockAndChangesNothingElse) {
  pelt_v5_15::SchedAvg<uint64_t> v5;
  pelt_v5_15::update_load_avg_se<uint64_t>(10 * kMs, v5, 1024 << 10, 1, 1, 1, kLoadResolutionV5_7);
  pelt_v5_15::SchedAvg<uint64_t> back = v5;
  EXPECT_EQ(pelt_v5_15::update_load_avg_se<uint64_t>(5 * kMs, back, 1024 << 10, 1, 1, 1, kLoadResolutionV5_7), 0u);
  pelt_v5_15::SchedAvg<uint64_t> want = v5;
  want.last_update_time = 5 * kMs;
  EXPECT_EQ(back, want);
  // Less than 1024 ns after the clock (which kept 10 ms's 640 ns remainder): nothing at all.
  ASSERT_EQ(v5.last_update_time, 10 * kMs - 640);
  pelt_v5_15::SchedAvg<uint64_t> soon = v5;
  EXPECT_EQ(pelt_v5_15::update_load_avg_se<uint64_t>(v5.last_update_time + 1023, soon, 1024 << 10, 1, 1, 1,
                                                     kLoadResolutionV5_7),
            0u);
  EXPECT_EQ(soon, v5);
}

// v3.10: runnable_avg_sum over runnable_avg_period (+1), both tracked with
// v3.10's unit rounding (last_runnable_update = now).
template <class Check> void replay_v3(const std::vector<Span>& spans, Check check) {
  pelt_v3_10::SchedAvg<uint64_t> sa;
  IdealPelt on, all;
  uint64_t prev = 0;
  for (const Span& s : spans) {
    const uint64_t decayed = pelt_v3_10::update_entity_runnable_avg<uint64_t>(s.end, sa, s.on_rq);
    const uint64_t units = (s.end - prev) >> 10;
    on.advance(units, s.on_rq);
    all.advance(units, true);
    prev = s.end;
    if (decayed) check(sa, on.sum / all.sum, s.end);
  }
}

TEST(PeltV3_10, AlwaysRunnableTaskContributesItsWeightLessItsRounding) {
  // sum == period, so contrib = floor(w * P / (P + 1)) = w - ceil(w / (P + 1)):
  // one short of the weight up to P + 1, two short above (nice -20..-17 here).
  // v3.10 places the period boundary at runnable_avg_period % 1024, so P
  // settles below LOAD_AVG_MAX at a phase of its own.
  pelt_v3_10::SchedAvg<uint64_t> last;
  replay_v3(duty_cycle(kMs, 0, 1000 * kMs), [&](const auto& sa, long double, uint64_t) { last = sa; });
  ASSERT_EQ(last.runnable_avg_sum, last.runnable_avg_period);
  const uint64_t p = last.runnable_avg_period;
  EXPECT_GT(p, 40000u);
  EXPECT_LT(p, 47742u);
  for (int nice = kNiceMin; nice <= kNiceMax; ++nice) {
    const uint64_t w = nice_to_weight(nice);
    const uint64_t contrib = pelt_v3_10::task_entity_contrib<uint64_t>(last, w, kLoadResolutionV3_10);
    EXPECT_EQ(contrib, w - (w + p) / (p + 1)) << "nice " << nice;
    EXPECT_EQ(contrib, w <= p + 1 ? w - 1 : w - 2) << "nice " << nice;
  }
}

TEST(PeltV3_10, ANice20TasksContributionWrapsAfterA345PeriodWait) {
  // Runnable from 0; an update at 1 ms (976 units, no boundary), then none
  // for 48 + 390 * 1024 + 1000 units (waiting behind others): the span
  // completes the period, __compute_runnable_contrib(390) gives LOAD_AVG_MAX
  // and d3 = 1000, the old 1024 decays to 0 over 391 periods:
  // runnable_avg_sum = runnable_avg_period = 48742. The kernel forms
  // 48742 * 88761 = 4326388662 in a u32 ("avoid overflowing a 32-bit type"),
  // which wraps to 31421366: the contribution is 31421366 / 48743 = 644
  // instead of 88759.
  pelt_v3_10::SchedAvg<uint64_t> sa;
  const uint64_t w = nice_to_weight(-20);
  pelt_v3_10::update_entity_runnable_avg<uint64_t>(kMs, sa, 1);
  pelt_v3_10::update_entity_runnable_avg<uint64_t>(kMs + (48 + 390 * 1024 + 1000) * 1024, sa, 1);
  EXPECT_EQ(sa.runnable_avg_sum, 48742u);
  EXPECT_EQ(sa.runnable_avg_period, 48742u);
  EXPECT_EQ(pelt_v3_10::task_entity_contrib<uint64_t>(sa, w, kLoadResolutionV3_10), 644u);
  EXPECT_EQ(sa.runnable_avg_sum * w / (sa.runnable_avg_period + 1), 88759u);
}

TEST(PeltV3_10, QuarterDutyCycleTaskContributesAQuarterOfItsWeight) {
  // The ratio of two sums rounded alike: within the same tolerance of the
  // ideal ratio, and inside the ripple of 256 after 1 s.
  const Ripple r = duty_ripple(kMs, 4 * kMs);
  replay_v3(duty_cycle(kMs, 3 * kMs, 2000 * kMs), [&](const auto& sa, long double ratio, uint64_t now) {
    const uint64_t contrib = pelt_v3_10::task_entity_contrib<uint64_t>(sa, 1024, kLoadResolutionV3_10);
    EXPECT_NEAR(contrib, 1024 * ratio, tolerance(1024)) << "at " << now;
    if (now >= 1000 * kMs) {
      EXPECT_GE(contrib, r.low - tolerance(1024)) << "at " << now;
      EXPECT_LE(contrib, r.high + tolerance(1024)) << "at " << now;
    }
  });
}

}  // namespace
}  // namespace cfsv
