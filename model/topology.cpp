// Sched domains per era (model/topology.h): the topology levels, sd_init's
// values, the groups (build_sched_groups, build_overlap_sched_groups) and
// the removal of degenerate domains (cpu_attach_domain).
#include "topology.h"

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <optional>
#include <set>

namespace cfsv {

namespace {

using F = SdFlag;
constexpr unsigned kCapacityScale = 1024;  // SCHED_CAPACITY_SCALE (SCHED_POWER_SCALE in v3.10)
constexpr unsigned kReclaimDistance = 30;  // RECLAIM_DISTANCE (node_reclaim_distance's default in v5.15)

// The topology levels: default_topology (SMT, MC, DIE), v5.15's NODE, then NUMA.
enum class Level { smt, mc, die, node, numa };
constexpr std::size_t kLevels = 5;

// A level's sched_domain as sd_init leaves it (v3.10: the SD_*_INIT
// initialisers of include/linux/topology.h and sd_numa_init).
struct SdInit {
  std::string_view name;
  bool by_weight;  // min_interval = balance_interval = sd_weight, max = 2 * sd_weight; else 1, max_interval
  unsigned max_interval, busy_factor, imbalance_pct, cache_nice_tries;
  unsigned busy_idx, idle_idx, newidle_idx, wake_idx, forkexec_idx, smt_gain;
  SdFlags flags;
};

struct FlagSpelling {
  std::string_view name;
  unsigned value;
};

// What differs between eras; one row each in kEras.
struct Era {
  std::array<SdInit, kLevels> init;  // by Level; v3.10 and v4.4 have no NODE level
  std::array<FlagSpelling, static_cast<std::size_t>(F::count)> flags;  // by SdFlag
  SdFlags needs_groups;         // sd_degenerate: flags that need two groups
  SdFlags parent_needs_groups;  // sd_parent_degenerate: flags that do not count with one group
  bool serialize_one_node;      // sd_parent_degenerate drops SD_SERIALIZE with one node (v3.10, v4.4)
  bool prefer_sibling_down;     // cpu_attach_domain moves a removed parent's SD_PREFER_SIBLING down (v4.4+)
  bool node_level;              // sched_init_numa: a NODE level, distances from the whole table (v5.15)
  bool asym_cpucapacity;        // sd_init: asym_cpu_capacity_classify (v5.15)
  bool smt_capacity;            // arch_scale_cpu_capacity: smt_gain / span_weight on SMT (v3.10, v4.4)
  bool itmt;                    // x86 ITMT (v4.10+): with priorities, SMT and MC get SD_ASYM_PACKING
  bool numa_in_package;         // x86 (v3.16+): a socket holding several nodes gets SMT and MC only, no DIE
};

constexpr SdFlags kOld = SdFlags{F::LOAD_BALANCE, F::BALANCE_NEWIDLE, F::BALANCE_EXEC, F::BALANCE_FORK,
                                   F::WAKE_AFFINE};
constexpr SdFlags kNew = SdFlags{F::BALANCE_NEWIDLE, F::BALANCE_EXEC, F::BALANCE_FORK, F::WAKE_AFFINE,
                                   F::PREFER_SIBLING};
constexpr SdFlags kSmt = SdFlags{F::SHARE_CPUCAPACITY, F::SHARE_PKG_RESOURCES};
constexpr SdFlags kPkg = SdFlags{F::SHARE_PKG_RESOURCES};
constexpr SdFlags kPrefer = SdFlags{F::PREFER_SIBLING};
constexpr SdFlags kSerialize = SdFlags{F::SERIALIZE};
constexpr SdFlags kNuma = SdFlags{F::NUMA};

// sd->flags bits, include/linux/sched.h (v3.10, v4.4) and include/linux/sched/sd_flags.h (v5.15).
constexpr std::array<FlagSpelling, 16> kFlags310 = {{
    {"SD_LOAD_BALANCE", 0x1}, {"SD_BALANCE_NEWIDLE", 0x2}, {"SD_BALANCE_EXEC", 0x4}, {"SD_BALANCE_FORK", 0x8},
    {"SD_BALANCE_WAKE", 0x10}, {"SD_WAKE_AFFINE", 0x20}, {"", 0}, {"", 0}, {"SD_SHARE_CPUPOWER", 0x80}, {"", 0},
    {"SD_SHARE_PKG_RESOURCES", 0x200}, {"SD_SERIALIZE", 0x400}, {"SD_ASYM_PACKING", 0x800},
    {"SD_PREFER_SIBLING", 0x1000}, {"SD_OVERLAP", 0x2000}, {"", 0},
}};
constexpr std::array<FlagSpelling, 16> kFlags44 = {{
    {"SD_LOAD_BALANCE", 0x1}, {"SD_BALANCE_NEWIDLE", 0x2}, {"SD_BALANCE_EXEC", 0x4}, {"SD_BALANCE_FORK", 0x8},
    {"SD_BALANCE_WAKE", 0x10}, {"SD_WAKE_AFFINE", 0x20}, {"", 0}, {"", 0}, {"SD_SHARE_CPUCAPACITY", 0x80},
    {"SD_SHARE_POWERDOMAIN", 0x100}, {"SD_SHARE_PKG_RESOURCES", 0x200}, {"SD_SERIALIZE", 0x400},
    {"SD_ASYM_PACKING", 0x800}, {"SD_PREFER_SIBLING", 0x1000}, {"SD_OVERLAP", 0x2000}, {"SD_NUMA", 0x4000},
}};
constexpr std::array<FlagSpelling, 16> kFlags515 = {{
    {"", 0}, {"SD_BALANCE_NEWIDLE", 0x1}, {"SD_BALANCE_EXEC", 0x2}, {"SD_BALANCE_FORK", 0x4},
    {"SD_BALANCE_WAKE", 0x8}, {"SD_WAKE_AFFINE", 0x10}, {"SD_ASYM_CPUCAPACITY", 0x20},
    {"SD_ASYM_CPUCAPACITY_FULL", 0x40}, {"SD_SHARE_CPUCAPACITY", 0x80}, {"", 0}, {"SD_SHARE_PKG_RESOURCES", 0x100},
    {"SD_SERIALIZE", 0x200}, {"SD_ASYM_PACKING", 0x400}, {"SD_PREFER_SIBLING", 0x800}, {"SD_OVERLAP", 0x1000},
    {"SD_NUMA", 0x2000},
}};

// Every flag but SD_WAKE_AFFINE: v5.15's SD_DEGENERATE_GROUPS_MASK (SDF_NEEDS_GROUPS).
constexpr SdFlags kAllButWakeAffine = ~SdFlags{F::WAKE_AFFINE};
constexpr SdFlags kDegen310 = SdFlags{F::LOAD_BALANCE, F::BALANCE_NEWIDLE, F::BALANCE_FORK, F::BALANCE_EXEC,
                                        F::SHARE_CPUCAPACITY, F::SHARE_PKG_RESOURCES};
constexpr SdFlags kDegen44 = kDegen310 | SdFlags{F::SHARE_POWERDOMAIN};

//   name  by_weight max bf imb cnt  busy idle newidle wake forkexec smt_gain  flags
constexpr std::array<Era, 3> kEras = {{
    {{{
         {"SIBLING", false, 2, 64, 110, 0, 0, 0, 0, 0, 0, 1178, kOld | kSmt},
         {"MC", false, 4, 64, 125, 1, 2, 0, 0, 0, 0, 0, kOld | kPkg},
         {"CPU", false, 4, 64, 125, 1, 2, 1, 0, 0, 0, 0, kOld | kPrefer},
         {},
         {"NUMA", true, 0, 32, 125, 2, 3, 2, 0, 0, 0, 0, kOld | kSerialize},
     }},
     kFlags310, kDegen310, kDegen310, true, false, false, false, true, false, false},
    {{{
         {"SMT", true, 0, 32, 110, 0, 0, 0, 0, 0, 0, 1178, kOld | kSmt | kPrefer},
         {"MC", true, 0, 32, 117, 1, 2, 0, 0, 0, 0, 0, kOld | kPkg},
         {"DIE", true, 0, 32, 125, 1, 2, 1, 0, 0, 0, 0, kOld | kPrefer},
         {},
         {"NUMA", true, 0, 32, 125, 2, 3, 2, 0, 0, 0, 0, kOld | kNuma | kSerialize},
     }},
     kFlags44, kDegen44, kDegen44 | kPrefer, true, true, false, false, true, false, true},
    {{{
         {"SMT", true, 0, 16, 110, 0, 0, 0, 0, 0, 0, 0, kNew | kSmt},
         {"MC", true, 0, 16, 117, 1, 0, 0, 0, 0, 0, 0, kNew | kPkg},
         {"DIE", true, 0, 16, 117, 1, 0, 0, 0, 0, 0, 0, kNew},
         {"NODE", true, 0, 16, 117, 1, 0, 0, 0, 0, 0, 0, kNew},
         {"NUMA", true, 0, 16, 117, 2, 0, 0, 0, 0, 0, 0, (kNew & ~kPrefer) | kNuma | kSerialize},
     }},
     kFlags515, kAllButWakeAffine, kAllButWakeAffine, false, true, true, true, false, true, true},
}};

const Era& era_of(TopologyEra e) { return kEras[static_cast<std::size_t>(e)]; }

unsigned weight(const CpuMask& m) { return static_cast<unsigned>(m.count()); }
unsigned first_cpu(const CpuMask& m) { return static_cast<unsigned>(m._Find_first()); }  // kMaxCpus when empty
bool subset(const CpuMask& a, const CpuMask& b) { return (a & ~b).none(); }

// The CPUs of m from `start` on, wrapping round (for_each_cpu_wrap); from 0: for_each_cpu.
std::vector<unsigned> cpus_from(const CpuMask& m, unsigned start, unsigned nr_cpus) {
  std::vector<unsigned> out;
  for (unsigned k = 0; k < nr_cpus; ++k)
    if (const unsigned c = (start + k) % nr_cpus; m[c]) out.push_back(c);
  return out;
}

// sched_init_numa (v3.10, v4.4): the distinct distances of node 0's row above
// the local one, ascending; under sched_debug the selection sort goes on
// through the other rows, each adding its distances above the largest found
// so far. representative: no row held a distance not found before it (else
// the kernel logs "Node-0 not representative").
std::vector<unsigned> era1_numa_distances(const Topology& t, bool sched_debug, bool* representative = nullptr) {
  const unsigned nodes = t.nr_nodes(), local = t.node_distance(0, 0);
  std::vector<unsigned> found;
  for (unsigned a = 0; a < (sched_debug ? nodes : 1); ++a) {
    const unsigned above = found.empty() ? local : found.back();
    const std::size_t from = found.size();
    for (unsigned b = 0; b < nodes; ++b) {
      const unsigned d = t.node_distance(a, b);
      const bool known = d == local || std::find(found.begin(), found.begin() + from, d) != found.begin() + from;
      if (a && !known && representative) *representative = false;
      if (d > above && std::find(found.begin() + from, found.end(), d) == found.end()) found.push_back(d);
    }
    std::sort(found.begin() + from, found.end());
  }
  return found;
}

// One topology level: sched_domain_topology_level.
struct Tl {
  Level level;
  unsigned numa_level = 0;
};

class Builder {
 public:
  Builder(const Topology& t, TopologyEra e, bool own_first, const CpuMask& cpu_map, bool numa_levels,
          const CpuMask& dying, bool sched_debug)
      : t_(t), e_(e), own_first_(own_first), era_(era_of(e)), n_(t.nr_cpus()),
        map_(cpu_map.any() ? cpu_map : first_cpus(n_)), numa_levels_(numa_levels), weighed_(map_ | dying),
        sched_debug_(sched_debug) {}

