// The built cfsv on inputs that used to crash or never end, and its
// process-level behaviour: stated limits with exit 2, output paths checked
// before a run, progress on stderr, Ctrl-C (SIGINT) with partial results and
// exit 130, rejected ops in the report, and strict expect lines.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "cli/tests/run.h"

namespace cfsv::cli {
namespace {

using test::Output;
using test::temp_path;
using test::validate;
using test::write_temp;
using namespace std::chrono_literals;

Output cfsv(std::vector<std::string> args) {
  args.insert(args.begin(), CFSV_BIN);
  return test::run(args);
}

// A scenario file in the test's directory; its path.
std::string scenario(const std::string& text, const std::string& suffix = ".scn") { return write_temp(suffix, text); }

// Starts cfsv, sends it SIGINT after `wait`, and returns its output and exit
// code (-signal when a signal ended it; -1 when it did not end in 60 s).
Output interrupted(std::vector<std::string> args, std::chrono::milliseconds wait) {
  args.insert(args.begin(), CFSV_BIN);
  const std::string out = temp_path(".out"), err = temp_path(".err");
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), STDOUT_FILENO);
    dup2(open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), STDERR_FILENO);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  std::this_thread::sleep_for(wait);
  kill(pid, SIGINT);
  int status = 0, code = -1;
  for (int i = 0; i < 600; ++i, std::this_thread::sleep_for(100ms))
    if (waitpid(pid, &status, WNOHANG) == pid) {
      code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
      break;
    }
  if (code == -1) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  return {code, test::read_file(out), test::read_file(err)};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- inputs that used to abort or run for days: exit 2 at once ------------

TEST(RunControl, TinyPeriodsAndAdvancesPastTheEndAreParseErrors) {
  const struct {
    std::string text, error;
  } cases[] = {
      {"task a run=1ns sleep=0\nrun 1s\n", ":1:8: error: run=1ns sleep=0 repeats every 1ns; a task that sleeps needs "
                                           "run + sleep >= 1us\n"},
      {"task a runtime=1ns sleep=0\nrun 1s\n", ":1:8: error: runtime=1ns sleep=0 repeats every 1ns"},
      {"task a\nat 1ms advance 1000000000s\nrun 1s\n",
       ":2:16: error: advance 1000000000s from 1ms ends after the end of the run (run 1s, line 3)\n"},
      {"task a\nat 1ms advance 10s\nrun 1s\n", ":2:16: error: advance 10s from 1ms ends after the end of the run"},
  };
  for (const auto& c : cases) {
    const std::string file = scenario(c.text);
    for (const char* cmd : {"run", "replay"}) {
      const Output r = cfsv({cmd, file});
      EXPECT_EQ(r.code, 2) << cmd << " " << c.text;
      EXPECT_TRUE(r.err.starts_with(file + c.error)) << r.err;
      EXPECT_EQ(r.out, "");
    }
  }
  std::string twenty;
  for (int i = 0; i < 20; ++i) twenty += "at 0 advance 1000000000s\n";
  const Output r = cfsv({"run", scenario(twenty + "run 1000000000s\n")});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, ":2:4: error: time 0ns is before 1000000000s, where the advance at line 1 ends")) << r.err;
}

TEST(RunControl, ARunNeedingMoreEventsThanTheLimitIsRefusedBeforeItStarts) {
  const std::string file = scenario("task a\nrun 1000000000s\n");
  for (const char* cmd : {"run", "replay"}) {
    const Output r = cfsv({cmd, file});
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_EQ(r.err, "cfsv " + std::string(cmd) + ": " + file +
                         ": the run needs about 1e+12 events (ticks, burst ends, wakeups) to simulate 1000000000s; "
                         "--max-events is 1000000000 (raise it, or 0 for no limit, or shorten the run)\n");
    EXPECT_EQ(r.out, "");
  }
  // Two tasks for 1000 s (a million ticks) are well within it, and finish.
  const Output ok = cfsv({"run", scenario("task a\ntask b\nrun 1000s\n", "_1000s.scn")});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(has(ok.out, "1000s simulated\n")) << ok.out;
}

TEST(RunControl, TheEventLimitStopsARunWhoseEstimateWasLow) {
  // The estimate counts each op once (about 52 events here), but each of
  // these wakeups starts a 1 ms burst: a tick and its end, two events more.
  std::string text = "task a run=1ms sleep=1s\n";
  for (int i = 1; i < 50; ++i) text += "at " + std::to_string(2 * i) + "ms wake a\n";
  const Output r = cfsv({"run", "--max-events", "60", scenario(text + "run 100ms\n")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.out, "simulated (stopped after 60 events (--max-events) at ")) << r.out;
  EXPECT_TRUE(has(r.err, "cfsv run: stopped after 60 events (--max-events) at ")) << r.err;
}

