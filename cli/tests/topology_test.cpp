// cfsv topology end to end: the machine in each era's layouts, the
// JSON against its schema, bad input, and the help docs/cli.md shows.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/tests/run.h"

namespace cfsv::cli {
namespace {

using test::cfsv;
using test::Output;
using test::validate;

std::string source(const std::string& rel) { return std::string(CFSV_SOURCE_DIR) + "/" + rel; }

TEST(CliTopology, TwoSocketSmtMachineWithTwoNumaNodes) {
  const Output r = cfsv({"topology", "sockets=2 cores=4 threads=2 numa nodes=2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with(
      "CPU0 attaching sched-domain(s):\n"
      " domain-0: span=0-1 level=SMT\n"
      "  groups: 0:{ span=0 }, 1:{ span=1 }\n"
      "  domain-1: span=0-7 level=MC\n"
      "   groups: 0:{ span=0-1 cap=2048 }, 2:{ span=2-3 cap=2048 }, 4:{ span=4-5 cap=2048 }, 6:{ span=6-7 cap=2048 }\n"
      "   domain-2: span=0-15 level=NUMA\n"
      "    groups: 0:{ span=0-7 cap=8192 }, 8:{ span=8-15 cap=8192 }\n"
      "CPU1 attaching sched-domain(s):\n"))
      << r.out;
  EXPECT_TRUE(r.out.ends_with("root domain span: 0-15 (max cpu_capacity = 1024)\n")) << r.out;
}

// The example file: its kernel line (v5.15) unless --kernel says otherwise.
TEST(CliTopology, ExampleFileInEachEra) {
  const std::string scn = source("examples/two_socket_numa.scn");
  const Output v515 = cfsv({"topology", scn});
  ASSERT_EQ(v515.code, 0) << v515.err;
  EXPECT_NE(v515.out.find("   domain-2: span=0-15 level=NUMA\n"), std::string::npos) << v515.out;
  const Output v44 = cfsv({"topology", "--kernel", "v4.4", scn});
  EXPECT_NE(v44.out.find("CPU15 attaching sched-domain:\n domain 0: span 14-15 level SMT\n"), std::string::npos)
      << v44.out;
  const Output files = cfsv({"topology", "--kernel=v3.10", "--files", scn});
  EXPECT_TRUE(files.out.starts_with("/proc/sys/kernel/sched_domain/cpu0/domain0/busy_factor:64\n"
                                    "/proc/sys/kernel/sched_domain/cpu0/domain0/busy_idx:0\n"))
      << files.out;
  // 4 domains (SIBLING, MC, CPU, NUMA) of 12 files on each of 16 CPUs.
  EXPECT_EQ(std::count(files.out.begin(), files.out.end(), '\n'), 16 * 4 * 12);
  EXPECT_NE(files.out.find("/cpu15/domain3/name:NUMA\n"), std::string::npos);
  const Output debugfs = cfsv({"topology", "--files", scn});
  EXPECT_NE(debugfs.out.find("/sys/kernel/debug/sched/domains/cpu9/domain2/flags:SD_BALANCE_NEWIDLE "),
            std::string::npos);
}

// --feature wasted_cores_group_construction=on (and the file's feature
// lines): era 1 builds the CPU's own group first (docs/wasted-cores.md).
TEST(CliTopology, TheGroupConstructionFixBuildsTheCpusOwnGroupFirst) {
  const std::string scn = source("examples/wasted_group_construction.scn");
  const auto cpu2 = [](const std::string& out) {  // CPU 2's block
    const std::size_t at = out.find("CPU2 attaching");
    return out.substr(at, out.find("CPU3 attaching") - at);
  };
  const Output before = cfsv({"topology", scn});
  ASSERT_EQ(before.code, 0) << before.err;
  EXPECT_NE(cpu2(before.out).find("   groups: 2-3 (cpu_capacity = 2048) 4-5 (cpu_capacity = 2048) 0-1 "
                                  "(cpu_capacity = 2048)\n   domain 2: span 0-7 level NUMA\n"
                                  "    groups: 0-3,6-7 (cpu_capacity = 6144) 2-7 (cpu_capacity = 6144)\n"),
            std::string::npos)
      << before.out;
  const Output fixed = cfsv({"topology", "--feature", "wasted_cores_group_construction=on", scn});
  ASSERT_EQ(fixed.code, 0) << fixed.err;
  // its own group, then the walk from CPU 0
  EXPECT_NE(cpu2(fixed.out).find("   groups: 2-3 (cpu_capacity = 2048) 0-1 (cpu_capacity = 2048) 4-5 "
                                 "(cpu_capacity = 2048)\n   domain 2: span 0-7 level NUMA\n"
                                 "    groups: 0-5 (cpu_capacity = 6144) 0-1,4-7 (cpu_capacity = 6144)\n"),
            std::string::npos)
      << fixed.out;
  const std::string file =
      test::write_temp(".scn", test::read_file(scn) + "feature wasted_cores_group_construction=on\n");
  EXPECT_EQ(cfsv({"topology", file}).out, fixed.out);
  EXPECT_EQ(cfsv({"topology", "--feature", "no_such_feature=on", scn}).code, 2);
}

TEST(CliTopology, JsonMatchesItsSchema) {
  const std::vector<std::vector<std::string>> cases = {
      {source("examples/two_socket_numa.scn")},
      {"--kernel", "v4.4", source("examples/two_socket_numa.scn")},
      {"--kernel", "v3.10", "sockets=4 nodes=4 distance=10,20,30,40;20,10,20,30;30,20,10,20;40,30,20,10"},
      {"sockets=2 cores=4 nodes=1 capacity=0-3:446"},
      {"sockets=1"}};
  for (std::vector<std::string> args : cases) {
    args.insert(args.begin(), {"topology", "--json"});
    const Output r = cfsv(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string file = test::write_temp(".json", r.out);
    EXPECT_EQ(validate("schema", file, {"topology"}), "ok\n") << args.back();
  }
  const Output r = cfsv({"topology", "--json", "--kernel", "v4.4", "sockets=2 cores=2 threads=2 nodes=1"});
  const std::string file = test::write_temp(".json", r.out);
  EXPECT_EQ(validate("value", file, {"cpus.3.domains.0.flags"}), "4783");
  EXPECT_EQ(validate("value", file, {"cpus.3.domains.0.groups.0.capacity"}), "589");
  EXPECT_EQ(validate("value", file, {"cpus.3.domains.2.name"}), "DIE");
}

TEST(CliTopology, BadInputExitsTwo) {
  const Output spec = cfsv({"topology", "sockets=2 nodes=3"});
  EXPECT_EQ(spec.code, 2);
  EXPECT_EQ(spec.err, "<topology>:1:17: error: nodes=3 splits neither sockets=2 nor their cores=1: a NUMA node is a "
                      "run of whole sockets (nodes divides sockets) or an equal part of each socket's cores (sockets "
                      "divides nodes, nodes/sockets divides cores)\n");
  EXPECT_EQ(spec.out, "");
  const std::string bad = test::write_temp(".scn", "topology cores=2 capacity=2:5\nrun 1s\n");
  const Output file = cfsv({"topology", bad});
  EXPECT_EQ(file.code, 2);
  EXPECT_NE(file.err.find(bad + ":1:27: error: CPU 2 is not in the topology (CPUs 0-1)"), std::string::npos)
      << file.err;
  EXPECT_EQ(cfsv({"topology", "/nonexistent.scn"}).code, 2);
  const Output kernel = cfsv({"topology", "--kernel", "v9.9", "cores=2"});
  EXPECT_EQ(kernel.code, 2);
  EXPECT_EQ(kernel.err, "cfsv topology: --kernel: unknown profile 'v9.9'\n");
  EXPECT_EQ(cfsv({"topology", "--json", "--files", "cores=2"}).code, 2);
  EXPECT_EQ(cfsv({"topology"}).code, 2);
}

// --offline: the domains rebuilt over the CPUs left (v5.15: the root domain's
// span too); --replugged: v4.4's Missing Scheduling Domains state on a
// machine with two nodes in each socket, MC alone; v5.15 keeps its NUMA levels.
TEST(CliTopology, OfflineAndReplugged) {
  const Output off = cfsv({"topology", "--offline", "1-2", "sockets=1 cores=4"});
  ASSERT_EQ(off.code, 0) << off.err;
  EXPECT_EQ(off.out,
            "CPU0 attaching sched-domain(s):\n"
            " domain-0: span=0,3 level=MC\n"
            "  groups: 0:{ span=0 }, 3:{ span=3 }\n"
            "CPU1 attaching NULL sched-domain.\n"
            "CPU2 attaching NULL sched-domain.\n"
            "CPU3 attaching sched-domain(s):\n"
            " domain-0: span=0,3 level=MC\n"
            "  groups: 3:{ span=3 }, 0:{ span=0 }\n"
            "root domain span: 0,3 (max cpu_capacity = 1024)\n");
  const std::string amd = "sockets=2 cores=4 nodes=4 distance=10,16,22,22;16,10,22,22;22,22,10,16;22,22,16,10";
  const Output v44 = cfsv({"topology", "--kernel", "v4.4", "--replugged", amd});
  ASSERT_EQ(v44.code, 0) << v44.err;
  EXPECT_TRUE(v44.out.starts_with("CPU0 attaching sched-domain:\n domain 0: span 0-1 level MC\n  groups: 0 1\nCPU1"))
      << v44.out;
  EXPECT_NE(cfsv({"topology", "--kernel", "v4.4", amd}).out.find("level NUMA"), std::string::npos);
  EXPECT_NE(cfsv({"topology", "--kernel", "v5.15", "--replugged", amd}).out.find("level=NUMA"), std::string::npos);
  for (const char* bad : {"9", "0-3", "x"}) EXPECT_EQ(cfsv({"topology", "--offline", bad, "cores=4"}).code, 2) << bad;
  EXPECT_EQ(cfsv({"topology", "--offline", "9", "cores=4"}).err, "cfsv topology: --offline: CPU 9 is not in the topology\n");
}

// Each command's usage block in docs/cli.md is its --help, verbatim.
TEST(CliTopology, DocsShowEachCommandsHelp) {
  const std::string doc = test::read_file(source("docs/cli.md"));
  // (verify, prove and claims have prose blocks of their own.)
  for (const char* c : {"run", "diff", "fuzz", "replay", "topology", "features"}) {
    const Output r = cfsv({c, "--help"});
    ASSERT_EQ(r.code, 0) << c;
    EXPECT_NE(doc.find("```\n" + r.out + "```\n"), std::string::npos) << c << "'s help is not in docs/cli.md:\n" << r.out;
  }
}

}  // namespace
}  // namespace cfsv::cli