  SchedTopology build() {
    SchedTopology st;
    st.era = e_;
    init_numa();
    st.numa_distances = numa_distances_;
    built_.resize(n_);
    for (CpuId c : built_.ids())
      if (map_[c.index()]) build_domains(c);
    for (CpuId c : built_.ids())
      for (std::size_t l = 0; l < built_[c].size(); ++l)
        built_[c][l].groups = built_[c][l].flags.has(F::OVERLAP) ? overlap_groups(c, l) : groups(c, l);
    st.cpu_capacity.resize(n_), st.arch_capacity.resize(n_), st.asym_priority.resize(n_);
    for (CpuId c : built_.ids()) {
      st.cpu_capacity[c] = cpu_capacity(c);
      st.arch_capacity[c] = arch_capacity(static_cast<unsigned>(c.index()));
      st.asym_priority[c] = c.index() < t_.priority.size() ? t_.priority[c.index()] : 0;
    }
    st.smt_mask.resize(n_), st.node_mask.resize(n_);
    for (CpuId c : built_.ids()) st.smt_mask[c] = mask({Level::smt}, c.index()), st.node_mask[c] = mask({Level::die}, c.index());
    st.sd.resize(n_);
    for (CpuId c : built_.ids()) st.sd[c] = attach(built_[c]);
    const auto refreshed = refreshed_overlap_groups(st);
    for (CpuId c : built_.ids())
      for (SchedDomain& sd : st.sd[c])
        for (SchedGroup& g : sd.groups) {
          set_group_capacity(g, st.cpu_capacity);
          if (e_ != TopologyEra::v5_15 && sd.flags.has(F::OVERLAP) && !refreshed.contains({sd.level, g.id.index()}))
            g.capacity = kCapacityScale * weight(g.span);
          if (sd.flags.has(F::ASYM_PACKING)) g.asym_prefer_cpu = asym_prefer_cpu(st, g.span);
        }
    for (CpuId c : built_.ids()) {
      for (const SchedDomain& sd : built_[c]) st.asym_cpucap_active |= sd.flags.has(F::ASYM_CPUCAPACITY);
      if (map_[c.index()]) st.max_cpu_capacity = std::max(st.max_cpu_capacity, st.cpu_capacity[c]);
    }
    st.cpu_map = map_;
    update_top_cache_domain(st);
    return st;
  }

