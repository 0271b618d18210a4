// cfsv fuzz TARGET: a libFuzzer campaign on a clang-built target (fuzz/):
// time budget, jobs (libFuzzer's fork mode), a working corpus seeded from
// fuzz/corpus/, progress on stderr, and a summary. Each crash is minimised
// (-minimize_crash) and reported with its file and, re-run once, what it
// shows (fuzz_slice_claims' counterexample, read back as data and printed as
// every engine prints one); an ops target's crash comes back as a scenario
// file for `cfsv replay`. --merge adds what the campaign covered anew to
// fuzz/corpus/<target>; --crash reports on inputs found elsewhere. Exit 0 no
// crash, 1 crashes, 2 bad input, 130 Ctrl-C.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "claims/claim.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/table.h"
#include "fuzz/libfuzzer.h"
#include "fuzz/reproducer.h"

namespace cfsv::cli {

namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kExitInterrupted = 130;  // 128 + SIGINT
volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_sigint(int) { g_interrupted = 1; }

int list_targets(const std::string& bin_dir) {
  std::printf("fuzz targets (clang build: %s):\n", bin_dir.c_str());
  for (const std::string& t : fuzz::known_targets()) {
    std::error_code ec;
    const bool built = fs::is_regular_file(fs::path(bin_dir) / t, ec);
    const std::string corpus = fuzz::seed_corpus_dir(t);
    std::printf("  %-24s %-9s seed corpus: %s (%zu inputs)\n", t.c_str(), built ? "built" : "not built",
                corpus.empty() ? "none" : corpus.c_str(), corpus.empty() ? 0 : fuzz::count_files(corpus));
  }
  for (std::string_view target :
       {"fuzz_slice_claims", "fuzz_pelt_claims", "fuzz_sim_claims", "fuzz_balance_claims"}) {
    std::printf("%.*s takes --claim ID or FAMILY:", int(target.size()), target.data());
    for (const Claim& c : all_claims())
      if (fuzz_target(c.kind) == target) std::printf(" %.*s", int(c.id.size()), c.id.data());
    std::printf("\n");
  }
  return 0;
}

// The campaign's progress on stderr: one line, redrawn in place on a
// terminal, at most every 2 s (every 10 s as new lines otherwise).
class CampaignProgress {
 public:
  CampaignProgress(bool on, uint64_t budget_s) : on_(on), tty_(isatty(STDERR_FILENO)), budget_(budget_s) {}
  void update(const fuzz::FuzzProgress& p) { last_ = p, seen_ = true; }
  void draw() {
    const auto now = Clock::now();
    if (!on_ || now - drawn_at_ < std::chrono::seconds(tty_ ? 2 : 10)) return;
    drawn_at_ = now;
    const double t = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "%s[%4.0fs/%llus] ", tty_ ? "\r" : "", t, static_cast<unsigned long long>(budget_));
    if (seen_)
      std::fprintf(stderr, "%llu execs  %llu exec/s  cov %llu  corpus %llu  crashes %llu",
                   static_cast<unsigned long long>(last_.execs), static_cast<unsigned long long>(last_.exec_per_s),
                   static_cast<unsigned long long>(last_.cov), static_cast<unsigned long long>(last_.corpus_units),
                   static_cast<unsigned long long>(last_.crashes));
    else
      std::fprintf(stderr, "loading the corpus");
    std::fputs(tty_ ? "   " : "\n", stderr);
    drawn_ = true;
  }
  void clear() {
    if (drawn_ && tty_) std::fputc('\n', stderr);
    drawn_ = false;
  }

 private:
  bool on_, tty_, seen_ = false, drawn_ = false;
  uint64_t budget_;
  fuzz::FuzzProgress last_;
  Clock::time_point start_ = Clock::now(), drawn_at_ = start_;
};

