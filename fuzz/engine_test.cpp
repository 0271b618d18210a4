// Tests of the fuzz engine's g++ side: the subprocess runner, libFuzzer output
// parsing, the counterexample a target reports read back as data, an ops
// target's input written back as a scenario file, and fuzz::check_claim and
// -merge (against the clang build when CFSV_TEST_LIBFUZZER=1).
// Plain main(): every failed CHECK is printed; exit 1.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz/claim_checks.h"
#include "fuzz/libfuzzer.h"
#include "fuzz/ops_input.h"
#include "fuzz/reproducer.h"
#include "fuzz/subprocess.h"
#include "model/deterministic_random.h"
#include "model/scenario_text.h"

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
  p = parse_progress("#1310720: cov: 1815 ft: 9603 corp: 612 exec/s 2201 oom/timeout/crash: 0/1/3 time: 61s job: 9");
  CHECK(p && p->execs == 1310720 && p->crashes == 3 && p->cov == 1815);
  CHECK(!parse_progress("INFO: Seed: 1"));
  CHECK(!parse_progress("#include"));
  CHECK(libfuzzer_seed(1) == 1 && libfuzzer_seed(0) != 0 && libfuzzer_seed(uint64_t{1} << 32) != 0);
  CHECK(resolve_target("arith") == "fuzz_arith" && resolve_target("fuzz_slice_claims") == "fuzz_slice_claims");
  CHECK(!resolve_target("nope") && !seed_corpus_dir("fuzz_arith").empty());
}

// A target's report: serialized lines on stderr, read back by the runner.
void report_tests() {
  const Counterexample cx{"slice-min-granularity/flat", "sched_slice 2249996 ns < min_granularity 2250000 ns",
                          "", {{"depth", "1"}, {"era", "v5.7"}}, {{{"weight", "1048576"}, {"slice", "2249996"}}}, ""};
  Counterexample back;
  std::size_t lines = 0;
  const std::string text = serialize(cx);
  for (std::size_t at = 0; at < text.size(); at = text.find('\n', at) + 1) {
    CHECK(parse_counterexample_line(text.substr(at, text.find('\n', at) - at), back));
    ++lines;
  }
  CHECK(lines == 4 && back.claim == cx.claim && back.summary == cx.summary && back.values.size() == 2 &&
        back.values[1].text == "v5.7" && back.levels.size() == 1 && back.levels[0][1].text == "2249996");
  CHECK(!parse_counterexample_line("counterexample: not the protocol", back));

  // The runner keeps the first complete report of a run, whatever else is printed around it.
  TempDir dir("cfsv-engine-test-");
  const std::string script = dir.path() + "/target.sh";
  std::FILE* f = std::fopen(script.c_str(), "w");
  std::fprintf(f, "#!/bin/sh\nprintf 'INFO: noise\n%s%s' >&2\nexit 1\n", text.c_str(), text.c_str());
  std::fclose(f);
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  FuzzRun run;  // libFuzzer's flags go to the script, which ignores them
  run.exe = script;
  run.artifact_dir = dir.path();
  const FuzzOutcome o = run_libfuzzer(run);
  CHECK(o.crashed && o.counterexample && o.counterexample->summary == cx.summary &&
        o.counterexample->levels.size() == 1);
}

// <exe>.options: its [libfuzzer] section comes first on the command line
// (so the command's own flags win); other sections and comments do not.
void options_tests() {
  TempDir dir("cfsv-engine-test-");
  const std::string exe = dir.path() + "/target";
  CHECK(libfuzzer_options(exe).empty());
  std::FILE* f = std::fopen((exe + ".options").c_str(), "w");
  std::fprintf(f, "# comment = 1\n[asan]\ndetect_leaks=0\n[libfuzzer]\n use_counters = 0 \n\nmax_len=64\n[afl]\nx=1\n");
  std::fclose(f);
  CHECK((libfuzzer_options(exe) == std::vector<std::string>{"-use_counters=0", "-max_len=64"}));
  FuzzRun run;
  run.exe = exe;  // not executable: the run fails to start, its arguments are still kept
  run.artifact_dir = dir.path();
  const FuzzOutcome o = run_libfuzzer(run);
  CHECK(o.args.size() > 3 && o.args[0] == "-use_counters=0" && o.args[1] == "-max_len=64" &&
        o.args[2].starts_with("-seed="));
}

