// The `topology` statement (docs/scenario-format.md, "Topology"): its
// parser, its canonical text, and the same text given alone on the command
// line (`cfsv topology SPEC`).
#include <algorithm>
#include <cctype>

#include "scenario_parser.h"
#include "scenario_text.h"
#include "scenario_values.h"
#include "topology.h"

namespace cfsv {

namespace scenario_text {

namespace {

constexpr unsigned kLocalDistance = 10, kMaxDistance = 255;  // LOCAL_DISTANCE; node_distance is a u8
constexpr unsigned kCapacityScale = 1024;                      // SCHED_CAPACITY_SCALE
constexpr unsigned kMaxAsymPriority = 1'000'000;  // arch_asym_cpu_priority is an int; x86's ITMT values are small

class TopologyArgs {
 public:
  explicit TopologyArgs(unsigned line) : line_(line) {}

  Topology parse(const std::vector<Token>& toks, std::size_t first) {
    if (toks.size() <= first)
      fail(toks.back().end(), "missing argument; expected topology sockets=N cores=N threads=N [nodes=N] "
                              "[distance=ROWS] [capacity=CPUS:N;...] [priority=CPUS:N;...]");
    std::vector<Token> kv_toks;
    for (std::size_t i = first; i < toks.size(); ++i)
      if (toks[i].text != "numa") kv_toks.push_back(toks[i]);  // `numa nodes=2`: a word for the reader
    const KeyValue *distance = nullptr, *capacity = nullptr, *priority = nullptr, *nodes = nullptr;
    const std::vector<KeyValue> kvs = key_values(kv_toks, 0, line_);
    for (const KeyValue& kv : kvs) {
      unsigned* field = kv.key == "sockets" ? &t_.sockets
                        : kv.key == "cores"  ? &t_.cores
                        : kv.key == "threads" ? &t_.threads
                        : kv.key == "nodes"   ? &t_.nodes
                                              : nullptr;
      if (kv.key == "distance") distance = &kv;
      else if (kv.key == "capacity") capacity = &kv;
      else if (kv.key == "priority") priority = &kv;
      else if (!field)
        fail(kv.key_col, "unknown topology key " + quote(kv.key) +
                             " (expected sockets, cores, threads, nodes, distance, capacity, priority)");
      else *field = static_cast<unsigned>(number_at({line_, kv.value_col}, kv.value, kv.key, 1, kMaxCpus));
      if (kv.key == "nodes") nodes = &kv;
    }
    const uint64_t cpus = uint64_t(t_.sockets) * t_.cores * t_.threads;
    if (cpus > kMaxCpus)
      fail(toks[0].col, "topology has " + std::to_string(cpus) + " CPUs; at most " + std::to_string(kMaxCpus));
    const auto splits = [&](unsigned n) {  // whole sockets, or an equal part of each socket's cores
      return n <= t_.sockets ? t_.sockets % n == 0 : n % t_.sockets == 0 && t_.cores % (n / t_.sockets) == 0;
    };
    if (nodes && !splits(t_.nodes))
      fail(nodes->value_col, "nodes=" + std::to_string(t_.nodes) + " splits neither sockets=" +
                                 std::to_string(t_.sockets) + " nor their cores=" + std::to_string(t_.cores) +
                                 ": a NUMA node is a run of whole sockets (nodes divides sockets) or an equal part of "
                                 "each socket's cores (sockets divides nodes, nodes/sockets divides cores)");
    if (distance) parse_distance(*distance);
    if (capacity) parse_per_cpu(*capacity, "capacity", kCapacityScale, t_.capacity);
    if (priority) parse_per_cpu(*priority, "priority", kMaxAsymPriority, t_.priority);
    return t_;
  }

 private:
  [[noreturn]] void fail(unsigned col, std::string msg) { fail_at({line_, col}, std::move(msg)); }

  // distance=10,20;20,10: a row per node, node_distance(row, column).
  void parse_distance(const KeyValue& kv) {
    const unsigned n = t_.nr_nodes();
    const std::vector<Token> rows = split(kv.value, kv.value_col, ';');
    if (rows.size() != n)
      fail(kv.value_col, "distance has " + std::to_string(rows.size()) + " rows; " + std::to_string(n) +
                             " NUMA nodes need " + std::to_string(n) + " (rows separated by ';')");
    std::vector<Token> at(n * n);
    t_.distance.assign(n * n, 0);
    for (unsigned a = 0; a < n; ++a) {
      const std::vector<Token> row = split(rows[a].text, rows[a].col, ',');
      if (row.size() != n)
        fail(rows[a].col, "distance row " + std::to_string(a) + " has " + std::to_string(row.size()) +
                              " entries; expected " + std::to_string(n) + " (one per node, separated by ',')");
      for (unsigned b = 0; b < n; ++b) {
        at[a * n + b] = row[b];
        const unsigned d = static_cast<unsigned>(
            number_at({line_, row[b].col}, row[b].text, "distance", kLocalDistance, kMaxDistance));
        // The checks of the kernel's numa_set_distance (arch/x86/mm/numa.c).
        if (a == b && d != kLocalDistance)
          fail(row[b].col, "distance of node " + std::to_string(a) + " to itself must be 10 (LOCAL_DISTANCE)");
        if (a != b && d == kLocalDistance)
          fail(row[b].col, "distance between nodes " + std::to_string(a) + " and " + std::to_string(b) +
                               " must be more than 10 (LOCAL_DISTANCE)");
        t_.distance[a * n + b] = d;
      }
    }
    for (unsigned a = 0; a < n; ++a)
      for (unsigned b = 0; b < a; ++b)
        if (t_.distance[a * n + b] != t_.distance[b * n + a])
          fail(at[a * n + b].col, "distance is not symmetric: node " + std::to_string(a) + " to " +
                                      std::to_string(b) + " is " + std::to_string(t_.distance[a * n + b]) +
                                      ", " + std::to_string(b) + " to " + std::to_string(a) + " is " +
                                      std::to_string(t_.distance[b * n + a]));
  }