// What a crash input shows: the target re-run on it alone.
struct Rerun {
  std::string lines;  // the counterexample, the error lines
  std::string what;   // what crashed: the target's failed check, else the SUMMARY line, else the first error line
  bool fails = true;
};
Rerun explain_crash(const std::string& exe, const std::string& file, const std::optional<std::string>& claim) {
  fuzz::ProcessSpec spec;
  spec.exe = exe;
  spec.args = {file};
  spec.timeout = std::chrono::seconds(30);
  if (claim)
    spec.set_env.emplace_back("CFSV_CLAIM", *claim);
  else
    spec.unset_env.push_back("CFSV_CLAIM");
  std::string lines, check, summary;
  Counterexample cx;
  spec.on_line = [&](std::string_view l) {
    if (parse_counterexample_line(l, cx)) return;
    const bool failed_check = l.find("check failed:") != l.npos;
    if (failed_check && check.empty()) check = l;
    if (l.starts_with("SUMMARY: ") && summary.empty()) summary = l.substr(9);
    if (failed_check || l.find("runtime error:") != l.npos || l.find("ERROR: AddressSanitizer") != l.npos)
      lines.append(l).push_back('\n');
  };
  const fuzz::ProcessResult r = fuzz::run_process(spec);
  if (!cx.empty()) lines = cx.claim + ": " + cx.summary + "\n" + format_counterexample(cx) + lines;
  if (r.ok()) lines += "(this input no longer fails when run alone)\n";
  else if (lines.empty()) lines += "(" + r.describe() + ", no error line)\n";
  std::string what = !check.empty() ? check : !summary.empty() ? summary : lines.substr(0, lines.find('\n'));
  return {lines, what, !r.ok()};
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One crash: minimised (<crash>.min), explained, and for an ops target
// written back as a scenario file next to it (<crash>.scn). False when it no
// longer fails.
bool report_crash(const fuzz::FuzzRun& run, const std::string& target, const std::string& crash,
                  uint64_t minimize_s, const std::optional<std::string>& claim) {
  std::string input = crash;
  std::printf("crash: %s (%zu bytes", crash.c_str(), read_bytes(crash).size());
  if (minimize_s > 0 && !g_interrupted) {
    std::fflush(stdout);
    const fuzz::Minimized m = fuzz::minimize_crash(run, crash, minimize_s, crash + ".min");
    if (m.smaller) input = crash + ".min";
    if (!m.error.empty()) std::printf("; not minimised: %s", m.error.c_str());
    else std::printf("; minimised%s to %zu bytes", m.smaller ? "" : ": no smaller input found, kept", m.bytes);
  }
  std::printf(")\n");
  const Rerun rerun = explain_crash(run.exe, input, claim);
  std::fputs(indented(rerun.lines, "  ").c_str(), stdout);
  const std::vector<uint8_t> bytes = read_bytes(input);
  if (const auto rep = fuzz::ops_reproducer(target, bytes, fs::path(input).filename().string(), rerun.what)) {
    const std::string scn = crash + ".scn";
    std::ofstream(scn, std::ios::binary) << rep->text;
    std::printf("  reproducer: %s (expect: %s)\n  replay: cfsv replay %s\n", scn.c_str(), rep->expect.c_str(),
                scn.c_str());
  }
  const std::string env = claim ? "CFSV_CLAIM=" + *claim + " " : "";
  std::printf("  reproduce: %s%s %s\n", env.c_str(), run.exe.c_str(), input.c_str());
  std::fflush(stdout);
  return rerun.fails;
}
}  // namespace

