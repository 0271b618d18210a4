// Tests of the fuzz engine's g++ side: the subprocess runner, libFuzzer output
// parsing, and fuzz::check_claim (against the clang build when
// CFSV_TEST_LIBFUZZER=1). Plain main(): every failed CHECK is printed; exit 1.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/claim_checks.h"
#include "fuzz/libfuzzer.h"
#include "fuzz/subprocess.h"

namespace {
int failures = 0;
#define CHECK(c)                                                        \
  do {                                                                  \
    if (!(c)) {                                                         \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
      ++failures;                                                       \
    }                                                                   \
  } while (0)

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

using namespace cfsv;
using namespace cfsv::fuzz;

void subprocess_tests() {
  ProcessSpec spec;
  spec.exe = "/bin/sh";
  spec.args = {"-c", "echo out; echo err >&2; printf 'last'; exit 3"};
  int lines = 0;
  spec.on_line = [&](std::string_view) { ++lines; };
  ProcessResult r = run_process(spec);
  CHECK(r.started && r.exit_code == 3 && !r.ok());
  CHECK(r.output == "out\nerr\nlast\n");
  CHECK(lines == 3);

  spec = {};
  spec.exe = "/bin/sleep";
  spec.args = {"30"};
  spec.timeout = std::chrono::milliseconds(300);
  r = run_process(spec);
  CHECK(r.timed_out && r.seconds < 5 && contains(r.describe(), "timed out"));

  spec = {};
  spec.exe = "/nonexistent/binary";
  r = run_process(spec);
  CHECK(!r.started && contains(r.describe(), "/nonexistent/binary"));

  spec = {};
  spec.exe = "/usr/bin/env";
  spec.set_env = {{"CFSV_ENGINE_TEST", "yes"}};
  spec.unset_env = {"HOME"};
  TempDir dir("cfsv-engine-test-");
  spec.cwd = dir.path();
  r = run_process(spec);
  CHECK(r.ok() && contains(r.output, "CFSV_ENGINE_TEST=yes\n") && !contains(r.output, "\nHOME="));
}

void parse_tests() {
  auto p = parse_progress("#65536\tpulse  cov: 61 ft: 130 corp: 27/406b lim: 21 exec/s: 21845 rss: 34Mb");
  CHECK(p && p->execs == 65536 && p->cov == 61 && p->corpus_units == 27 && p->exec_per_s == 21845 &&
        p->event == "pulse");
  p = parse_progress("#720095: cov: 357 ft: 339 corp: 74 exec/s 84981 oom/timeout/crash: 0/0/0 time: 6s job: 3");
  CHECK(p && p->execs == 720095 && p->event == "fork" && p->corpus_units == 74 && p->exec_per_s == 84981);
  CHECK(!parse_progress("INFO: Seed: 1"));
  CHECK(!parse_progress("#include"));
  CHECK(libfuzzer_seed(1) == 1 && libfuzzer_seed(0) != 0 && libfuzzer_seed(uint64_t{1} << 32) != 0);
  CHECK(resolve_target("arith") == "fuzz_arith" && resolve_target("fuzz_slice_claims") == "fuzz_slice_claims");
  CHECK(!resolve_target("nope") && !seed_corpus_dir("fuzz_arith").empty());
}

void check_claim_tests() {
  const Claim* hier = claim_by_id("slice-min-granularity/hierarchical");
  const Claim* flat = claim_by_id("slice-min-granularity/flat");
  const Claim* base = claim_by_id("slice-min-granularity/base_slice");
  CHECK(hier && flat && base);
  if (!hier || !flat || !base) return;
  CheckConfig missing;
  missing.fuzz_bin_dir = "/nonexistent";
  EngineResult r = check_claim(*hier, missing);
  CHECK(r.verdict == Verdict::unknown &&
        r.detail == "libFuzzer build not found at /nonexistent/fuzz_slice_claims; configure with clang++-14");
  Claim other = *hier;
  other.id = "some-other-claim";
  CHECK(check_claim(other, {}).verdict == Verdict::unknown);

  if (!std::getenv("CFSV_TEST_LIBFUZZER")) {
    std::printf("no libFuzzer build: check_claim against the real target skipped\n");
    return;
  }
  CheckConfig smoke;
  smoke.budget = Budget::smoke;
  r = check_claim(*hier, smoke);
  std::printf("hierarchical: %s: %s\n%s", std::string(to_string(r.verdict)).c_str(), r.detail.c_str(),
              r.reproducer.c_str());
  CHECK(r.verdict == Verdict::refuted && contains(r.reproducer, "counterexample: level 0") &&
        contains(r.reproducer, "input (hex): "));
  r = check_claim(*flat, smoke);
  std::printf("flat: %s: %s\n", std::string(to_string(r.verdict)).c_str(), r.detail.c_str());
  CHECK(r.verdict == Verdict::refuted);
  r = check_claim(*base, smoke);
  std::printf("base_slice: %s: %s\n", std::string(to_string(r.verdict)).c_str(), r.detail.c_str());
  CHECK(r.verdict == Verdict::passed && contains(r.detail, "execs in"));
  CheckConfig tiny = smoke;
  tiny.budget = Budget::long_;
  tiny.timeout_ms = 1500;  // far below the long budget: must be killed, not hang
  r = check_claim(*base, tiny);
  CHECK(r.verdict == Verdict::unknown && contains(r.detail, "timed out") && r.seconds < 10);
}
}  // namespace

int main() {
  subprocess_tests();
  parse_tests();
  check_claim_tests();
  if (failures) std::fprintf(stderr, "%d check(s) failed\n", failures);
  else std::printf("all engine checks passed\n");
  return failures ? 1 : 0;
}
