// The scenario-file parser on arbitrary bytes: it never crashes or hangs,
// every error has a position inside the input, and every scenario it accepts
// prints to text that parses back to the same scenario and prints the same;
// its topology (up to 64 CPUs) builds sched domains whose first group holds
// each CPU.
#include <string>
#include <string_view>
#include <variant>

#include "fuzz/fuzz_target.h"
#include "model/scenario_text.h"
#include "model/topology.h"

namespace {
constexpr const char* kTarget = "fuzz_scenario_parser";
constexpr std::size_t kMaxInput = 64 * 1024;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using cfsv::fuzz::fail;
  if (size > kMaxInput) return -1;  // not added to the corpus
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const cfsv::ParseResult r = cfsv::parse_scenario(text, "fuzz.scn");
  if (const auto* e = std::get_if<cfsv::ParseError>(&r)) {
    unsigned lines = 1;
    for (char c : text) lines += c == '\n';
    if (e->line < 1 || e->line > lines || e->col < 1 || e->message.empty())
      fail(kTarget, "error without a position in the input: %s", e->to_string().c_str());
    return 0;
  }
  const cfsv::Scenario& s = std::get<cfsv::Scenario>(r);
  const std::string printed = cfsv::print_scenario(s);
  const cfsv::ParseResult again = cfsv::parse_scenario(printed, "printed.scn");
  if (const auto* e = std::get_if<cfsv::ParseError>(&again))
    fail(kTarget, "printed scenario does not parse: %s\n%s", e->to_string().c_str(), printed.c_str());
  if (!(std::get<cfsv::Scenario>(again) == s)) fail(kTarget, "parse(print(s)) != s\n%s", printed.c_str());
  if (cfsv::print_scenario(std::get<cfsv::Scenario>(again)) != printed)
    fail(kTarget, "print(parse(print(s))) != print(s)\n%s", printed.c_str());
  if (s.topology.nr_cpus() <= 64) {
    const cfsv::SchedTopology st = cfsv::build_sched_topology(s.topology, cfsv::topology_era(s.kernel));
    for (cfsv::CpuId c : st.sd.ids())
      for (const cfsv::SchedDomain& sd : st.sd[c])
        if (!sd.span[c.index()] || sd.groups.empty() || !sd.groups.front().span[c.index()])
          fail(kTarget, "CPU %d's %s domain or its first group does not hold it\n%s", c.v,
               std::string(sd.name).c_str(), printed.c_str());
  }
  return 0;
}
