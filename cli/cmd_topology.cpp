// cfsv topology: the sched domains and groups a kernel era builds for a
// topology, printed as that kernel shows them (docs/cli.md, "cfsv topology").
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/report.h"
#include "model/scenario_parser.h"  // cpu_list_at
#include "model/scenario_text.h"    // format_cpu_list
#include "model/topology.h"

namespace cfsv::cli {

namespace {

void write_json(JsonWriter& j, const Topology& t, const SchedTopology& st) {
  j.begin_object().field("kernel", to_string(st.era)).key("topology").begin_object();
  j.field("sockets", t.sockets).field("cores", t.cores).field("threads", t.threads).field("nodes", t.nr_nodes());
  j.key("distance").begin_array();
  for (unsigned a = 0; a < t.nr_nodes(); ++a) {
    j.begin_array();
    for (unsigned b = 0; b < t.nr_nodes(); ++b) j.value(t.node_distance(a, b));
    j.end_array();
  }
  j.end_array().end_object().key("numa_distances").begin_array();
  for (unsigned d : st.numa_distances) j.value(d);
  j.end_array().key("cpus").begin_array();
  const bool idx = st.era != TopologyEra::v5_15;
  for (CpuId c : st.sd.ids()) {
    j.begin_object().field("cpu", c.v).field("node", t.cpu_node(c.index())).field("capacity", st.cpu_capacity[c]);
    j.key("domains").begin_array();
    for (const SchedDomain& sd : st.sd[c]) {
      j.begin_object().field("name", sd.name).field("level", sd.level).field("span", format_cpu_list(sd.span));
      j.field("span_weight", sd.span_weight).field("flags", sd_flags_value(st.era, sd.flags)).key("flag_names");
      j.begin_array();
      for (std::string_view f : sd_flag_names(st.era, sd.flags)) j.value(f);
      j.end_array().field("min_interval", sd.min_interval).field("max_interval", sd.max_interval);
      j.field("balance_interval", sd.balance_interval).field("busy_factor", sd.busy_factor);
      j.field("imbalance_pct", sd.imbalance_pct).field("cache_nice_tries", sd.cache_nice_tries);
      if (idx)
        j.key("idx").begin_object().field("busy", sd.busy_idx).field("idle", sd.idle_idx)
            .field("newidle", sd.newidle_idx).field("wake", sd.wake_idx).field("forkexec", sd.forkexec_idx)
            .end_object();
      j.key("groups").begin_array();
      for (const SchedGroup& g : sd.groups)
        j.begin_object().field("id", g.id.v).field("span", format_cpu_list(g.span))
            .field("balance_mask", format_cpu_list(g.balance_mask)).field("capacity", g.capacity).end_object();
      j.end_array().end_object();
    }
    j.end_array().end_object();
  }
  j.end_array().end_object();
}

}  // namespace

int cmd_topology(int argc, char** argv) {
  bool json = false, files = false, replugged = false;
  CpuMask offline;
  std::string kernel;
  std::vector<std::string> args;
  std::vector<std::pair<Feature, bool>> overrides;
  ArgParser p("topology",
              "Prints the sched domains and groups that a kernel era builds for a topology, per CPU, as its\n"
              "kernel log shows them with sched_debug (sched_domain_debug), or the per-domain files. The\n"
              "topology is a scenario file's `topology` line, or that line's text (e.g. \"sockets=2 cores=4\n"
              "threads=2 nodes=2\") when the argument has a '='.");
  p.option("kernel", &kernel, "PROFILE", "the era: v3.10, v4.4 or v5.15 (v6.4 builds v5.15's) (default: the file's kernel line, else v5.15)");
  p.flag("files", &files,
         "print the files of /proc/sys/kernel/sched_domain (v3.10, v4.4) or /sys/kernel/debug/sched/domains (v5.15) "
         "as `grep . cpu*/domain*/* | sort -V` does");
  p.option("feature", feature_override(&overrides), "NAME=on|off",
           "override a feature after the file's `feature` lines (repeatable; wasted_cores_group_construction "
           "changes the groups, online_drops_numa_levels what --replugged builds)");
  p.option(
      "offline",
      [&](std::string_view v) -> std::string {
        try {
          unsigned max_cpu = 0, max_col = 0;
          offline = scenario_text::cpu_list_at({1, 1}, v, &max_cpu, &max_col);
          return "";
        } catch (const scenario_text::ParseFailure& e) {
          return e.message;
        }
      },
      "CPUS", "the domains CPU hotplug rebuilds once these CPUs are offline (`cpu offline N`): over the others");
  p.flag("replugged", &replugged,
         "the domains after a CPU has gone offline and come back: under online_drops_numa_levels (on in v4.4) a "
         "machine whose sockets hold several nodes has no NUMA level");
  p.flag("json", &json, "print JSON on stdout instead");
  p.positionals("FILE|SPEC", &args, "a scenario file, or a topology statement's text", 1, 1);
  if (auto rc = p.parse(argc, argv)) return *rc;
  if (json && files) return p.error("--json and --files both print on stdout; choose one");
  if (!kernel.empty() && !profile_by_name(kernel)) return p.error("--kernel: unknown profile '" + kernel + "'");

  Topology t;
  std::string profile = kernel.empty() ? std::string(kDefaultProfile) : kernel;
  std::vector<std::pair<Feature, bool>> features;  // the file's, then --feature
  if (args[0].find('=') != std::string::npos) {
    auto r = parse_topology_spec(args[0], "<topology>");
    if (auto* e = std::get_if<ParseError>(&r)) return std::cerr << e->to_string() << '\n', 2;
    t = std::get<Topology>(r);
  } else {
    std::optional<Scenario> sc = load_scenario_or_report(args[0]);
    if (!sc) return 2;
    t = sc->topology;
    if (kernel.empty()) profile = sc->kernel;
    features = sc->feature_overrides;
  }
  features.insert(features.end(), overrides.begin(), overrides.end());
  const Profile* pr = profile_by_name(profile);
  const FeatureSet fs = (pr ? *pr : default_profile()).features.with(features);
  const CpuMask machine = first_cpus(t.nr_cpus());
  if ((offline & ~machine).any())
    return p.error("--offline: CPU " + std::to_string(cpumask_first(offline & ~machine).v) + " is not in the topology");
  if ((machine & ~offline).none()) return p.error("--offline: every CPU; at least one stays online");
  // The log layout is a sched_debug boot's, whose v3.10/v4.4 NUMA levels can
  // differ (sched_numa_warning); the files and JSON are the simulator's.
  const bool log = !json && !files;
  const TopologyEra era = topology_era(profile);
  const SchedTopology st =
      build_sched_topology(t, era, fs[Feature::wasted_cores_group_construction], machine & ~offline,
                           !(replugged && fs[Feature::online_drops_numa_levels]), {}, log);
  if (json) {
    JsonWriter j(std::cout);
    write_json(j, t, st);
    std::cout << '\n';
  } else {
    std::cout << (files ? sched_domain_files(st) : sched_numa_warning(t, era) + sched_domain_debug(st));
  }
  return 0;
}

}  // namespace cfsv::cli
