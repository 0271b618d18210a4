// Driving the clang-built libFuzzer targets from g++ code (fuzz::check_claim,
// `cfsv fuzz`): where they and their corpora are, one run with a seed and a
// budget, its progress and outcome parsed from libFuzzer's output; a crash
// input minimised, and a corpus merged, by the same binary.
#pragma once
#include <chrono>
#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "claims/counterexample.h"
#include "fuzz/subprocess.h"

namespace cfsv::fuzz {

// The clang sub-build's fuzz/ directory (CMake: CFSV_FUZZ_BIN_DIR).
std::string default_bin_dir();
// The fuzz targets of this source tree (fuzz/fuzz_*.cpp), sorted.
std::vector<std::string> known_targets();
// "arith" or "fuzz_arith" -> "fuzz_arith" when known; nullopt otherwise.
std::optional<std::string> resolve_target(std::string_view name);
// The checked-in seed corpus of a target: fuzz/corpus/<name without fuzz_>/
// (or fuzz/corpus/<target>/); "" when it has none.
std::string seed_corpus_dir(std::string_view target);
// Where the checked-in seed corpus of a target is, or goes when it has none yet.
std::string corpus_home(std::string_view target);
// The checked-in crash inputs, fuzz/regressions/<name>/; "" when none.
std::string regressions_dir(std::string_view target);
// libFuzzer's -seed is 32-bit and 0 means "random": fold a 64-bit seed into 1..2^32-1.
uint32_t libfuzzer_seed(uint64_t seed);
// Copies every regular file of `from` (if it exists) into `to` (created).
bool copy_corpus(const std::string& from, const std::string& to, std::string* error);
std::size_t count_files(const std::string& dir);

// One progress line of libFuzzer ("#N  pulse cov: .. corp: U/B .. exec/s: E",
// or fork mode's "#N: cov: .. corp: U exec/s E .. time: Ts").
struct FuzzProgress {
  uint64_t execs = 0;
  uint64_t exec_per_s = 0;
  uint64_t corpus_units = 0;
  uint64_t cov = 0;
  uint64_t crashes = 0;  // fork mode's count ("oom/timeout/crash: a/b/c"); run_libfuzzer: crash inputs so far
  std::string event;     // INITED, NEW, REDUCE, pulse, DONE, fork
};
std::optional<FuzzProgress> parse_progress(std::string_view line);

// The [libfuzzer] section of `<exe>.options` (OSS-Fuzz's per-target
// options file, put next to the binary by the build) as -flag=value
// arguments; none when the file is missing.
std::vector<std::string> libfuzzer_options(const std::string& exe);

struct FuzzRun {
  std::string exe;                    // the target binary
  std::vector<std::string> corpus;    // the first one receives new inputs
  std::string artifact_dir;           // crash-* files go here
  std::string work_dir;               // the child's cwd
  uint32_t seed = 1;
  uint64_t runs = 0;                  // -runs; 0: unlimited
  uint64_t max_total_time = 0;        // seconds; 0: unlimited
  unsigned jobs = 1;                  // > 1 (or keep_going): -fork=jobs
  bool keep_going = false;            // go on after a crash: -fork with -ignore_crashes=1
  std::optional<std::string> claim;   // CFSV_CLAIM; nullopt: unset
  std::optional<std::string> budget;  // CFSV_BUDGET; nullopt: unset (the target's default)
  // Set: a reproducible run, the same executions in every process, seeded
  // from this directory (-runs and -seed fix the rest). Its files go in as
  // -seed_inputs in name order: libFuzzer runs a directory's equal-size
  // files in the order the file system lists them. -use_cmp=0: the table of
  // recent comparisons holds pointers, which ASLR moves. -reload=0: a reload
  // is timed. The build's part: -fno-sanitize=vptr (fuzz/CMakeLists.txt).
  std::optional<std::string> reproducible_from;
  std::chrono::milliseconds timeout{60'000};
  std::function<void(const FuzzProgress&)> on_progress;
  std::function<void(std::string_view)> on_line;
  std::function<void()> on_tick;  // ProcessSpec::on_tick
  const volatile std::sig_atomic_t* interrupt = nullptr;
};

struct FuzzOutcome {
  ProcessResult process;
  bool crashed = false;                     // a failed check, sanitizer report or deadly signal
  std::vector<std::string> crash_files;     // "Test unit written to ...", and new files in artifact_dir
  std::optional<Counterexample> counterexample;  // the first one a target reported (cfsv-counterexample lines)
  std::string error_line;                   // the first "ERROR:" / "check failed:" / "runtime error:" line
  uint64_t execs = 0;
  uint64_t exec_per_s = 0;
  uint64_t corpus_units = 0;
  std::vector<std::string> args;  // what it ran, after exe
};

FuzzOutcome run_libfuzzer(const FuzzRun& run);

// libFuzzer's -minimize_crash=1 on one crash input within `seconds`, in a
// temporary directory; `like` gives the binary and its environment. The
// smallest input found that still crashes the same way is copied to `out`.
struct Minimized {
  ProcessResult process;
  bool smaller = false;     // a smaller input was found (and written to out)
  std::size_t bytes = 0;    // the size of the result (the input's when !smaller)
  std::string error;        // why it could not run
};
Minimized minimize_crash(const FuzzRun& like, const std::string& input, uint64_t seconds, const std::string& out);

// libFuzzer's -merge=1: the inputs of `from` that add coverage to what `into`
// already has, as few as cover it, are copied into `into`.
struct Merged {
  ProcessResult process;
  std::size_t added = 0;
};
Merged merge_corpus(const FuzzRun& like, const std::string& into, const std::vector<std::string>& from);

}  // namespace cfsv::fuzz