  // capacity=0-3:1024;4-7:446 (arch_scale_cpu_capacity) or priority=0,2:30;1,3:20
  // (arch_asym_cpu_priority): a value in [1, max] for each CPU listed, 0 for the others.
  void parse_per_cpu(const KeyValue& kv, const std::string& what, unsigned max, std::vector<unsigned>& out) {
    const unsigned n = t_.nr_cpus();
    out.assign(n, 0);
    for (const Token& item : split(kv.value, kv.value_col, ';')) {
      const std::size_t colon = item.text.find(':');
      if (colon == std::string_view::npos || colon == 0 || colon + 1 == item.text.size())
        fail(item.col, "expected CPUS:" + upper(what) + " (e.g. 0-3:" + std::to_string(max) + "), got " +
                           quote(item.text));
      unsigned max_cpu = 0, max_col = item.col;
      const CpuMask cpus = cpu_list_at({line_, item.col}, item.text.substr(0, colon), &max_cpu, &max_col);
      if (max_cpu >= n)
        fail(max_col, "CPU " + std::to_string(max_cpu) + " is not in the topology (CPUs 0-" + std::to_string(n - 1) +
                          ")");
      const unsigned value_col = item.col + static_cast<unsigned>(colon + 1);
      const auto value = static_cast<unsigned>(number_at({line_, value_col}, item.text.substr(colon + 1), what, 1, max));
      for (unsigned c = 0; c < n; ++c) {
        if (!cpus[c]) continue;
        if (out[c]) fail(item.col, "CPU " + std::to_string(c) + " is given a " + what + " twice");
        out[c] = value;
      }
    }
  }
  static std::string upper(std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return s;
  }

  unsigned line_;
  Topology t_;
};

}  // namespace

Topology topology_args(const std::vector<Token>& toks, std::size_t first, unsigned line) {
  return TopologyArgs(line).parse(toks, first);
}

namespace {
// " key=CPUS:V;CPUS:V": each value once, with its CPUs, in the order of their first CPU ("" when none).
std::string per_cpu_text(const std::string& key, const std::vector<unsigned>& values) {
  std::string s;
  std::vector<unsigned> done;
  for (unsigned c = 0; c < values.size(); ++c) {
    const unsigned v = values[c];
    if (!v || std::find(done.begin(), done.end(), v) != done.end()) continue;
    CpuMask cpus;
    for (unsigned d = c; d < values.size(); ++d) cpus[d] = values[d] == v;
    s += (done.empty() ? " " + key + "=" : ";") + format_cpu_list(cpus) + ":" + std::to_string(v);
    done.push_back(v);
  }
  return s;
}
}  // namespace

std::string topology_text(const Topology& t) {
  std::string s = "sockets=" + std::to_string(t.sockets) + " cores=" + std::to_string(t.cores) +
                  " threads=" + std::to_string(t.threads);
  if (t.nodes) s += " nodes=" + std::to_string(t.nodes);
  const unsigned n = t.nr_nodes();
  for (unsigned i = 0; i < t.distance.size(); ++i)
    s += (i == 0 ? " distance=" : i % n ? "," : ";") + std::to_string(t.distance[i]);
  s += per_cpu_text("capacity", t.capacity) + per_cpu_text("priority", t.priority);
  return s;
}

}  // namespace scenario_text

std::variant<Topology, ParseError> parse_topology_spec(std::string_view spec, std::string_view name) {
  try {
    const std::vector<scenario_text::Token> toks = scenario_text::tokenize(spec);
    if (toks.empty()) return ParseError{std::string(name), 1, 1, "empty topology (e.g. sockets=2 cores=4 threads=2)"};
    return scenario_text::topology_args(toks, 0, 1);
  } catch (const scenario_text::ParseFailure& f) {
    return ParseError{std::string(name), f.loc.line, f.loc.col, f.message};
  }
}

}  // namespace cfsv