// An ops target's input written back as a scenario file: the decoded
// scenario under an expect line. The real model keeps every invariant, so
// these expect pass and quote the crash they are given.
void reproducer_tests() {
  const std::vector<uint8_t> in{2, 1, 1, 3, 0, 2, 1, 1, 7, 0, 4, 1, 9, 9, 3, 1, 2, 0, 6, 5, 1, 1, 4, 8, 2};
  auto rep = ops_reproducer("fuzz_ops", in, "crash-x", "AddressSanitizer: heap-buffer-overflow in f()");
  CHECK(rep && rep->expect == "pass");
  if (!rep) return;
  CHECK(rep->text.starts_with("# expect: pass\n# fuzz_ops input crash-x (25 bytes) crashed the target:\n"
                              "#   AddressSanitizer: heap-buffer-overflow in f()\n"));
  const ParseResult back = parse_scenario(rep->text);
  CHECK(std::holds_alternative<Scenario>(back) && std::get<Scenario>(back) == ops_scenario(in, kOpsOptions));
  CHECK(!ops_reproducer("fuzz_arith", in, "crash-x", ""));
  rep = ops_reproducer("fuzz_flat_slice_diff", in, "crash-y", std::string(400, 'x') + "\nsecond line");
  CHECK(rep && rep->expect == "pass" && contains(rep->text, "flat_slice=off") && !contains(rep->text, "second line") &&
        contains(rep->text, "\n#   " + std::string(237, 'x') + "...\n"));
  // fuzz_balance_ops decodes the same bytes with balancing on, on 2..8 CPUs.
  rep = ops_reproducer("fuzz_balance_ops", in, "crash-z", "");
  CHECK(rep && contains(rep->text, "load_balance=on kernel_placement=on") && contains(rep->text, "newidle_cost="));
  if (!rep) return;
  const ParseResult balance = parse_scenario(rep->text);
  CHECK(std::holds_alternative<Scenario>(balance) &&
        std::get<Scenario>(balance) == ops_scenario(in, kBalanceOpsOptions) &&
        std::get<Scenario>(balance).topology.nr_cpus() >= 2);
}

