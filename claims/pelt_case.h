// The domain of a PELT claim, decoded once for every engine, and its
// statement. A case is a list of named values in one PELT era: a decay_load
// call, one update of an entity from a valid state, the tg load_avg updates of
// a group's cfs_rqs, or one calc_group_shares call. decode_pelt_case() reads
// it from any Reader (claims/reader.h); pelt_holds() is the claim on it,
// computed by the model's own templates (model/arith/pelt*.h). Templates over
// the value type: uint64_t or the proofs' Sym.
//
// The kernel's ranges: a weight is at most scale_load(MAX_SHARES) (a task's
// nice -20 weight is below), at most 2^22 tasks (PID_MAX_LIMIT) are runnable
// under an entity, so a cfs_rq's load and any contribution are at most 2^22 x
// MAX_SHARES = 2^40, at most 8192 CPUs (NR_CPUS); clocks are u64 ns below
// 2^62 (146 years), in either order (time going backwards is a case).
// A valid state is one within the era's sum bounds (pelt_sums_bounded):
// every update claim also asserts that the update keeps them, so by
// induction they hold for every state a history from zero reaches.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "claims/claim.h"
#include "claims/pelt_periodic.h"
#include "claims/reader.h"
#include "claims/slice_case.h"
#include "claims/tracked.h"
#include "model/arith/pelt.h"
#include "model/arith/pelt_attach.h"
#include "model/arith/pelt_shares.h"
#include "model/arith/pelt_v3.h"
#include "model/arith/pelt_v4.h"
#include "model/arith/weights.h"

