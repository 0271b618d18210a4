// `cfsv run --heatmap OUT.svg`: a CPU x time heat map of runqueue lengths
// (rq->nr_running), the picture of Lozi et al., "The Linux Scheduler: a
// Decade of Wasted Cores" (EuroSys 2016).
//
// A sink (model/sink.h): each CPU's length is integrated over time from the
// runqueue-length events, into fixed time buckets; a cell is the
// time-weighted mean length over its bucket. The bucket width is the smallest
// 1, 2 or 5 x 10^k ns that covers the expected run in at most kBuckets
// buckets; should the run go further, neighbouring buckets merge in pairs
// and the width doubles. Memory: CPUs x kBuckets, whatever the run's length.
// The SVG has a rect per CPU and bucket whose mean is not 0 (a 0 is the white
// background), with its value in a <title>.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "model/sink.h"

namespace cfsv::cli {

class RunqueueHeatmap final : public SchedSink {
 public:
  static constexpr std::size_t kBuckets = 400;

  RunqueueHeatmap(unsigned nr_cpus, Nanos expected_end);
  void nr_running(const Sched& s, CpuId cpu) override;
  // Integrates every CPU up to `at` (the run's end) and ends the map there.
  void finish(Nanos at);

  Nanos bucket_width() const { return width_; }
  std::size_t buckets() const;  // buckets up to the end (after finish)
  // The time-weighted mean length of a CPU's runqueue over bucket b (the last
  // bucket: up to the end).
  double mean(CpuId cpu, std::size_t b) const;

  void write_svg(std::ostream& out, const std::string& title) const;

 private:
  struct PerCpu {
    uint32_t len = 0;
    Nanos since = 0;
    std::vector<double> area;  // per bucket: length x ns
  };
  void integrate(PerCpu& c, Nanos to);
  void merge_buckets();

  std::vector<PerCpu> cpus_;
  Nanos width_;
  Nanos end_ = 0;
};

// The expected end of a scenario's run: its `run` length, or its last op's
// time when later.
Nanos expected_end(const Scenario& sc);

}  // namespace cfsv::cli
