// fuzz::check_claim: runs the clang-built target of the claim's kind
// (fuzz_slice_claims, fuzz_pelt_claims,
// fuzz_sim_claims, fuzz_balance_claims) as a subprocess
// (CFSV_CLAIM=<id>, CFSV_BUDGET, seeded, budgeted, on a temporary copy of its
// corpus); the counterexample it reports comes back as data.
#include "fuzz/claim_checks.h"

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "fuzz/libfuzzer.h"

namespace cfsv::fuzz {

namespace {
namespace fs = std::filesystem;

struct Plan {
  uint64_t runs;
  uint64_t max_total_time;
  uint32_t timeout_ms;
};

// smoke and ci are reproducible (-runs with -seed; FuzzRun::reproducible_from);
// long is time-bound. A case's fuzz_cost (claims/claim.cpp) divides the runs;
// a simulation-differential case gets three times the timeout (its 3,000 runs
// took 21 to 60 s under load 6, against 32 s on an idle 2-core host).
Plan plan_for(Budget b, ClaimKind k) {
  const uint64_t share = fuzz_cost(k);
  const uint32_t slow = family_of(k) == ClaimFamily::sim ? 3 : 1;
  switch (b) {
    case Budget::smoke: return {20'000 / share, 0, 30'000 * slow};
    case Budget::ci: return {300'000 / share, 0, 60'000 * slow};
    case Budget::long_: return {0, 300, 330'000};
  }
  return {20'000 / share, 0, 30'000};
}

std::string hex_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string hex;
  char buf[3];
  for (std::istreambuf_iterator<char> it(in), end; it != end; ++it) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(*it));
    hex += buf;
  }
  return hex;
}
}  // namespace

EngineResult check_claim(const Claim& claim, const CheckConfig& config) {
  EngineResult r{Engine::fuzz, Verdict::unknown, "", "", 0, {}};
  // The target looks the claim up by id in the registry it was built with.
  if (const Claim* known = claim_by_id(claim.id); !known || !(*known == claim)) {
    r.detail = "not a record of claims/registry.cpp, which the fuzz target looks claims up in";
    return r;
  }
  const std::string_view target = fuzz_target(claim.kind);
  const std::string bin = config.fuzz_bin_dir.empty() ? default_bin_dir() : config.fuzz_bin_dir;
  const std::string exe = (fs::path(bin) / target).string();
  std::error_code ec;
  if (!fs::is_regular_file(exe, ec)) {
    r.detail = "libFuzzer build not found at " + exe + "; configure with clang++-14";
    return r;
  }
  TempDir tmp("cfsv-fuzz-claim-");
  std::string err;
  const std::string corpus = tmp.path() + "/corpus", artifacts = tmp.path() + "/artifacts";
  const Plan plan = plan_for(config.budget, claim.kind);
  const bool reproducible = plan.runs != 0;  // smoke, ci: the seeds as -seed_inputs, not copied
  const std::string seeds = seed_corpus_dir(target);
  if (!tmp.ok() || !copy_corpus(reproducible ? "" : seeds, corpus, &err) ||
      !copy_corpus("", artifacts, &err)) {
    r.detail = "cannot set up a working directory: " + (tmp.ok() ? err : "mkdtemp failed");
    return r;
  }
  FuzzRun run;
  run.exe = exe;
  run.corpus = {corpus};
  run.artifact_dir = artifacts;
  run.work_dir = tmp.path();
  run.seed = libfuzzer_seed(config.seed);
  run.runs = plan.runs;
  run.max_total_time = plan.max_total_time;
  if (reproducible) run.reproducible_from = seeds;
  run.claim = std::string(claim.id);
  run.budget = std::string(to_string(config.budget));
  run.timeout = std::chrono::milliseconds(config.timeout_ms ? config.timeout_ms : plan.timeout_ms);
  const FuzzOutcome o = run_libfuzzer(run);
  r.seconds = o.process.seconds;

  char stats[160];
  std::snprintf(stats, sizeof stats, "%" PRIu64 " execs in %.1f s, seed %" PRIu32, o.execs, o.process.seconds,
                run.seed);
  if (!o.process.started) {
    r.detail = "cannot run " + exe + ": " + o.process.error;
  } else if (o.process.timed_out) {
    r.detail = std::string(target) + " " + o.process.describe() + " (" + stats + ")";
  } else if (o.crashed && o.counterexample) {
    r.verdict = Verdict::refuted;
    r.counterexample = *o.counterexample;
    r.detail = o.counterexample->summary + " (" + stats + ")";
    r.reproducer = format_counterexample(*o.counterexample);
    if (!o.crash_files.empty()) {
      r.reproducer += "input (hex): " + hex_of_file(o.crash_files.front()) + "\n";
      r.reproducer += "replay: CFSV_CLAIM=" + std::string(claim.id) + " " + exe + " FILE_WITH_THOSE_BYTES\n";
    }
  } else if (o.crashed) {
    r.detail = std::string(target) + " failed without a counterexample (" + o.process.describe() +
               "): " + (o.error_line.empty() ? "no error line" : o.error_line);
  } else {
    r.verdict = Verdict::passed;
    r.detail = stats;
  }
  return r;
}

}  // namespace cfsv::fuzz
