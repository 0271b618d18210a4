// Scenario files (docs/scenario-format.md): the parser, the canonical printer
// and their helpers. print_scenario's output parses back to an equal Scenario,
// and printing that again gives the same text.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "arith/fair_math.h"
#include "limits.h"
#include "scenario.h"

namespace cfsv {

struct ParseError {
  std::string file;
  unsigned line = 0;  // 1-based; 0 = not about a line (e.g. the file cannot be read)
  unsigned col = 0;   // 1-based byte column of the offending token
  std::string message;
  // "file:line:col: error: message" ("file: error: message" when line is 0).
  std::string to_string() const;
  bool operator==(const ParseError&) const = default;
};

using ParseResult = std::variant<Scenario, ParseError>;

// Parses a whole scenario file. Never throws; every bad input gives the first
// error, with the line and column of the token at fault.
ParseResult parse_scenario(std::string_view text, std::string_view filename = "<input>");

// Reads a file of at most kMaxInputBytes; an I/O error or a larger file is a
// ParseError with line 0.
std::variant<std::string, ParseError> read_scenario_file(const std::string& path);
// Reads and parses a file.
ParseResult load_scenario_file(const std::string& path);

// The verdict a reproducer's first line expects (docs/scenario-format.md,
// "Expect lines"): `# expect: pass` or `# expect: violation <invariant>`.
struct Expectation {
  bool stated = false;    // the file has an expect line
  std::string violation;  // the invariant expected to fail; empty: pass
};
// A comment line that starts like an expect line (`# Expect: pass`,
// `#expect pass`, `# expects: pass`, ...) but is not exactly one, or is not
// the first line, is an error at its line and column.
std::variant<Expectation, ParseError> parse_expectation(std::string_view text, std::string_view filename);

// The canonical text of a scenario (docs/scenario-format.md, "Canonical form").
// For a scenario the parser would accept (ops in time order, names declared
// before use, values in range, known setting keys) it parses back equal;
// writers of reproducers (RapidCheck, fuzz decoders) must build such scenarios.
std::string print_scenario(const Scenario& s);
// An op as its scenario line writes it after `at <time>`, for rejections,
// violation reports and traces; spawn and group without their fields ("spawn t0").
std::string describe(const Op& op);

// Largest unit the value reaches, exact decimal: 2250000 -> "2.25ms", 0 -> "0ns".
std::string format_duration(Nanos ns);
// "12ms", "2.25ms", "0"; nullopt with a reason in *why when malformed or inexact.
std::optional<Nanos> parse_duration(std::string_view text, std::string* why = nullptr);
// The kernel's cpulist form: "0-3,5"; "all" for the empty mask.
std::string format_cpu_list(const CpuMask& cpus);

// Ranges the parser enforces besides limits.h (docs/scenario-format.md);
// shares= takes [kFairMinShares, kFairMaxShares] (arith/fair_math.h).
constexpr uint32_t kMinCgroupWeight = 1, kMaxCgroupWeight = 10000; // CGROUP_WEIGHT_MIN/MAX

}  // namespace cfsv