  // init_sched_groups_capacity (kernel/sched/topology.c v5.15), SD_ASYM_PACKING:
  // the group's CPU of highest priority, the first of equals.
  static CpuId asym_prefer_cpu(const SchedTopology& st, const CpuMask& span) {
    CpuId best;
    for (CpuId c : st.asym_priority.ids())
      if (span[c.index()] && (!best || sched_asym_prefer(st, c, best))) best = c;
    return best;
  }

  // update_top_cache_domain (kernel/sched/topology.c v5.15): sd_llc,
  // sd_llc_id, sd_asym_packing and sd_asym_cpucapacity of every CPU; and sched_smt_active.
  void update_top_cache_domain(SchedTopology& st) const {
    st.llc_level.resize(n_), st.llc_id.resize(n_), st.asym_level.resize(n_), st.asym_packing_level.resize(n_);
    for (CpuId c : built_.ids()) {
      const auto& sds = st.sd[c];
      st.asym_packing_level[c] = -1;  // highest_flag_domain: up from the bottom while the flag holds
      while (st.asym_packing_level[c] + 1 < static_cast<int>(sds.size()) &&
             sds[st.asym_packing_level[c] + 1].flags.has(F::ASYM_PACKING))
        ++st.asym_packing_level[c];
      const auto asym = std::find_if(sds.begin(), sds.end(), [](const SchedDomain& sd) {
        return sd.flags.has(F::ASYM_CPUCAPACITY_FULL);
      });
      st.asym_level[c] = asym == sds.end() ? -1 : static_cast<int>(asym - sds.begin());
      int level = -1;
      while (level + 1 < static_cast<int>(st.sd[c].size()) && st.sd[c][level + 1].flags.has(F::SHARE_PKG_RESOURCES))
        ++level;
      st.llc_level[c] = level;
      st.llc_id[c] = level < 0 ? c : CpuId(first_cpu(st.sd[c][level].span));
      st.smt_active |= st.smt_mask[c].count() > 1;
    }
  }

