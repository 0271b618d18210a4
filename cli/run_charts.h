// The pictures of `cfsv run`: --series (CSV on stdout, or --csv FILE), --svg
// (the series as a LineChart) and --heatmap (a RunqueueHeatmap). Adds its
// flags to the command's parser, checks them and opens their files before the
// run, samples as the run goes and writes the SVGs at its end.
#pragma once
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "cli/args.h"
#include "cli/chart.h"
#include "cli/heatmap.h"
#include "cli/series.h"

namespace cfsv::cli {

class RunCharts {
 public:
  explicit RunCharts(ArgParser& p);

  // After parsing, with the scenario: nullopt when the flags are good and
  // every output file is open, else the exit code (2, the reason on stderr).
  // `stdout_used`: another output (--json, --perf) prints on stdout.
  std::optional<int> prepare(const Scenario& sc, bool stdout_used);
  // The series' CSV goes to stdout, in place of the table.
  bool on_stdout() const { return !series_.empty() && csv_path_.empty() && svg_path_.empty(); }
  SchedSink* sink() { return heatmap_.get(); }  // null without --heatmap

  // Sim::run_to(t), sampling the series on the way.
  bool run_to(Sim& sim, Nanos t) { return sampler_ ? sampler_->run_to(sim, t) : sim.run_to(t); }
  // Flushes the CSV and writes the SVGs; throws TraceWriteError when an output fails.
  void finish(const Sim& sim, const std::string& file);

 private:
  const ArgParser& p_;
  std::string series_, csv_path_, svg_path_, heatmap_path_;
  Nanos step_ = 1'000'000;
  bool step_given_ = false;
  std::ofstream csv_, svg_, heatmap_file_;
  std::unique_ptr<LineChart> chart_;
  std::unique_ptr<SeriesSampler> sampler_;
  std::unique_ptr<RunqueueHeatmap> heatmap_;
};

}  // namespace cfsv::cli
