#include "cli/progress.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace cfsv::cli {

namespace {
std::atomic<bool> g_interrupted{false};
const char* g_note = "";
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler needs a lock-free flag");

void on_sigint(int) {
  if (g_interrupted.exchange(true)) {  // the second Ctrl-C: the default action, at once
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
    return;
  }
  const ssize_t n = write(STDERR_FILENO, g_note, std::strlen(g_note));
  (void)n;
}

bool stderr_is_a_terminal() {
  static const bool tty = isatty(STDERR_FILENO) == 1;
  return tty;
}
}  // namespace

void catch_sigint(const char* note) {
  g_note = note;
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

const std::atomic<bool>& interrupted() { return g_interrupted; }

void ProgressLine::add_flags(ArgParser& p) {
  p.flag("progress", &progress_, "show progress on stderr even when it is not a terminal");
  p.flag("quiet", &quiet_, "no progress on stderr, even on a terminal");
}

bool ProgressLine::enabled() const { return !quiet_ && (progress_ || stderr_is_a_terminal()); }

bool ProgressLine::due() {
  if (!enabled()) return false;
  const Clock::time_point now = Clock::now();
  if (last_ == Clock::time_point{}) last_ = now;
  return now - last_ >= std::chrono::milliseconds(250);
}

void ProgressLine::show(std::string_view text) {
  if (!enabled()) return;
  last_ = Clock::now();
  drawn_ = true;
  std::cerr << (stderr_is_a_terminal() ? "\r\033[K" : "\r") << text << std::flush;
}

void ProgressLine::clear() {
  if (!drawn_) return;
  drawn_ = false;
  std::cerr << (stderr_is_a_terminal() ? "\r\033[K" : "\n") << std::flush;
}

std::string format_eta(double seconds) {
  if (!(seconds < 1000 * 365.25 * 86400)) return ">1000y";  // also NaN
  const auto s = static_cast<unsigned long long>(seconds < 0 ? 0 : seconds);
  char b[40];
  if (s < 60) std::snprintf(b, sizeof b, "%llus", s);
  else if (s < 3600) std::snprintf(b, sizeof b, "%llum%02llus", s / 60, s % 60);
  else if (s < 86400) std::snprintf(b, sizeof b, "%lluh%02llum", s / 3600, s % 3600 / 60);
  else std::snprintf(b, sizeof b, "%llud%02lluh", s / 86400, s % 86400 / 3600);
  return b;
}

}  // namespace cfsv::cli
