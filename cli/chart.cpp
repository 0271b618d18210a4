#include "cli/chart.h"

#include <algorithm>
#include <ostream>

#include "cli/svg.h"
#include "cli/verify.h"
#include "model/signals.h"

namespace cfsv::cli {

namespace {

constexpr double kLeft = 90, kRight = 30, kTitle = 28, kHead = 22, kPlot = 180, kAxis = 28, kLegendRow = 16;
constexpr std::size_t kLegendPerRow = 4;
constexpr double kLegendWidth = 200;

std::string value_label(const std::string& unit, int64_t v) {
  if (unit == "ns") return svg::duration(v);
  if (unit == "state") {
    if (v == kStateSleeping) return "sleeping";
    if (v == kStateRunnable) return "runnable";
    if (v == kStateRunning) return "running";
  }
  return std::to_string(v);
}

int64_t floor_to(int64_t v, int64_t step) {
  const int64_t q = v / step * step;
  return q > v ? q - step : q;
}

}  // namespace

LineChart::LineChart(std::vector<Line> lines, Nanos first_width)
    : lines_(std::move(lines)), cells_(lines_.size(), std::vector<Cell>(kColumns)), width_(std::max<Nanos>(1, first_width)) {}

void LineChart::merge_columns() {
  for (std::vector<Cell>& row : cells_) {
    for (std::size_t i = 0; i < kColumns / 2; ++i) {
      const Cell a = row[2 * i], b = row[2 * i + 1];
      Cell& m = row[i];
      m = a.used ? a : b;
      if (a.used && b.used) {
        m.last = b.last;
        if (b.lo.v < m.lo.v) m.lo = b.lo;
        if (b.hi.v > m.hi.v) m.hi = b.hi;
      }
    }
    std::fill(row.begin() + kColumns / 2, row.end(), Cell{});
  }
  width_ *= 2;
}

void LineChart::add(std::size_t line, Nanos t, int64_t v) {
  while (t / width_ >= kColumns) merge_columns();
  end_ = std::max(end_, t);
  Cell& c = cells_[line][t / width_];
  const Point p{t, v};
  if (!c.used) {
    c = Cell{true, p, p, p, p};
    return;
  }
  c.last = p;
  if (v < c.lo.v) c.lo = p;
  if (v > c.hi.v) c.hi = p;
}

std::size_t LineChart::points() const {
  std::size_t n = 0;
  for (std::size_t i = 0; i < lines_.size(); ++i) n += polyline(i).size();
  return n;
}

std::vector<LineChart::Point> LineChart::polyline(std::size_t line) const {
  std::vector<Point> pts;
  for (const Cell& c : cells_[line]) {
    if (!c.used) continue;
    Point four[] = {c.first, c.lo, c.hi, c.last};
    std::stable_sort(std::begin(four), std::end(four), [](const Point& a, const Point& b) { return a.t < b.t; });
    for (const Point& p : four)
      if (pts.empty() || pts.back().t != p.t || pts.back().v != p.v) pts.push_back(p);
  }
  return pts;
}

void LineChart::write_svg(std::ostream& out, const std::string& title) const {
  std::vector<std::string> units;
  for (const Line& l : lines_)
    if (std::find(units.begin(), units.end(), l.unit) == units.end()) units.push_back(l.unit);
  std::vector<std::vector<Point>> pts(lines_.size());
  for (std::size_t i = 0; i < lines_.size(); ++i) pts[i] = polyline(i);

  auto members = [&](const std::string& unit) {
    std::vector<std::size_t> v;
    for (std::size_t i = 0; i < lines_.size(); ++i)
      if (lines_[i].unit == unit) v.push_back(i);
    return v;
  };
  auto legend_rows = [&](std::size_t n) { return static_cast<double>((n + kLegendPerRow - 1) / kLegendPerRow); };
  double height = kTitle;
  for (const std::string& u : units) height += kHead + kPlot + kAxis + legend_rows(members(u).size()) * kLegendRow + 12;
  const double width = kLeft + static_cast<double>(kColumns) + kRight, plot_w = static_cast<double>(kColumns);

  svg::begin(out, width, height, title);
  svg::text(out, kLeft, 18, title, "start", 13);
  const double t_end = static_cast<double>(std::max<Nanos>(end_, 1));
  auto x_of = [&](Nanos t) { return kLeft + static_cast<double>(t) / t_end * plot_w; };
  double top = kTitle;
  for (const std::string& unit : units) {
    const std::vector<std::size_t> in = members(unit);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const std::size_t i : in)
      for (const Point& p : pts[i]) lo = std::min(lo, p.v), hi = std::max(hi, p.v);
    if (lo > hi) lo = 0, hi = 1;
    if (lo == hi) lo = lo > INT64_MIN ? lo - 1 : lo, hi = hi < INT64_MAX ? hi + 1 : hi;
    const auto step = static_cast<int64_t>(svg::nice_step((static_cast<double>(hi) - static_cast<double>(lo)) / 5));
    if (lo > INT64_MIN + step) lo = floor_to(lo, step);
    if (hi < INT64_MAX - step) hi = -floor_to(-hi, step);
    const double span = static_cast<double>(hi) - static_cast<double>(lo);
    const double y0 = top + kHead, y1 = y0 + kPlot;
    auto y_of = [&](int64_t v) { return y1 - (static_cast<double>(v) - static_cast<double>(lo)) / span * kPlot; };

    out << "<g class=\"panel\" data-unit=\"" << xml_escape(unit) << "\">\n";
    svg::text(out, kLeft, top + 15, unit, "start", 12);
    out << "<rect class=\"plot\" x=\"" << svg::num(kLeft) << "\" y=\"" << svg::num(y0) << "\" width=\""
        << svg::num(plot_w) << "\" height=\"" << svg::num(kPlot) << "\" fill=\"none\" stroke=\"#888\"/>\n";
    for (const int64_t v : svg::ticks(lo, hi, 5)) {
      svg::line(out, kLeft - 4, y_of(v), kLeft, y_of(v));
      svg::line(out, kLeft, y_of(v), kLeft + plot_w, y_of(v), "#eee");
      svg::text(out, kLeft - 6, y_of(v) + 4, value_label(unit, v), "end", 10);
    }
    for (const int64_t t : svg::ticks(0, static_cast<int64_t>(end_), 8)) {
      const double x = x_of(static_cast<Nanos>(t));
      svg::line(out, x, y1, x, y1 + 4);
      svg::text(out, x, y1 + 15, svg::duration(t), "middle", 10);
    }
    svg::text(out, kLeft + plot_w, y1 + 26, "time", "end", 10);
    for (std::size_t k = 0; k < in.size(); ++k) {
      const std::size_t i = in[k];
      const std::string stroke = "stroke=\"" + std::string(svg::kPalette[k % 10]) + '"' +
                                 (k < 10 ? "" : " stroke-dasharray=\"" + std::to_string(2 + 2 * (k / 10 % 4)) + ",2\"");
      out << "<polyline class=\"series\" fill=\"none\" stroke-width=\"1.2\" " << stroke << " points=\"";
      for (std::size_t j = 0; j < pts[i].size(); ++j)
        out << (j ? " " : "") << svg::num(x_of(pts[i][j].t)) << ',' << svg::num(y_of(pts[i][j].v));
      out << "\"><title>" << xml_escape(lines_[i].label) << "</title></polyline>\n";
      const double lx = kLeft + static_cast<double>(k % kLegendPerRow) * kLegendWidth;
      const double ly = y1 + kAxis + static_cast<double>(k / kLegendPerRow) * kLegendRow + 8;
      out << "<line class=\"legend\" x1=\"" << svg::num(lx) << "\" y1=\"" << svg::num(ly) << "\" x2=\""
          << svg::num(lx + 18) << "\" y2=\"" << svg::num(ly) << "\" stroke-width=\"2\" " << stroke << "/>\n";
      svg::text(out, lx + 22, ly + 4, lines_[i].label, "start", 10);
    }
    out << "</g>\n";
    top = y1 + kAxis + legend_rows(in.size()) * kLegendRow + 12;
  }
  svg::end(out);
}

}  // namespace cfsv::cli
