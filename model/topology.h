// Sched domains and sched groups: what build_sched_domains and
// cpu_attach_domain make of a machine's topology, in each era
// (kernel/sched/core.c in v3.10 and v4.4, kernel/sched/topology.c in v5.15).
// Pure: no simulator state. docs/topology.md.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ids.h"
#include "scenario.h"
#include "scenario_text.h"

namespace cfsv {

// The eras whose domain code differs: the profiles v3.10, v4.4 and v5.15.
enum class TopologyEra { v3_10, v4_4, v5_15 };
std::string_view to_string(TopologyEra e);  // "v3.10", ...
// The era of a profile by name (kernel line); v5.15 for any other name.
TopologyEra topology_era(std::string_view profile);

// The SD_* flags of every era, by meaning; sd_flag_name/sd_flag_value give
// an era's spelling and bit (0: the era has no such flag).
enum class SdFlag : unsigned {
  LOAD_BALANCE, BALANCE_NEWIDLE, BALANCE_EXEC, BALANCE_FORK, BALANCE_WAKE, WAKE_AFFINE, ASYM_CPUCAPACITY,
  ASYM_CPUCAPACITY_FULL, SHARE_CPUCAPACITY, SHARE_POWERDOMAIN, SHARE_PKG_RESOURCES, SERIALIZE, ASYM_PACKING,
  PREFER_SIBLING, OVERLAP, NUMA, count
};
// A set of SdFlag (constexpr, unlike std::bitset's operators in C++20).
class SdFlags {
 public:
  constexpr SdFlags() = default;
  constexpr SdFlags(std::initializer_list<SdFlag> fs) {
    for (SdFlag f : fs) bits_ |= bit(f);
  }
  constexpr bool has(SdFlag f) const { return bits_ & bit(f); }
  constexpr SdFlags& clear(SdFlag f) { return bits_ &= ~bit(f), *this; }
  constexpr bool any() const { return bits_ != 0; }
  constexpr SdFlags operator|(SdFlags o) const { return from(bits_ | o.bits_); }
  constexpr SdFlags operator&(SdFlags o) const { return from(bits_ & o.bits_); }
  constexpr SdFlags operator~() const { return from(~bits_ & ((1u << unsigned(SdFlag::count)) - 1)); }
  constexpr SdFlags& operator|=(SdFlags o) { return bits_ |= o.bits_, *this; }
  constexpr SdFlags& operator&=(SdFlags o) { return bits_ &= o.bits_, *this; }
  constexpr bool operator==(const SdFlags&) const = default;