  // v3.10, v4.4: the overlapping groups (by level and sched_group_power /
  // sched_group_capacity, keyed by the CPU they were built from) that
  // update_group_power refreshes: a CPU's first group (sd->groups) at init
  // when the CPU is its group_balance_cpu (init_sched_groups_power), and at
  // every balance of an attached domain. The others keep the
  // SCHED_POWER_SCALE x weight build_overlap_sched_groups gave them. v5.15
  // needs no such set: a group's sgc is that of the first CPU of its balance
  // mask at the level it was built from (find_descended_sibling's), where
  // that CPU has it first.
  std::set<std::pair<unsigned, std::size_t>> refreshed_overlap_groups(const SchedTopology& st) const {
    std::set<std::pair<unsigned, std::size_t>> out;
    for (CpuId c : built_.ids())
      for (const SchedDomain& sd : built_[c]) {
        if (!sd.flags.has(F::OVERLAP) || sd.groups.empty()) continue;
        const SchedGroup& first = sd.groups.front();
        const bool attached = std::any_of(st.sd[c].begin(), st.sd[c].end(),
                                          [&](const SchedDomain& a) { return a.level == sd.level; });
        if (attached || first_cpu(first.span & first.balance_mask) == c.index()) out.insert({sd.level, first.id.index()});
      }
    return out;
  }

