// cfsv verify: every claim through every engine; a table, --json, --junit.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
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

// "[2/9] <claim>: <engine>" on one rewritten line.
void show_progress(const Claim& c, Engine e, std::size_t done, std::size_t total) {
  std::cerr << "\r\033[K[" << done + 1 << "/" << total << "] " << c.id << ": " << to_string(e) << std::flush;
}
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
      .option("junit", &junit, "FILE", "also write a JUnit XML report to FILE");
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
  const bool tty = isatty(STDERR_FILENO);
  const VerifyReport report = run_verify(claims, checks, config, tty ? Progress(show_progress) : Progress());
  if (tty) std::cerr << "\r\033[K" << std::flush;

  if (json)
    print_json(std::cout, report);
  else
    print_table(std::cout, report);
  if (junit_out.is_open()) {
    print_junit(junit_out, report);
    junit_out.close();
    if (!junit_out) return p.error("--junit: cannot write '" + junit + "'");
  }
  return report.exit_code();
}

}  // namespace cfsv::cli
