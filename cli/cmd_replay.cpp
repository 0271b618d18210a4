// cfsv replay FILE: re-run a reproducer and say whether the run shows the
// verdict its first line expects (`# expect: pass` or
// `# expect: violation <invariant-name>`).
#include <iostream>
#include <set>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/scenario_run.h"
#include "model/invariants.h"
#include "model/scenario_text.h"
#include "model/sim.h"

namespace cfsv::cli {

int cmd_replay(int argc, char** argv) {
  std::vector<std::string> files;
  uint64_t check_every = 1;
  bool require_expect = false;
  ArgParser p("replay", "Re-runs a reproducer (a scenario file) and says what it shows. Its first line may\n"
                        "state the expected verdict: `# expect: pass` or `# expect: violation <invariant>`\n"
                        "(a comment that starts like one but is not exactly one is an error). Exit 0 when\n"
                        "the run shows the expected verdict (with none stated: when every invariant holds),\n"
                        "1 otherwise, 2 on bad input, 130 after Ctrl-C.");
  p.option("check-every", &check_every, "N",
           "check the invariants after every Nth op or event, and at the end (default 1)");
  p.flag("require-expect", &require_expect, "a file without an expect line is an error (as for regressions/)");
  p.positionals("FILE", &files, "the reproducer", 1, 1);
  ScenarioRunner runner(p);
  if (auto rc = p.parse(argc, argv)) return *rc;
  if (check_every == 0) return p.error("--check-every 0 would check nothing; give N >= 1");

  const std::string& file = files[0];
  std::variant<std::string, ParseError> text = read_scenario_file(file);
  std::variant<Expectation, ParseError> expect = Expectation{};
  ParseResult r = ParseError{};
  if (const auto* t = std::get_if<std::string>(&text)) {
    expect = parse_expectation(*t, file);
    r = parse_scenario(*t, file);
  }
  for (const ParseError* e : {std::get_if<ParseError>(&text), std::get_if<ParseError>(&expect), std::get_if<ParseError>(&r)})
    if (e) return std::cerr << e->to_string() << '\n', 2;
  const Expectation& want = std::get<Expectation>(expect);
  if (require_expect && !want.stated)
    return std::cerr << ParseError{file, 1, 1, "no `# expect: pass` or `# expect: violation <invariant>` line "
                                               "(--require-expect)"}.to_string()
                     << '\n',
           2;

  Sim sim(std::get<Scenario>(r), runner.options(SimOptions{.check_every = check_every}));
  if (auto rc = runner.refuse(sim, file)) return *rc;
  const std::optional<int> early = runner.run(sim);

  const InvariantChecker& chk = *sim.checker();
  std::set<std::string> violated;
  for (std::size_t i = 0; i < chk.per_invariant().size(); ++i)
    if (chk.per_invariant()[i]) violated.insert(std::string(all_invariants()[i].name));
  std::string shows = "pass";
  if (!violated.empty()) {
    shows = "violation";
    for (const std::string& v : violated) shows += " " + v;
  }
  const bool match = want.violation.empty() ? violated.empty() : violated.count(want.violation) > 0;
  const std::string wanted = !want.stated ? "pass (no expect line)"
                             : want.violation.empty() ? "pass"
                                                      : "violation " + want.violation;
  const std::string the_run = early ? "the run so far (" + ScenarioRunner::early_end(sim) + ")" : "the run";
  std::cout << file << ": expected " << wanted << "; " << the_run << " shows " << shows << " ("
            << format_duration(sim.now()) << " simulated, " << chk.checks() << " checks)"
            << (early ? "" : match ? ": MATCH" : ": MISMATCH") << '\n';
  if (!chk.violations().empty()) std::cout << "  first: " << chk.violations().front().to_string() << '\n';
  if (early) return *early;
  return match ? 0 : 1;
}

}  // namespace cfsv::cli
