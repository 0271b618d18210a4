#include "cli/svg.h"

#include <cmath>
#include <cstdio>
#include <ostream>

#include "cli/verify.h"
#include "model/scenario_text.h"

namespace cfsv::cli::svg {

const std::array<std::string_view, 10> kPalette = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  std::string s = b;
  if (s.ends_with(".0")) s.resize(s.size() - 2);
  return s == "-0" ? "0" : s;
}

uint64_t nice_step(double v) {
  uint64_t p = 1;
  while (true) {
    for (const uint64_t m : {1, 2, 5})
      if (static_cast<double>(p * m) >= v) return p * m;
    if (p > UINT64_MAX / 100) return p * 10;
    p *= 10;
  }
}

std::vector<int64_t> ticks(int64_t lo, int64_t hi, int target) {
  if (hi <= lo) return {lo};
  const double span = static_cast<double>(hi) - static_cast<double>(lo);
  const auto step = static_cast<int64_t>(nice_step(span / std::max(1, target)));
  std::vector<int64_t> v;
  int64_t t = lo / step * step;
  if (t < lo) t += step;
  for (; t <= hi; t += step) {
    v.push_back(t);
    if (t > INT64_MAX - step) break;
  }
  return v;
}

std::string duration(int64_t ns) {
  return ns < 0 ? "-" + format_duration(0 - static_cast<Nanos>(ns)) : format_duration(static_cast<Nanos>(ns));
}

void begin(std::ostream& out, double width, double height, std::string_view title) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\"" << num(height)
      << "\" viewBox=\"0 0 " << num(width) << ' ' << num(height)
      << "\" font-family=\"sans-serif\">\n<title>" << xml_escape(title) << "</title>\n"
      << "<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
}

void end(std::ostream& out) { out << "</svg>\n"; }

void text(std::ostream& out, double x, double y, std::string_view s, std::string_view anchor, int size) {
  out << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << size << '"';
  if (anchor != "start") out << " text-anchor=\"" << anchor << '"';
  out << '>' << xml_escape(s) << "</text>\n";
}

void line(std::ostream& out, double x1, double y1, double x2, double y2, std::string_view stroke) {
  out << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\"" << num(y2)
      << "\" stroke=\"" << stroke << "\"/>\n";
}

}  // namespace cfsv::cli::svg