namespace cfsv {

inline constexpr uint64_t kPeltMaxTasks = uint64_t{1} << 22;                  // PID_MAX_LIMIT
inline constexpr uint64_t kPeltMaxLoad = kPeltMaxTasks * kFairMaxShares;      // 2^40
inline constexpr uint64_t kPeltMaxCpus = 8192;                                // NR_CPUS
inline constexpr uint64_t kPeltMaxClock = uint64_t{1} << 62;                  // ns
inline constexpr uint64_t kPeltMaxPeriods = kPeltMaxClock >> 20;              // periods in that time
inline constexpr uint64_t kPeltSumSlack = 47;   // v5.15's << 10 sums top out 46.7 above the divider
inline constexpr uint64_t kPeltV4Slack = 64;    // v4.4's n >= 345 case: LOAD_AVG_MAX, plus an old sum's top bits
inline constexpr uint64_t kPeltV3PeriodMax = 48 * 1024 - 1;  // v3.10's runnable_avg_period

template <class V> struct PeltValue {
  std::string_view name;
  V v;
};

template <class V> struct PeltCase {
  PeltEra era = PeltEra::v5_15;
  std::vector<PeltValue<V>> in;  // in decode order
  V operator[](std::string_view name) const;
};

// The value named `name` in `values`.
template <class V> V pelt_value(const std::vector<PeltValue<V>>& values, std::string_view name) {
  for (const PeltValue<V>& x : values)
    if (x.name == name) return x.v;
  throw std::logic_error("pelt case: no value '" + std::string(name) + "'");
}
template <class V> V PeltCase<V>::operator[](std::string_view name) const { return pelt_value(in, name); }

// Which decoder a PELT kind uses.
enum class PeltShape { decay, update, tg, shares, periodic, sync, idle_reweight };
constexpr PeltShape pelt_shape(ClaimKind k) {
  switch (k) {
    case ClaimKind::pelt_decay_bounded:
    case ClaimKind::pelt_decay_monotone: return PeltShape::decay;
    case ClaimKind::pelt_tg_force_exact:
    case ClaimKind::pelt_tg_threshold: return PeltShape::tg;
    case ClaimKind::pelt_shares_in_range: return PeltShape::shares;
    case ClaimKind::pelt_periodic_util: return PeltShape::periodic;
    case ClaimKind::pelt_sync_floor: return PeltShape::sync;
    case ClaimKind::pelt_idle_reweight: return PeltShape::idle_reweight;
    default: return PeltShape::update;
  }
}

// The sum bounds of a valid state, per era (docs/pelt.md, "Rounding"):
// v5.15: load_sum <= divider, util_sum <= (divider + 47) << 10, runnable_sum
// <= 2^22 times that; v4.4: load_sum <= w (LOAD_AVG_MAX + 64 + period_contrib),
// util_sum the same for w = 1024; v3.10: runnable_avg_sum <= runnable_avg_period
// <= 48 * 1024 - 1. These are also the decoder's ranges.
template <class V> V pelt_v5_divider(const V& pc) { return V(pelt_tables().load_avg_max - kPeltPeriodUs) + pc; }
template <class V> V pelt_v5_sum_cap(const V& pc) { return (pelt_v5_divider(pc) + V(kPeltSumSlack)) << V(10); }
template <class V> V pelt_v4_sum_cap(const V& w, const V& pc) {
  return w * (V(pelt_tables().load_avg_max + kPeltV4Slack) + pc);
}

// The state's fields: f(name) gives each.
template <class V, class F> auto pelt_sums_bounded(PeltEra era, const V& w, F f) {
  switch (era) {
    case PeltEra::v5_15:
      return f("period_contrib") < V(kPeltPeriodUs) && f("load_sum") <= pelt_v5_divider(f("period_contrib")) &&
             f("util_sum") <= pelt_v5_sum_cap(f("period_contrib")) &&
             f("runnable_sum") <= V(kPeltMaxTasks) * pelt_v5_sum_cap(f("period_contrib"));
    case PeltEra::v4_4:
      return f("period_contrib") < V(kPeltPeriodUs) && f("load_sum") <= pelt_v4_sum_cap(w, f("period_contrib")) &&
             f("util_sum") <= pelt_v4_sum_cap(V(kSchedCapacityScale), f("period_contrib"));
    case PeltEra::v3_10: break;
  }
  return f("runnable_avg_sum") <= f("runnable_avg_period") && f("runnable_avg_period") <= V(kPeltV3PeriodMax);
}

namespace detail {
// A value in [0, cap] read as its distance below cap: readers that favour
// (and shrink toward) small values then favour full sums, where the bounds
// are at stake.
template <class V, class Rd> V below_cap(Rd& r, const V& cap, uint64_t max) { return cap - r.range(V(0), cap, max); }
}  // namespace detail

// The sync shape (v5.15's types): an entity (se_weight MIN_SHARES..MAX_SHARES)
// and the cfs_rq it leaves, each in sync (every sum its average times its
// divider plus less than one divider), the cfs_rq's averages at least the
// entity's: load up to 2^40, util up to util_limit, runnable up to 2^22 times
// that; `detach` 1 for detach_entity_load_avg, 0 for dequeue_load_avg.
template <Reader R> void decode_pelt_sync(R& r, PeltCase<typename R::value_type>& c, uint64_t limit) {
  using V = typename R::value_type;
  const auto in = [&c](std::string_view name, V v) {
    c.in.push_back({name, v});
    return v;
  };
  in("detach", r.range(0, 1));
  const V w = in("se_weight", r.range(kFairMinShares, kFairMaxShares));
  const auto rest = [&r](const V& divider) { return r.range(V(0), divider - V(1), pelt_tables().load_avg_max); };
  const V se_pc = in("se_period_contrib", r.range(0, kPeltPeriodUs - 1));
  const V se_div = pelt_v5_divider(se_pc);
  const V se_load_sum = in("se_load_sum", r.range(V(0), se_div, pelt_tables().load_avg_max));
  const V se_load = in("se_load_avg", w * se_load_sum / se_div);
  const V se_util = in("se_util_avg", r.range(0, limit));
  in("se_util_sum", se_util * se_div + rest(se_div));
  const V se_runnable = in("se_runnable_avg", r.range(0, kPeltMaxTasks * limit));
  in("se_runnable_sum", se_runnable * se_div + rest(se_div));
  const V pc = in("period_contrib", r.range(0, kPeltPeriodUs - 1));
  const V div = pelt_v5_divider(pc);
  const V load = in("load_avg", r.range(se_load, V(kPeltMaxLoad), kPeltMaxLoad));
  in("load_sum", load * div + rest(div));
  const V util = in("util_avg", r.range(se_util, V(limit), limit));
  in("util_sum", util * div + rest(div));
  const V runnable = in("runnable_avg", r.range(se_runnable, V(kPeltMaxTasks * limit), kPeltMaxTasks * limit));
  in("runnable_sum", runnable * div + rest(div));
}

// The idle-reweight shape (v5.15's types): a task of weight before_weight
// (WEIGHT_IDLEPRIO..nice -20's, scaled down), its load in sync (load_avg =
// weight x load_sum / divider, load_sum <= its divider), made SCHED_IDLE
// (set_load_weight), attached to a cfs_rq whose period_contrib it takes (a
// group move), then reweighted to after_weight (a renice or
// sched_setscheduler to another policy), all within one PELT period.
template <Reader R> void decode_pelt_idle_reweight(R& r, PeltCase<typename R::value_type>& c) {
  using V = typename R::value_type;
  const auto in = [&c](std::string_view name, V v) {
    c.in.push_back({name, v});
    return v;
  };
  const V w = in("before_weight", r.range(kWeightIdlePrio, sched_prio_to_weight.front()));
  const V div = pelt_v5_divider(in("se_period_contrib", r.range(0, kPeltPeriodUs - 1)));
  const V load_sum = in("load_sum", r.range(V(0), div, pelt_tables().load_avg_max));
  in("load_avg", w * load_sum / div);
  in("period_contrib", r.range(0, kPeltPeriodUs - 1));
  in("after_weight", r.range(kWeightIdlePrio, sched_prio_to_weight.front()));
}

// Reads a case of the claim's domain. Each era's entity: v5.15 a task or
// group entity (weight MIN_SHARES..scale_load(MAX_SHARES), runnable its
// h_nr_running), v4.4 the same in its unscaled loads, v3.10 a task of any
// nice level; running implies on_rq.
template <Reader R> PeltCase<typename R::value_type> decode_pelt_case(R& r, const Claim& claim) {
  using V = typename R::value_type;
  PeltCase<V> c;
  const PeltDomain& d = claim.domain.pelt;
  c.era = d.eras[r.choose(d.eras.size())];
  const LoadResolution res = resolution_of(c.era);
  const auto in = [&c](std::string_view name, V v) {
    c.in.push_back({name, v});
    return v;
  };
  switch (pelt_shape(claim.kind)) {
    case PeltShape::decay: {
      in("v", r.range(0, c.era == PeltEra::v3_10 ? 0xffffffffu : ~uint64_t{0}));  // v3.10 decays u32 sums
      const V q = r.range(0, kPeltMaxPeriods >> 5), rem = r.range(0, kLoadAvgPeriod - 1);  // n = 32 q + rem
      in("n", (q << V(5)) | rem);
      return c;
    }
    case PeltShape::tg: {
      in("contrib", r.range(0, kPeltMaxLoad));
      in("load_avg", r.range(0, kPeltMaxLoad));  // v3.10: runnable_load_avg
      if (c.era == PeltEra::v3_10) in("blocked_load_avg", r.range(0, kPeltMaxLoad));
      in("others", r.range(0, kPeltMaxLoad * (kPeltMaxCpus - 1)));  // the other CPUs' contributions
      return c;
    }
    case PeltShape::shares: {
      in("tg_shares", r.range(scale_load(kFairMinShares, res), scale_load(kFairMaxShares, res)));
      in("load_weight", r.range(0, kPeltMaxTasks * scale_load(kFairMaxShares, res)));
      if (c.era == PeltEra::v5_15) in("load_avg", r.range(0, kPeltMaxLoad));
      const V contrib = in("contrib", r.range(0, kPeltMaxLoad));
      in("tg_load_avg", r.range(contrib, contrib + V(kPeltMaxLoad * (kPeltMaxCpus - 1)), kPeltMaxLoad * kPeltMaxCpus));
      return c;
    }
    case PeltShape::periodic: {
      const V period = in("period", r.range(kPeriodicMinPeriod, kPeriodicMaxPeriod));
      in("run", r.range(V(0), period, kPeriodicMaxPeriod));
      in("half_lives", r.range(1, kPeriodicMaxHalfLives));
      in("tick", r.choose(2) == 1 ? r.range(kPeriodicMinTick, kPeriodicMaxTick) : V(0));
      in("sleep_first", V(r.choose(2)));
      return c;
    }
    case PeltShape::sync: return decode_pelt_sync(r, c, d.util_limit), c;
    case PeltShape::idle_reweight: return decode_pelt_idle_reweight(r, c), c;
    case PeltShape::update: break;
  }
  const uint64_t limit = d.util_limit;
  // Two structural choices pick parts of the domain where its bounds are at
  // stake, so that testing engines meet them: `busy`, an entity queued and
  // running (v3.10: a nice -20 task) with every sum at its bound; `tick`, an
  // update within 4 periods of the last (as the tick makes them).
  const bool busy = r.choose(2) == 1, tick = r.choose(2) == 1;
  const auto sum = [&r, busy](const V& cap, uint64_t max) { return busy ? cap : detail::below_cap(r, cap, max); };
  const auto flag = [&r, busy](const V& hi) { return busy ? hi : r.range(V(0), hi, 1); };
  // now = last_update_time + delta, or - delta (one case in 8: time going backwards).
  const V last = in("last_update_time", r.range(0, kPeltMaxClock));
  const V delta = r.range(0, tick ? 4 * (kPeltPeriodUs << kPeltUnitShift) : kPeltMaxClock), back = r.range(0, 7);
  in("now", select(back == V(7), last - min(last, delta), last + delta));
  if (c.era == PeltEra::v3_10) {
    const V rank = busy ? V(rank_of_nice(-20)) : r.range(0, kNiceLevels - 1);
    const V w = in("weight", nice_weight_of_rank(in("nice_rank", rank)));
    in("on_rq", flag(V(1)));
    const V period = in("runnable_avg_period", sum(V(kPeltV3PeriodMax), kPeltV3PeriodMax));
    in("runnable_avg_sum", sum(period, kPeltV3PeriodMax));
    in("load_avg_contrib", r.range(V(0), w, nice_to_weight(-20)));
    return c;
  }
  const uint64_t max_w = scale_load(kFairMaxShares, res);
  const V w = in("weight", r.range(kFairMinShares, max_w));
  const V on_rq = in("on_rq", flag(V(1)));
  in("running", flag(on_rq));
  const V pc = in("period_contrib", r.range(0, kPeltPeriodUs - 1));
  const V se_weight = scale_load_down(w, res);
  const uint64_t max_se = scale_load_down(max_w, res);
  if (c.era == PeltEra::v4_4) {
    const uint64_t max_cap = pelt_v4_sum_cap(max_se, kPeltPeriodUs - 1);
    in("load_sum", sum(pelt_v4_sum_cap(se_weight, pc), max_cap));
    in("util_sum", sum(pelt_v4_sum_cap(V(kSchedCapacityScale), pc), max_cap));
    in("load_avg", r.range(V(0), se_weight, max_se));
    in("util_avg", r.range(0, limit));
    return c;
  }
  const uint64_t max_cap = pelt_v5_sum_cap(kPeltPeriodUs - 1);
  in("runnable", r.range(on_rq, on_rq * V(kPeltMaxTasks), kPeltMaxTasks));
  in("load_sum", sum(pelt_v5_divider(pc), pelt_v5_divider(kPeltPeriodUs - 1)));
  in("util_sum", sum(pelt_v5_sum_cap(pc), max_cap));
  in("runnable_sum", sum(V(kPeltMaxTasks) * pelt_v5_sum_cap(pc), kPeltMaxTasks * max_cap));
  in("load_avg", r.range(V(0), se_weight, max_se));
  in("util_avg", r.range(0, limit));
  in("runnable_avg", r.range(0, kPeltMaxTasks * limit));
  return c;
}

// V itself, or V as an exact Tracked<V>.
template <class W, class V> W pelt_lift(const V& v) {
  if constexpr (std::is_same_v<W, V>) return v;
  else return W::exact(v);
}

// One update of the case's entity in its era, computed in W (V, or
// Tracked<V> to see its wraps): the fields it writes, named as the state's.
//  - v5.15: __update_load_avg_se (the sums, then the averages when decayed);
//  - v4.4: __update_load_avg with weight on_rq * scale_load_down(weight);
//  - v3.10: __update_entity_runnable_avg, then, when it decayed, the task's
//    __update_entity_load_avg_contrib (update_entity_load_avg v3.10).
template <class W, class V> std::vector<PeltValue<W>> pelt_update(const PeltCase<V>& c) {
  const auto at = [&c](std::string_view n) { return pelt_lift<W>(c[n]); };
  const LoadResolution res = resolution_of(c.era);
  switch (c.era) {
    case PeltEra::v5_15: {
      pelt_v5_15::SchedAvg<W> sa{at("last_update_time"), at("load_sum"), at("runnable_sum"), at("util_sum"),
                                 at("period_contrib"),   at("load_avg"), at("runnable_avg"), at("util_avg")};
      pelt_v5_15::update_load_avg_se(at("now"), sa, at("weight"), at("on_rq"), at("runnable"), at("running"), res);
      return {{"last_update_time", sa.last_update_time}, {"period_contrib", sa.period_contrib},
              {"load_sum", sa.load_sum}, {"util_sum", sa.util_sum}, {"runnable_sum", sa.runnable_sum},
              {"load_avg", sa.load_avg}, {"util_avg", sa.util_avg}, {"runnable_avg", sa.runnable_avg}};
    }
    case PeltEra::v4_4: {
      pelt_v4_4::SchedAvg<W> sa{at("last_update_time"), at("load_sum"), at("util_sum"),
                                at("period_contrib"),   at("load_avg"), at("util_avg")};
      pelt_v4_4::update_load_avg(at("now"), sa, at("on_rq") * scale_load_down(at("weight"), res), at("running"),
                                 static_cast<pelt_v4_4::RunnableLoad<W>*>(nullptr));
      return {{"last_update_time", sa.last_update_time}, {"period_contrib", sa.period_contrib},
              {"load_sum", sa.load_sum}, {"util_sum", sa.util_sum}, {"load_avg", sa.load_avg},
              {"util_avg", sa.util_avg}};
    }
    case PeltEra::v3_10: break;
  }
  pelt_v3_10::SchedAvg<W> sa{at("runnable_avg_sum"), at("runnable_avg_period"), at("last_update_time"),
                             at("load_avg_contrib")};
  const W decayed = pelt_v3_10::update_entity_runnable_avg(at("now"), sa, at("on_rq"));
  pelt_v3_10::SchedAvg<W> contributed = sa;
  pelt_v3_10::update_entity_load_avg_contrib(contributed, at("weight"), res);
  return {{"last_update_time", sa.last_runnable_update}, {"runnable_avg_sum", sa.runnable_avg_sum},
          {"runnable_avg_period", sa.runnable_avg_period},
          {"load_avg_contrib", select(decayed != W(0), contributed.load_avg_contrib, sa.load_avg_contrib)}};
}

// decay_load(v, n) in the case's era.
template <class V> V pelt_decay(PeltEra era, const V& v, const V& n) {
  switch (era) {
    case PeltEra::v5_15: return pelt_v5_15::decay_load(v, n);
    case PeltEra::v4_4: return pelt_v4_4::decay_load(v, n);
    case PeltEra::v3_10: break;
  }
  return pelt_v3_10::decay_load(v, n);
}

// The tg shape: one cfs_rq's update_tg_load_avg (v4.4 with force, v5.15
// without) or v3.10's __update_cfs_rq_tg_load_contrib, tg->load_avg being
// its contribution plus the other CPUs'. Every cfs_rq's update is this one,
// so what holds after it holds after any sequence of them.
template <class V> struct PeltTg {
  V value;        // the cfs_rq's load: load_avg (v3.10: runnable + blocked)
  V contrib;      // its tg_load_avg_contrib (v3.10: tg_load_contrib) after
  V tg_load_avg;  // after
};
inline uint64_t pelt_tg_shift(PeltEra era) { return era == PeltEra::v3_10 ? 3 : 6; }
template <class V> PeltTg<V> pelt_tg(const PeltCase<V>& c, const V& force) {
  PeltTg<V> t{c["load_avg"], c["contrib"], c["contrib"] + c["others"]};
  if (c.era != PeltEra::v3_10) {
    update_tg_load_avg(t.value, t.contrib, t.tg_load_avg, force, V(0));
    return t;
  }
  t.value = c["load_avg"] + c["blocked_load_avg"];
  pelt_v3_10::GroupCfsRqAvg<V> q{t.contrib, V(0)};
  pelt_v3_10::TaskGroupAvg<V> tg{t.tg_load_avg, V(0), V(0)};
  pelt_v3_10::update_cfs_rq_tg_load_contrib(c["load_avg"], c["blocked_load_avg"], q, tg, force);
  return {t.value, q.tg_load_contrib, tg.load_avg};
}

// calc_group_shares (v5.15) or calc_cfs_shares (v3.10, v4.4) on the case.
template <class V> V pelt_shares(const PeltCase<V>& c) {
  if (c.era == PeltEra::v5_15)
    return calc_group_shares(c["tg_shares"], c["load_weight"], c["load_avg"], c["tg_load_avg"], c["contrib"],
                             resolution_of(c.era));
  return calc_cfs_shares(c["tg_shares"], c["load_weight"], c["tg_load_avg"], c["contrib"]);
}

// The sync shape: the cfs_rq after its entity leaves it, by dequeue_load_avg
// or detach_entity_load_avg (model/arith/pelt_attach.h, as the simulator runs
// them), in v5.15.100's form or, `relaxed`, v5.17's.
template <class V> pelt_v5_15::SchedAvg<V> pelt_sync(const PeltCase<V>& c, bool relaxed) {
  const auto avg = [&c](const std::string& who) {
    pelt_v5_15::SchedAvg<V> a;
    a.period_contrib = c[who + "period_contrib"];
    a.load_sum = c[who + "load_sum"], a.util_sum = c[who + "util_sum"], a.runnable_sum = c[who + "runnable_sum"];
    a.load_avg = c[who + "load_avg"], a.util_avg = c[who + "util_avg"], a.runnable_avg = c[who + "runnable_avg"];
    return a;
  };
  const pelt_v5_15::SchedAvg<V> cfs = avg(""), se = avg("se_");
  pelt_v5_15::SchedAvg<V> dequeued = cfs, detached = cfs;
  pelt_v5_15::dequeue_load_avg(dequeued, se, c["se_weight"], relaxed);
  pelt_v5_15::detach_entity_load_avg(detached, se, c["se_weight"], relaxed);
  return pelt_v5_15::select_each(c["detach"] != V(0), detached, dequeued);
}

// The idle-reweight shape: the task's load_avg at the end. set_load_weight
// gives it WEIGHT_IDLEPRIO, through reweight_task only when `fixed` (v6.11;
// v5.15.100 assigns it); attach_entity_load_avg rebuilds load_sum from
// load_avg per unit of that weight; reweight_entity to after_weight.
template <class V> V pelt_idle_reweight(const PeltCase<V>& c, bool fixed) {
  pelt_v5_15::SchedAvg<V> se, cfs;
  se.period_contrib = c["se_period_contrib"];
  se.load_sum = c["load_sum"];
  se.load_avg = c["load_avg"];
  const V idle(kWeightIdlePrio);
  if (fixed) pelt_v5_15::reweight_load_avg(se, idle);
  cfs.period_contrib = c["period_contrib"];
  pelt_v5_15::attach_entity_load_avg(cfs, se, idle);
  pelt_v5_15::reweight_load_avg(se, c["after_weight"]);
  return se.load_avg;
}

// The periodic shape's parameters.
inline PeltPeriodic pelt_periodic(const PeltCase<uint64_t>& c) {
  return {c["period"], c["run"], c["half_lives"], c["tick"], c["sleep_first"] != 0};
}

// The claim's statement on a case: bool for uint64_t, Z3's boolean for Sym
// (the periodic kind's schedule needs concrete parameters: its Sym form is
// periodic_within on them, proofs/pelt_proofs.cpp).
template <class V> auto pelt_holds(const Claim& claim, const PeltCase<V>& c) {
  const V yes(0);
  if (claim.kind == ClaimKind::pelt_periodic_util) {
    if constexpr (std::is_same_v<V, uint64_t>) {
      const PeltPeriodic p = pelt_periodic(c);
      return periodic_within<V>(p, periodic_bounds(p), [](uint64_t v) { return v; });
    } else {
      throw std::logic_error("pelt_holds: the periodic kind needs a concrete case");
    }
  }
  switch (claim.kind) {
    case ClaimKind::pelt_decay_bounded: return pelt_decay(c.era, c["v"], c["n"]) <= c["v"];
    case ClaimKind::pelt_decay_monotone:
      return pelt_decay(c.era, c["v"], c["n"] + V(1)) <= pelt_decay(c.era, c["v"], c["n"]);
    case ClaimKind::pelt_tg_force_exact: {
      const PeltTg<V> t = pelt_tg(c, V(1));
      return t.contrib == t.value && t.tg_load_avg == c["others"] + t.value;
    }
    case ClaimKind::pelt_tg_threshold: {
      const PeltTg<V> t = pelt_tg(c, V(0));
      const V diff = select(t.value >= t.contrib, t.value - t.contrib, t.contrib - t.value);
      return diff <= (t.contrib >> V(pelt_tg_shift(c.era))) && t.tg_load_avg == c["others"] + t.contrib;
    }
    case ClaimKind::pelt_shares_in_range: {
      const V shares = pelt_shares(c);
      return shares >= V(kFairMinShares) && shares <= c["tg_shares"];
    }
    case ClaimKind::pelt_idle_reweight:
      return pelt_idle_reweight(c, claim.features[Feature::reweight_idle_task]) <= c["after_weight"];
    case ClaimKind::pelt_sync_floor: {
      const pelt_v5_15::SchedAvg<V> a = pelt_sync(c, claim.features[Feature::pelt_relaxed_sum_sync]);
      const V floor = pelt_v5_15::pelt_min_divider<V>();
      return a.load_sum >= a.load_avg * floor && a.util_sum >= a.util_avg * floor &&
             a.runnable_sum >= a.runnable_avg * floor;
    }
    default: break;
  }
  // The update kinds: the statement, and the sum bounds kept.
  const LoadResolution res = resolution_of(c.era);
  const V sum_w = c.era == PeltEra::v4_4 ? scale_load_down(c["weight"], res) : V(0);
  if (claim.kind == ClaimKind::pelt_no_overflow) {
    const std::vector<PeltValue<Tracked<V>>> out = pelt_update<Tracked<V>>(c);
    auto ok = yes == yes;
    for (const PeltValue<Tracked<V>>& x : out) ok = ok && !x.v.wrapped();
    return ok && pelt_sums_bounded(c.era, sum_w, [&out](std::string_view n) { return pelt_value(out, n).value(); });
  }
  const std::vector<PeltValue<V>> out = pelt_update<V>(c);
  const auto after = [&out](std::string_view n) { return pelt_value(out, n); };
  const auto kept = pelt_sums_bounded(c.era, sum_w, after);
  if (claim.kind == ClaimKind::pelt_util_at_most) return kept && after("util_avg") <= V(claim.domain.pelt.util_limit);
  // pelt_load_at_most_weight: v5.15 and v4.4 against se_weight, v3.10 a task's contribution against its weight.
  if (c.era == PeltEra::v3_10) return kept && after("load_avg_contrib") <= c["weight"];
  return kept && after("load_avg") <= scale_load_down(c["weight"], res);
}

// "one update of a v5.15 entity (weight ...), ..., eras v4.4; v5.15"
std::string describe_pelt_domain(const Claim& c);

}  // namespace cfsv