 private:
  static constexpr uint32_t bit(SdFlag f) { return 1u << static_cast<unsigned>(f); }
  static constexpr SdFlags from(uint32_t b) {
    SdFlags s;
    s.bits_ = b;
    return s;
  }
  uint32_t bits_ = 0;
};
std::string_view sd_flag_name(TopologyEra e, SdFlag f);  // "SD_SHARE_CPUPOWER" in v3.10, ...
unsigned sd_flag_value(TopologyEra e, SdFlag f);
unsigned sd_flags_value(TopologyEra e, const SdFlags& s);  // sd->flags as the era's /proc shows it

// A sched_group of a domain.
struct SchedGroup {
  CpuMask span;          // sched_group_span
  CpuMask balance_mask;  // group_balance_mask (sched_group_mask before v4.13)
  unsigned capacity = 0;  // sgc->capacity: the sum of its CPUs' capacities
  unsigned min_capacity = 0, max_capacity = 0;  // sgc->min_capacity, max_capacity: of its CPUs (v5.15)
  CpuId id;               // sgc->id: the CPU whose sched_group_capacity it is
  CpuId asym_prefer_cpu;  // SD_ASYM_PACKING (v5.15): its CPU of highest priority
};

// A sched_domain of one CPU, as attached.
struct SchedDomain {
  std::string_view name;  // SIBLING, MC, CPU, NUMA in v3.10; SMT, MC, DIE, (NODE,) NUMA later
  unsigned level = 0;     // sd->level: its level as built, degenerate ones counted
  unsigned numa_level = 0;  // a NUMA (or NODE) level's index into numa_distances
  CpuMask span;
  unsigned span_weight = 0;
  SdFlags flags;
  unsigned min_interval = 0, max_interval = 0, balance_interval = 0;  // ms (jiffies at HZ=1000)
  unsigned busy_factor = 0, imbalance_pct = 0, cache_nice_tries = 0;
  // The load-index choices, v3.10 and v4.4 only (gone in v5.10).
  unsigned busy_idx = 0, idle_idx = 0, newidle_idx = 0, wake_idx = 0, forkexec_idx = 0;
  unsigned smt_gain = 0;  // v3.10, v4.4: SMT capacity, 1178 over the siblings
  std::vector<SchedGroup> groups;  // from sd->groups on round the list: the first holds the CPU
};

struct SchedTopology {
  TopologyEra era = TopologyEra::v5_15;
  CpuMask cpu_map;               // the CPUs built over (the active ones); the others have no domain
  bool numa_levels = true;       // as built for: false after v4.4's x86 topology reset (online_drops_numa_levels)
  CpuMask dying;                 // as built for: a CPU going down that sd_init's weights still count
  bool own_group_first = false;  // as built for: wasted_cores_group_construction (era 1; v5.15 does anyway)
  std::vector<unsigned> numa_distances;  // sched_domains_numa_distance
  IdVec<CpuId, unsigned> cpu_capacity;   // the capacity each CPU's groups count
  // arch_scale_cpu_capacity(NULL, cpu), as v4.4's PELT asks it: the
  // topology's capacity=, else SCHED_CAPACITY_SCALE (no domain, no SMT gain).
  IdVec<CpuId, unsigned> arch_capacity;
  IdVec<CpuId, std::vector<SchedDomain>> sd;  // per CPU, bottom-up (rq->sd first)
  IdVec<CpuId, CpuMask> smt_mask, node_mask;  // cpu_smt_mask, cpumask_of_node(cpu_to_node)
  // update_top_cache_domain's per-CPU values (kernel/sched/topology.c v5.15):
  // sd_llc, the highest domain with SD_SHARE_PKG_RESOURCES (its index in sd,
  // -1 when none), and sd_llc_id, its first CPU (the CPU itself without one).
  IdVec<CpuId, int> llc_level;
  IdVec<CpuId, CpuId> llc_id;
  bool smt_active = false;  // sched_smt_active(): some CPU has an SMT sibling
  // v5.15's asymmetric CPU capacity: sched_asym_cpucap_active() (a domain as
  // built has SD_ASYM_CPUCAPACITY), rd->max_cpu_capacity, and per CPU
  // sd_asym_cpucapacity, the lowest domain with SD_ASYM_CPUCAPACITY_FULL
  // (its index in sd, -1 when none).
  bool asym_cpucap_active = false;
  unsigned max_cpu_capacity = 0;
  IdVec<CpuId, int> asym_level;
  // x86 ITMT (v5.15): arch_asym_cpu_priority of each CPU (the topology's
  // priority=, 0 where not given), and sd_asym_packing, the highest domain
  // with SD_ASYM_PACKING (its index in sd, -1 when none).
  IdVec<CpuId, unsigned> asym_priority;
  IdVec<CpuId, int> asym_packing_level;
};

// sched_asym_prefer (kernel/sched/sched.h v5.15): a's priority is above b's.
inline bool sched_asym_prefer(const SchedTopology& st, CpuId a, CpuId b) {
  return st.asym_priority[a] > st.asym_priority[b];
}

// build_sched_domains over cpu_map (empty: every CPU of the topology; CPU
// hotplug passes the active ones), then cpu_attach_domain (degenerate domains
// removed) for each; a CPU outside cpu_map has no domain (the NULL domain).
// numa_levels false: the topology table without the levels sched_init_numa
// added, as v4.4's x86 leaves it on a machine whose sockets hold several
// nodes once a CPU has come online after boot (online_drops_numa_levels).
// own_group_first: era 1 builds each CPU's own overlapping group first, then
// from CPU 0 (the feature wasted_cores_group_construction); v5.15 builds it
// first anyway. dying: CPUs outside cpu_map that sd_init's weight (of
// tl->mask, the topology's sibling masks) still counts, as v3.10 and v4.4
// rebuild at CPU_DOWN_PREPARE: the intervals that weight sets. sched_debug:
// the kernel was booted with it, under which v3.10/v4.4's sched_init_numa
// reads every row of the distance table, not node 0's alone (as printed).
SchedTopology build_sched_topology(const Topology& t, TopologyEra era, bool own_group_first = false,
                                   const CpuMask& cpu_map = {}, bool numa_levels = true, const CpuMask& dying = {},
                                   bool sched_debug = false);
// sched_numa_warn (kernel/sched/core.c v3.10, v4.4) as a sched_debug boot
// logs it: "ERROR: Node-0 not representative" and the distance table, when a
// row holds a distance node 0's does not; empty otherwise and in v5.15.
std::string sched_numa_warning(const Topology& t, TopologyEra e);

// The era's names of the flags in s, in bit order.
std::vector<std::string_view> sd_flag_names(TopologyEra e, const SdFlags& s);

// What sched_domain_debug writes to the kernel log (sched_debug, v5.15 sched_verbose, on the
// command line; without the log's timestamps): per CPU, its domains and their
// groups; then, in v5.15, the root domain.
std::string sched_domain_debug(const SchedTopology& st);
// The per-domain files, one `path:value` line each as `grep .` prints them,
// in `sort -V` order: /proc/sys/kernel/sched_domain/cpuN/domainM/* (v3.10,
// v4.4) or /sys/kernel/debug/sched/domains/cpuN/domainM/* (v5.15), but
// max_newidle_lb_cost (a running measurement).
std::string sched_domain_files(const SchedTopology& st);

// The topology statement's text alone (`cfsv topology "sockets=2 cores=4"`),
// errors at line 1 of `name`.
std::variant<Topology, ParseError> parse_topology_spec(std::string_view spec, std::string_view name);

}  // namespace cfsv
