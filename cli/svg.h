// A plain SVG writer for cfsv's charts (no dependencies): numbers,
// axis ticks at 1, 2 or 5 x 10^k, labels for durations, and a palette.
#pragma once
#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "model/scenario.h"

namespace cfsv::cli::svg {

// A coordinate: at most one decimal, no trailing ".0".
std::string num(double v);
// The smallest 1, 2 or 5 x 10^k that is >= v (at least 1).
uint64_t nice_step(double v);
// The multiples of a nice step in [lo, hi], about `target` of them (at least two when lo < hi).
std::vector<int64_t> ticks(int64_t lo, int64_t hi, int target);
// "250ms", "-1.5ms", "2s": a signed duration in its largest unit.
std::string duration(int64_t ns);

// Text is escaped with xml_escape (cli/verify.h).

// Ten distinguishable colours (Tableau 10); line i takes kPalette[i % 10].
extern const std::array<std::string_view, 10> kPalette;

// <svg ...> with a white background and a <title>; end() closes it.
void begin(std::ostream& out, double width, double height, std::string_view title);
void end(std::ostream& out);
// <text> at (x, y); anchor "start", "middle" or "end".
void text(std::ostream& out, double x, double y, std::string_view s, std::string_view anchor = "start",
          int size = 11);
void line(std::ostream& out, double x1, double y1, double x2, double y2, std::string_view stroke = "#000");

}  // namespace cfsv::cli::svg