// fuzz::run_ops, fuzz_ops' execution: a state broken by an op (on the CPU the
// op touched) is seen by the check after that op, though that check looks
// only at the touched CPUs; an op that leaves the state as the last check saw
// it (here: advances, with no task to make an event) is not checked again.
void run_ops_tests() {
  std::vector<uint8_t> bytes(1024);
  DeterministicRandom rng(5);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.below(256));
  Scenario setup;
  OpsDecoder<ByteReader> decoder;
  ByteReader r(bytes.data(), bytes.size());
  Nanos broken_at = 0;
  unsigned spawns = 0;
  std::unique_ptr<Sim> reused;
  const Sim* sim = &run_ops(decoder, r, setup, reused, [&](Sim& s, const Op& op) {
    const auto* spawn = std::get_if<op::Spawn>(&op);
    if (spawn && ++spawns == 2) {  // the second spawn: past the set-up's check
      const CpuId cpu = s.tasks()[s.task_index(spawn->task.name)].cpu;  // where the child went
      s.mutable_cfs_rq(s.groups()[kRootGroup].cfs_rq[cpu]).load_weight += 1;
      broken_at = s.now();
    }
  });
  CHECK(spawns >= 2 && !sim->checker()->ok());
  if (!sim->checker()->ok()) {
    const Violation& v = sim->checker()->violations().front();
    // "op": the check after it; "spawn tN": the every-16th-step check, when it fell on that op
    CHECK(v.invariant == "load-equals-sum" && (v.step == "op" || v.step.starts_with("spawn ")) && v.t == broken_at);
  }

  DecodeOptions nothing;  // no task, no group, no hotplug: every op is an advance, and no event happens
  nothing.max_tasks = nothing.max_groups = 0;
  nothing.hotplug = false;
  OpsDecoder<ByteReader> advances(nothing);
  ByteReader r2(bytes.data(), bytes.size());
  unsigned ops = 0;
  const Sim* quiet = &run_ops(advances, r2, setup, reused, [&](const Sim&, const Op& op) {
    ops += std::holds_alternative<op::Advance>(op) ? 1 : 100;
  });
  // The set-up, every 16th step (the set-up is the first, each op one), the end.
  CHECK(ops == 64 && quiet->counters().events == 0 && quiet->checker()->checks() == 1 + (1 + ops) / 16 + 1);
  CHECK(quiet == sim && quiet->checker()->ok());  // the same Sim, reset: the first run's violation is gone
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
  Claim changed = *hier;  // the target would check the registry's record, not this one
  changed.features.set(Feature::flat_slice);
  r = check_claim(changed, {});
  CHECK(r.verdict == Verdict::unknown && contains(r.detail, "not a record of claims/registry.cpp"));

  if (!std::getenv("CFSV_TEST_LIBFUZZER")) {
    std::printf("no libFuzzer build: check_claim against the real target skipped\n");
    return;
  }
  CheckConfig smoke;
  smoke.budget = Budget::smoke;
  r = check_claim(*hier, smoke);
  std::printf("hierarchical: %s: %s\n%s", std::string(to_string(r.verdict)).c_str(), r.detail.c_str(),
              r.reproducer.c_str());
  CHECK(r.verdict == Verdict::refuted && contains(r.reproducer, "level 0 (task): weight=") &&
        contains(r.reproducer, "input (hex): ") && r.counterexample.claim == hier->id &&
        r.detail.starts_with(r.counterexample.summary));
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

  // A reproducible run (claim checks at smoke and ci) makes the same
  // executions in every process: fuzz_sim_claims, whose coverage moved with
  // ASLR (UBSan's vptr cache) and whose campaign with the seeds copied and
  // comparison-table mutations on differed from run to run, prints the same
  // progress lines twice, and from a copy of its seeds elsewhere (400
  // executions: without it, runs parted before the 100th).
  TempDir runs("cfsv-engine-test-");
  const auto progress_of = [&](const std::string& name, const std::string& seeds) {
    FuzzRun run;
    run.exe = default_bin_dir() + "/fuzz_sim_claims";
    run.work_dir = runs.path();
    run.corpus = {runs.path() + "/" + name};
    run.artifact_dir = runs.path() + "/" + name + "-crashes";
    std::filesystem::create_directories(run.corpus.front());
    std::filesystem::create_directories(run.artifact_dir);
    run.runs = 400;
    run.reproducible_from = seeds;
    std::string lines;
    run.on_progress = [&](const FuzzProgress& p) {  // not "pulse": printed 2 s on
      if (p.event == "pulse") return;
      lines += std::to_string(p.execs) + " " + p.event + " " + std::to_string(p.cov) + " " +
               std::to_string(p.corpus_units) + "\n";
    };
    const FuzzOutcome o = run_libfuzzer(run);
    CHECK(o.process.ok() && !o.crashed);
    return lines;
  };
  const std::string moved = runs.path() + "/seeds";
  std::filesystem::copy(seed_corpus_dir("fuzz_sim_claims"), moved);
  const std::string first = progress_of("a", seed_corpus_dir("fuzz_sim_claims"));
  const auto lines = std::count(first.begin(), first.end(), '\n');
  std::printf("reproducible: %td progress lines\n", lines);
  CHECK(lines > 20);
  CHECK(progress_of("b", seed_corpus_dir("fuzz_sim_claims")) == first);
  CHECK(progress_of("c", moved) == first);

  // -merge=1 through the runner: the seed corpus into an empty directory keeps
  // the inputs that add coverage (at least one, at most all); merging the same
  // inputs again adds none.
  TempDir dir("cfsv-engine-test-");
  const std::string into = dir.path() + "/into";
  std::filesystem::create_directories(into);
  FuzzRun like;
  like.exe = default_bin_dir() + "/fuzz_ops";
  Merged m = merge_corpus(like, into, {seed_corpus_dir("fuzz_ops")});
  const std::size_t seeds = count_files(seed_corpus_dir("fuzz_ops"));
  std::printf("merge: %s, %zu of %zu seeds added\n", m.process.describe().c_str(), m.added, seeds);
  CHECK(m.process.ok() && m.added >= 1 && m.added <= seeds && count_files(into) == m.added);
  m = merge_corpus(like, into, {seed_corpus_dir("fuzz_ops")});
  CHECK(m.process.ok() && m.added == 0);
}
}  // namespace

int main() {
  subprocess_tests();
  parse_tests();
  report_tests();
  options_tests();
  reproducer_tests();
  run_ops_tests();
  check_claim_tests();
  if (failures) std::fprintf(stderr, "%d check(s) failed\n", failures);
  else std::printf("all engine checks passed\n");
  return failures ? 1 : 0;
}