  // What update_group_capacity (v5.15) settles to: the sum of the group's
  // CPUs' capacities (of its child groups', and of each CPU for NUMA
  // groups), and the least and greatest of them.
  static void set_group_capacity(SchedGroup& g, const IdVec<CpuId, unsigned>& cpu_capacity) {
    g.capacity = 0, g.min_capacity = UINT_MAX, g.max_capacity = 0;
    for (CpuId i : cpu_capacity.ids())
      if (g.span[i.index()]) {
        g.capacity += cpu_capacity[i];
        g.min_capacity = std::min(g.min_capacity, cpu_capacity[i]);
        g.max_capacity = std::max(g.max_capacity, cpu_capacity[i]);
      }
  }

 private:
  // sched_init_numa: the distinct distances (v3.10, v4.4: of node 0's row,
  // above the local one; v5.15: of the whole table), then the levels.
  void init_numa() {
    if (era_.node_level) {
      const unsigned nodes = t_.nr_nodes();
      for (unsigned a = 0; a < nodes; ++a)
        for (unsigned b = 0; b < nodes; ++b)
          if (const unsigned d = t_.node_distance(a, b);
              std::find(numa_distances_.begin(), numa_distances_.end(), d) == numa_distances_.end())
            numa_distances_.push_back(d);
      std::sort(numa_distances_.begin(), numa_distances_.end());
    } else {
      numa_distances_ = era1_numa_distances(t_, sched_debug_);
    }
    // x86's set_sched_topology: x86_numa_in_package_topology (numa_inside_package_topology in v4.4).
    const bool in_package = era_.numa_in_package && t_.numa_in_package();
    tl_ = {{Level::smt}, {Level::mc}};
    if (!in_package) tl_.push_back({Level::die});
    // sched_init_numa appends its levels to that table; v4.4's x86 sets the
    // table again at every CPU online, and a rebuild after one has none.
    if (in_package && !numa_levels_) return;
    for (unsigned j = 0; j < numa_distances_.size(); ++j)
      tl_.push_back({era_.node_level && j == 0 ? Level::node : Level::numa, j});
  }

  // tl->mask(cpu): cpu_smt_mask, cpu_coregroup_mask (the LLC: the socket's,
  // or its node's part of it when a socket holds several nodes, each die
  // with its own L3), cpu_cpu_mask (the node), sd_numa_mask.
  CpuMask mask(const Tl& tl, unsigned cpu) const { return mask(tl, cpu, map_); }
  CpuMask mask(const Tl& tl, unsigned cpu, const CpuMask& map) const {
    CpuMask m;
    const unsigned per_socket = t_.cores * t_.threads;
    for (unsigned i = 0; i < n_; ++i) {
      if (!map[i]) continue;  // the span is within the CPU map (cpumask_and with cpu_map)
      switch (tl.level) {
        case Level::smt: m[i] = i / t_.threads == cpu / t_.threads; break;
        case Level::mc: m[i] = i / per_socket == cpu / per_socket && t_.cpu_node(i) == t_.cpu_node(cpu); break;
        case Level::die: m[i] = t_.cpu_node(i) == t_.cpu_node(cpu); break;
        case Level::node:
        case Level::numa:
          m[i] = t_.node_distance(t_.cpu_node(cpu), t_.cpu_node(i)) <= numa_distances_[tl.numa_level];
          break;
      }
    }
    return m;
  }

  // The topology's capacity= of a CPU; 0 where it gives none.
  unsigned given_capacity(unsigned cpu) const { return cpu < t_.capacity.size() ? t_.capacity[cpu] : 0; }
  unsigned arch_capacity(unsigned cpu) const { return given_capacity(cpu) ? given_capacity(cpu) : kCapacityScale; }

  // asym_cpu_capacity_classify (v5.15): how many distinct CPU capacities the
  // span sees, against those of the CPUs built over (offline ones skipped).
  SdFlags asym_classify(const CpuMask& span) const {
    std::vector<unsigned> all, seen;
    for (unsigned i = 0; i < n_; ++i) {
      const unsigned cap = arch_capacity(i);
      if (map_[i] && std::find(all.begin(), all.end(), cap) == all.end()) all.push_back(cap);
      if (span[i] && std::find(seen.begin(), seen.end(), cap) == seen.end()) seen.push_back(cap);
    }
    if (all.size() < 2 || seen.size() < 2) return {};
    if (seen.size() < all.size()) return SdFlags{F::ASYM_CPUCAPACITY};
    return SdFlags{F::ASYM_CPUCAPACITY, F::ASYM_CPUCAPACITY_FULL};
  }