TEST(RunControl, InputsThatNeverEndAreReadUpTo16MiB) {
  for (const char* cmd : {"run", "replay"}) {
    const Output r = cfsv({cmd, "/dev/zero"});
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_EQ(r.err, "/dev/zero: error: file is larger than 16 MiB\n");
  }
}

TEST(RunControl, OutputPathsAreCheckedBeforeTheRun) {
  const std::string file = scenario("task a\nrun 10ms\n");
  Output r = cfsv({"run", "--perfetto", "", file});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "cfsv run: --perfetto: an empty path\n");
  r = cfsv({"run", "--perfetto=/nonexistent/dir/trace.json", file});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "cfsv run: --perfetto: cannot write '/nonexistent/dir/trace.json'\n");
  EXPECT_EQ(r.out, "");  // nothing ran
  r = cfsv({"verify", "--junit="});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "cfsv verify: --junit: an empty path\n");
  EXPECT_EQ(r.out, "");
}

// ---- progress and Ctrl-C -------------------------------------------------

// About a second or more of simulation.
std::string long_enough() { return scenario("task a\ntask b\nrun 4000s\n", "_long.scn"); }

TEST(RunControl, ProgressOnStderrOnlyWhenAskedOrOnATerminal) {
  const std::string file = long_enough();
  const Output shown = cfsv({"run", "--progress", file});
  EXPECT_EQ(shown.code, 0) << shown.err;
  EXPECT_TRUE(shown.err.starts_with("\r")) << shown.err;
  EXPECT_TRUE(has(shown.err, "s of 4000.000s simulated (")) << shown.err;
  EXPECT_TRUE(has(shown.err, " s/s, ETA ")) << shown.err;
  EXPECT_TRUE(shown.err.ends_with("\n")) << shown.err;  // the line is ended before the results
  for (const auto& args : {std::vector<std::string>{"run", file}, {"run", "--progress", "--quiet", file}}) {
    const Output quiet = cfsv(args);
    EXPECT_EQ(quiet.code, 0);
    EXPECT_EQ(quiet.err, "");
    EXPECT_EQ(quiet.out, shown.out);
  }
  const Output verify = cfsv({"verify", "--progress", "--engine=properties", "--budget=smoke", "--claim", "calc-delta"});
  EXPECT_EQ(verify.code, 0) << verify.err;
  EXPECT_EQ(verify.err, "\r[1/1] calc-delta/loop-equals-fls: properties\n");
  const Output proofs = cfsv({"verify", "--progress", "--engine=proofs", "--claim", "pelt-decay/bounded"});
  EXPECT_EQ(proofs.code, 0) << proofs.err;  // with the query the proofs engine asks
  EXPECT_TRUE(has(proofs.err, "\r[1/1] pelt-decay/bounded: proofs\r[1/1] pelt-decay/bounded: proofs: era v3.10\r"))
      << proofs.err;
}

// cfsv prove: the PELT proofs' query now asked, then a line per path decided.
TEST(RunControl, ProveShowsEachPathAsItIsDecidedOnlyWhenAskedOrOnATerminal) {
  const Output shown = cfsv({"prove", "--progress", "pelt-decay/bounded"});
  EXPECT_EQ(shown.code, 0) << shown.err;
  for (const char* era : {"v3.10", "v4.4", "v5.15"}) {
    const std::string path = std::string("pelt-decay/bounded: era ") + era;
    EXPECT_TRUE(has(shown.err, "\r" + path + "\n")) << shown.err;  // asked
    EXPECT_TRUE(has(shown.err, "\n" + path + ": proved in ")) << shown.err;  // decided
  }
  for (const auto& args : {std::vector<std::string>{"prove", "pelt-decay/bounded"},
                           {"prove", "--progress", "--quiet", "pelt-decay/bounded"}}) {
    const Output quiet = cfsv(args);
    EXPECT_EQ(quiet.code, 0);
    EXPECT_EQ(quiet.err, "");
  }
}

