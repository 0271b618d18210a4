// Running a child process with a wall-clock limit: posix_spawn (no shell),
// its own process group (so libFuzzer's -fork workers are killed with it),
// stdout and stderr captured through one pipe and handed over line by line.
// The one place cfsv starts processes (fuzz::check_claim, `cfsv fuzz`).
#pragma once
#include <chrono>
#include <csignal>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cfsv::fuzz {

struct ProcessSpec {
  std::string exe;                // a path; not looked up in PATH
  std::vector<std::string> args;  // argv[1..]
  std::vector<std::pair<std::string, std::string>> set_env;
  std::vector<std::string> unset_env;
  std::string cwd;  // "": inherit
  std::chrono::milliseconds timeout{60'000};
  // Called with each output line (no newline), as it arrives.
  std::function<void(std::string_view)> on_line;
  // Called at least every 100 ms while the child runs (e.g. to redraw progress).
  std::function<void()> on_tick;
  // Polled; when it becomes non-zero the child's group gets SIGINT (libFuzzer
  // then stops and prints its final stats), and SIGKILL 5 s later.
  const volatile std::sig_atomic_t* interrupt = nullptr;
};

struct ProcessResult {
  bool started = false;
  std::string error;        // why it did not start
  int exit_code = -1;       // when it exited
  int signal = 0;           // when a signal ended it
  bool timed_out = false;   // killed at the deadline
  bool interrupted = false;
  double seconds = 0;
  std::string output;       // stdout and stderr interleaved (the last 4 MiB)
  bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
  std::string describe() const;  // "exit 0", "signal 9", "timed out after 3.0 s", ...
};

ProcessResult run_process(const ProcessSpec& spec);

// A fresh directory under $TMPDIR (or /tmp), removed with the object.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  bool ok() const { return !path_.empty(); }

 private:
  std::string path_;
};

}  // namespace cfsv::fuzz