  // build_sched_domains' first loop for one CPU: sd_init and build_sched_domain
  // level by level, up to the first domain spanning every CPU.
  void build_domains(CpuId cpu) {
    std::vector<SchedDomain>& sds = built_[cpu];
    for (const Tl& tl : tl_) {
      const SdInit& in = era_.init[static_cast<std::size_t>(tl.level)];
      const CpuMask m = mask(tl, static_cast<unsigned>(cpu.v));
      const unsigned w = weight(mask(tl, static_cast<unsigned>(cpu.v), weighed_));  // sd_init's sd_weight
      SchedDomain sd;
      sd.name = in.name;
      sd.level = static_cast<unsigned>(sds.size());
      sd.numa_level = tl.numa_level;
      sd.span = m;
      sd.min_interval = in.by_weight ? w : 1;
      sd.max_interval = in.by_weight ? 2 * w : in.max_interval;
      sd.balance_interval = in.by_weight ? w : 1;
      sd.busy_factor = in.busy_factor;
      sd.imbalance_pct = in.imbalance_pct;
      sd.cache_nice_tries = in.cache_nice_tries;
      sd.busy_idx = in.busy_idx;
      sd.idle_idx = in.idle_idx;
      sd.newidle_idx = in.newidle_idx;
      sd.wake_idx = in.wake_idx;
      sd.forkexec_idx = in.forkexec_idx;
      sd.smt_gain = in.smt_gain;
      sd.flags = in.flags;
      if (era_.itmt && !t_.priority.empty() && (tl.level == Level::smt || tl.level == Level::mc))
        sd.flags |= SdFlags{F::ASYM_PACKING};  // x86_smt_flags, x86_core_flags: sysctl_sched_itmt_enabled
      if (tl.level == Level::numa && numa_distances_[tl.numa_level] > kReclaimDistance)
        sd.flags &= ~SdFlags{F::BALANCE_EXEC, F::BALANCE_FORK, F::WAKE_AFFINE};
      if (era_.asym_cpucapacity) {
        sd.flags |= asym_classify(sd.span);
        // Don't attempt to spread across CPUs of different capacities.
        if (sd.flags.has(F::ASYM_CPUCAPACITY) && !sds.empty()) sds.back().flags.clear(F::PREFER_SIBLING);
      }
      // build_sched_domain (v4.4+): a child not inside its parent widens it ("arch topology borken").
      if (e_ != TopologyEra::v3_10 && !sds.empty()) sd.span |= sds.back().span;
      if (tl.level == Level::numa) sd.flags |= SdFlags{F::OVERLAP};  // SDTL_OVERLAP
      sd.span_weight = weight(sd.span);
      sds.push_back(std::move(sd));
      if (sds.back().span_weight == weight(map_)) break;
    }
  }

  // CPU i's domain at level l, if its build reached l (else the kernel's
  // zeroed sched_domain: no span, no child).
  const SchedDomain* at(unsigned i, std::size_t l) const {
    const std::vector<SchedDomain>& s = built_[CpuId(i)];
    return l < s.size() ? &s[l] : nullptr;
  }
  bool spans(unsigned i, std::size_t l, unsigned cpu) const { return at(i, l) && at(i, l)->span[cpu]; }

  // The groups as the list is walked from sd->groups: the one holding cpu first.
  static std::vector<SchedGroup> from_first(std::vector<SchedGroup> gs, std::size_t first) {
    std::rotate(gs.begin(), gs.begin() + static_cast<std::ptrdiff_t>(first), gs.end());
    return gs;
  }

  // build_sched_groups/get_group: a group per child domain in the span
  // (per CPU at the lowest level); v5.15 starts at cpu, older eras at the
  // span's first CPU, sd->groups being cpu's group in both.
  std::vector<SchedGroup> groups(CpuId cpu, std::size_t l) const {
    const unsigned me = static_cast<unsigned>(cpu.v);
    const CpuMask& span = built_[cpu][l].span;
    CpuMask covered;
    std::vector<SchedGroup> gs;
    std::size_t mine = 0;
    for (unsigned i : cpus_from(span, e_ == TopologyEra::v5_15 ? me : 0, n_)) {
      if (covered[i]) continue;
      SchedGroup g;
      if (l > 0) g.span = at(i, l - 1)->span;
      else g.span[i] = true;
      g.balance_mask = g.span;
      g.id = CpuId(first_cpu(g.span));
      covered |= g.span;
      if (g.span[me]) mine = gs.size();
      gs.push_back(g);
    }
    return from_first(std::move(gs), mine);
  }

