#include "cli/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "cli/svg.h"

namespace cfsv::cli {

namespace {

constexpr double kLeft = 70, kTop = 30, kPlotW = 800, kRight = 20;

// White at 0 to dark red at the top of the scale (ColorBrewer's YlOrRd stops).
std::string colour(double v, double top) {
  static constexpr unsigned char kStops[][3] = {
      {255, 255, 255}, {255, 237, 160}, {254, 178, 76}, {240, 59, 32}, {128, 0, 38}};
  constexpr double kLast = std::size(kStops) - 1;
  const double x = top > 0 ? std::clamp(v / top, 0.0, 1.0) * kLast : 0;
  const auto i = static_cast<std::size_t>(std::min(x, kLast - 1));
  const double f = x - static_cast<double>(i);
  char b[8];
  int rgb[3];
  for (int k = 0; k < 3; ++k) rgb[k] = static_cast<int>(std::lround(kStops[i][k] + f * (kStops[i + 1][k] - kStops[i][k])));
  std::snprintf(b, sizeof b, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return b;
}

std::string fixed3(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

}  // namespace

Nanos expected_end(const Scenario& sc) {
  Nanos end = sc.duration;
  for (const TimedOp& o : sc.ops) end = std::max(end, o.at);
  return end;
}

RunqueueHeatmap::RunqueueHeatmap(unsigned nr_cpus, Nanos expected)
    : cpus_(nr_cpus), width_(svg::nice_step(static_cast<double>(expected) / kBuckets)) {
  while (expected / width_ >= kBuckets) width_ = svg::nice_step(static_cast<double>(width_) + 1);
}

void RunqueueHeatmap::merge_buckets() {
  for (PerCpu& c : cpus_) {
    for (std::size_t i = 0; i < c.area.size(); ++i) c.area[i / 2] = (i % 2 ? c.area[i / 2] : 0) + c.area[i];
    c.area.resize((c.area.size() + 1) / 2);
  }
  width_ *= 2;
}

void RunqueueHeatmap::integrate(PerCpu& c, Nanos to) {
  if (to <= c.since) return;
  while ((to - 1) / width_ >= 2 * kBuckets) merge_buckets();
  const std::size_t last = (to - 1) / width_;
  if (c.area.size() <= last) c.area.resize(last + 1, 0.0);
  for (Nanos t = c.since; t < to;) {
    const std::size_t b = t / width_;
    const Nanos stop = std::min<Nanos>(to, (b + 1) * width_);
    c.area[b] += static_cast<double>(c.len) * static_cast<double>(stop - t);
    t = stop;
  }
  c.since = to;
}

void RunqueueHeatmap::nr_running(const Sched& s, CpuId cpu) {
  PerCpu& c = cpus_[cpu.index()];
  integrate(c, s.now);
  c.len = s.cfs[s.rq[cpu].cfs].h_nr_running;
}

void RunqueueHeatmap::finish(Nanos at) {
  for (PerCpu& c : cpus_) integrate(c, at);
  end_ = std::max(end_, at);
}

std::size_t RunqueueHeatmap::buckets() const { return end_ ? static_cast<std::size_t>((end_ - 1) / width_ + 1) : 0; }

double RunqueueHeatmap::mean(CpuId cpu, std::size_t b) const {
  const PerCpu& c = cpus_[cpu.index()];
  const Nanos start = b * width_, stop = std::min<Nanos>(end_, (b + 1) * width_);
  if (stop <= start || b >= c.area.size()) return 0;
  return c.area[b] / static_cast<double>(stop - start);
}

void RunqueueHeatmap::write_svg(std::ostream& out, const std::string& title) const {
  const std::size_t n = buckets(), nr = cpus_.size();
  const double row = std::clamp(400.0 / static_cast<double>(std::max<std::size_t>(nr, 1)), 2.0, 20.0);
  const double plot_h = row * static_cast<double>(nr), axis_y = kTop + plot_h;
  double top = 0;
  for (const CpuId c : IdRange<CpuId>{nr})
    for (std::size_t b = 0; b < n; ++b) top = std::max(top, mean(c, b));
  const double end = static_cast<double>(std::max<Nanos>(end_, 1));
  auto x_of = [&](Nanos t) { return kLeft + static_cast<double>(std::min(t, end_)) / end * kPlotW; };

  svg::begin(out, kLeft + kPlotW + kRight, axis_y + 80, title);
  svg::text(out, kLeft, 18, title, "start", 13);
  const auto label_every = static_cast<std::size_t>(std::ceil(12.0 / row));
  for (const CpuId c : IdRange<CpuId>{nr}) {
    const double y = kTop + row * c.index();
    if (c.index() % label_every == 0) svg::text(out, kLeft - 6, y + std::min(row, 12.0) - 2, "CPU " + std::to_string(c.v), "end", 10);
    for (std::size_t b = 0; b < n; ++b) {
      const Nanos t0 = b * width_, t1 = std::min<Nanos>(end_, (b + 1) * width_);
      const double m = mean(c, b);
      if (m == 0) continue;  // white on the white background
      out << "<rect class=\"cell\" x=\"" << svg::num(x_of(t0)) << "\" y=\"" << svg::num(y) << "\" width=\""
          << svg::num(x_of(t1) - x_of(t0)) << "\" height=\"" << svg::num(row) << "\" fill=\"" << colour(m, top)
          << "\"><title>CPU " << c.v << ", " << svg::duration(static_cast<int64_t>(t0)) << ".."
          << svg::duration(static_cast<int64_t>(t1)) << ": " << fixed3(m) << "</title></rect>\n";
    }
  }
  out << "<rect class=\"frame\" x=\"" << svg::num(kLeft) << "\" y=\"" << svg::num(kTop) << "\" width=\""
      << svg::num(kPlotW) << "\" height=\"" << svg::num(plot_h) << "\" fill=\"none\" stroke=\"#888\"/>\n";
  for (const int64_t t : svg::ticks(0, static_cast<int64_t>(end_), 8)) {
    const double x = x_of(static_cast<Nanos>(t));
    svg::line(out, x, axis_y, x, axis_y + 4);
    svg::text(out, x, axis_y + 15, svg::duration(t), "middle", 10);
  }
  svg::text(out, kLeft + kPlotW, axis_y + 28, "time (buckets of " + svg::duration(static_cast<int64_t>(width_)) + ")",
            "end", 10);
  // The scale: ten steps from 0 to the highest mean.
  const double sy = axis_y + 44;
  svg::text(out, kLeft, sy - 4, "runqueue length (time-weighted mean per bucket)", "start", 10);
  for (int i = 0; i < 10; ++i)
    out << "<rect class=\"scale\" x=\"" << svg::num(kLeft + 20.0 * i) << "\" y=\"" << svg::num(sy) << "\" width=\"20\" "
        << "height=\"10\" fill=\"" << colour(top * i / 9, top) << "\"/>\n";
  svg::text(out, kLeft, sy + 24, "0", "start", 10);
  svg::text(out, kLeft + 200, sy + 24, fixed3(top), "end", 10);
  svg::end(out);
}

}  // namespace cfsv::cli
