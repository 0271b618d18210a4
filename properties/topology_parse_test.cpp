// The topology statement: NUMA nodes, the distance table and per-CPU
// capacity; each bad spec with its line and column; the canonical text
// parses back equal.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "model/scenario_parser.h"
#include "model/topology.h"
#include "properties/scenario_test_util.h"
#include "properties/topology_gen.h"

namespace cfsv {
namespace {

using scenario_test::parse_err;
using scenario_test::parse_ok;

TEST(TopologyStatement, NodesDistanceAndCapacity) {
  const Topology t = parse_ok(
                         "topology sockets=4 cores=2 threads=2 numa nodes=2 distance=10,21;21,10 "
                         "capacity=0-3:512;8:1024\nrun 1s")
                         .topology;
  EXPECT_EQ(t.nodes, 2u);
  EXPECT_EQ(t.nr_cpus(), 16u);
  EXPECT_EQ(t.distance, (std::vector<unsigned>{10, 21, 21, 10}));
  EXPECT_EQ(t.capacity, (std::vector<unsigned>{512, 512, 512, 512, 0, 0, 0, 0, 1024, 0, 0, 0, 0, 0, 0, 0}));
  // Two sockets per node: CPUs 0-7 on node 0, 8-15 on node 1.
  EXPECT_EQ(t.cpu_node(7), 0u);
  EXPECT_EQ(t.cpu_node(8), 1u);
  EXPECT_EQ(t.node_distance(0, 1), 21u);
}

TEST(TopologyStatement, DefaultsAreANodePerSocketAt10And20) {
  const Topology t = parse_ok("topology sockets=3 cores=2\nrun 1s").topology;
  EXPECT_EQ(t.nodes, 0u);
  EXPECT_EQ(t.nr_nodes(), 3u);
  EXPECT_EQ(t.cpu_node(5), 2u);
  EXPECT_EQ(t.node_distance(1, 1), 10u);
  EXPECT_EQ(t.node_distance(1, 2), 20u);
  EXPECT_TRUE(t.capacity.empty());
  // Keys in any order: capacity before the cores that hold its CPUs.
  EXPECT_EQ(parse_ok("topology capacity=7:300 cores=8\nrun 1s").topology.capacity[7], 300u);
  EXPECT_TRUE(t.priority.empty());
  EXPECT_EQ(parse_ok("topology cores=4 priority=0,2:40;1:20\nrun 1s").topology.priority,
            (std::vector<unsigned>{40, 20, 40, 0}));
}

TEST(TopologyStatement, CanonicalTextKeepsOldFilesUnchanged) {
  EXPECT_EQ(print_scenario(parse_ok("topology sockets=2 cores=4 threads=2\nrun 1s")),
            "kernel v5.15\ntopology sockets=2 cores=4 threads=2\nrun 1s\n");
  EXPECT_EQ(print_scenario(parse_ok("topology numa nodes=1 capacity=1,3:10;0:1024 cores=4\nrun 1s")),
            "kernel v5.15\ntopology sockets=1 cores=4 threads=1 nodes=1 capacity=0:1024;1,3:10\nrun 1s\n");
  EXPECT_EQ(print_scenario(parse_ok("topology priority=3:7;0-2:9 cores=4 capacity=3:446\nrun 1s")),
            "kernel v5.15\ntopology sockets=1 cores=4 threads=1 capacity=3:446 priority=0-2:9;3:7\nrun 1s\n");
}

struct TopologyError {
  const char* text;
  unsigned col;
  const char* message;  // a substring of the message
};
void PrintTo(const TopologyError& c, std::ostream* os) { *os << ::testing::PrintToString(std::string(c.text)); }

class TopologyErrors : public ::testing::TestWithParam<TopologyError> {};

TEST_P(TopologyErrors, NameTheColumn) {
  const TopologyError& c = GetParam();
  const ParseError e = parse_err(std::string(c.text) + "\nrun 1s\n");
  EXPECT_EQ(e.line, 1u) << e.to_string();
  EXPECT_EQ(e.col, c.col) << e.to_string();
  EXPECT_NE(e.message.find(c.message), std::string::npos) << e.to_string();
  // The same text alone, as `cfsv topology SPEC` takes it: the columns move by 9.
  const auto spec = parse_topology_spec(std::string(c.text).substr(9), "<topology>");
  ASSERT_TRUE(std::holds_alternative<ParseError>(spec));
  EXPECT_EQ(std::get<ParseError>(spec).to_string(),
            "<topology>:1:" + std::to_string(c.col - 9) + ": error: " + e.message);
}

INSTANTIATE_TEST_SUITE_P(
    All, TopologyErrors,
    ::testing::Values(
        TopologyError{"topology sockets=2 nodes=3", 26, "nodes=3 splits neither sockets=2 nor their cores=1"},
        TopologyError{"topology sockets=4 nodes=3", 26, "a NUMA node is a run of whole sockets (nodes divides sockets)"},
        TopologyError{"topology sockets=2 cores=3 nodes=4", 34, "or an equal part of each socket's cores"},
        TopologyError{"topology sockets=2 nodes=0", 26, "nodes '0' is out of range [1, 256]"},
        TopologyError{"topology sockets=2 distance=10,20", 29, "distance has 1 rows; 2 NUMA nodes need 2"},
        TopologyError{"topology sockets=2 distance=10,20;20", 35, "distance row 1 has 1 entries; expected 2"},
        TopologyError{"topology sockets=2 distance=10,20;20,11", 38, "node 1 to itself must be 10"},
        TopologyError{"topology sockets=2 distance=10,10;10,10", 32, "must be more than 10"},
        TopologyError{"topology sockets=2 distance=10,20;21,10", 35, "not symmetric: node 1 to 0 is 21, 0 to 1 is 20"},
        TopologyError{"topology sockets=2 distance=10,256;256,10", 32, "distance '256' is out of range [10, 255]"},
        TopologyError{"topology sockets=2 distance=10,x;20,10", 32, "expected a number for distance, got 'x'"},
        TopologyError{"topology sockets=2 distance=10,20;;", 29, "distance has 3 rows"},
        TopologyError{"topology cores=4 capacity=0-1", 27, "expected CPUS:CAPACITY"},
        TopologyError{"topology cores=4 capacity=0:1025", 29, "capacity '1025' is out of range [1, 1024]"},
        TopologyError{"topology cores=4 capacity=0:0", 29, "capacity '0' is out of range [1, 1024]"},
        TopologyError{"topology cores=4 capacity=0-4:512", 29, "CPU 4 is not in the topology (CPUs 0-3)"},
        TopologyError{"topology cores=4 capacity=0-1:512;1:256", 35, "CPU 1 is given a capacity twice"},
        TopologyError{"topology cores=4 capacity=1-0:512", 27, "goes backwards"},
        TopologyError{"topology cores=4 priority=0-1", 27, "expected CPUS:PRIORITY"},
        TopologyError{"topology cores=4 priority=0:0", 29, "priority '0' is out of range [1, 1000000]"},
        TopologyError{"topology cores=4 priority=0-4:5", 29, "CPU 4 is not in the topology (CPUs 0-3)"},
        TopologyError{"topology cores=4 priority=0-1:5;1:6", 33, "CPU 1 is given a priority twice"},
        TopologyError{"topology sockets=2 numa=2", 20, "unknown topology key 'numa'"},
        TopologyError{"topology sockets=2 nodes", 20, "expected key=value, got 'nodes'"},
        TopologyError{"topology sockets=2 sockets=1", 20, "duplicate key 'sockets'"}));

TEST(TopologyStatement, SpecErrors) {
  const auto empty = parse_topology_spec("  ", "<topology>");
  ASSERT_TRUE(std::holds_alternative<ParseError>(empty));
  EXPECT_EQ(std::get<ParseError>(empty).to_string(), "<topology>:1:1: error: empty topology (e.g. sockets=2 cores=4 threads=2)");
  EXPECT_EQ(parse_err("topology\nrun 1s").col, 9u);
  // Too many CPUs: at the statement (the keyword in a file, the spec's start).
  EXPECT_EQ(parse_err("topology sockets=16 cores=17\nrun 1s").col, 1u);
  const auto big = parse_topology_spec(" sockets=16 cores=17", "<topology>");
  ASSERT_TRUE(std::holds_alternative<ParseError>(big));
  EXPECT_EQ(std::get<ParseError>(big).to_string(), "<topology>:1:2: error: topology has 272 CPUs; at most 256");
}

// The canonical text of any topology parses back to it, alone and in a file.
RC_GTEST_PROP(TopologyStatement, CanonicalTextRoundTrips, ()) {
  const Topology t = *topology_gen::topology();
  const auto back = parse_topology_spec(scenario_text::topology_text(t), "<topology>");
  RC_ASSERT(std::holds_alternative<Topology>(back));
  RC_ASSERT(std::get<Topology>(back) == t);
  Scenario s;
  s.topology = t;
  s.duration = 1'000'000;
  const ParseResult r = parse_scenario(print_scenario(s));
  RC_ASSERT(std::holds_alternative<Scenario>(r));
  RC_ASSERT(std::get<Scenario>(r) == s);
}

}  // namespace
}  // namespace cfsv
