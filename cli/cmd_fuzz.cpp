// cfsv fuzz TARGET: a libFuzzer campaign on a clang-built target (fuzz/):
// time budget, jobs (-fork), a working corpus seeded from fuzz/corpus/, a
// progress line, and a summary; each crash is reported with its file and,
// re-run once, what it shows (fuzz_slice_claims' counterexample, read back as
// data and printed as every engine prints one). Exit 0 no crash, 1 crashes,
// 2 bad input.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/table.h"
#include "fuzz/libfuzzer.h"
#include "claims/claim.h"

namespace cfsv::cli {

namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_sigint(int) { g_interrupted = 1; }

constexpr std::string_view kClaimTarget = "fuzz_slice_claims";

int list_targets(const std::string& bin_dir) {
  std::printf("fuzz targets (clang build: %s):\n", bin_dir.c_str());
  for (const std::string& t : fuzz::known_targets()) {
    std::error_code ec;
    const bool built = fs::is_regular_file(fs::path(bin_dir) / t, ec);
    const std::string corpus = fuzz::seed_corpus_dir(t);
    std::printf("  %-24s %-9s seed corpus: %s (%zu inputs)\n", t.c_str(), built ? "built" : "not built",
                corpus.empty() ? "none" : corpus.c_str(), corpus.empty() ? 0 : fuzz::count_files(corpus));
  }
  std::printf("fuzz_slice_claims takes --claim ID or FAMILY:");
  for (const Claim& c : all_claims()) std::printf(" %.*s", int(c.id.size()), c.id.data());
  std::printf("\n");
  return 0;
}

// What a crash input shows: the target re-run on it alone.
std::string explain_crash(const std::string& exe, const std::string& file, const std::optional<std::string>& claim) {
  fuzz::ProcessSpec spec;
  spec.exe = exe;
  spec.args = {file};
  spec.timeout = std::chrono::seconds(30);
  if (claim)
    spec.set_env.emplace_back("CFSV_CLAIM", *claim);
  else
    spec.unset_env.push_back("CFSV_CLAIM");
  std::string lines;
  Counterexample cx;
  spec.on_line = [&](std::string_view l) {
    if (parse_counterexample_line(l, cx)) return;
    if (l.find("check failed:") != l.npos || l.find("runtime error:") != l.npos ||
        l.find("ERROR: AddressSanitizer") != l.npos)
      lines.append(l).push_back('\n');
  };
  const fuzz::ProcessResult r = fuzz::run_process(spec);
  if (!cx.empty()) lines = cx.claim + ": " + cx.summary + "\n" + format_counterexample(cx) + lines;
  if (r.ok()) lines += "(this input no longer fails when run alone)\n";
  else if (lines.empty()) lines += "(" + r.describe() + ", no error line)\n";
  return lines;
}
}  // namespace

