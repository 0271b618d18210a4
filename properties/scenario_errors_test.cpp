// Scenario files that do not parse: each error with its exact line and
// column and a message that says what is wrong.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "properties/scenario_test_util.h"

namespace cfsv {
namespace {

using scenario_test::parse_err;

struct ErrorCase {
  const char* text;
  unsigned line, col;
  const char* message;  // a substring of the message
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << ::testing::PrintToString(std::string(c.text)); }

class ScenarioErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ScenarioErrors, NameTheLineAndColumn) {
  const ErrorCase& c = GetParam();
  const ParseError e = parse_err(c.text);
  EXPECT_EQ(e.file, "t.scn");
  EXPECT_EQ(e.line, c.line) << e.to_string();
  EXPECT_EQ(e.col, c.col) << e.to_string();
  EXPECT_NE(e.message.find(c.message), std::string::npos) << e.to_string();
}

INSTANTIATE_TEST_SUITE_P(
    All, ScenarioErrors,
    ::testing::Values(
        // statements and arguments
        ErrorCase{"run 1s\n  frobnicate 3\n", 2, 3, "unknown statement 'frobnicate'"},
        ErrorCase{"kernel\nrun 1s", 1, 7, "missing argument"},
        ErrorCase{"kernel v4.4 v5.15\nrun 1s", 1, 13, "unexpected 'v5.15'"},
        ErrorCase{"kernel v6.1\nrun 1s", 1, 8, "unknown kernel profile 'v6.1' (known: v3.10, v4.4, v5.15, v6.4)"},
        ErrorCase{"kernel v4.4\nkernel v4.4\nrun 1s", 2, 1, "duplicate 'kernel' statement (first at line 1)"},
        ErrorCase{"topology sockets=2\ntopology cores=2\nrun 1s", 2, 1, "duplicate 'topology'"},
        ErrorCase{"topology\nrun 1s", 1, 9, "missing argument"},
        ErrorCase{"topology cpus=4\nrun 1s", 1, 10, "unknown topology key 'cpus'"},
        ErrorCase{"topology cores=0\nrun 1s", 1, 16, "cores '0' is out of range [1, 256]"},
        ErrorCase{"topology cores=x\nrun 1s", 1, 16, "expected a number"},
        ErrorCase{"topology sockets=16 cores=32\nrun 1s", 1, 1, "512 CPUs; at most 256"},
        ErrorCase{"topology cores=2 cores=3\nrun 1s", 1, 18, "duplicate key 'cores'"},
        ErrorCase{"set\nrun 1s", 1, 4, "missing argument"},
        ErrorCase{"set hz\nrun 1s", 1, 5, "expected key=value, got 'hz'"},
        ErrorCase{"set hz=\nrun 1s", 1, 5, "expected key=value"},
        ErrorCase{"set =5\nrun 1s", 1, 5, "expected key=value"},
        ErrorCase{"set hz=1000 tick=4ms\nrun 1s", 1, 13, "unknown setting 'tick'"},
        ErrorCase{"set hz=0\nrun 1s", 1, 8, "hz '0' is out of range [1, 10000]"},
        ErrorCase{"set latency=18\nrun 1s", 1, 13, "missing unit"},
        ErrorCase{"set latency=50us\nrun 1s", 1, 13, "out of range [100us, 1s]"},
        ErrorCase{"set min_granularity=2.2500001ms\nrun 1s", 1, 21, "finer than a nanosecond"},
        ErrorCase{"set scaling=2\nrun 1s", 1, 13, "scaling must be none, log or linear"},
        ErrorCase{"feature flat_slice=yes\nrun 1s", 1, 20, "expected on or off, got 'yes'"},
        ErrorCase{"set autogroup=2\nrun 1s", 1, 15, "autogroup '2' is out of range [0, 1]"},
        // group lifecycle and autogroup ops
        ErrorCase{"at 1ms cgroup destroy /\nrun 1s", 1, 23, "the root group '/' cannot be destroyed"},
        ErrorCase{"at 1ms cgroup remove /a\nrun 1s", 1, 15, "unknown cgroup op 'remove' (expected destroy)"},
        ErrorCase{"at 1ms cgroup\nrun 1s", 1, 14, "missing argument; expected at <time> cgroup destroy /path"},
        ErrorCase{"group /a\nat 1ms cgroup destroy /a /b\nrun 1s", 2, 26, "unexpected '/b'"},
        ErrorCase{"at 1ms cgroup destroy /x\nrun 1s", 1, 23, "group '/x' does not exist at 1ms"},
        ErrorCase{"group /a\ngroup /a/b\nat 1ms cgroup destroy /a\nrun 1s", 3, 23,
                  "group '/a' has a child group '/a/b' at 1ms (line 2); destroy it first"},
        ErrorCase{"group /a\ntask t\nat 1ms cgroup destroy /a\nat 2ms move t /a\nrun 1s", 4, 15,
                  "group '/a' does not exist at 2ms"},
        ErrorCase{"group /a\nat 1ms cgroup destroy /a\nat 1ms cgroup destroy /a\nrun 1s", 3, 23,
                  "group '/a' does not exist at 1ms"},
        ErrorCase{"at 1ms setsid\nrun 1s", 1, 14, "missing argument; expected at <time> setsid TASK"},
        // tasks that wake tasks
        ErrorCase{"task b\ntask a run=busy wakes=b\nrun 1s", 2, 17, "wakes= needs run=<duration> or runtime=<duration>"},
        ErrorCase{"task a run=1ms wakes=a\nrun 1s", 1, 22, "task 'a' cannot wake itself"},
        ErrorCase{"task a run=1ms wakes=c\nrun 1s", 1, 22, "task 'c' (wakes=) is not in the file"},
        ErrorCase{"task a run=1ms sync=on\nrun 1s", 1, 16, "sync= needs wakes=NAME"},
        ErrorCase{"task a policy=fifo\nrun 1s", 1, 15, "expected a policy (normal, batch or idle), got 'fifo'"},
        ErrorCase{"task a policy=idle policy=batch\nrun 1s", 1, 20, "duplicate key 'policy'"},
        ErrorCase{"at 1ms idle / 1\nrun 1s", 1, 13, "no 'idle' op on the root group '/'"},
        ErrorCase{"group /a\nat 1ms idle /a yes\nrun 1s", 2, 16, "unknown idle op 'yes' (expected 0 or 1)"},
        ErrorCase{"at 1ms idle /x 1\nrun 1s", 1, 13, "group '/x' does not exist at 1ms"},
        ErrorCase{"group /a\nat 1ms idle /a\nrun 1s", 2, 15, "missing argument; expected at <time> idle /path 0|1"},
        ErrorCase{"task a run=1ns sleep=wait\nrun 1s", 1, 8, "run=1ns sleep=wait; a task that waits to be woken needs run >= 1us"},
        ErrorCase{"task b\ntask a run=1ms wakes=b,,c\nrun 1s", 2, 24, "wakes= needs task names separated by ','"},
        ErrorCase{"task b\ntask a run=1ms wakes=b sync=yes\nrun 1s", 2, 29, "expected on or off, got 'yes'"},
        // ttwu's optional last word
        ErrorCase{"task t\nat 1ms ttwu t 0 sink\nrun 1s", 2, 17, "unknown ttwu op 'sink' (expected sync or nothing)"},
        ErrorCase{"task t\nat 1ms ttwu t 0 sync now\nrun 1s", 2, 22, "unexpected 'now'; expected at <time> ttwu TASK N [sync]"},
        ErrorCase{"task t\nat 1ms ttwu t\nrun 1s", 2, 14, "missing argument; expected at <time> ttwu TASK N [sync]"},
        ErrorCase{"at 1ms setsid t\nrun 1s", 1, 15, "task 't' does not exist at 1ms"},
        ErrorCase{"task t\nat 1ms autogroup nice t 20\nrun 1s", 2, 25, "nice '20' is out of range [-20, 19]"},
        ErrorCase{"task t\nat 1ms autogroup renice t 3\nrun 1s", 2, 18, "unknown autogroup op 'renice' (expected nice)"},
        ErrorCase{"task t\nat 1ms autogroup nice t\nrun 1s", 2, 24, "missing argument; expected at <time> autogroup nice TASK N"},
        ErrorCase{"feature  flat_slices=on\nrun 1s", 1, 10, "unknown feature 'flat_slices'"},
        // The model makes no random choices: `seed` is gone, with a message that says so.
        ErrorCase{"seed 7\nrun 1s", 1, 1, "the 'seed' statement is gone: the model makes no random choices"},
        ErrorCase{"run 1s\nrun 2s", 2, 1, "duplicate 'run'"},
        ErrorCase{"run 0ms", 1, 5, "run duration '0ms' is out of range"},
        ErrorCase{"run 18446744073709551616ns", 1, 5, "too large"},
        ErrorCase{"run 1000000001s", 1, 5, "out of range [1ns, 1000000000s]"},
        ErrorCase{"run 1s 2s", 1, 8, "unexpected '2s'"},
        ErrorCase{"# nothing to run\n", 2, 1, "missing 'run <duration>'"},
        ErrorCase{"", 1, 1, "missing 'run <duration>'"},
        ErrorCase{"task a\ntask b", 2, 7, "missing 'run <duration>'"},
        // groups
        ErrorCase{"group\nrun 1s", 1, 6, "missing argument"},
        ErrorCase{"group g0\nrun 1s", 1, 7, "must start with '/'"},
        ErrorCase{"group /\nrun 1s", 1, 7, "root group"},
        ErrorCase{"group /a//b\nrun 1s", 1, 10, "bad group path"},
        ErrorCase{"group /a/\nrun 1s", 1, 10, "bad group path"},
        ErrorCase{"group /a/..\nrun 1s", 1, 10, "bad group path"},
        ErrorCase{"group /a$\nrun 1s", 1, 8, "bad group path"},
        ErrorCase{"group /a/b\nrun 1s", 1, 7, "parent group '/a' of '/a/b' does not exist"},
        ErrorCase{"group /a\ngroup /a\nrun 1s", 2, 7, "group '/a' already exists (line 1)"},
        ErrorCase{"group /a shares=1\nrun 1s", 1, 17, "shares '1' is out of range [2, 262144]"},
        ErrorCase{"group /a shares=262145\nrun 1s", 1, 17, "out of range"},
        ErrorCase{"group /a weight=0\nrun 1s", 1, 17, "weight '0' is out of range [1, 10000]"},
        ErrorCase{"group /a weight=10001\nrun 1s", 1, 17, "out of range"},
        ErrorCase{"group /a prio=3\nrun 1s", 1, 10, "unknown group key 'prio'"},
        ErrorCase{"group /a shares=2 weight=3\nrun 1s", 1, 19, "unexpected 'weight=3'"},
        // tasks
        ErrorCase{"task\nrun 1s", 1, 5, "missing argument"},
        ErrorCase{"task a/b\nrun 1s", 1, 6, "bad task name"},
        ErrorCase{"task a\ntask b\ntask a\nrun 1s", 3, 6, "duplicate task name 'a' (first at line 1)"},
        ErrorCase{"task a group=/g\nrun 1s", 1, 14, "unknown group '/g'"},
        // fork/exit churn
        ErrorCase{"task t fork=1ms\nrun 1s", 1, 8, "fork= needs child=<cpu time>"},
        ErrorCase{"task t child=1ms\nrun 1s", 1, 8, "child= and children= need fork=<interval>"},
        ErrorCase{"task t children=3\nrun 1s", 1, 8, "child= and children= need fork=<interval>"},
        ErrorCase{"task t fork=0 child=1ms\nrun 1s", 1, 13, "fork '0' is out of range"},
        ErrorCase{"task t fork=999ns child=1ms\nrun 1s", 1, 13, "fork '999ns' is out of range [1us"},
        ErrorCase{"task t fork=1ms child=0\nrun 1s", 1, 23, "child '0' is out of range"},
        ErrorCase{"task t fork=1ms child=2\nrun 1s", 1, 23, "missing unit"},
        ErrorCase{"task t fork=1ms child=1ms children=0\nrun 1s", 1, 36, "children '0' is out of range"},
        ErrorCase{"task t fork=1ms child=1ms children=x\nrun 1s", 1, 36, "expected a number"},
        ErrorCase{"task t\nat 1ms spawn u parent=t fork=1ms\nrun 1s", 2, 25, "fork= needs child="},
        ErrorCase{"task a group=/g\ngroup /g\nrun 1s", 1, 14, "unknown group '/g'"},
        ErrorCase{"task a group=g\nrun 1s", 1, 14, "must start with '/'"},
        ErrorCase{"task a nice=20\nrun 1s", 1, 13, "nice '20' is out of range [-20, 19]"},
        ErrorCase{"task a nice=-21\nrun 1s", 1, 13, "nice '-21' is out of range"},
        ErrorCase{"task a nice=+1\nrun 1s", 1, 13, "expected a nice value"},
        ErrorCase{"task a nice=1 nice=2\nrun 1s", 1, 15, "duplicate key 'nice'"},
        ErrorCase{"task a prio=1\nrun 1s", 1, 8, "unknown task key 'prio'"},
        ErrorCase{"task a run=busy sleep=1ms\nrun 1s", 1, 17, "run=busy never sleeps"},
        ErrorCase{"task a sleep=1ms\nrun 1s", 1, 8, "sleep= needs run=<duration> or runtime=<duration>"},
        ErrorCase{"task a run=1ms runtime=1ms\nrun 1s", 1, 16, "run= or runtime=, not both"},
        ErrorCase{"task a run=0ms\nrun 1s", 1, 12, "run '0ms' is out of range"},
        ErrorCase{"task a runtime=5\nrun 1s", 1, 16, "missing unit"},
        ErrorCase{"task a run=1ms sleep=2\nrun 1s", 1, 22, "missing unit"},
        ErrorCase{"task a run=sometimes\nrun 1s", 1, 12, "bad run 'sometimes'"},
        ErrorCase{"task a at=2s\nrun 1s", 1, 11, "time 2s is after the end of the run (run 1s, line 2)"},
        ErrorCase{"task a parent=a\nrun 1s", 1, 15, "task 'a' cannot be its own parent"},
        ErrorCase{"task a parent=b\nrun 1s", 1, 15, "unknown parent task 'b' (declare it with a task line before"},
        ErrorCase{"task a parent=b\ntask b\nrun 1s", 1, 15, "unknown parent task 'b'"},
        ErrorCase{"task a parent=b/c\nrun 1s", 1, 15, "bad parent task name 'b/c'"},
        ErrorCase{"task a parent=b at=2ms\nrun 1s", 1, 15, "task 'b' does not exist at 2ms"},
        ErrorCase{"task b at=3ms\nat 2ms spawn a parent=b\nrun 1s", 2, 23,
                  "task 'b' does not exist at 2ms (spawned at 3ms, line 1)"},
        // CPU lists (checked against the topology at the end of the file)
        ErrorCase{"task a cpus=\nrun 1s", 1, 8, "expected key=value"},
        ErrorCase{"task a cpus=0,,1\nrun 1s", 1, 15, "empty item in CPU list"},
        ErrorCase{"task a cpus=0,\nrun 1s", 1, 15, "empty item"},
        ErrorCase{"task a cpus=3-1\nrun 1s", 1, 13, "CPU range '3-1' goes backwards"},
        ErrorCase{"task a cpus=0-x\nrun 1s", 1, 13, "bad CPU list item"},
        ErrorCase{"task a cpus=1-2-3\nrun 1s", 1, 13, "bad CPU list item"},
        ErrorCase{"task a cpus=0,256\nrun 1s", 1, 15, "CPU '256' is out of range [0, 255]"},
        ErrorCase{"task a cpus=0-999\nrun 1s", 1, 15, "out of range [0, 255]"},
        ErrorCase{"topology cores=2\ntask a cpus=0,5-6,1\nrun 1s", 2, 17, "CPU 6 is not in the topology (CPUs 0-1, topology at line 1)"},
        ErrorCase{"task a cpus=1\nrun 1s", 1, 13, "(CPU 0 only; no topology line)"},
        ErrorCase{"task a cpus=3\ntopology cores=2\nrun 1s", 1, 13, "CPU 3 is not in the topology"},
        // timed ops
        ErrorCase{"at\nrun 1s", 1, 3, "missing argument"},
        ErrorCase{"at 5ms\nrun 1s", 1, 7, "missing argument; expected an op"},
        ErrorCase{"at 5 exit a\nrun 1s", 1, 4, "bad time '5': missing unit"},
        ErrorCase{"task a\nat 5ms kill a\nrun 1s", 2, 8, "unknown op 'kill'"},
        ErrorCase{"task a\nat 5ms exit\nrun 1s", 2, 12, "missing argument; expected at <time> exit TASK"},
        ErrorCase{"task a\nat 5ms exit a b\nrun 1s", 2, 15, "unexpected 'b'"},
        ErrorCase{"at 5ms exit a\nrun 1s", 1, 13, "task 'a' does not exist at 5ms"},
        ErrorCase{"at 5ms wake a\nat 7ms spawn a\nrun 1s", 1, 13, "does not exist at 5ms (spawned at 7ms, line 2)"},
        ErrorCase{"task a\nat 5ms spawn a\nrun 1s", 2, 14, "duplicate task name 'a' (first at line 1)"},
        ErrorCase{"at 5ms spawn a at=3ms\nrun 1s", 1, 16, "unknown task key 'at'"},
        ErrorCase{"at 5ms spawn a group=/x\nrun 1s", 1, 22, "group '/x' does not exist at 5ms"},
        ErrorCase{"task a\nat 5ms nice a 20\nrun 1s", 2, 15, "out of range [-20, 19]"},
        ErrorCase{"task a\nat 5ms nice a\nrun 1s", 2, 14, "missing argument"},
        ErrorCase{"task a\nat 5ms affinity a 0-1\nrun 1s", 2, 21, "CPU 1 is not in the topology"},
        ErrorCase{"at 5ms group /a/b\nrun 1s", 1, 14, "parent group '/a' of '/a/b' does not exist at 5ms"},
        ErrorCase{"at 5ms group /a/b\nat 6ms group /a\nrun 1s", 1, 14, "(created at 6ms, line 2)"},
        ErrorCase{"group /a\nat 5ms group /a\nrun 1s", 2, 14, "group '/a' already exists (line 1)"},
        ErrorCase{"at 5ms shares /a 100\nrun 1s", 1, 15, "group '/a' does not exist at 5ms"},
        ErrorCase{"at 5ms shares / 100\nrun 1s", 1, 15, "root group"},
        ErrorCase{"group /a\nat 5ms shares /a 1\nrun 1s", 2, 18, "shares '1' is out of range"},
        ErrorCase{"group /a\nat 5ms weight /a 0\nrun 1s", 2, 18, "weight '0' is out of range"},
        ErrorCase{"task a\nat 5ms move a /b\nrun 1s", 2, 15, "group '/b' does not exist at 5ms"},
        ErrorCase{"at 5ms move a /\nrun 1s", 1, 13, "task 'a' does not exist"},
        ErrorCase{"at 5ms advance\nrun 1s", 1, 15, "missing argument"},
        ErrorCase{"at 5ms advance 1\nrun 1s", 1, 16, "missing unit"},
        ErrorCase{"run 1s\nat 1.000000001s advance 1ns", 2, 4, "is after the end of the run"},
        // An advance ends within the run, and no op is before the clock it leaves.
        ErrorCase{"at 1ms advance 1000000000s\nrun 1s", 1, 16,
                  "advance 1000000000s from 1ms ends after the end of the run (run 1s, line 2)"},
        ErrorCase{"at 0 advance 1000000000s\nat 0 advance 1000000000s\nrun 1000000000s", 2, 4,
                  "time 0ns is before 1000000000s, where the advance at line 1 ends"},
        ErrorCase{"task a\nat 2ms advance 10ms\nat 5ms sleep a\nrun 20ms", 3, 4,
                  "time 5ms is before 12ms, where the advance at line 2 ends"},
        ErrorCase{"at 0 advance 10ms\nat 10ms advance 1ns\nrun 10ms", 2, 17, "advance 1ns from 10ms ends after"},
        // A task that sleeps repeats at least every microsecond.
        ErrorCase{"task a run=1ns sleep=0\nrun 1s", 1, 8,
                  "run=1ns sleep=0 repeats every 1ns; a task that sleeps needs run + sleep >= 1us"},
        ErrorCase{"task a runtime=1ns sleep=0\nrun 1s", 1, 8, "runtime + sleep >= 1us"},
        ErrorCase{"at 1ms spawn a nice=1 run=500ns sleep=499ns\nrun 1s", 1, 23, "repeats every 999ns"},
        // odd bytes
        ErrorCase{"run 1s\n\x01\xff", 2, 1, "unknown statement '\\x01\\xff'"}));

TEST(ScenarioErrors, ToStringIsFileLineColErrorMessage) {
  EXPECT_EQ((ParseError{"a.scn", 3, 7, "boom"}.to_string()), "a.scn:3:7: error: boom");
  EXPECT_EQ((ParseError{"a.scn", 0, 0, "cannot open: No such file or directory"}.to_string()),
            "a.scn: error: cannot open: No such file or directory");
}

TEST(ScenarioErrors, NulBytesAreOrdinaryBadBytes) {
  const std::string text("task a\0b\nrun 1s", 15);
  const ParseError e = parse_err(text);
  EXPECT_EQ(e.line, 1u);
  EXPECT_EQ(e.col, 6u);
  EXPECT_NE(e.message.find("\\x00"), std::string::npos) << e.message;
}

}  // namespace
}  // namespace cfsv
