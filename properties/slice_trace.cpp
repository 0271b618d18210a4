#include "properties/slice_trace.h"

#include <sstream>
#include <stdexcept>

namespace cfsv::properties {

std::string to_string(SliceFeatures f) {
  std::string s = f.flat_slice ? "flat" : "hierarchical";
  if (f.alt_period) s += "+alt_period";
  if (f.base_slice) s += "+base_slice";
  return s;
}

SliceTrace trace_slice(const SliceCase& c, SliceFeatures f) {
  const std::vector<SliceLevel<uint64_t>> chain = c.chain();
  const std::span<const SliceLevel<uint64_t>> all(chain);
  const SliceTunables<uint64_t> t = slice_tunables(c.tunables.tunables);
  const uint64_t nr = c.nr_running(), h_nr = c.rq_h_nr_running();
  SliceTrace tr;
  tr.features = f;
  tr.min_granularity = t.min_granularity;
  tr.nr_for_period = (f.alt_period ? h_nr : nr) + (c.on_rq ? 0 : 1);
  tr.period = sched_period(tr.nr_for_period, t);
  const SliceFeatures unfloored{f.alt_period, false, false};
  const std::size_t followed = f.flat_slice ? 1 : chain.size();
  for (std::size_t i = 0; i < followed; ++i) {
    const SliceLevel<uint64_t>& l = chain[i];
    const uint64_t load = l.cfs_rq_weight + (l.on_rq ? 0 : l.weight);
    tr.levels.push_back({l, load, era_inv_weight({load, 0}, c.r),
                         sched_slice(all.first(i + 1), nr, h_nr, t, unfloored, c.r)});
  }
  tr.slice = sched_slice(all, nr, h_nr, t, f, c.r);
  const uint64_t last = tr.levels.back().slice;
  if (tr.slice != (f.base_slice ? max(last, t.min_granularity) : last))
    throw std::logic_error("slice trace disagrees with sched_slice");
  return tr;
}

std::string summary(const SliceCase& c, const SliceTrace& t) {
  std::ostringstream os;
  os << to_string(t.features) << " sched_slice " << t.slice << " ns, min_granularity " << t.min_granularity
     << " ns: " << era_name(c.r) << " era, " << c.tunables.cpus << " CPUs, period " << t.period << " (nr "
     << t.nr_for_period << ")";
  for (std::size_t i = 0; i < t.levels.size(); ++i) {
    const SliceLevelTrace& l = t.levels[i];
    os << "; level " << i << ": weight " << l.level.weight << " / load " << l.load << " -> " << l.slice;
  }
  return os.str();
}

std::string reproducer(const SliceCase& c, const SliceTrace& t) {
  const Tunables& tu = c.tunables.tunables;
  std::ostringstream os;
  os << "sched_slice variant " << to_string(t.features) << "\n"
     << "era " << era_name(c.r) << " (scale_load shift " << c.r.shift << ", scale_load_down min 2 "
     << (c.r.down_min_2 ? "yes" : "no") << ", " << (c.r.calc_delta_mine ? "calc_delta_mine" : "__calc_delta")
     << ")\n"
     << "cpus " << c.tunables.cpus << ", tunable scaling " << to_string(tu.scaling)
     << (c.tunables.sysctl_written ? ", latency and min_granularity written by sysctl" : "") << "\n"
     << "latency " << tu.latency_ns << " ns, min_granularity " << tu.min_granularity_ns << " ns, nr_latency "
     << tu.nr_latency << "\n"
     << "task on_rq " << c.on_rq << ", cfs_rq nr_running " << c.nr_running() << ", rq h_nr_running "
     << c.rq_h_nr_running() << "\n"
     << "period = __sched_period(" << t.nr_for_period << ") = " << t.period << " ns\n";
  for (std::size_t i = 0; i < c.levels.size(); ++i) {
    os << "level " << i << (i == 0 ? " (task)" : " (group entity)") << ": weight " << c.levels[i].weight
       << ", cfs_rq nr_running " << c.nr_running(i) << ", on_rq " << c.level_on_rq(i);
    if (i < t.levels.size()) {
      const SliceLevelTrace& l = t.levels[i];
      os << ", cfs_rq load " << l.level.cfs_rq_weight << ", load used " << l.load << ", inv_weight "
         << l.inv_weight << ", slice " << l.slice << " ns";
    } else {
      os << " (not followed)";
    }
    os << "\n  other entities on this cfs_rq (weight, or weight x tasks below): ";
    if (c.levels[i].others.empty()) os << "none";
    show_siblings(c.levels[i].others, os);
    os << "\n";
  }
  os << "sched_slice = " << t.slice << " ns" << (t.features.base_slice ? " (after max with min_granularity)" : "")
     << ", min_granularity = " << t.min_granularity << " ns\n";
  return os.str();
}

}  // namespace cfsv::properties
