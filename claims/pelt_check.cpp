// PELT claims on concrete cases: the domain's text, and a failing case's
// counterexample with every input and what the model computed from it.
#include <string>

#include "claims/check.h"

namespace cfsv {

namespace {
std::string dec(uint64_t v) { return std::to_string(v); }

std::string eras_text(const PeltDomain& d) {
  std::string s = d.eras.size() == 1 ? "era " : "eras ";
  for (std::size_t i = 0; i < d.eras.size(); ++i) s += (i ? ", " : "") + std::string(era_name(d.eras[i]));
  return s;
}

std::string where(const PeltCase<uint64_t>& c) { return " (era " + std::string(era_name(c.era)) + ")"; }

// The summary and the computed values of an update case that fails.
std::string update_summary(const Claim& claim, const PeltCase<uint64_t>& c, std::vector<Value>& values) {
  const std::vector<PeltValue<Tracked<uint64_t>>> out = pelt_update<Tracked<uint64_t>>(c);
  std::string wrapped;
  for (const PeltValue<Tracked<uint64_t>>& x : out) {
    values.push_back({"after_" + std::string(x.name), dec(x.v.value())});
    if (x.v.wrapped()) wrapped += (wrapped.empty() ? "" : ",") + std::string(x.name);
  }
  if (!wrapped.empty()) values.push_back({"wrapped", wrapped});
  const LoadResolution res = resolution_of(c.era);
  const auto after = [&out](std::string_view n) { return pelt_value(out, n).value(); };
  const uint64_t w = c.era == PeltEra::v4_4 ? scale_load_down(c["weight"], res) : 0;
  const std::string bounds = pelt_sums_bounded(c.era, w, after) ? "" : ", and a sum leaves its bound";
  switch (claim.kind) {
    case ClaimKind::pelt_no_overflow:
      return (wrapped.empty() ? "no wrap" : wrapped + " wrapped") + bounds + " in one update" + where(c);
    case ClaimKind::pelt_util_at_most:
      return "util_avg " + dec(after("util_avg")) +
             (after("util_avg") > claim.domain.pelt.util_limit ? " > " : " <= ") + dec(claim.domain.pelt.util_limit) +
             bounds + " after one update" + where(c);
    default:
      break;
  }
  const bool v3 = c.era == PeltEra::v3_10;
  const uint64_t load = after(v3 ? "load_avg_contrib" : "load_avg"),
                 cap = v3 ? c["weight"] : scale_load_down(c["weight"], res);
  return std::string(v3 ? "load_avg_contrib " : "load_avg ") + dec(load) + (load > cap ? " > " : " <= ") +
         (v3 ? "weight " : "scale_load_down(weight) ") + dec(cap) + bounds + " after one update" + where(c);
}
}  // namespace

std::string describe_pelt_domain(const Claim& c) {
  const PeltDomain& d = c.domain.pelt;
  switch (pelt_shape(c.kind)) {
    case PeltShape::decay:
      return "any u64 v (v3.10: u32, the sums it decays), n = 0..2^52 periods (2^62 ns), " + eras_text(d);
    case PeltShape::tg:
      return "one cfs_rq's update of a task group's load_avg: its contribution and load_avg (v3.10: runnable and "
             "blocked load) 0..2^40, tg->load_avg that contribution plus 0..8191 x 2^40 from other CPUs, " +
             eras_text(d);
    case PeltShape::shares:
      return "tg->shares scale_load(MIN_SHARES..MAX_SHARES), cfs_rq load.weight 0..2^22 x scale_load(MAX_SHARES), "
             "load_avg and contrib 0..2^40, tg->load_avg contrib + 0..8191 x 2^40, " +
             eras_text(d);
    case PeltShape::periodic:
      return "a nice-0 task alone on its CPU running R and sleeping S = P - R units of 1024 ns in turn (run or "
             "sleep first) from zero sums at time 0, P = 1024..65536 units (1..64 periods), R = 0..P, updated at "
             "every switch and, while it runs, at every tick of 256..4096 units or none, util_avg checked at every "
             "update that recomputes it from 32 k periods on (k = 1..8) through 2 P + 2 periods later, " +
             eras_text(d);
    case PeltShape::sync:
      return "an entity (se_weight MIN_SHARES..MAX_SHARES) leaving its cfs_rq by dequeue_load_avg or "
             "detach_entity_load_avg, each in sync (every sum its average times its divider plus less than one "
             "divider), the cfs_rq's averages at least the entity's: load up to 2^40, util up to " +
             dec(d.util_limit) + ", runnable up to 2^22 x " + dec(d.util_limit) + "; " +
             (c.features[Feature::pelt_relaxed_sum_sync] ? "v5.17's relaxed syncs (v6.4)" : "v5.15.100's rebuild");
    case PeltShape::idle_reweight:
      return "a task (weight WEIGHT_IDLEPRIO..88761, scaled down) whose load is in sync (load_sum <= its "
             "divider) made SCHED_IDLE by set_load_weight, attached to a cfs_rq of any period_contrib and "
             "reweighted to any such weight in one PELT period; " +
             std::string(c.features[Feature::reweight_idle_task] ? "v6.11's set_load_weight (reweight_task)"
                                                                   : "v5.15.100's set_load_weight");
    case PeltShape::update:
      break;
  }
  return "one update of an entity (v5.15, v4.4: weight MIN_SHARES..scale_load(MAX_SHARES), runnable 1..2^22 "
         "tasks; v3.10: a task of any nice level), on_rq and running either way, last_update_time and now "
         "0..2^62 ns either way, from a valid state (v5.15: load_sum <= divider, util_sum <= (divider + 47) << 10, "
         "runnable_sum <= 2^22 x that; v4.4: load_sum <= w (LOAD_AVG_MAX + 64 + period_contrib), util_sum the "
         "same for w = 1024; v3.10: runnable_avg_sum <= runnable_avg_period < 48 x 1024; averages within the "
         "claim's bound), the update keeping those bounds, util_avg <= " +
         dec(d.util_limit) + " before, " + eras_text(d);
}

Counterexample pelt_counterexample(const Claim& claim, const PeltCase<uint64_t>& c) {
  Counterexample cx;
  cx.claim = std::string(claim.id);
  cx.values.push_back({"era", std::string(era_name(c.era))});
  for (const PeltValue<uint64_t>& x : c.in)
    if (x.name == "nice_rank")
      cx.values.push_back({"nice", std::to_string(nice_of_rank(x.v))});
    else
      cx.values.push_back({std::string(x.name), dec(x.v)});
  switch (pelt_shape(claim.kind)) {
    case PeltShape::decay: {
      const uint64_t a = pelt_decay(c.era, c["v"], c["n"]), b = pelt_decay(c.era, c["v"], c["n"] + 1);
      cx.values.push_back({"decay_n", dec(a)});
      cx.values.push_back({"decay_n_plus_1", dec(b)});
      cx.summary =
          claim.kind == ClaimKind::pelt_decay_bounded
              ? "decay_load(v, n) " + dec(a) + (a > c["v"] ? " > v " : " <= v ") + dec(c["v"]) + where(c)
              : "decay_load(v, n + 1) " + dec(b) + (b > a ? " > " : " <= ") + "decay_load(v, n) " + dec(a) + where(c);
      return cx;
    }
    case PeltShape::tg: {
      const PeltTg<uint64_t> t = pelt_tg(c, uint64_t{claim.kind == ClaimKind::pelt_tg_force_exact});
      cx.values.push_back({"after_contrib", dec(t.contrib)});
      cx.values.push_back({"after_tg_load_avg", dec(t.tg_load_avg)});
      cx.summary = "load " + dec(t.value) + ", contribution after " + dec(t.contrib) + ", tg->load_avg after " +
                   dec(t.tg_load_avg) + " with others " + dec(c["others"]) + where(c);
      return cx;
    }
    case PeltShape::shares: {
      const uint64_t shares = pelt_shares(c);
      cx.values.push_back({"shares", dec(shares)});
      cx.summary = "shares " + dec(shares) + " against [MIN_SHARES, tg->shares " + dec(c["tg_shares"]) + "]" + where(c);
      return cx;
    }
    case PeltShape::periodic: {
      const PeltPeriodic p = pelt_periodic(c);
      const PeriodicBounds b = periodic_bounds(p);
      cx.values.push_back({"lo", dec(b.lo)});
      cx.values.push_back({"hi", dec(b.hi)});
      uint64_t checked = 0;
      periodic_history<uint64_t>(
          p, [](uint64_t v) { return v; },
          [&](uint64_t t, uint64_t decayed, const pelt_v5_15::SchedAvg<uint64_t>& sa) {
            if (t < periodic_warm(p) || !decayed) return;
            ++checked;
            if (cx.summary.empty() && (sa.util_avg < b.lo || sa.util_avg > b.hi)) {
              cx.values.push_back({"at_ns", dec(t << kPeltUnitShift)});
              cx.values.push_back({"util_avg", dec(sa.util_avg)});
              cx.summary = "util_avg " + dec(sa.util_avg) + " outside [" + dec(b.lo) + ", " + dec(b.hi) + "] at " +
                           dec(t << kPeltUnitShift) + " ns" + where(c);
            }
          });
      cx.values.push_back({"updates_checked", dec(checked)});
      if (cx.summary.empty()) cx.summary = "util_avg within [" + dec(b.lo) + ", " + dec(b.hi) + "]" + where(c);
      return cx;
    }
    case PeltShape::sync: {
      const pelt_v5_15::SchedAvg<uint64_t> a = pelt_sync(c, claim.features[Feature::pelt_relaxed_sum_sync]);
      const uint64_t floor = pelt_v5_15::pelt_min_divider<uint64_t>();
      const std::pair<std::string, std::pair<uint64_t, uint64_t>> sums[] = {
          {"load", {a.load_sum, a.load_avg}}, {"util", {a.util_sum, a.util_avg}},
          {"runnable", {a.runnable_sum, a.runnable_avg}}};
      for (const auto& [name, v] : sums) {
        cx.values.push_back({"after_" + name + "_sum", dec(v.first)});
        cx.values.push_back({"after_" + name + "_avg", dec(v.second)});
      }
      const char* op = c["detach"] ? "detach_entity_load_avg" : "dequeue_load_avg";
      for (const auto& [name, v] : sums)
        if (v.first < v.second * floor) {
          cx.summary = name + "_sum " + dec(v.first) + " < " + name + "_avg x PELT_MIN_DIVIDER " +
                       dec(v.second * floor) + " after " + op + where(c);
          return cx;
        }
      cx.summary = "every sum at least its average x PELT_MIN_DIVIDER after " + std::string(op) + where(c);
      return cx;
    }
    case PeltShape::idle_reweight: {
      const uint64_t load = pelt_idle_reweight(c, claim.features[Feature::reweight_idle_task]);
      cx.values.push_back({"after_load_avg", dec(load)});
      cx.summary = "load_avg " + dec(load) + (load > c["after_weight"] ? " > " : " <= ") + "its weight " +
                   dec(c["after_weight"]) + " after set_load_weight(SCHED_IDLE), attach and reweight" + where(c);
      return cx;
    }
    case PeltShape::update:
      break;
  }
  cx.summary = update_summary(claim, c, cx.values);
  return cx;
}

std::optional<Counterexample> check_pelt_case(const Claim& claim, const PeltCase<uint64_t>& c) {
  if (pelt_holds(claim, c)) return std::nullopt;
  return pelt_counterexample(claim, c);
}

}  // namespace cfsv
