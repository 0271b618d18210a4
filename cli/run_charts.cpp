#include "cli/run_charts.h"

#include <cerrno>
#include <filesystem>
#include <iostream>
#include <variant>

#include "model/scenario_text.h"
#include "model/trace.h"

namespace cfsv::cli {

RunCharts::RunCharts(ArgParser& p) : p_(p) {
  p.option("series",
           [this](std::string_view v) {
             series_ = v;
             return v.empty() ? std::string("needs at least one ENTITY") : std::string();
           },
           "ENTITY,...",
           "sample signals of tasks, groups (/path, /path@cpuN) and CPUs (cpuN), each ENTITY or ENTITY:SIGNAL "
           "(docs/cli.md), as CSV on stdout instead of the table (or to --csv, or drawn by --svg)");
  p.option("series-step",
           [this](std::string_view v) -> std::string {
             std::string why;
             const std::optional<Nanos> d = parse_duration(v, &why);
             if (!d) return why;
             if (*d == 0) return "the step must be more than 0";
             step_ = *d, step_given_ = true;
             return "";
           },
           "DUR", "sample the series every DUR of simulated time, and at the end (default 1ms)");
  p.option("csv", output_path(&csv_path_), "OUT.csv", "write the series' CSV to OUT.csv (the table stays on stdout)");
  p.option("svg", output_path(&svg_path_), "OUT.svg", "draw the series to OUT.svg: a panel per unit, a line per signal");
  p.option("heatmap", output_path(&heatmap_path_), "OUT.svg",
           "draw a CPU x time heat map of runqueue lengths to OUT.svg");
}

std::optional<int> RunCharts::prepare(const Scenario& sc, bool stdout_used) {
  if (series_.empty()) {
    if (!csv_path_.empty()) return p_.error("--csv needs --series (what to sample)");
    if (!svg_path_.empty()) return p_.error("--svg needs --series (what to draw; --heatmap draws runqueue lengths)");
    if (step_given_) return p_.error("--series-step needs --series");
  } else if (on_stdout() && stdout_used) {
    return p_.error("--series without --csv or --svg prints CSV on stdout, and so do --json and --perf; choose "
                    "one, or give --csv FILE");
  }
  std::vector<std::string> paths;
  for (const std::string* path : {&csv_path_, &svg_path_, &heatmap_path_}) {
    if (path->empty()) continue;
    std::error_code ec;
    const std::string canon = std::filesystem::weakly_canonical(*path, ec).string();
    if (std::find(paths.begin(), paths.end(), canon) != paths.end() && canon != "/dev/null")
      return p_.error("'" + *path + "' is named by two outputs");
    paths.push_back(canon);
  }
  std::vector<SeriesColumn> columns;
  if (!series_.empty()) {
    auto parsed = parse_series(series_, sc);
    if (auto* why = std::get_if<std::string>(&parsed)) return p_.error("--series: " + *why);
    columns = std::get<std::vector<SeriesColumn>>(std::move(parsed));
  }
  const auto open = [&](const char* flag, const std::string& path, std::ofstream& f) {
    if (!path.empty()) f.open(path, std::ios::binary);
    return path.empty() || f ? std::optional<int>{} : p_.error(std::string(flag) + ": cannot write '" + path + "'");
  };
  for (const auto& rc : {open("--csv", csv_path_, csv_), open("--svg", svg_path_, svg_),
                         open("--heatmap", heatmap_path_, heatmap_file_)})
    if (rc) return rc;
  if (!svg_path_.empty()) chart_ = std::make_unique<LineChart>(SeriesSampler::chart_lines(columns), step_);
  if (!series_.empty()) {
    std::ostream* csv = on_stdout() ? &std::cout : csv_path_.empty() ? nullptr : &csv_;
    sampler_ = std::make_unique<SeriesSampler>(std::move(columns), step_, csv,
                                               on_stdout() ? "stdout" : "'" + csv_path_ + "'", chart_.get());
  }
  if (!heatmap_path_.empty()) heatmap_ = std::make_unique<RunqueueHeatmap>(sc.topology.nr_cpus(), expected_end(sc));
  return std::nullopt;
}

void RunCharts::finish(const Sim& sim, const std::string& file) {
  if (sampler_) sampler_->finish();
  const std::string title = file + ": kernel " + sim.scenario().kernel + ", " + std::to_string(sim.nr_cpus()) +
                            " CPUs, " + format_duration(sim.now()) + " simulated";
  const auto write = [](std::ofstream& f, const std::string& path, const auto& draw) {
    errno = 0;
    draw(f);
    if (!f.flush()) write_failed("'" + path + "'");
  };
  if (chart_) write(svg_, svg_path_, [&](std::ostream& o) { chart_->write_svg(o, title); });
  if (heatmap_) {
    heatmap_->finish(sim.now());
    write(heatmap_file_, heatmap_path_, [&](std::ostream& o) { heatmap_->write_svg(o, title); });
  }
}

}  // namespace cfsv::cli
