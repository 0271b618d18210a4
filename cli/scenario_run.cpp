#include "cli/scenario_run.h"

#include <cstdio>
#include <iostream>

#include "model/limits.h"
#include "model/scenario_text.h"

namespace cfsv::cli {

namespace {
std::string seconds(Nanos ns) {
  char b[40];
  std::snprintf(b, sizeof b, "%.3fs", static_cast<double>(ns) / 1e9);
  return b;
}
}  // namespace

ScenarioRunner::ScenarioRunner(ArgParser& p) : p_(p), max_events_(kDefaultMaxEvents) {
  p.option("max-events", &max_events_, "N",
           "stop after N events (ticks, burst ends, wakeups); a run estimated to need more is refused before it "
           "starts (default " + std::to_string(kDefaultMaxEvents) + "; 0: no limit)");
  progress_.add_flags(p);
}

SimOptions ScenarioRunner::options(SimOptions base) {
  catch_sigint("\ncfsv: interrupted; stopping (Ctrl-C again to quit at once)\n");
  base.stop = &interrupted();
  base.max_events = max_events_;
  if (progress_.enabled()) base.progress = [this](const Sim& sim) { show(sim); };
  return base;
}

std::optional<int> ScenarioRunner::refuse(const Sim& sim, const std::string& file) const {
  const double events = estimate_events(sim.scenario(), sim.tunables().hz);
  if (max_events_ == 0 || events <= static_cast<double>(max_events_)) return std::nullopt;
  char b[64];
  std::snprintf(b, sizeof b, "%.2g", events);
  return p_.error(file + ": the run needs about " + b + " events (ticks, burst ends, wakeups) to simulate " +
                  format_duration(sim.scenario().duration) + "; --max-events is " + std::to_string(max_events_) +
                  " (raise it, or 0 for no limit, or shorten the run)");
}

void ScenarioRunner::show(const Sim& sim) {
  if (!progress_.due()) return;
  const auto now = std::chrono::steady_clock::now();
  if (start_ == std::chrono::steady_clock::time_point{}) start_ = now;
  const double wall = std::chrono::duration<double>(now - start_).count();
  const Nanos done = sim.now(), total = std::max<Nanos>(sim.scenario().duration, 1);
  const double rate = wall > 0 ? static_cast<double>(done) / 1e9 / wall : 0;  // simulated s per wall s
  char b[160];
  std::snprintf(b, sizeof b, "%s of %s simulated (%.1f%%), %.3g s/s, ETA %s", seconds(done).c_str(),
                seconds(total).c_str(), 100.0 * static_cast<double>(done) / static_cast<double>(total), rate,
                rate > 0 ? format_eta(static_cast<double>(total - std::min(done, total)) / 1e9 / rate).c_str() : "?");
  progress_.show(b);
}

std::optional<int> ScenarioRunner::run(Sim& sim, const std::function<RunEnd()>& drive) {
  start_ = std::chrono::steady_clock::now();
  const RunEnd end = drive ? drive() : sim.run();
  progress_.clear();
  if (end == RunEnd::finished) return std::nullopt;
  std::cerr << "cfsv " << p_.command() << ": " << early_end(sim)
            << "; the results cover the time simulated so far\n";
  return end == RunEnd::interrupted ? kExitInterrupted : 2;
}

std::string ScenarioRunner::early_end(const Sim& sim) {
  const std::string at = " at " + format_duration(sim.now()) + " of " + format_duration(sim.scenario().duration);
  switch (sim.end()) {
    case RunEnd::finished: return "";
    case RunEnd::interrupted: return "interrupted" + at;
    case RunEnd::event_limit:
      return "stopped after " + std::to_string(sim.counters().events) + " events (--max-events)" + at;
  }
  return "";
}

}  // namespace cfsv::cli
