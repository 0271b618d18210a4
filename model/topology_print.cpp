// The sched domains as the kernel of each era shows them (model/topology.h):
// sched_domain_debug's lines and the per-domain files.
#include <algorithm>
#include <array>

#include "scenario_text.h"
#include "topology.h"

namespace cfsv {

namespace {

std::string spaces(std::size_t n) { return std::string(n, ' '); }

// The era's flags of s in bit order (for_each_set_bit).
std::vector<SdFlag> flags_in_bit_order(TopologyEra e, const SdFlags& s) {
  std::vector<SdFlag> fs;
  for (unsigned f = 0; f < unsigned(SdFlag::count); ++f)
    if (s.has(SdFlag(f)) && sd_flag_value(e, SdFlag(f))) fs.push_back(SdFlag(f));
  std::sort(fs.begin(), fs.end(), [e](SdFlag a, SdFlag b) { return sd_flag_value(e, a) < sd_flag_value(e, b); });
  return fs;
}

// sched_domain_debug_one: v3.10 and v4.4 ("domain 0: span 0-1 level SMT",
// groups with their capacity when not 1024).
std::string debug_one_old(TopologyEra e, const SchedDomain& sd, std::size_t level) {
  std::string s = spaces(level) + " domain " + std::to_string(level) + ": span " + format_cpu_list(sd.span) +
                  " level " + std::string(sd.name) + "\n" + spaces(level + 1) + " groups:";
  const char* cap = e == TopologyEra::v3_10 ? " (cpu_power = " : " (cpu_capacity = ";
  for (const SchedGroup& g : sd.groups) {
    s += " " + format_cpu_list(g.span);
    if (g.capacity != 1024) s += cap + std::to_string(g.capacity) + ")";
  }
  return s + "\n";
}

// sched_domain_debug_one, v5.15 ("domain-0: span=0-1 level=SMT",
// "0:{ span=0 cap=589 }", overlapping groups with their balance mask).
std::string debug_one_515(const SchedDomain& sd, std::size_t level) {
  std::string s = spaces(level) + " domain-" + std::to_string(level) + ": span=" + format_cpu_list(sd.span) +
                  " level=" + std::string(sd.name) + "\n" + spaces(level + 1) + " groups:";
  for (std::size_t i = 0; i < sd.groups.size(); ++i) {
    const SchedGroup& g = sd.groups[i];
    s += " " + std::to_string(g.id.v) + ":{ span=" + format_cpu_list(g.span);
    if (sd.flags.has(SdFlag::OVERLAP) && g.balance_mask != g.span) s += " mask=" + format_cpu_list(g.balance_mask);
    if (g.capacity != 1024) s += " cap=" + std::to_string(g.capacity);
    s += " }";
    if (i + 1 < sd.groups.size()) s += ",";
  }
  return s + "\n";
}

// The ERROR lines sched_domain_debug_one (every era) prints after a
// domain's groups when their CPUs are not its span (v3.10 and v4.4's
// overlapping groups at NUMA diameter 3 and more reach past it) or reach
// past its parent's. Its other checks (the CPU in its span and first group,
// no repeated CPUs outside SD_OVERLAP, v5.15's first group against the child
// and the flags it shares with child or parent) hold in every domain the
// model builds; v3.10's "domain->cpu_power not set" is about the state at
// boot, before the groups' power is settled, which the model does not keep.
std::string span_errors(const SchedDomain& sd, const SchedDomain* parent) {
  CpuMask groupmask;
  for (const SchedGroup& g : sd.groups) groupmask |= g.span;
  std::string s;
  if (groupmask != sd.span) s += "ERROR: groups don't span domain->span\n";
  if (parent && (groupmask & ~parent->span).any()) s += "ERROR: parent span is not a superset of domain->span\n";
  return s;
}

struct File {
  std::string_view name;
  std::string (*value)(TopologyEra, const SchedDomain&);
};
std::string num(unsigned v) { return std::to_string(v); }

// sd_alloc_ctl_domain_table (v3.10, v4.4) and register_sd (v5.15), in name
// order; max_newidle_lb_cost is left out (it is measured while running).
constexpr std::array<File, 12> kFiles = {{
    {"busy_factor", [](TopologyEra, const SchedDomain& sd) { return num(sd.busy_factor); }},
    {"busy_idx", [](TopologyEra, const SchedDomain& sd) { return num(sd.busy_idx); }},
    {"cache_nice_tries", [](TopologyEra, const SchedDomain& sd) { return num(sd.cache_nice_tries); }},
    {"flags",
     [](TopologyEra e, const SchedDomain& sd) {
       if (e != TopologyEra::v5_15) return num(sd_flags_value(e, sd.flags));
       std::string s;  // sd_flags_show: each name and a space
       for (SdFlag f : flags_in_bit_order(e, sd.flags)) s += std::string(sd_flag_name(e, f)) + " ";
       return s;
     }},
    {"forkexec_idx", [](TopologyEra, const SchedDomain& sd) { return num(sd.forkexec_idx); }},
    {"idle_idx", [](TopologyEra, const SchedDomain& sd) { return num(sd.idle_idx); }},
    {"imbalance_pct", [](TopologyEra, const SchedDomain& sd) { return num(sd.imbalance_pct); }},
    {"max_interval", [](TopologyEra, const SchedDomain& sd) { return num(sd.max_interval); }},
    {"min_interval", [](TopologyEra, const SchedDomain& sd) { return num(sd.min_interval); }},
    {"name", [](TopologyEra, const SchedDomain& sd) { return std::string(sd.name); }},
    {"newidle_idx", [](TopologyEra, const SchedDomain& sd) { return num(sd.newidle_idx); }},
    {"wake_idx", [](TopologyEra, const SchedDomain& sd) { return num(sd.wake_idx); }},
}};
bool v515_file(std::string_view name) { return name.find("_idx") == std::string_view::npos; }

}  // namespace

std::vector<std::string_view> sd_flag_names(TopologyEra e, const SdFlags& s) {
  std::vector<std::string_view> names;
  for (SdFlag f : flags_in_bit_order(e, s)) names.push_back(sd_flag_name(e, f));
  return names;
}

std::string sched_domain_debug(const SchedTopology& st) {
  std::string s;
  const bool v515 = st.era == TopologyEra::v5_15;
  for (CpuId c : st.sd.ids()) {
    const std::vector<SchedDomain>& sds = st.sd[c];
    const std::string cpu = "CPU" + std::to_string(c.v);
    if (sds.empty()) {
      s += cpu + " attaching NULL sched-domain.\n";
      continue;
    }
    s += cpu + (v515 ? " attaching sched-domain(s):\n" : " attaching sched-domain:\n");
    for (std::size_t l = 0; l < sds.size(); ++l) {
      s += v515 ? debug_one_515(sds[l], l) : debug_one_old(st.era, sds[l], l);
      s += span_errors(sds[l], l + 1 < sds.size() ? &sds[l + 1] : nullptr);
    }
  }
  if (v515 && !st.cpu_capacity.empty())  // rd->span: the CPUs built over
    s += "root domain span: " + format_cpu_list(st.cpu_map) + " (max cpu_capacity = " +
         std::to_string(st.max_cpu_capacity) + ")\n";
  return s;
}

std::string sched_domain_files(const SchedTopology& st) {
  const bool v515 = st.era == TopologyEra::v5_15;
  const std::string root = v515 ? "/sys/kernel/debug/sched/domains/" : "/proc/sys/kernel/sched_domain/";
  std::string s;
  for (CpuId c : st.sd.ids())
    for (std::size_t l = 0; l < st.sd[c].size(); ++l)
      for (const File& f : kFiles)
        if (!v515 || v515_file(f.name))
          s += root + "cpu" + std::to_string(c.v) + "/domain" + std::to_string(l) + "/" + std::string(f.name) + ":" +
               f.value(st.era, st.sd[c][l]) + "\n";
  return s;
}

}  // namespace cfsv
