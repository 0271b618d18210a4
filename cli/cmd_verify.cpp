// cfsv verify: every claim through every engine; a table, --json, --junit.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/verify.h"
#include "fuzz/claim_checks.h"
#include "proofs/claim_checks.h"
#include "properties/claim_checks.h"

namespace cfsv::cli {

namespace {
constexpr uint64_t kDefaultSeed = 1;

const EngineCheck kEngines[] = {
    {Engine::properties, properties::check_claim},
    {Engine::fuzz, fuzz::check_claim},
    {Engine::proofs, proofs::check_claim},
};
}  // namespace

int cmd_verify(int argc, char** argv) {
  CheckConfig config;
  config.seed = kDefaultSeed;
  bool json = false;
  std::string junit;
  std::vector<Engine> engines;
  std::vector<std::string> claim_ids;
  ArgParser p("verify", "Checks every claim with every engine and prints one row per claim; exits 1 when a\n"
                        "verdict differs from the claim's expected one.");
  p.option("budget", one_of(&config.budget, {Budget::smoke, Budget::ci, Budget::long_}), "smoke|ci|long",
           "how hard each engine tries (default ci)")
      .option("seed", &config.seed, "N", "the seed every engine gets (default 1)")
      .option("engine", any_of(&engines, {Engine::properties, Engine::fuzz, Engine::proofs}), "NAME",
              "run only this engine: properties, fuzz or proofs (repeatable)")
      .option("claim", &claim_ids, "ID", "check only this claim, or a family's claims (repeatable; see cfsv claims)")
      .option("fuzz-bin", &config.fuzz_bin_dir, "DIR", "directory of the libFuzzer target binaries")
      .flag("json", &json, "print the report as JSON on stdout instead of the table")
      .option("junit", output_path(&junit), "FILE", "also write a JUnit XML report to FILE");
  ProgressLine line;
  line.add_flags(p);
  if (auto rc = p.parse(argc, argv)) return *rc;

  std::string unknown;
  std::vector<Claim> claims;
  for (const Claim* c : select_claims(claim_ids, &unknown)) claims.push_back(*c);
  if (!unknown.empty()) return p.error("unknown claim or family '" + unknown + "' (see cfsv claims)");
  std::vector<EngineCheck> checks;
  for (const EngineCheck& e : kEngines)
    if (engines.empty() || std::find(engines.begin(), engines.end(), e.engine) != engines.end())
      checks.push_back(e);
  if (!config.fuzz_bin_dir.empty() && !std::filesystem::is_directory(config.fuzz_bin_dir))
    return p.error("--fuzz-bin: no such directory '" + config.fuzz_bin_dir + "'");
  std::ofstream junit_out;
  if (!junit.empty()) {
    junit_out.open(junit);
    if (!junit_out) return p.error("--junit: cannot write '" + junit + "'");
  }

  if (!json) std::cout << "seed " << config.seed << ", budget " << to_string(config.budget) << "\n\n" << std::flush;
  // "[2/9] <claim>: <engine>", rewritten as each check starts, and with the
  // query the proofs engine asks (CheckConfig::on_query) as it asks it.
  std::string check;
  const auto show = [&](const Claim& c, Engine e, std::size_t done, std::size_t total) {
    check = "[" + std::to_string(done + 1) + "/" + std::to_string(total) + "] " + std::string(c.id) + ": " +
            std::string(to_string(e));
    line.show(check);
  };
  if (line.enabled()) config.on_query = [&](std::string_view query, bool) { line.show(check + ": " + std::string(query)); };
  catch_sigint("\ncfsv: interrupted; stopping after the check under way (Ctrl-C again to quit at once)\n");
  const VerifyReport report = run_verify(claims, checks, config, show, &interrupted());
  line.clear();

  if (json)
    print_json(std::cout, report);
  else
    print_table(std::cout, report);
  if (junit_out.is_open()) {
    print_junit(junit_out, report);
    junit_out.close();
    if (!junit_out) return p.error("--junit: cannot write '" + junit + "'");
  }
  if (const std::size_t n = report.interrupted()) {
    std::cerr << "cfsv verify: interrupted; " << n << " of " << report.verdicts()
              << " checks did not run to the end (verdict 'unknown: interrupted')\n";
    return kExitInterrupted;
  }
  return report.exit_code();
}

}  // namespace cfsv::cli
