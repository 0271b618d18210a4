// RapidCheck properties of the PELT arithmetic (model/arith/pelt*.h): decay,
// bounds on the signals for any update history, idle decay, one update
// against two, and the tg load_avg bookkeeping.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/arith/pelt.h"
#include "model/arith/pelt_shares.h"
#include "model/arith/pelt_v3.h"
#include "model/arith/pelt_v4.h"
#include "properties/generators.h"

namespace cfsv::properties {
namespace {

constexpr uint64_t kPeriodNs = 1024 * 1024;
constexpr LoadResolution kV5 = kLoadResolutionV5_7;

// One update: time advances by delta_ns (or, one step in 16, goes back by
// it), the entity is on_rq or not and running or not while it passed; nr is
// a group entity's or cfs_rq's h_nr_running, weight a cfs_rq's load.weight.
struct Step {
  uint64_t delta_ns = 0;
  bool backwards = false;
  bool on_rq = false, running = false;
  uint64_t nr = 0, weight = 0;
};

void showValue(const Step& s, std::ostream& os) {
  os << (s.backwards ? "-" : "+") << s.delta_ns << "ns on_rq=" << s.on_rq << " running=" << s.running
     << " nr=" << s.nr << " weight=" << s.weight;
}

// Every magnitude from 0 to 2^33 ns (8.6 s, beyond the 2016 periods after
// which decay_load gives 0); shrinks toward short, idle steps.
rc::Gen<Step> gen_step() {
  return rc::gen::exec([] {
    Step s;
    s.delta_ns = *gen_log_uniform(0, uint64_t{1} << 33);
    s.backwards = *gen_uniform(0, 15) == 15;
    s.on_rq = *gen_uniform(0, 3) != 0;
    s.running = s.on_rq && *gen_uniform(0, 1);
    s.nr = s.on_rq ? *gen_uniform(1, 64) : 0;
    s.weight = s.on_rq ? s.nr * *gen_task_weight(kV5) : 0;
    return s;
  });
}
rc::Gen<std::vector<Step>> gen_history() {
  return rc::gen::container<std::vector<Step>>(*gen_uniform(0, 60), gen_step());
}
uint64_t advance(uint64_t now, const Step& s) { return s.backwards ? now - std::min(now, s.delta_ns) : now + s.delta_ns; }

RC_GTEST_PROP(PeltDecayLoad, NeverGrowsAndIsMonotoneInNInEveryEra, ()) {
  const uint64_t x = *gen_log_uniform(0, ~uint64_t{0});
  uint64_t n1 = *gen_uniform(0, 2100), n2 = *gen_uniform(0, 2100);
  if (n1 > n2) std::swap(n1, n2);
  for (auto decay : {pelt_v5_15::decay_load<uint64_t>, pelt_v4_4::decay_load<uint64_t>}) {
    RC_ASSERT(decay(x, n1) <= x);
    RC_ASSERT(decay(x, n2) <= decay(x, n1));
  }
  // v3.10's plain 64-bit product wraps from x = 2^32 on: still never above
  // x (the wrapped value is below 2^32 <= x), monotone only below.
  RC_ASSERT(pelt_v3_10::decay_load(x, n1) <= x);
  if (x < (uint64_t{1} << 32)) RC_ASSERT(pelt_v3_10::decay_load(x, n2) <= pelt_v3_10::decay_load(x, n1));
}

// v5.15's sums against the divider. load_sum counts whole PELT units (load
// 1) and never exceeds the divider: decay_load(a) + decay_load(b) <=
// decay_load(a + b), and c2 = LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, p) - 1024
// closes the gap exactly. A sum whose units weigh k > 1 (util_sum and
// runnable_sum: << 10; a cfs_rq's load_sum: its weight) is decayed in finer
// steps and tops out at k (1024 y / (1 - y) + pc), y the table's
// 0xfa83b2da / 2^32: the divider + 46.7. So util_avg and runnable_avg can
// reach 1025 (pelt_hand_test shows one); the cap is k (divider + 47) / divider.
uint64_t cap_avg(uint64_t k) { return k * (46718 + 47) / 46718; }

// v5.15, a task or group entity of any weight, after any history: load_avg
// <= se_weight; util_avg and runnable_avg (h_nr_running for a group entity)
// within cap_avg.
RC_GTEST_PROP(PeltV5_15, AnEntitysAveragesStayWithinItsWeightAndCapacity, ()) {
  const bool group = *gen_uniform(0, 1);
  const uint64_t weight = group ? *gen_group_weight(kV5) : *gen_task_weight(kV5);
  const uint64_t se_weight = scale_load_down(weight, kV5);
  pelt_v5_15::SchedAvg<uint64_t> sa;
  uint64_t now = 0, max_runnable = 1;
  for (const Step& s : *gen_history()) {
    now = advance(now, s);
    const uint64_t runnable = group ? s.nr : s.on_rq;
    max_runnable = std::max(max_runnable, runnable);
    pelt_v5_15::update_load_avg_se<uint64_t>(now, sa, weight, s.on_rq, runnable, s.running, kV5);
    const uint64_t divider = pelt_v5_15::get_pelt_divider(sa);
    RC_ASSERT(sa.period_contrib < 1024u);
    RC_ASSERT(sa.load_sum <= divider);
    RC_ASSERT(sa.util_sum <= (divider + 47) << 10);
    RC_ASSERT(sa.runnable_sum <= (max_runnable * (divider + 47)) << 10);
    RC_ASSERT(sa.load_avg <= se_weight);
    RC_ASSERT(sa.util_avg <= cap_avg(1024));
    RC_ASSERT(sa.runnable_avg <= cap_avg(1024 * max_runnable));
  }
}

// v5.15, a cfs_rq whose load.weight and h_nr_running change at every
// update: its averages stay within cap_avg of the largest
// scale_load_down(load.weight), 1024 times the largest h_nr_running, and 1024.
RC_GTEST_PROP(PeltV5_15, ACfsRqsAveragesStayWithinItsLargestLoadAndCapacity, ()) {
  pelt_v5_15::SchedAvg<uint64_t> sa;
  uint64_t now = 0, max_load = 0, max_nr = 0;
  for (const Step& s : *gen_history()) {
    now = advance(now, s);
    max_load = std::max(max_load, scale_load_down(s.weight, kV5));
    max_nr = std::max(max_nr, s.nr);
    pelt_v5_15::update_load_avg_cfs_rq<uint64_t>(now, sa, s.weight, s.nr, s.running, kV5);
    const uint64_t divider = pelt_v5_15::get_pelt_divider(sa);
    RC_ASSERT(sa.load_sum <= max_load * (divider + 47));
    RC_ASSERT(sa.load_avg <= cap_avg(max_load));
    RC_ASSERT(sa.runnable_avg <= cap_avg(1024 * max_nr));
    RC_ASSERT(sa.util_avg <= cap_avg(1024));
  }
}

// v4.4 and v3.10 entities. v4.4's bound is looser than the weight: an update
// spanning 345 periods or more adds LOAD_AVG_MAX, one period more than it
// spans (pelt_hand_test), so a sum can reach the weight times LOAD_AVG_MAX +
// d3 plus what is left of the old sum after 346 decays (its top bits, below
// 64); tested: below (LOAD_AVG_MAX + 1024 + 64) times the weight. v3.10
// shares the quirk in runnable_avg_period and counts the position in the
// period as runnable_avg_period % 1024, so after a crossing (below 48813) it
// may grow to the next multiple of 1024: below 48 * 1024. runnable_avg_sum
// never exceeds it, so a task's contribution stays below its weight.
RC_GTEST_PROP(PeltOlderEras, AnEntitysSignalsStayWithinTheirBounds, ()) {
  const uint64_t w = scale_load_down(*gen_task_weight(kV5), kV5);  // v3.10 and v4.4: unscaled weights
  pelt_v4_4::SchedAvg<uint64_t> v4;
  pelt_v3_10::SchedAvg<uint64_t> v3;
  uint64_t now = 0;
  const uint64_t cap = 47742 + 1024 + 64;
  for (const Step& s : *gen_history()) {
    now = advance(now, s);
    pelt_v4_4::update_load_avg<uint64_t>(now, v4, s.on_rq ? w : 0, s.running, nullptr);
    RC_ASSERT(v4.load_sum <= w * cap);
    RC_ASSERT(v4.util_sum <= 1024 * cap);
    RC_ASSERT(v4.load_avg <= w * cap / 47742);
    pelt_v3_10::update_entity_runnable_avg<uint64_t>(now, v3, s.on_rq);
    RC_ASSERT(v3.runnable_avg_sum <= v3.runnable_avg_period);
    RC_ASSERT(v3.runnable_avg_period < 48 * 1024);
    RC_ASSERT(pelt_v3_10::task_entity_contrib(v3, w, kLoadResolutionV3_10) < w);
  }
}

// An entity that is neither queued nor running only loses: its sums never
// rise, and its averages never rise once an idle update has recomputed them.
// (Before that they may be stale: an entity that ran less than a period
// still has load_avg 0, and the first boundary raises it; pelt_hand_test.)
RC_GTEST_PROP(PeltEras, AnIdleEntitysSignalsNeverRise, ()) {
  const uint64_t weight = *gen_task_weight(kV5), w = scale_load_down(weight, kV5);
  pelt_v5_15::SchedAvg<uint64_t> v5;
  pelt_v4_4::SchedAvg<uint64_t> v4;
  pelt_v3_10::SchedAvg<uint64_t> v3;
  uint64_t now = 0;
  for (const Step& s : *gen_history()) {
    now = advance(now, s);
    pelt_v5_15::update_load_avg_se<uint64_t>(now, v5, weight, s.on_rq, s.on_rq, s.running, kV5);
    pelt_v4_4::update_load_avg<uint64_t>(now, v4, s.on_rq ? w : 0, s.running, nullptr);
    pelt_v3_10::update_entity_runnable_avg<uint64_t>(now, v3, s.on_rq);
  }
  const auto idle = *rc::gen::container<std::vector<uint64_t>>(*gen_uniform(1, 40), gen_log_uniform(0, 1ull << 32));
  bool v5_recomputed = false, v4_recomputed = false;
  for (uint64_t delta : idle) {
    now += delta;
    const auto before5 = v5;
    const auto before4 = v4;
    const auto before3 = v3;
    const uint64_t contrib3 = pelt_v3_10::task_entity_contrib(v3, w, kLoadResolutionV3_10);
    const bool d5 = pelt_v5_15::update_load_avg_blocked_se<uint64_t>(now, v5, weight, kV5);
    const bool d4 = pelt_v4_4::update_load_avg<uint64_t>(now, v4, 0, 0, nullptr);
    pelt_v3_10::update_entity_runnable_avg<uint64_t>(now, v3, 0);
    RC_ASSERT(v5.load_sum <= before5.load_sum);
    RC_ASSERT(v5.util_sum <= before5.util_sum);
    RC_ASSERT(v5.runnable_sum <= before5.runnable_sum);
    RC_ASSERT(v4.load_sum <= before4.load_sum);
    RC_ASSERT(v4.util_sum <= before4.util_sum);
    RC_ASSERT(v3.runnable_avg_sum <= before3.runnable_avg_sum);
    if (v5_recomputed) {
      RC_ASSERT(v5.load_avg <= before5.load_avg);
      RC_ASSERT(v5.util_avg <= before5.util_avg);
      RC_ASSERT(v5.runnable_avg <= before5.runnable_avg);
    }
    if (v4_recomputed) {
      RC_ASSERT(v4.load_avg <= before4.load_avg);
      RC_ASSERT(v4.util_avg <= before4.util_avg);
    }
    // v3.10's u32 product runnable_avg_sum * weight wraps above 2^32 (a nice
    // -20 task after a 345-period span; pelt_hand_test): the ratio is then meaningless.
    if (before3.runnable_avg_sum * w < (uint64_t{1} << 32))
      RC_ASSERT(pelt_v3_10::task_entity_contrib(v3, w, kLoadResolutionV3_10) <= contrib3);
    v5_recomputed |= d5;
    v4_recomputed |= d4;
  }
}

// |one - two| for two sums.
uint64_t gap(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

// The bound of one update against two over the same span, for a sum whose
// every PELT unit adds k (load_sum: load; runnable_sum: runnable << 10;
// util_sum: 1024 when running). Against exact arithmetic on the same
// constants, one update errs in (-2 - 2k, k): decay_load of the old sum and of
// d1 floor (less than 2 each, the second scaled by k), c2's floor rounds up
// (less than k). Two updates err in (-4 - 4k, 2k) (one more decay of the
// whole sum, one more c1 and c2). Exactly, one update equals two, except
// that y^a y^b and y^(a+b) from the 32-bit table differ by less than
// 2^-28 relative, on sums below s + 47742 k. Hence |one - two| <= 4 + 5k +
// ((s + 47742 k) >> 28) + 1. With no boundary crossed both are exact sums.
void check_one_step_equals_two(const pelt_v5_15::SchedAvg<uint64_t>& one, const pelt_v5_15::SchedAvg<uint64_t>& two,
                               uint64_t load, uint64_t runnable, bool running, bool crossed) {
  RC_ASSERT(one.last_update_time == two.last_update_time);
  RC_ASSERT(one.period_contrib == two.period_contrib);
  const auto bound = [](uint64_t k, uint64_t s) { return 5 + 5 * k + ((s + 47742 * k) >> 28); };
  const std::array<std::array<uint64_t, 3>, 3> sums = {{{one.load_sum, two.load_sum, load},
                                                        {one.runnable_sum, two.runnable_sum, runnable << 10},
                                                        {one.util_sum, two.util_sum, running ? 1024u : 0u}}};
  for (const auto& [a, b, k] : sums) {
    if (!crossed) RC_ASSERT(a == b);
    RC_ASSERT(gap(a, b) <= bound(k, std::max(a, b)));
  }
}

RC_GTEST_PROP(PeltV5_15, OneUpdateEqualsTwoOverTheSameSpanUpToRounding, ()) {
  // An entity (load 0 or 1) or a cfs_rq (load its scale_load_down(weight)).
  const bool cfs_rq = *gen_uniform(0, 1);
  pelt_v5_15::SchedAvg<uint64_t> sa;
  uint64_t now = 0;
  for (const Step& s : *gen_history()) {
    now = advance(now, s);
    pelt_v5_15::update_load_sum<uint64_t>(now, sa, cfs_rq ? scale_load_down(s.weight, kV5) : s.on_rq, s.nr, s.running);
  }
  const Step s = *gen_step();
  const uint64_t load = cfs_rq ? scale_load_down(s.weight, kV5) : s.on_rq;
  const uint64_t runnable = load ? s.nr : 0;
  const bool running = load && s.running;
  const uint64_t t1 = now + *gen_log_uniform(0, uint64_t{1} << 32), t2 = t1 + *gen_log_uniform(0, uint64_t{1} << 32);
  pelt_v5_15::SchedAvg<uint64_t> one = sa, two = sa;
  const uint64_t crossed = pelt_v5_15::update_load_sum<uint64_t>(t2, one, load, runnable, running);
  pelt_v5_15::update_load_sum<uint64_t>(t1, two, load, runnable, running);
  pelt_v5_15::update_load_sum<uint64_t>(t2, two, load, runnable, running);
  check_one_step_equals_two(one, two, load, runnable, running, crossed);
}

// v4.4, split at a whole number of units from last_update_time (otherwise
// the second update starts from `now` and a unit can be lost) and spans
// under 345 periods (otherwise LOAD_AVG_MAX stands in for the sum): the
// v5.15 bound plus twice what v4.4's contribution may exceed
// LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, n + 1) - 1024 by (23 units, its
// table floors 1024 y^k with the real y) and the floor decay_load(a + b)
// may gain over decay_load(a) + decay_load(b) (2): 8 + 51 k.
RC_GTEST_PROP(PeltV4_4, OneUpdateEqualsTwoSplitAtAWholeUnitUpToRounding, ()) {
  const uint64_t w = scale_load_down(*gen_task_weight(kV5), kV5);
  pelt_v4_4::SchedAvg<uint64_t> sa;
  uint64_t now = 0;
  for (const Step& s : *gen_history()) {
    now = advance(now, s);
    pelt_v4_4::update_load_avg<uint64_t>(now, sa, s.on_rq ? w : 0, s.running, nullptr);
  }
  const bool on = *gen_uniform(0, 3) != 0, running = on && *gen_uniform(0, 1);
  const uint64_t t1 = sa.last_update_time + (*gen_uniform(0, 170 * 1024) << 10);
  const uint64_t t2 = t1 + *gen_uniform(0, 170 * kPeriodNs);
  pelt_v4_4::SchedAvg<uint64_t> one = sa, two = sa;
  pelt_v4_4::update_load_avg<uint64_t>(t2, one, on ? w : 0, running, nullptr);
  pelt_v4_4::update_load_avg<uint64_t>(t1, two, on ? w : 0, running, nullptr);
  pelt_v4_4::update_load_avg<uint64_t>(t2, two, on ? w : 0, running, nullptr);
  RC_ASSERT(one.period_contrib == two.period_contrib);
  const auto bound = [](uint64_t k, uint64_t s) { return 9 + 51 * k + ((s + 47742 * k) >> 28); };
  RC_ASSERT(gap(one.load_sum, two.load_sum) <= bound(on ? w : 0, std::max(one.load_sum, two.load_sum)));
  RC_ASSERT(gap(one.util_sum, two.util_sum) <= bound(running ? 1024 : 0, std::max(one.util_sum, two.util_sum)));
}

// update_tg_load_avg over several cfs_rqs of one group, each updated right
// after its load_avg changed: tg->load_avg is always the sum of the
// contributions; with force each contribution is current, without it each
// is within 1/64 of its own value, so tg->load_avg is within the sum of
// contrib / 64 of the true sum. For the root with the seed-000 skip nothing
// moves at all.
RC_GTEST_PROP(UpdateTgLoadAvg, KeepsTheGroupSumWithinOneSixtyFourthPerCfsRq, ()) {
  const std::size_t cpus = *gen_uniform(1, 8);
  const bool root_skip = *gen_uniform(0, 3) == 0;
  std::vector<uint64_t> load(cpus, 0), contrib(cpus, 0);
  uint64_t tg_load_avg = 0;
  const std::size_t steps = *gen_uniform(0, 100);
  for (std::size_t i = 0; i < steps; ++i) {
    const std::size_t cpu = *gen_uniform(0, cpus - 1);
    load[cpu] = *gen_log_uniform(0, uint64_t{1} << 30);
    const bool force = *gen_uniform(0, 3) == 0;
    update_tg_load_avg<uint64_t>(load[cpu], contrib[cpu], tg_load_avg, force, root_skip);
    if (root_skip) {
      RC_ASSERT(tg_load_avg == 0u);
      RC_ASSERT(contrib[cpu] == 0u);
      continue;
    }
    uint64_t contribs = 0, loads = 0, slack = 0;
    for (std::size_t c = 0; c < cpus; ++c) contribs += contrib[c], loads += load[c], slack += contrib[c] / 64;
    RC_ASSERT(tg_load_avg == contribs);
    if (force) RC_ASSERT(contrib[cpu] == load[cpu]);
    RC_ASSERT(gap(load[cpu], contrib[cpu]) <= contrib[cpu] / 64);
    RC_ASSERT(gap(tg_load_avg, loads) <= slack);
  }
}

}  // namespace
}  // namespace cfsv::properties