int cmd_fuzz(int argc, char** argv) {
  bool list = false, keep_going = false, merge = false, progress = false, quiet = false, reproducible = false;
  uint64_t seconds = 60, jobs = 1, seed = 1, runs = 0, minimize_s = 10;
  std::string corpus, crashes, claim, bin_dir = fuzz::default_bin_dir();
  std::vector<std::string> pos, given;
  ArgParser ap("fuzz", "A libFuzzer campaign on one fuzz target (see --list and docs/fuzzing.md).");
  ap.flag("list", &list, "list the fuzz targets and stop")
      .option("time", &seconds, "SECONDS", "time budget (default 60)")
      .option("jobs", &jobs, "N", "parallel fuzzing jobs, libFuzzer -fork=N (default 1)")
      .flag("keep-going", &keep_going, "go on after a crash (libFuzzer -fork with -ignore_crashes=1)")
      .option("minimize-time", &minimize_s, "SECONDS",
              "time to minimise each crash in, libFuzzer -minimize_crash=1 (default 10; 0: keep it as found)")
      .flag("merge", &merge,
            "afterwards, add the working corpus's new coverage to the checked-in fuzz/corpus/<target> "
            "(libFuzzer -merge=1: as few inputs as cover it)")
      .option("corpus", &corpus, "DIR",
              "working corpus, seeded from fuzz/corpus/<target> when empty (default cfsv-fuzz/<target>/corpus)")
      .option("crashes", &crashes, "DIR", "where crash inputs go (default cfsv-fuzz/<target>/crashes)")
      .option("seed", &seed, "N", "libFuzzer seed (default 1; printed)")
      .option("runs", &runs, "N", "stop after N executions (default: only the time budget)")
      .flag("reproducible", &reproducible,
            "the same executions on every machine: from the seed corpus, -use_cmp=0 -reload=0 (docs/fuzzing.md, "
            "\"What a seed fixes\"); one job, a new working corpus")
      .option("claim", &claim, "ID",
              "for fuzz_slice_claims, fuzz_pelt_claims, fuzz_sim_claims and fuzz_balance_claims: the claim, or a "
              "family of claims, to check (CFSV_CLAIM)")
      .option("bin-dir", &bin_dir, "DIR", "the clang build's fuzz/ directory (default: this build's)")
      .option("crash", &given, "FILE",
              "no campaign: report on this crash input (found elsewhere, e.g. by ClusterFuzzLite) as on one "
              "found here: minimise it, re-run it, write an ops target's scenario file; repeatable")
      .flag("progress", &progress, "show progress on stderr even when it is not a terminal")
      .flag("quiet", &quiet, "no progress on stderr, even on a terminal")
      .positionals("TARGET", &pos, "a fuzz target, e.g. fuzz_arith or arith", 0, 1);
  if (auto rc = ap.parse(argc, argv)) return *rc;
  if (list) return list_targets(bin_dir);
  if (pos.empty()) return ap.error("missing TARGET (cfsv fuzz --list shows them)");
  const std::optional<std::string> target = fuzz::resolve_target(pos[0]);
  if (!target) return ap.error("unknown fuzz target '" + pos[0] + "' (cfsv fuzz --list shows them)");
  if (seconds == 0) return ap.error("--time: must be at least 1 second");
  if (jobs == 0 || jobs > 256) return ap.error("--jobs: must be 1..256");
  if (progress && quiet) return ap.error("--progress and --quiet contradict each other");
  if (reproducible && (jobs > 1 || keep_going))
    return ap.error("--reproducible runs one process: not with --jobs or --keep-going (libFuzzer's fork mode)");
  std::optional<std::string> claim_env;
  if (!claim.empty()) {
    const std::vector<const Claim*> named = select_claims(claim);
    if (named.empty())
      return ap.error("--claim: '" + claim + "' names no claim or family of claims (cfsv claims lists them)");
    if (fuzz_target(named.front()->kind) != *target)
      return ap.error("--claim: '" + claim + "' is checked by " + std::string(fuzz_target(named.front()->kind)) +
                      ", not " + *target);
    claim_env = claim;
  }
  const std::string exe = (fs::path(bin_dir) / *target).string();
  std::error_code ec;
  if (!fs::is_regular_file(exe, ec))
    return ap.error("libFuzzer build not found at " + exe + "; configure with clang++-14");
  struct sigaction sa {}, old_sa{};
  sa.sa_handler = on_sigint;
  if (!given.empty()) {  // reports on inputs found elsewhere; no campaign
    if (merge || keep_going) return ap.error("--crash runs no campaign: --merge and --keep-going do not apply");
    for (const std::string& f : given)
      if (!fs::is_regular_file(f, ec)) return ap.error("--crash: no such file '" + f + "'");
    fuzz::FuzzRun run;
    run.exe = exe;
    run.claim = claim_env;
    run.interrupt = &g_interrupted;
    sigaction(SIGINT, &sa, &old_sa);
    bool fails = false;
    for (const std::string& f : given) fails |= report_crash(run, *target, f, minimize_s, claim_env);
    sigaction(SIGINT, &old_sa, nullptr);
    return g_interrupted ? kExitInterrupted : fails ? 1 : 0;
  }

  const fs::path work = fs::path("cfsv-fuzz") / *target;
  if (corpus.empty()) corpus = (work / "corpus").string();
  if (crashes.empty()) crashes = (work / "crashes").string();
  std::string err;
  const std::string seeds = fuzz::seed_corpus_dir(*target);
  const bool seeding = !fs::exists(corpus, ec) || fuzz::count_files(corpus) == 0;
  if (reproducible && !seeding)
    return ap.error("--reproducible starts from the seed corpus: the working corpus " + corpus +
                    " is not empty (--corpus names another)");
  // --reproducible: the seeds go in as -seed_inputs, not copied (FuzzRun::reproducible_from).
  if (!fuzz::copy_corpus(seeding && !reproducible ? seeds : "", corpus, &err) || !fuzz::copy_corpus("", crashes, &err))
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
  run.keep_going = keep_going;
  run.claim = claim_env;
  if (reproducible) run.reproducible_from = seeds;
  run.timeout = std::chrono::seconds(seconds + 60);  // libFuzzer stops itself; this is the backstop
  run.interrupt = &g_interrupted;

  std::printf("cfsv fuzz %s: seed %u, %llu s, %llu job%s%s%s%s\n", target->c_str(), run.seed,
              static_cast<unsigned long long>(seconds), static_cast<unsigned long long>(jobs), jobs > 1 ? "s" : "",
              keep_going ? ", going on after crashes" : "", claim_env ? ", claim " : "",
              claim_env ? claim_env->c_str() : "");
  const std::string origin = !seeding        ? ""
                             : seeds.empty() ? "; no seed corpus"
                             : reproducible  ? "; seeds from " + seeds + " as -seed_inputs"
                                             : "; seeded from " + seeds;
  std::printf("corpus %s (%zu inputs%s), crashes to %s\n", corpus.c_str(), corpus_before, origin.c_str(),
              crashes.c_str());
  std::fflush(stdout);

  CampaignProgress shown(!quiet && (progress || isatty(STDERR_FILENO)), seconds);
  run.on_progress = [&](const fuzz::FuzzProgress& p) { shown.update(p); };
  run.on_tick = [&] { shown.draw(); };
  sigaction(SIGINT, &sa, &old_sa);
  const fuzz::FuzzOutcome o = fuzz::run_libfuzzer(run);
  shown.clear();
  run.on_tick = nullptr;

  if (!o.process.started) {
    sigaction(SIGINT, &old_sa, nullptr);
    std::fprintf(stderr, "cfsv fuzz: cannot run %s: %s\n", exe.c_str(), o.process.error.c_str());
    return 2;
  }
  const double secs = o.process.seconds;
  const double rate = o.exec_per_s ? double(o.exec_per_s) : (secs > 0 ? double(o.execs) / secs : 0);
  std::printf("done: %llu executions in %.1f s (%.0f exec/s), corpus %zu inputs (%+lld), crashes %zu%s\n",
              static_cast<unsigned long long>(o.execs), secs, rate, o.corpus_units,
              static_cast<long long>(o.corpus_units) - static_cast<long long>(corpus_before), o.crash_files.size(),
              o.process.interrupted ? " (interrupted)" : "");
  for (const std::string& f : o.crash_files) report_crash(run, *target, f, minimize_s, claim_env);
  if (o.crashed && o.crash_files.empty()) {
    std::printf("the fuzzer failed (%s) without writing a crash input:\n  %s\n", o.process.describe().c_str(),
                o.error_line.empty() ? "(no error line)" : o.error_line.c_str());
  }
  if (merge && !g_interrupted) {
    const std::string into = fuzz::corpus_home(*target);
    fs::create_directories(into, ec);
    const fuzz::Merged m = fuzz::merge_corpus(run, into, {corpus});
    if (m.process.ok())
      std::printf("merged: %zu new input%s into %s\n", m.added, m.added == 1 ? "" : "s", into.c_str());
    else
      std::printf("merge into %s failed: %s\n", into.c_str(), m.process.describe().c_str());
  }
  sigaction(SIGINT, &old_sa, nullptr);
  if (g_interrupted) return kExitInterrupted;
  if (o.process.timed_out) {
    std::printf("the fuzzer did not stop by itself: %s\n", o.process.describe().c_str());
    return 1;
  }
  return o.crashed ? 1 : 0;
}

}  // namespace cfsv::cli
