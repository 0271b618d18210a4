#include "claims/slice_trace.h"

#include <stdexcept>

namespace cfsv {

std::string to_string(SliceFeatures f) {
  std::string s = f.flat_slice ? "flat" : "hierarchical";
  if (f.alt_period) s += "+alt_period";
  if (f.base_slice) s += "+base_slice";
  if (f.idle_floor) s += "+idle_floor";
  return s;
}

SliceTrace trace_slice(const SliceCase<uint64_t>& c, SliceFeatures f) {
  const LoadResolution res = resolution_of(c.era);
  const std::vector<SliceLevel<uint64_t>> chain = c.chain();
  const std::span<const SliceLevel<uint64_t>> path(chain);
  const bool queued = c.levels[0].on_rq != 0;
  SliceTrace t;
  t.nr = (f.alt_period ? c.rq_h_nr_running() : c.nr_running()) + (queued ? 0 : 1);
  t.period = sched_period(t.nr, c.tunables);
  const SliceFeatures unfloored{f.alt_period, false, false, false};
  const std::size_t followed = f.flat_slice ? 1 : chain.size();
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const SliceLevel<uint64_t>& l = chain[i];
    const uint64_t load = l.cfs_rq_weight + (l.on_rq ? 0 : l.weight);
    SliceLevelTrace lt{load, era_inv_weight<uint64_t>({load, 0}, res), std::nullopt};
    if (i < followed)
      lt.slice = sched_slice(path.first(i + 1), c.nr_running(), c.rq_h_nr_running(), c.tunables, unfloored, res);
    t.levels.push_back(lt);
  }
  t.slice = run_slice(c, f);
  const uint64_t last = *t.levels[followed - 1].slice;
  if (t.slice != (f.base_slice ? max(last, slice_floor(c.nr_running(), c.tunables, f, c.slice_idle())) : last))
    throw std::logic_error("slice trace disagrees with sched_slice");
  return t;
}

namespace {
std::string dec(uint64_t v) { return std::to_string(v); }

std::string summary(const Claim& claim, const SliceCase<uint64_t>& c, const SliceTrace& t) {
  const SliceFeatures f = claim.features.slice();
  const std::string task = f.idle_floor ? (c.idle ? "a SCHED_IDLE task's " : "a task's ") : "";
  const uint64_t mg = c.tunables.min_granularity;
  const std::string where = " (depth " + dec(c.levels.size()) + ", era " + std::string(era_name(c.era)) + ", " +
                            dec(c.cpus) + (c.cpus == 1 ? " CPU)" : " CPUs)");
  switch (claim.kind) {
    case ClaimKind::equal_weights_exact_set:
      return dec(c.n()) + " equal-weight tasks, sched_nr_latency " + dec(c.tunables.nr_latency) + ": sched_slice " +
             dec(t.slice) + (t.slice >= mg ? " ns >= " : " ns < ") + "min_granularity " + dec(mg) + " ns" + where;
    case ClaimKind::equal_weights_rounding:
      return dec(c.n()) + " equal-weight tasks: sched_slice " + dec(t.slice) + " ns + allowance " +
             dec(rounding_allowance(c)) + " ns < min_granularity " + dec(mg) + " ns" + where;
    case ClaimKind::idle_floor_only_shortens: {
      const uint64_t before = run_slice(c, without_idle_floor(f));
      return task + "sched_slice " + dec(t.slice) + " ns with the idle floor, " + dec(before) + " ns without it" +
             where;
    }
    default: break;
  }
  return task + "sched_slice " + dec(t.slice) + (t.slice >= mg ? " ns >= " : " ns < ") + "min_granularity " + dec(mg) +
         " ns" + where;
}
}  // namespace

Counterexample slice_case_counterexample(const SliceCase<uint64_t>& c, SliceFeatures f, const SliceTrace& t,
                                         std::span<const MulStep> steps) {
  Counterexample cx;
  cx.values = {{"depth", dec(c.levels.size())},
               {"nice", std::to_string(nice_of_rank(c.nice_rank))},
               {"on_rq", dec(c.levels[0].on_rq)},
               {"nr_running", dec(c.nr_running())},
               {"rq_h_nr_running", dec(c.rq_h_nr_running())},
               {"period", dec(t.period)},
               {"slice", dec(t.slice)},
               {"min_granularity", dec(c.tunables.min_granularity)},
               {"latency", dec(c.tunables.latency)},
               {"nr_latency", dec(c.tunables.nr_latency)},
               {"cpus", dec(c.cpus)},
               {"era", std::string(era_name(c.era))},
               {"variant", to_string(f)}};
  if (f.idle_floor) {
    cx.values.insert(cx.values.end(), {{"task_idle", dec(c.idle)},
                                       {"others_idle", dec(c.others_idle)},
                                       {"idle_nr_running", dec(c.slice_idle().idle_nr_running)},
                                       {"idle_min_granularity", dec(c.tunables.idle_min_granularity)}});
  }
  const std::vector<SliceLevel<uint64_t>> chain = c.chain();
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const SlicePathLevel<uint64_t>& l = c.levels[i];
    const SliceLevelTrace& lt = t.levels[i];
    std::vector<Value> level = {{"weight", dec(l.weight)},
                                {"cfs_rq_weight", dec(chain[i].cfs_rq_weight)},
                                {"on_rq", dec(l.on_rq)},
                                {"nr_running", dec(l.on_rq + l.others)},
                                {"others_weight", dec(l.others_weight)},
                                {"others_tasks", dec(l.others_tasks)},
                                {"lw_weight", dec(lt.load)},
                                {"inv_weight", dec(lt.inv_weight)}};
    if (i < steps.size()) level.insert(level.end(), {{"fact", dec(steps[i].fact)}, {"shift", dec(steps[i].shift)}});
    if (lt.slice) level.push_back({"slice", dec(*lt.slice)});
    cx.levels.push_back(std::move(level));
  }
  return cx;
}

Counterexample slice_counterexample(const Claim& claim, const SliceCase<uint64_t>& c, const SliceTrace& t,
                                    std::span<const MulStep> steps) {
  Counterexample cx = slice_case_counterexample(c, claim.features.slice(), t, steps);
  cx.claim = std::string(claim.id);
  cx.summary = summary(claim, c, t);
  if (claim.kind == ClaimKind::equal_weights_exact_set || claim.kind == ClaimKind::equal_weights_rounding)
    cx.values.push_back({"n", dec(c.n())});
  if (claim.kind == ClaimKind::equal_weights_rounding) cx.values.push_back({"allowance", dec(rounding_allowance(c))});
  return cx;
}

Counterexample slice_counterexample(const Claim& claim, const SliceCase<uint64_t>& c) {
  return slice_counterexample(claim, c, trace_slice(c, claim.features.slice()));
}

}  // namespace cfsv
