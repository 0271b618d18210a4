// Progress and Ctrl-C for the long-running commands (run, replay, verify).
// Progress is one line on stderr, rewritten in place (a carriage return) at
// most every 250 ms: shown when stderr is a terminal or with --progress, never
// with --quiet. SIGINT sets a flag that the command polls: it stops, prints
// the results it has and exits 130; a second Ctrl-C ends the process at once.
#pragma once
#include <atomic>
#include <chrono>
#include <string>
#include <string_view>

#include "cli/args.h"

namespace cfsv::cli {

constexpr int kExitInterrupted = 130;  // 128 + SIGINT, what shells report for Ctrl-C

// Installs the SIGINT handler; `note` (a string literal) goes to stderr at the
// first Ctrl-C.
void catch_sigint(const char* note);
const std::atomic<bool>& interrupted();

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  // Adds --progress and --quiet to p.
  void add_flags(ArgParser& p);
  bool enabled() const;
  // Whether to draw now: progress is on, and 250 ms passed since the last
  // draw (or since the first call, so that a quick run draws nothing).
  bool due();
  // Draws text now, when progress is on.
  void show(std::string_view text);
  // Ends the line, if one was drawn, so that what follows starts clean.
  void clear();

 private:
  bool progress_ = false, quiet_ = false;
  bool drawn_ = false;
  Clock::time_point last_{};
};

// "45s", "12m05s", "3h20m", "41d07h"; ">1000y" beyond.
std::string format_eta(double seconds);

}  // namespace cfsv::cli