TEST(RunControl, CtrlCPrintsTheResultsSoFarAndExits130) {
  const std::string file = scenario("task a\ntask b\nrun 100000s\n", "_100000s.scn");
  const Output run = interrupted({"run", file}, 500ms);
  EXPECT_EQ(run.code, 130) << run.err;
  EXPECT_TRUE(has(run.out, "s simulated (interrupted at ")) << run.out;
  EXPECT_TRUE(has(run.out, "\ntask ")) << run.out;  // the per-task table of the time simulated
  EXPECT_TRUE(has(run.err, "cfsv run: interrupted at ")) << run.err;

  const Output json = interrupted({"run", "--json", file}, 500ms);
  EXPECT_EQ(json.code, 130);
  const std::string out = write_temp(".json", json.out);
  EXPECT_EQ(validate("value", out, {"end"}), "interrupted");
  EXPECT_LT(std::stoull(validate("value", out, {"duration_ns"})), 100000ull * 1'000'000'000);

  const Output replay = interrupted({"replay", file}, 500ms);
  EXPECT_EQ(replay.code, 130);
  EXPECT_TRUE(has(replay.out, ": expected pass (no expect line); the run so far (interrupted at ")) << replay.out;
}

TEST(RunControl, CtrlCDuringVerifyPrintsTheVerdictsItHasAndTheRestInterrupted) {
  const Output r = interrupted({"verify", "--engine=properties", "--budget=long"}, 1500ms);
  EXPECT_EQ(r.code, 130) << r.err;
  EXPECT_TRUE(has(r.out, "unknown: interrupted")) << r.out;
  EXPECT_TRUE(has(r.out, " engine verdicts, ")) << r.out;  // the whole table and its summary
  EXPECT_TRUE(has(r.err, "cfsv verify: interrupted; ")) << r.err;
}

// ---- the report: rejected ops --------------------------------------------

TEST(RunControl, RejectedOpsAreListedWithTheirLineTimeAndReason) {
  const std::string file = scenario(
      "task once run=1ms\n"
      "task busy\n"
      "at 5ms wake once\n"
      "at 6ms move once /\n"
      "run 10ms\n");
  const Output table = cfsv({"run", file});
  EXPECT_EQ(table.code, 0) << table.err;
  EXPECT_TRUE(has(table.out, "2 op(s) rejected, without effect:\n"
                             "  line 3, at 5ms: wake once: task 'once' has exited\n"
                             "  line 4, at 6ms: move once /: task 'once' has exited\n"))
      << table.out;
  const Output json = cfsv({"run", "--json", file});
  const std::string out = write_temp(".json", json.out);
  EXPECT_EQ(validate("value", out, {"rejected_ops.1.line"}), "4");
  EXPECT_EQ(validate("value", out, {"rejected_ops.1.t_ns"}), "6000000");
  EXPECT_EQ(validate("value", out, {"rejected_ops.1.op"}), "move once /");
  EXPECT_EQ(validate("value", out, {"rejected_ops.1.reason"}), "task 'once' has exited");
  EXPECT_EQ(validate("value", out, {"counters.ops_rejected"}), "2");
  EXPECT_EQ(validate("value", out, {"end"}), "finished");
}

// ---- expect lines ----------------------------------------------------------

TEST(RunControl, ExpectLinesThatDoNotParseAreErrors) {
  const struct {
    std::string first, error;
  } cases[] = {
      {"# expect pass", ":1:9: error: expected ':' after 'expect'"},
      {"#expect: pas", ":1:10: error: expected pass or violation <invariant>, got 'pas'"},
      {"# Expect: pass", ":1:3: error: expected 'expect', got 'Expect'"},
      {"# expects: pass", ":1:3: error: expected 'expect', got 'expects'"},
      {"# expect: violation load-equal-sum", ":1:21: error: unknown invariant 'load-equal-sum' (known: "},
      {"# expect: pass, I think", ":1:15: error: unexpected ', I think' after the verdict"},
      {"# a comment\n# expect: pass", ":2:1: error: an expect line must be the first line of the file"},
  };
  for (const auto& c : cases) {
    const std::string file = scenario(c.first + "\ntask a\nrun 1ms\n");
    const Output r = cfsv({"replay", file});
    EXPECT_EQ(r.code, 2) << c.first;
    EXPECT_TRUE(r.err.starts_with(file + c.error)) << r.err;
    EXPECT_EQ(r.out, "");
  }
  for (const char* good : {"# expect: pass", "#expect:pass", "  #  expect:  pass  "}) {
    const Output r = cfsv({"replay", "--require-expect", scenario(std::string(good) + "\ntask a\nrun 1ms\n")});
    EXPECT_EQ(r.code, 0) << good << r.err;
    EXPECT_TRUE(has(r.out, ": expected pass; the run shows pass (")) << r.out;
  }
  // regressions/ are replayed with --require-expect: a file without the line fails.
  const std::string none = scenario("task a\nrun 1ms\n");
  EXPECT_EQ(cfsv({"replay", none}).code, 0);
  const Output r = cfsv({"replay", "--require-expect", none});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, none + ":1:1: error: no `# expect: pass` or `# expect: violation <invariant>` line "
                          "(--require-expect)\n");
}

}  // namespace
}  // namespace cfsv::cli
