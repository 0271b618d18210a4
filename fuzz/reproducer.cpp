#include "fuzz/reproducer.h"

#include <exception>

#include "fuzz/ops_input.h"
#include "model/scenario_text.h"
#include "model/sim.h"

namespace cfsv::fuzz {

namespace {
// One line of at most `max` bytes: a report quoted in a comment.
std::string one_line(std::string_view s, std::size_t max = 240) {
  std::string out(s.substr(0, s.find('\n')));
  if (out.size() > max) out = out.substr(0, max - 3) + "...";
  return out;
}
}  // namespace

std::optional<Reproducer> ops_reproducer(std::string_view target, std::span<const uint8_t> input,
                                         std::string_view input_name, std::string_view crash) {
  const std::vector<Scenario> ran = ops_target_scenarios(target, input);
  if (ran.empty()) return std::nullopt;
  const std::string source = std::string(target) + " input " + std::string(input_name) + " (" +
                             std::to_string(input.size()) + " bytes)";
  for (const Scenario& s : ran) {
    Sim sim(s, SimOptions{.record_trace = false});
    try {
      sim.run();
    } catch (const std::exception& e) {  // a check inside the model failed: replay shows it (exit 1)
      return Reproducer{"# expect: pass\n# " + source + ": the model's own check failed:\n#   " + one_line(e.what()) +
                            "\n# (cfsv replay reports it as an internal error and exits 1)\n" + print_scenario(s),
                        "pass"};
    }
    if (sim.checker()->ok()) continue;
    const Violation& v = sim.checker()->violations().front();
    const std::string expect = "violation " + v.invariant;
    return Reproducer{"# expect: " + expect + "\n# " + source + ":\n#   " + one_line(v.to_string()) + "\n" +
                          print_scenario(s),
                      expect};
  }
  std::string why = crash.empty() ? "(no report)" : one_line(crash);
  return Reproducer{"# expect: pass\n# " + source + " crashed the target:\n#   " + why +
                        "\n# The model keeps every invariant on this scenario: the crash is a sanitizer's\n"
                        "# finding or a check the target makes besides the invariants.\n" +
                        print_scenario(ran.front()),
                    "pass"};
}

}  // namespace cfsv::fuzz
