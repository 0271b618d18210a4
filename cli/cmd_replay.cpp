// cfsv replay FILE: re-run a reproducer and say whether the run shows the
// verdict its first line expects (`# expect: pass` or
// `# expect: violation <invariant-name>`).
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "cli/args.h"
#include "cli/commands.h"
#include "model/invariants.h"
#include "model/scenario_text.h"
#include "model/sim.h"

namespace cfsv::cli {

namespace {

struct Expectation {
  bool stated = false;
  bool pass = true;
  std::string invariant;  // when !pass
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// "" when fine, else what is wrong with the expectation line.
std::string parse_expectation(std::string_view first_line, Expectation* e) {
  std::string_view l = trim(first_line);
  if (l.substr(0, 1) != "#") return {};
  l = trim(l.substr(1));
  if (l.substr(0, 7) != "expect:") return {};
  l = trim(l.substr(7));
  e->stated = true;
  if (l == "pass") return {};
  if (l.substr(0, 9) == "violation") {
    const std::string_view name = trim(l.substr(9));
    if (!invariant_by_name(name)) return "unknown invariant '" + std::string(name) + "' in the expect line";
    e->pass = false;
    e->invariant = std::string(name);
    return {};
  }
  return "the expect line says '" + std::string(l) + "' (expected `pass` or `violation <invariant>`)";
}

}  // namespace

int cmd_replay(int argc, char** argv) {
  std::vector<std::string> files;
  uint64_t check_every = 1;
  ArgParser p("replay", "Re-runs a reproducer (a scenario file) and says what it shows. Its first line may\n"
                        "state the expected verdict: `# expect: pass` or `# expect: violation <invariant>`.\n"
                        "Exit 0 when the run shows the expected verdict (with none stated: when every\n"
                        "invariant holds), 1 otherwise, 2 on bad input.");
  p.option("check-every", &check_every, "N",
           "check the invariants after every Nth op or event, and at the end (default 1)");
  p.positionals("FILE", &files, "the reproducer", 1, 1);
  if (auto rc = p.parse(argc, argv)) return *rc;
  if (check_every == 0) return p.error("--check-every 0 would check nothing; give N >= 1");

  std::ifstream f(files[0], std::ios::binary);
  if (!f) return p.error("cannot read '" + files[0] + "'");
  std::stringstream buf;
  buf << f.rdbuf();
  const std::string text = buf.str();
  Expectation expect;
  const std::string bad = parse_expectation(std::string_view(text).substr(0, text.find('\n')), &expect);
  if (!bad.empty()) return p.error(files[0] + ":1: " + bad);
  ParseResult r = parse_scenario(text, files[0]);
  if (auto* e = std::get_if<ParseError>(&r)) {
    std::cerr << e->to_string() << '\n';
    return 2;
  }
  Sim sim(std::get<Scenario>(r), SimOptions{.check_every = check_every});
  sim.run();

  const InvariantChecker& chk = *sim.checker();
  std::set<std::string> violated;
  for (std::size_t i = 0; i < chk.per_invariant().size(); ++i)
    if (chk.per_invariant()[i]) violated.insert(std::string(all_invariants()[i].name));
  std::string shows = "pass";
  if (!violated.empty()) {
    shows = "violation";
    for (const std::string& v : violated) shows += " " + v;
  }
  const bool match = expect.pass ? violated.empty() : violated.count(expect.invariant) > 0;
  const std::string wanted = !expect.stated ? "pass (no expect line)"
                             : expect.pass  ? "pass"
                                            : "violation " + expect.invariant;
  std::cout << files[0] << ": expected " << wanted << "; the run shows " << shows << " ("
            << format_duration(sim.now()) << " simulated, " << chk.checks() << " checks): "
            << (match ? "MATCH" : "MISMATCH") << '\n';
  if (!chk.violations().empty()) std::cout << "  first: " << chk.violations().front().to_string() << '\n';
  return match ? 0 : 1;
}

}  // namespace cfsv::cli
