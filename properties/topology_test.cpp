// Sched domains (model/topology.h): golden trees derived by hand from each
// era's kernel code, and properties over random topologies.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>

#include "model/topology.h"
#include "properties/topology_gen.h"

namespace cfsv {
namespace {

Topology spec(std::string_view s) {
  auto r = parse_topology_spec(s, "<topology>");
  if (auto* e = std::get_if<ParseError>(&r)) ADD_FAILURE() << e->to_string();
  return std::get<Topology>(r);
}

// One CPU's lines of sched_domain_debug's output.
std::string cpu_block(const SchedTopology& st, unsigned cpu) {
  const std::string all = sched_domain_debug(st), head = "CPU" + std::to_string(cpu) + " attaching";
  const std::size_t at = all.find(head);
  if (at == std::string::npos) return "";
  const std::size_t end = std::min(all.find("\nCPU", at), all.find("\nroot", at));
  return all.substr(at, end == std::string::npos ? std::string::npos : end + 1 - at);
}

// The machine: 2 sockets of 4 SMT-2 cores, a NUMA node per socket at
// the default distances (10 local, 20 remote). CPUs 0-7 are socket 0 (cores
// {0,1}, {2,3}, ...), 8-15 socket 1.
//
// v5.15 (kernel/sched/topology.c). sched_init_numa: distances {10, 20}, so
// the levels are SMT, MC, DIE, NODE (distance 10) and NUMA (20, overlapping).
// CPU 0 builds SMT 0-1, MC 0-7, DIE 0-7 (cpu_cpu_mask: its node), NODE 0-7,
// NUMA 0-15, and stops (it spans every CPU). cpu_attach_domain: SMT has two
// groups, kept; DIE has MC's span and one group, so sd_parent_degenerate
// masks every flag but SD_WAKE_AFFINE, which MC has: DIE goes, then NODE the
// same way; NUMA (other span) stays. Groups: SMT per CPU (capacity 1024, not
// printed), MC per core (2048), NUMA one per node from each CPU's NODE child
// (build_overlap_sched_groups), its balance mask all 8 CPUs (each has that
// NODE as child), equal to the span, so no `mask=`. sgc ids are the groups'
// first CPUs. sd_init: weight-based intervals (2/4, 8/16, 16/32), busy_factor
// 16, imbalance_pct 110/117/117, cache_nice_tries 0/1/2; NUMA loses
// SD_PREFER_SIBLING and gains SD_SERIALIZE, keeps EXEC/FORK/WAKE_AFFINE
// since 20 <= RECLAIM_DISTANCE (30).
TEST(TopologyGolden, TwoSocketSmtTwoNodesV515) {
  const SchedTopology st = build_sched_topology(spec("sockets=2 cores=4 threads=2 nodes=2"), TopologyEra::v5_15);
  EXPECT_EQ(cpu_block(st, 0),
            "CPU0 attaching sched-domain(s):\n"
            " domain-0: span=0-1 level=SMT\n"
            "  groups: 0:{ span=0 }, 1:{ span=1 }\n"
            "  domain-1: span=0-7 level=MC\n"
            "   groups: 0:{ span=0-1 cap=2048 }, 2:{ span=2-3 cap=2048 }, 4:{ span=4-5 cap=2048 }, 6:{ span=6-7 cap=2048 }\n"
            "   domain-2: span=0-15 level=NUMA\n"
            "    groups: 0:{ span=0-7 cap=8192 }, 8:{ span=8-15 cap=8192 }\n");
  // for_each_cpu_wrap from CPU 9: its own groups first, then on round.
  EXPECT_EQ(cpu_block(st, 9),
            "CPU9 attaching sched-domain(s):\n"
            " domain-0: span=8-9 level=SMT\n"
            "  groups: 9:{ span=9 }, 8:{ span=8 }\n"
            "  domain-1: span=8-15 level=MC\n"
            "   groups: 8:{ span=8-9 cap=2048 }, 10:{ span=10-11 cap=2048 }, 12:{ span=12-13 cap=2048 }, 14:{ span=14-15 cap=2048 }\n"
            "   domain-2: span=0-15 level=NUMA\n"
            "    groups: 8:{ span=8-15 cap=8192 }, 0:{ span=0-7 cap=8192 }\n");
  EXPECT_TRUE(sched_domain_debug(st).ends_with("root domain span: 0-15 (max cpu_capacity = 1024)\n"));
  const std::string files = sched_domain_files(st);
  EXPECT_TRUE(files.starts_with(
      "/sys/kernel/debug/sched/domains/cpu0/domain0/busy_factor:16\n"
      "/sys/kernel/debug/sched/domains/cpu0/domain0/cache_nice_tries:0\n"
      "/sys/kernel/debug/sched/domains/cpu0/domain0/flags:SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK "
      "SD_WAKE_AFFINE SD_SHARE_CPUCAPACITY SD_SHARE_PKG_RESOURCES SD_PREFER_SIBLING \n"
      "/sys/kernel/debug/sched/domains/cpu0/domain0/imbalance_pct:110\n"
      "/sys/kernel/debug/sched/domains/cpu0/domain0/max_interval:4\n"
      "/sys/kernel/debug/sched/domains/cpu0/domain0/min_interval:2\n"
      "/sys/kernel/debug/sched/domains/cpu0/domain0/name:SMT\n"))
      << files;
  EXPECT_NE(files.find("/cpu0/domain2/flags:SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE "
                       "SD_SERIALIZE SD_OVERLAP SD_NUMA \n"),
            std::string::npos);
  EXPECT_NE(files.find("/cpu0/domain2/cache_nice_tries:2\n"), std::string::npos);
}

// v4.4 (kernel/sched/core.c): sched_init_numa counts distances above the
// local one in node 0's row: {20}, one NUMA level, no NODE. busy_factor 32,
// imbalance_pct 110 (SMT), 117 (MC), 125 (DIE, NUMA); the idx values of
// sd_init. DIE (PREFER_SIBLING) is removed over MC, handing MC its
// SD_PREFER_SIBLING. Flags (include/linux/sched.h, v4.4): SMT LOAD_BALANCE 1
// | NEWIDLE 2 | EXEC 4 | FORK 8 | WAKE_AFFINE 0x20 | SHARE_CPUCAPACITY 0x80
// | SHARE_PKG_RESOURCES 0x200 | PREFER_SIBLING 0x1000 = 4783; MC 0x22f |
// 0x1000 = 4655; NUMA 0x2f | SERIALIZE 0x400 | OVERLAP 0x2000 | NUMA 0x4000
// = 25647. Capacity: arch_scale_cpu_capacity gives an SMT thread
// smt_gain / 2 = 589, printed as it is not 1024.
TEST(TopologyGolden, TwoSocketSmtTwoNodesV44) {
  const SchedTopology st = build_sched_topology(spec("sockets=2 cores=4 threads=2 nodes=2"), TopologyEra::v4_4);
  EXPECT_EQ(cpu_block(st, 9),
            "CPU9 attaching sched-domain:\n"
            " domain 0: span 8-9 level SMT\n"
            "  groups: 9 (cpu_capacity = 589) 8 (cpu_capacity = 589)\n"
            "  domain 1: span 8-15 level MC\n"
            "   groups: 8-9 (cpu_capacity = 1178) 10-11 (cpu_capacity = 1178) 12-13 (cpu_capacity = 1178) "
            "14-15 (cpu_capacity = 1178)\n"
            "   domain 2: span 0-15 level NUMA\n"
            "    groups: 8-15 (cpu_capacity = 4712) 0-7 (cpu_capacity = 4712)\n");
  const std::string files = sched_domain_files(st);
  std::string cpu0;
  for (const char* l : {"0/busy_factor:32", "0/busy_idx:0", "0/cache_nice_tries:0", "0/flags:4783", "0/forkexec_idx:0",
                        "0/idle_idx:0", "0/imbalance_pct:110", "0/max_interval:4", "0/min_interval:2", "0/name:SMT",
                        "0/newidle_idx:0", "0/wake_idx:0", "1/busy_factor:32", "1/busy_idx:2",
                        "1/cache_nice_tries:1", "1/flags:4655", "1/forkexec_idx:0", "1/idle_idx:0",
                        "1/imbalance_pct:117", "1/max_interval:16", "1/min_interval:8", "1/name:MC",
                        "1/newidle_idx:0", "1/wake_idx:0", "2/busy_factor:32", "2/busy_idx:3",
                        "2/cache_nice_tries:2", "2/flags:25647", "2/forkexec_idx:0", "2/idle_idx:2",
                        "2/imbalance_pct:125", "2/max_interval:32", "2/min_interval:16", "2/name:NUMA",
                        "2/newidle_idx:0", "2/wake_idx:0"})
    cpu0 += "/proc/sys/kernel/sched_domain/cpu0/domain" + std::string(l) + "\n";
  EXPECT_TRUE(files.starts_with(cpu0 + "/proc/sys/kernel/sched_domain/cpu1/domain0/")) << files;
}

// v3.10 (kernel/sched/core.c and include/linux/topology.h): the levels are
// SIBLING, MC, CPU and NUMA, with the SD_*_INIT values (intervals 1..2, 1..4,
// 1..4, busy_factor 64) and sd_numa_init's (intervals by weight, 32). CPU
// has MC's span and one group, but sd_parent_degenerate of v3.10 does not
// mask SD_PREFER_SIBLING, which CPU has and MC lacks: CPU stays (v4.4 removes
// it). power: arch_scale_smt_power 1178 / 2 = 589 per thread.
TEST(TopologyGolden, TwoSocketSmtTwoNodesV310) {
  const SchedTopology st = build_sched_topology(spec("sockets=2 cores=4 threads=2 nodes=2"), TopologyEra::v3_10);
  EXPECT_EQ(cpu_block(st, 0),
            "CPU0 attaching sched-domain:\n"
            " domain 0: span 0-1 level SIBLING\n"
            "  groups: 0 (cpu_power = 589) 1 (cpu_power = 589)\n"
            "  domain 1: span 0-7 level MC\n"
            "   groups: 0-1 (cpu_power = 1178) 2-3 (cpu_power = 1178) 4-5 (cpu_power = 1178) 6-7 (cpu_power = 1178)\n"
            "   domain 2: span 0-7 level CPU\n"
            "    groups: 0-7 (cpu_power = 4712)\n"
            "    domain 3: span 0-15 level NUMA\n"
            "     groups: 0-7 (cpu_power = 4712) 8-15 (cpu_power = 4712)\n");
  const SchedDomain& cpu = st.sd[CpuId(0)][2];
  EXPECT_EQ(sd_flags_value(TopologyEra::v3_10, cpu.flags), 0x102fu);  // LB|NEWIDLE|EXEC|FORK|WAKE_AFFINE|PREFER_SIBLING
  EXPECT_EQ(cpu.min_interval, 1u);
  EXPECT_EQ(cpu.max_interval, 4u);
  EXPECT_EQ(cpu.busy_factor, 64u);
  EXPECT_EQ(cpu.idle_idx, 1u);
  EXPECT_EQ(st.sd[CpuId(0)][3].min_interval, 16u);
  EXPECT_EQ(st.sd[CpuId(0)][3].busy_factor, 32u);
}

// A single CPU has no domain; one socket without SMT has only MC: the build
// stops at the first level that spans every CPU, so no CPU/DIE level.
TEST(TopologyGolden, SmallMachines) {
  EXPECT_EQ(sched_domain_debug(build_sched_topology(spec("sockets=1"), TopologyEra::v4_4)),
            "CPU0 attaching NULL sched-domain.\n");
  const Topology quad = spec("cores=4");
  EXPECT_EQ(cpu_block(build_sched_topology(quad, TopologyEra::v4_4), 2),
            "CPU2 attaching sched-domain:\n"
            " domain 0: span 0-3 level MC\n"
            "  groups: 2 3 0 1\n");
  EXPECT_EQ(build_sched_topology(quad, TopologyEra::v3_10).sd[CpuId(2)].size(), 1u);
  EXPECT_EQ(build_sched_topology(quad, TopologyEra::v5_15).sd[CpuId(2)].size(), 1u);
}

// The smallest NUMA diameter-3 machine, from the comment over
// build_overlap_sched_groups (v5.15): nodes in a line 0-1-2-3. Node 0's
// NUMA-2 domain spans nodes 0-2; the group for node 2 from node 2's NUMA-2
// child (1-3) would leave the span, so v5.15 descends (find_descended_sibling)
// to node 2's own node. v4.4 builds the group 1-3 the comment calls buggered,
// and its sched_domain_debug says so (the groups reach past the span).
// The group of node 0 has balance mask 0: node 1's NUMA-2 child is 0-2, not 0-1.
TEST(TopologyGolden, NumaDiameterThree) {
  const Topology line = spec("sockets=4 nodes=4 distance=10,20,30,40;20,10,20,30;30,20,10,20;40,30,20,10");
  EXPECT_EQ(cpu_block(build_sched_topology(line, TopologyEra::v5_15), 0),
            "CPU0 attaching sched-domain(s):\n"
            " domain-0: span=0-1 level=NUMA\n"
            "  groups: 0:{ span=0 }, 1:{ span=1 }\n"
            "  domain-1: span=0-2 level=NUMA\n"
            "   groups: 0:{ span=0-1 mask=0 cap=2048 }, 2:{ span=2 }\n"
            "   domain-2: span=0-3 level=NUMA\n"
            "    groups: 0:{ span=0-2 mask=0 cap=3072 }, 3:{ span=1-3 mask=3 cap=3072 }\n");
  EXPECT_EQ(cpu_block(build_sched_topology(line, TopologyEra::v4_4), 0),
            "CPU0 attaching sched-domain:\n"
            " domain 0: span 0-1 level NUMA\n"
            "  groups: 0 1\n"
            "  domain 1: span 0-2 level NUMA\n"
            "   groups: 0-1 (cpu_capacity = 2048) 1-3 (cpu_capacity = 3072)\n"
            "ERROR: groups don't span domain->span\n"
            "   domain 2: span 0-3 level NUMA\n"
            "    groups: 0-2 (cpu_capacity = 3072) 1-3 (cpu_capacity = 3072)\n");
}

// v3.10 and v4.4 read node 0's row for the NUMA levels; booted with
// sched_debug, sched_init_numa goes on through the other rows, adding the
// distances above the largest found, and warns. Node 1's 30 to node 2 is in
// no row of node 0: without sched_debug CPU 1's only NUMA domain (20) leaves
// CPU 2 out; with it a level of 30 spans the machine.
TEST(TopologyGolden, Era1SchedDebugReadsEveryRowOfTheDistanceTable) {
  const Topology t = spec("sockets=4 nodes=4 distance=10,20,20,20;20,10,30,20;20,30,10,20;20,20,20,10");
  for (TopologyEra e : {TopologyEra::v3_10, TopologyEra::v4_4}) {
    const SchedTopology plain = build_sched_topology(t, e);
    const SchedTopology debug = build_sched_topology(t, e, false, {}, true, {}, true);
    EXPECT_EQ(plain.numa_distances, (std::vector<unsigned>{20}));
    EXPECT_EQ(debug.numa_distances, (std::vector<unsigned>{20, 30}));
    EXPECT_EQ(format_cpu_list(plain.sd[CpuId(1)].back().span), "0-1,3");
    EXPECT_EQ(format_cpu_list(debug.sd[CpuId(1)].back().span), "0-3");
    EXPECT_EQ(sched_numa_warning(t, e), "ERROR: Node-0 not representative\n\n  10 20 20 20 \n  20 10 30 20 \n"
                                        "  20 30 10 20 \n  20 20 20 10 \n\n");
  }
  EXPECT_EQ(sched_numa_warning(t, TopologyEra::v5_15), "");
  // Node 0's row holds every distance: nothing to add, nothing to warn of.
  const Topology line = spec("sockets=4 nodes=4 distance=10,20,30,40;20,10,20,30;30,20,10,20;40,30,20,10");
  EXPECT_EQ(sched_numa_warning(line, TopologyEra::v4_4), "");
  EXPECT_EQ(build_sched_topology(line, TopologyEra::v4_4, false, {}, true, {}, true).numa_distances,
            build_sched_topology(line, TopologyEra::v4_4).numa_distances);
}

// The same line of nodes with two SMT threads a node (589 each): before
// v5.15, an overlapping group keeps build_overlap_sched_groups'
// SCHED_CAPACITY_SCALE x weight unless update_group_capacity refreshes it,
// which it does only for some CPU's first group (init_sched_groups_capacity,
// and each balance of the domain). CPU 6's NUMA-2 groups are 4-7 (its own)
// and 0-5, built from CPU 2's NUMA-1 child, which is no CPU's first group at
// that level: 6 x 1024 = 6144, where its CPUs count 6 x 589 = 3534. CPU 0's
// groups of the same span at its NUMA-3 level are refreshed (0-5 is its own;
// 2-7 is CPU 4's). (v5.15 counts 1024 a CPU, and each group is someone's.)
TEST(TopologyGolden, Era1OverlappingGroupNoCpuHasFirstKeepsItsBuildCapacity) {
  const Topology line = spec("sockets=4 threads=2 nodes=4 distance=10,20,30,40;20,10,20,30;30,20,10,20;40,30,20,10");
  for (TopologyEra e : {TopologyEra::v3_10, TopologyEra::v4_4}) {
    const SchedTopology st = build_sched_topology(line, e);
    const std::vector<SchedDomain>& cpu6 = st.sd[CpuId(6)];
    const auto numa2 = std::find_if(cpu6.begin(), cpu6.end(),
                                    [](const SchedDomain& sd) { return format_cpu_list(sd.span) == "2-7"; });
    ASSERT_NE(numa2, cpu6.end());
    ASSERT_EQ(numa2->groups.size(), 2u);
    EXPECT_EQ(format_cpu_list(numa2->groups[1].span), "0-5");
    EXPECT_EQ(numa2->groups[0].capacity, 4 * 589u);
    EXPECT_EQ(numa2->groups[1].capacity, 6 * 1024u);
    const SchedDomain& top0 = st.sd[CpuId(0)].back();
    ASSERT_EQ(top0.groups.size(), 2u);
    EXPECT_EQ(top0.groups[0].capacity, 6 * 589u);
    EXPECT_EQ(top0.groups[1].capacity, 6 * 589u);
  }
}

// Two nodes in each socket (AMD's multi-die Opteron 6272 of the Wasted Cores
// paper; sub-NUMA clustering): 2 sockets of 4 cores, nodes of 2 cores, 16
// between the nodes of a socket, 22 across sockets. MC is the node's half of
// the socket (each die its own L3). v4.4 and v5.15 take x86's numa-in-package
// table (SMT, MC; no DIE), v3.10 the generic one, whose CPU level is the node
// (cpu_cpu_mask), MC's span, kept for its SD_PREFER_SIBLING (v3.10's
// sd_parent_degenerate counts it, as in TwoSocketSmtTwoNodesV310); sd->level
// counts the levels built: SMT 0 (one CPU, removed), MC 1, then v3.10's CPU 2
// and v5.15's NODE 2 (the node again, removed) before the NUMA levels of 16
// and 22. The NUMA groups
// are the child domains of the CPUs they start from: the two nodes of a
// socket, then the two sockets. Without the NUMA levels (v4.4's table set
// again after boot: online_drops_numa_levels) MC is all there is.
TEST(TopologyGolden, TwoNodesInEachSocket) {
  const Topology t = spec("sockets=2 cores=4 nodes=4 distance=10,16,22,22;16,10,22,22;22,22,10,16;22,22,16,10");
  ASSERT_TRUE(t.numa_in_package());
  const auto cpus = [](unsigned lo, unsigned hi) {
    CpuMask m;
    for (unsigned c = lo; c <= hi; ++c) m.set(c);
    return m;
  };
  for (const TopologyEra era : {TopologyEra::v3_10, TopologyEra::v4_4, TopologyEra::v5_15}) {
    const SchedTopology st = build_sched_topology(t, era);
    std::vector<SchedDomain> sd = st.sd[CpuId(2)];
    if (era == TopologyEra::v3_10) {
      ASSERT_EQ(sd.size(), 4u);
      EXPECT_EQ(sd[1].name, "CPU");
      EXPECT_EQ(sd[1].span, cpus(2, 3));
      sd.erase(sd.begin() + 1);
    }
    ASSERT_EQ(sd.size(), 3u) << to_string(era);
    EXPECT_EQ(sd[0].name, "MC");
    EXPECT_EQ(sd[0].span, cpus(2, 3));
    EXPECT_EQ(sd[1].span, cpus(0, 3));
    EXPECT_EQ(sd[2].span, cpus(0, 7));
    EXPECT_EQ(sd[1].name, "NUMA");
    EXPECT_EQ(sd[0].level, 1u);
    EXPECT_EQ(sd[1].level, era == TopologyEra::v4_4 ? 2u : 3u) << to_string(era);
    EXPECT_EQ(sd[2].level, sd[1].level + 1);
    ASSERT_EQ(sd[1].groups.size(), 2u);
    EXPECT_EQ(sd[1].groups[0].span, cpus(2, 3));  // the CPU's own group first
    EXPECT_EQ(sd[1].groups[1].span, cpus(0, 1));
    ASSERT_EQ(sd[2].groups.size(), 2u);
    EXPECT_EQ(sd[2].groups[0].span, cpus(0, 3));
    EXPECT_EQ(sd[2].groups[1].span, cpus(4, 7));
    EXPECT_EQ(st.node_mask[CpuId(2)], cpus(2, 3));
    const SchedTopology reset = build_sched_topology(t, era, false, {}, false);
    if (era == TopologyEra::v3_10) {
      EXPECT_EQ(sched_domain_debug(reset), sched_domain_debug(st));  // no such table in v3.10
    } else {
      ASSERT_EQ(reset.sd[CpuId(2)].size(), 1u) << to_string(era);  // MC, the top domain
      EXPECT_EQ(reset.sd[CpuId(2)][0].span, cpus(2, 3));
    }
  }
}

// Two clusters of different capacity on one node (big.LITTLE): v5.15's
// asym_cpu_capacity_classify marks DIE SD_ASYM_CPUCAPACITY(_FULL) and takes
// SD_PREFER_SIBLING off MC; older eras only count the capacities.
TEST(TopologyGolden, AsymmetricCapacity) {
  const Topology bl = spec("sockets=2 cores=4 nodes=1 capacity=0-3:446");
  const SchedTopology st = build_sched_topology(bl, TopologyEra::v5_15);
  EXPECT_EQ(sd_flag_names(st.era, st.sd[CpuId(0)][0].flags),
            (std::vector<std::string_view>{"SD_BALANCE_NEWIDLE", "SD_BALANCE_EXEC", "SD_BALANCE_FORK",
                                           "SD_WAKE_AFFINE", "SD_SHARE_PKG_RESOURCES"}));
  EXPECT_EQ(sd_flag_names(st.era, st.sd[CpuId(0)][1].flags),
            (std::vector<std::string_view>{"SD_BALANCE_NEWIDLE", "SD_BALANCE_EXEC", "SD_BALANCE_FORK",
                                           "SD_WAKE_AFFINE", "SD_ASYM_CPUCAPACITY", "SD_ASYM_CPUCAPACITY_FULL",
                                           "SD_PREFER_SIBLING"}));
  EXPECT_EQ(st.sd[CpuId(0)][1].groups[0].capacity, 4 * 446u);
  EXPECT_EQ(st.sd[CpuId(0)][1].groups[1].capacity, 4 * 1024u);
  const SchedTopology old = build_sched_topology(bl, TopologyEra::v4_4);
  EXPECT_EQ(sd_flags_value(old.era, old.sd[CpuId(0)][1].flags), 0x102fu);
}

bool subset(const CpuMask& a, const CpuMask& b) { return (a & ~b).none(); }

bool node0_representative(const Topology& t) {
  for (unsigned a = 0; a < t.nr_nodes(); ++a)
    for (unsigned b = 0; b < t.nr_nodes(); ++b) {
      bool found = false;
      for (unsigned k = 0; k < t.nr_nodes(); ++k) found |= t.node_distance(0, k) == t.node_distance(a, b);
      if (!found) return false;
    }
  return true;
}

// What every era's domains satisfy, on random topologies.
void check_domains(const Topology& t, TopologyEra era) {
  const SchedTopology st = build_sched_topology(t, era);
  const unsigned n = t.nr_cpus();
  CpuMask all;
  for (unsigned i = 0; i < n; ++i) all[i] = true;
  RC_ASSERT(st.sd.size() == n);
  for (CpuId c : st.sd.ids()) {
    const std::vector<SchedDomain>& sds = st.sd[c];
    RC_ASSERT(sds.empty() == (n == 1));
    for (std::size_t l = 0; l < sds.size(); ++l) {
      const SchedDomain& sd = sds[l];
      RC_ASSERT(sd.span[c.index()]);
      RC_ASSERT(sd.span_weight == sd.span.count());
      RC_ASSERT(sd.span_weight > 1u);  // sd_degenerate removes single-CPU domains
      if (l > 0) {
        RC_ASSERT(subset(sds[l - 1].span, sd.span));  // nested
        // v5.15 removes every parent with its child's span; older eras keep
        // some (v3.10's CPU over MC, v4.4's SD_SERIALIZE NUMA levels).
        if (era == TopologyEra::v5_15) RC_ASSERT(sds[l - 1].span != sd.span);
        RC_ASSERT(sds[l - 1].level < sd.level);
      }
      RC_ASSERT(!sd.groups.empty());
      RC_ASSERT(sd.groups.front().span[c.index()]);  // the first group holds the CPU
      CpuMask cover;
      std::size_t weights = 0;
      for (const SchedGroup& g : sd.groups) {
        RC_ASSERT(g.span.any());
        cover |= g.span;
        weights += g.span.count();
        if (era != TopologyEra::v3_10) RC_ASSERT(g.balance_mask.any() && subset(g.balance_mask, g.span));
        unsigned cap = 0;
        for (unsigned i = 0; i < n; ++i) cap += g.span[i] ? st.cpu_capacity[CpuId(i)] : 0;
        // Every group counts its CPUs' capacities but, before v5.15, an
        // overlapping group that is no CPU's first: it keeps 1024 x weight.
        // The CPU's own first group is refreshed whenever it balances.
        const bool kept = era != TopologyEra::v5_15 && sd.flags.has(SdFlag::OVERLAP) && &g != &sd.groups.front() &&
                          g.capacity == 1024 * g.span.count();
        RC_ASSERT(g.capacity == cap || kept);
      }
      if (sd.flags.has(SdFlag::OVERLAP)) {
        // NUMA groups cover the span (v3.10 and v4.4 may reach past it at
        // diameter 3 and more; v5.15 does not).
        RC_ASSERT(subset(sd.span, cover));
        if (era == TopologyEra::v5_15) RC_ASSERT(cover == sd.span);
      } else {
        RC_ASSERT(cover == sd.span);  // a partition: disjoint, and covering
        RC_ASSERT(weights == sd.span_weight);
      }
    }
    // topology_span_sane (v5.15): two CPUs' domains of a non-NUMA level are
    // the same or disjoint.
    for (const SchedDomain& sd : sds)
      for (CpuId o : st.sd.ids())
        for (const SchedDomain& other : st.sd[o])
          if (other.level == sd.level && !sd.flags.has(SdFlag::OVERLAP))
            RC_ASSERT(other.span == sd.span || (other.span & sd.span).none());
    // The top domain spans the machine; before v5.15 only when node 0's row
    // has every distance (sched_init_numa reads that row alone: "Node-0 not
    // representative").
    if (n > 1 && (era == TopologyEra::v5_15 || node0_representative(t))) RC_ASSERT(sds.back().span == all);
  }
}

RC_GTEST_PROP(TopologyProperties, DomainsNestAndGroupsPartitionOrCover, ()) {
  const Topology t = *topology_gen::topology();
  for (TopologyEra e : {TopologyEra::v3_10, TopologyEra::v4_4, TopologyEra::v5_15}) check_domains(t, e);
}

// Symmetric machines: every CPU has the same levels, and each level's
// groups are the same size.
RC_GTEST_PROP(TopologyProperties, SymmetricMachinesAreUniform, ()) {
  Topology t = *topology_gen::topology();
  t.distance.clear();
  t.capacity.clear();
  for (TopologyEra e : {TopologyEra::v3_10, TopologyEra::v4_4, TopologyEra::v5_15}) {
    const SchedTopology st = build_sched_topology(t, e);
    for (CpuId c : st.sd.ids()) {
      RC_ASSERT(st.sd[c].size() == st.sd[CpuId(0)].size());
      for (std::size_t l = 0; l < st.sd[c].size(); ++l) {
        RC_ASSERT(st.sd[c][l].name == st.sd[CpuId(0)][l].name);
        RC_ASSERT(st.sd[c][l].groups.size() == st.sd[CpuId(0)][l].groups.size());
        RC_ASSERT(st.sd[c][l].flags == st.sd[CpuId(0)][l].flags);
      }
    }
  }
}

}  // namespace
}  // namespace cfsv