int cmd_fuzz(int argc, char** argv) {
  bool list = false;
  uint64_t seconds = 60, jobs = 1, seed = 1, runs = 0;
  std::string corpus, crashes, claim, bin_dir = fuzz::default_bin_dir();
  std::vector<std::string> pos;
  ArgParser ap("fuzz", "A libFuzzer campaign on one fuzz target (see --list and docs/fuzzing.md).");
  ap.flag("list", &list, "list the fuzz targets and stop")
      .option("time", &seconds, "SECONDS", "time budget (default 60)")
      .option("jobs", &jobs, "N", "parallel fuzzing jobs, libFuzzer -fork=N (default 1)")
      .option("corpus", &corpus, "DIR",
              "working corpus, seeded from fuzz/corpus/<target> when empty (default cfsv-fuzz/<target>/corpus)")
      .option("crashes", &crashes, "DIR", "where crash inputs go (default cfsv-fuzz/<target>/crashes)")
      .option("seed", &seed, "N", "libFuzzer seed (default 1; printed)")
      .option("runs", &runs, "N", "stop after N executions (default: only the time budget)")
      .option("claim", &claim, "ID", "for fuzz_slice_claims: the claim, or a family of claims, to check (CFSV_CLAIM)")
      .option("bin-dir", &bin_dir, "DIR", "the clang build's fuzz/ directory (default: this build's)")
      .positionals("TARGET", &pos, "a fuzz target, e.g. fuzz_arith or arith", 0, 1);
  if (auto rc = ap.parse(argc, argv)) return *rc;
  if (list) return list_targets(bin_dir);
  if (pos.empty()) return ap.error("missing TARGET (cfsv fuzz --list shows them)");
  const std::optional<std::string> target = fuzz::resolve_target(pos[0]);
  if (!target) return ap.error("unknown fuzz target '" + pos[0] + "' (cfsv fuzz --list shows them)");
  if (seconds == 0) return ap.error("--time: must be at least 1 second");
  if (jobs == 0 || jobs > 256) return ap.error("--jobs: must be 1..256");
  std::optional<std::string> claim_env;
  if (!claim.empty()) {
    if (*target != kClaimTarget) return ap.error("--claim applies to fuzz_slice_claims only");
    if (select_claims(claim).empty())
      return ap.error("--claim: '" + claim + "' names no claim or family of claims (cfsv claims lists them)");
    claim_env = claim;
  }
  const std::string exe = (fs::path(bin_dir) / *target).string();
  std::error_code ec;
  if (!fs::is_regular_file(exe, ec))
    return ap.error("libFuzzer build not found at " + exe + "; configure with clang++-14");

  const fs::path work = fs::path("cfsv-fuzz") / *target;
  if (corpus.empty()) corpus = (work / "corpus").string();
  if (crashes.empty()) crashes = (work / "crashes").string();
  std::string err;
  const std::string seeds = fuzz::seed_corpus_dir(*target);
  const bool seeding = !fs::exists(corpus, ec) || fuzz::count_files(corpus) == 0;
  if (!fuzz::copy_corpus(seeding ? seeds : "", corpus, &err) || !fuzz::copy_corpus("", crashes, &err))
    return ap.error(err);
  const std::size_t corpus_before = fuzz::count_files(corpus);

  fuzz::FuzzRun run;
  run.exe = exe;
  run.corpus = {corpus};
  run.artifact_dir = crashes;
  run.seed = fuzz::libfuzzer_seed(seed);
  run.runs = runs;
  run.max_total_time = seconds;
  run.jobs = static_cast<unsigned>(jobs);
  run.claim = claim_env;
  run.timeout = std::chrono::seconds(seconds + 60);  // libFuzzer stops itself; this is the backstop
  run.interrupt = &g_interrupted;

  std::printf("cfsv fuzz %s: seed %u, %llu s, %llu job%s%s%s\n", target->c_str(), run.seed,
              static_cast<unsigned long long>(seconds), static_cast<unsigned long long>(jobs), jobs > 1 ? "s" : "",
              claim_env ? ", claim " : "", claim_env ? claim_env->c_str() : "");
  const std::string origin = !seeding ? "" : seeds.empty() ? "; no seed corpus" : "; seeded from " + seeds;
  std::printf("corpus %s (%zu inputs%s), crashes to %s\n", corpus.c_str(), corpus_before, origin.c_str(),
              crashes.c_str());
  std::fflush(stdout);

  const bool tty = isatty(STDOUT_FILENO);
  const auto start = Clock::now();
  auto last_print = start;
  bool printed_progress = false;
  run.on_progress = [&](const fuzz::FuzzProgress& p) {
    const auto now = Clock::now();
    if (p.event != "DONE" && now - last_print < std::chrono::seconds(tty ? 1 : 5)) return;
    last_print = now;
    const double t = std::chrono::duration<double>(now - start).count();
    std::printf("%s[%5.0fs/%llus] %llu execs  %llu exec/s  corpus %llu  cov %llu%s", tty ? "\r" : "", t,
                static_cast<unsigned long long>(seconds), static_cast<unsigned long long>(p.execs),
                static_cast<unsigned long long>(p.exec_per_s), static_cast<unsigned long long>(p.corpus_units),
                static_cast<unsigned long long>(p.cov), tty ? "   " : "\n");
    std::fflush(stdout);
    printed_progress = true;
  };
  struct sigaction sa {}, old_sa{};
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, &old_sa);
  const fuzz::FuzzOutcome o = fuzz::run_libfuzzer(run);
  sigaction(SIGINT, &old_sa, nullptr);
  if (tty && printed_progress) std::printf("\n");

  if (!o.process.started) {
    std::fprintf(stderr, "cfsv fuzz: cannot run %s: %s\n", exe.c_str(), o.process.error.c_str());
    return 2;
  }
  const double secs = o.process.seconds;
  const double rate = o.exec_per_s ? double(o.exec_per_s) : (secs > 0 ? double(o.execs) / secs : 0);
  std::printf("done: %llu executions in %.1f s (%.0f exec/s), corpus %zu inputs (%+lld), crashes %zu%s\n",
              static_cast<unsigned long long>(o.execs), secs, rate, o.corpus_units,
              static_cast<long long>(o.corpus_units) - static_cast<long long>(corpus_before), o.crash_files.size(),
              o.process.interrupted ? " (interrupted)" : "");
  for (const std::string& f : o.crash_files) {
    std::printf("crash: %s\n", f.c_str());
    std::fputs(indented(explain_crash(exe, f, claim_env), "  ").c_str(), stdout);
    std::printf("  reproduce: %s%s %s %s\n", claim_env ? "CFSV_CLAIM=" : "", claim_env ? claim_env->c_str() : "",
                exe.c_str(), f.c_str());
  }
  if (o.crashed && o.crash_files.empty()) {
    std::printf("the fuzzer failed (%s) without writing a crash input:\n  %s\n", o.process.describe().c_str(),
                o.error_line.empty() ? "(no error line)" : o.error_line.c_str());
  }
  if (o.process.timed_out) {
    std::printf("the fuzzer did not stop by itself: %s\n", o.process.describe().c_str());
    return 1;
  }
  return o.crashed ? 1 : 0;
}

}  // namespace cfsv::cli