  // The order build_overlap_sched_groups visits the span in: v5.15 from the
  // CPU round (for_each_cpu_wrap), era 1 from CPU 0 (for_each_cpu); with the
  // paper's fix the CPU first, then from CPU 0 (its second visit is covered).
  std::vector<unsigned> overlap_walk(const CpuMask& span, unsigned me) const {
    std::vector<unsigned> order = cpus_from(span, e_ == TopologyEra::v5_15 ? me : 0, n_);
    if (own_first_ && e_ != TopologyEra::v5_15) order.insert(order.begin(), me);
    return order;
  }

  // build_overlap_sched_groups: a group per CPU not yet covered, spanning
  // that CPU's child domain; the balance mask is the CPUs that would end up
  // at that group (build_group_mask, build_balance_mask).
  std::vector<SchedGroup> overlap_groups(CpuId cpu, std::size_t l) {
    const unsigned me = static_cast<unsigned>(cpu.v);
    const CpuMask& span = built_[cpu][l].span;
    CpuMask covered;
    std::vector<SchedGroup> gs;
    std::optional<std::size_t> first;
    for (unsigned i : overlap_walk(span, me)) {
      if (covered[i] || !spans(i, l, i)) continue;
      std::size_t s = l;  // the sibling's level
      if (e_ == TopologyEra::v5_15 && l > 0 && !subset(at(i, l - 1)->span, span)) {
        // find_descended_sibling: down to a child inside the span, then past
        // children as wide as their parent.
        while (s > 0 && !subset(at(i, s - 1)->span, span)) --s;
        while (s > 0 && at(i, s - 1)->span == at(i, s)->span) --s;
      }
      SchedGroup g;
      if (s > 0) g.span = at(i, s - 1)->span;
      else if (e_ == TopologyEra::v5_15) g.span = at(i, s)->span;
      else g.span[i] = true;
      covered |= g.span;
      const CpuMask mask = balance_mask(i, s, span, g.span);
      g.balance_mask = mask;
      g.id = CpuId(e_ == TopologyEra::v5_15 ? first_cpu(mask) : i);
      const unsigned balance_cpu = first_cpu(g.span & mask);  // group_balance_cpu
      // "Make sure the first group of this domain contains the canonical balance cpu" (v3.10, v4.4).
      if ((!first && g.span[me]) || (e_ != TopologyEra::v5_15 && balance_cpu == me)) first = gs.size();
      gs.push_back(g);
    }
    return from_first(std::move(gs), first.value_or(0));
  }

  // The group's balance mask: v3.10 build_group_mask (CPUs of the building
  // domain's span that have a domain at this level; kept from the first
  // domain to use that sched_group_power), v4.4 build_group_mask and v5.15
  // build_balance_mask (the group's CPUs whose child domain is the group).
  CpuMask balance_mask(unsigned i, std::size_t s, const CpuMask& sd_span, const CpuMask& sg_span) {
    CpuMask m;
    if (e_ == TopologyEra::v3_10) {
      const auto [it, fresh] = sgp_mask_.try_emplace({s, i});
      if (fresh)
        for (unsigned j = 0; j < n_; ++j) it->second[j] = sd_span[j] && spans(j, s, j);
      return it->second;
    }
    for (unsigned j = 0; j < n_; ++j) m[j] = sg_span[j] && s > 0 && at(j, s) && at(j, s - 1)->span == sg_span;
    return m;
  }

  // update_cpu_capacity's arch part: arch_scale_cpu_capacity (v3.10:
  // arch_scale_smt_power), without RT or IRQ time taken off.
  unsigned cpu_capacity(CpuId cpu) const {
    const unsigned i = static_cast<unsigned>(cpu.v);
    if (built_[cpu].empty()) return arch_capacity(i);  // outside the CPU map: no domain
    const SchedDomain& bottom = built_[cpu].front();
    if (!given_capacity(i) && era_.smt_capacity && bottom.flags.has(F::SHARE_CPUCAPACITY) && bottom.span_weight > 1)
      return bottom.smt_gain / bottom.span_weight;
    return arch_capacity(i);
  }

