// A line chart of time series in bounded memory, drawn as SVG: lines grouped
// into one panel per unit, time on the x axis, ticks, labels and a legend.
//
// Each line keeps at most four points per pixel column of the plot (the
// first, last, lowest and highest sample that falls in the column: M4
// aggregation, which draws the same pixels as all the samples). A column
// starts `first_width` ns wide; when a sample falls past the last column,
// neighbouring columns merge in pairs and the width doubles. Memory is
// therefore lines x kColumns x 4 points, whatever the run's length.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "model/scenario.h"

namespace cfsv::cli {

class LineChart {
 public:
  static constexpr std::size_t kColumns = 800;  // the plot's width in pixels

  struct Line {
    std::string label, unit;
  };
  LineChart(std::vector<Line> lines, Nanos first_width);

  void add(std::size_t line, Nanos t, int64_t v);
  // The SVG: a title line, then a panel per unit (in order of first appearance).
  void write_svg(std::ostream& out, const std::string& title) const;

  // Points held (for tests: bounded by lines x kColumns x 4).
  std::size_t points() const;
  Nanos column_width() const { return width_; }

 private:
  struct Point {
    Nanos t;
    int64_t v;
  };
  struct Cell {  // one line in one column
    bool used = false;
    Point first, last, lo, hi;
  };
  void merge_columns();
  std::vector<Point> polyline(std::size_t line) const;  // the kept points in time order

  std::vector<Line> lines_;
  std::vector<std::vector<Cell>> cells_;  // per line, per column
  Nanos width_;
  Nanos end_ = 0;  // the latest sample's time
};

}  // namespace cfsv::cli
