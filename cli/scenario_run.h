// What `cfsv run` and `cfsv replay` share around a Sim: the --max-events,
// --progress and --quiet flags; the refusal, before the run, of one whose
// estimated events pass --max-events; progress and Ctrl-C while it runs; and
// what an early end says and returns.
#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "cli/args.h"
#include "cli/progress.h"
#include "model/sim.h"

namespace cfsv::cli {

class ScenarioRunner {
 public:
  explicit ScenarioRunner(ArgParser& p);  // adds its flags to p

  // base with the stop flag (Ctrl-C), the progress line and the event limit;
  // installs the SIGINT handler.
  SimOptions options(SimOptions base);
  // Before running: exit code 2, with the reason on stderr, when the
  // scenario's estimated events pass --max-events.
  std::optional<int> refuse(const Sim& sim, const std::string& file) const;
  // Runs the scenario (by `drive`, default Sim::run): nullopt when it reached
  // its end; else the exit code (130 after Ctrl-C, 2 at --max-events), with
  // the reason on stderr.
  std::optional<int> run(Sim& sim, const std::function<RunEnd()>& drive = nullptr);

  // "" when the run reached its end; else "interrupted at 1.5s of 1000s" or
  // "stopped by --max-events at 1.5s of 1000s".
  static std::string early_end(const Sim& sim);

 private:
  void show(const Sim& sim);

  const ArgParser& p_;
  uint64_t max_events_;
  ProgressLine progress_;
  std::chrono::steady_clock::time_point start_{};
};

}  // namespace cfsv::cli