  // sd_degenerate.
  bool degenerate(const SchedDomain& sd) const {
    if (sd.span_weight == 1) return true;
    if ((sd.flags & era_.needs_groups).any() && sd.groups.size() > 1) return false;
    return !sd.flags.has(F::WAKE_AFFINE);
  }
  // sd_parent_degenerate.
  bool parent_degenerate(const SchedDomain& sd, const SchedDomain& parent) const {
    if (degenerate(parent)) return true;
    if (sd.span != parent.span) return false;
    SdFlags pflags = parent.flags;
    if (parent.groups.size() == 1) {
      pflags &= ~era_.parent_needs_groups;
      if (era_.serialize_one_node && t_.nr_nodes() == 1) pflags &= ~kSerialize;
    }
    return !(~sd.flags & pflags).any();
  }

  // cpu_attach_domain: remove each parent that adds nothing, then the
  // bottom domain if it is degenerate (once).
  std::vector<SchedDomain> attach(std::vector<SchedDomain> sds) const {
    for (std::size_t i = 0; i + 1 < sds.size();) {
      if (!parent_degenerate(sds[i], sds[i + 1])) {
        ++i;
        continue;
      }
      if (era_.prefer_sibling_down && sds[i + 1].flags.has(F::PREFER_SIBLING))
        sds[i].flags |= kPrefer;
      sds.erase(sds.begin() + static_cast<std::ptrdiff_t>(i + 1));
    }
    if (!sds.empty() && degenerate(sds.front())) sds.erase(sds.begin());
    return sds;
  }

  const Topology& t_;
  TopologyEra e_;
  bool own_first_;  // the paper's fix: each CPU's own overlapping group built first (era 1; v5.15 does anyway)
  const Era& era_;
  unsigned n_;
  CpuMask map_;  // the CPUs built over (build_sched_domains' cpu_map: the active ones)
  bool numa_levels_;  // false: v4.4's x86 table set again after boot (no NUMA level on a numa-in-package machine)
  CpuMask weighed_;   // the CPUs sd_init's weights count: map_ and a dying CPU (v3.10, v4.4)
  bool sched_debug_;  // booted with sched_debug: v3.10/v4.4's sched_init_numa reads every row
  std::vector<unsigned> numa_distances_;
  std::vector<Tl> tl_;
  IdVec<CpuId, std::vector<SchedDomain>> built_;
  std::map<std::pair<std::size_t, unsigned>, CpuMask> sgp_mask_;  // v3.10: per (level, CPU) sched_group_power
};

}  // namespace

std::string sched_numa_warning(const Topology& t, TopologyEra e) {
  bool representative = true;
  if (e == TopologyEra::v5_15 || (era1_numa_distances(t, true, &representative), representative)) return "";
  std::string s = "ERROR: Node-0 not representative\n\n";
  for (unsigned a = 0, nodes = t.nr_nodes(); a < nodes; ++a) {
    s += "  ";
    for (unsigned b = 0; b < nodes; ++b) {
      const unsigned d = t.node_distance(a, b);
      s += (d < 10 ? "0" : "") + std::to_string(d) + " ";  // %02d
    }
    s += "\n";
  }
  return s + "\n";
}

std::string_view to_string(TopologyEra e) {
  constexpr std::array<std::string_view, 3> names = {"v3.10", "v4.4", "v5.15"};
  return names[static_cast<std::size_t>(e)];
}

TopologyEra topology_era(std::string_view profile) {
  for (TopologyEra e : {TopologyEra::v3_10, TopologyEra::v4_4})
    if (profile == to_string(e)) return e;
  return TopologyEra::v5_15;
}

std::string_view sd_flag_name(TopologyEra e, SdFlag f) { return era_of(e).flags[static_cast<std::size_t>(f)].name; }
unsigned sd_flag_value(TopologyEra e, SdFlag f) { return era_of(e).flags[static_cast<std::size_t>(f)].value; }
unsigned sd_flags_value(TopologyEra e, const SdFlags& s) {
  unsigned v = 0;
  for (unsigned f = 0; f < unsigned(SdFlag::count); ++f)
    if (s.has(SdFlag(f))) v |= sd_flag_value(e, SdFlag(f));
  return v;
}

SchedTopology build_sched_topology(const Topology& t, TopologyEra era, bool own_group_first, const CpuMask& cpu_map,
                                   bool numa_levels, const CpuMask& dying, bool sched_debug) {
  SchedTopology st = Builder(t, era, own_group_first, cpu_map, numa_levels, dying, sched_debug).build();
  st.numa_levels = numa_levels;
  st.dying = dying;
  st.own_group_first = own_group_first;
  return st;
}

}  // namespace cfsv
