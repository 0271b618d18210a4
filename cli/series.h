// `cfsv run --series ENTITY,...`: chosen entities' signals (model/signals.h)
// sampled as the run goes, streamed as CSV and/or kept for a LineChart.
//
// An item is ENTITY[@cpuN][:SIGNAL]. ENTITY is a task name, a group path
// (its entity and cfs_rq on each CPU, and the group's own figures; @cpuN: one
// CPU's only) or cpuN (the CPU's root cfs_rq); without :SIGNAL, every signal
// that applies. Each column's label is an item that names just that column:
// `a:se.vruntime`, `/g0@cpu1:se.load.weight`, `/g0:tg.shares`, `cpu0:cfs_rq.load.weight`.
//
// Samples are taken at 0, every step of simulated time and at the end (or
// where the run stopped), each after every op and event at that time.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cli/chart.h"
#include "model/signals.h"
#include "model/sim.h"

namespace cfsv::cli {

constexpr std::size_t kMaxSeriesColumns = 512;

struct SeriesColumn {
  enum class Object { task, group_entity, group_cfs_rq, group };
  std::string label;  // "a:se.vruntime"
  const Signal* signal;
  SignalOn kind;  // which of the signal's kinds
  Object object;
  std::string name;  // the task's name or the group's path ("/" for a CPU's root cfs_rq)
  CpuId cpu;         // for group_entity and group_cfs_rq
};

// The columns a --series value names in this scenario, or what is wrong
// with it (an unknown entity or signal, a signal that does not apply).
std::variant<std::vector<SeriesColumn>, std::string> parse_series(std::string_view spec, const Scenario& sc);

// What one column reads, none while its task or group does not exist yet.
std::optional<SignalTarget> target_of(const Sim& sim, const SeriesColumn& c);

class SeriesSampler {
 public:
  // csv: where the header and the rows go as they are sampled (null: none;
  // `csv_name` names it in errors); chart: gets every value (null: none).
  SeriesSampler(std::vector<SeriesColumn> columns, Nanos step, std::ostream* csv, std::string csv_name,
                LineChart* chart);
  // Sim::run_to(t), stopping at each sample time on the way; at the run's end
  // (or an early stop) samples there too. Returns what Sim::run_to returns.
  bool run_to(Sim& sim, Nanos t);
  // Flushes the CSV; throws TraceWriteError when it could not be written.
  void finish();

  static std::vector<LineChart::Line> chart_lines(const std::vector<SeriesColumn>& columns);

 private:
  void take(const Sim& sim);
  bool at_end(const Sim& sim);

  std::vector<SeriesColumn> columns_;
  Nanos step_, next_ = 0;
  std::optional<Nanos> last_;
  std::ostream* csv_;
  std::string csv_name_;
  LineChart* chart_;
  std::vector<std::optional<SignalTarget>> targets_;  // per column, once its object exists
};

}  // namespace cfsv::cli
