// A counterexample as data: named values (inputs and every intermediate) and,
// for a hierarchy, one list per sched_entity level, the task's first. Every
// engine builds one; format_counterexample() is how every engine prints it.
// The fuzz targets pass theirs to the runner as serialized lines on stderr.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cfsv {

// A named value; `text` has no spaces (decimal integers, or a word like "v5.7").
struct Value {
  std::string name;
  std::string text;
};

struct Counterexample {
  std::string claim;    // the claim id
  std::string summary;  // one line: what fails, e.g. "sched_slice 4922 ns < min_granularity 2250000 ns at depth 2"
  std::string note;     // how it was found, one line ("" if nothing to say)
  std::vector<Value> values;               // the case and its results
  std::vector<std::vector<Value>> levels;  // per sched_entity level, the task's first
  std::string scenario;  // a simulation claim's case as a scenario file (`cfsv run` replays it); "" otherwise
  bool empty() const { return summary.empty() && values.empty() && levels.empty() && scenario.empty(); }
};

std::optional<std::string> value_of(const std::vector<Value>& values, std::string_view name);

// "counterexample (note):" then the values on one line and one line per level:
//   level 0 (task): weight=... cfs_rq_weight=... slice=...
std::string format_counterexample(const Counterexample& c);

// One line per part, each starting with kCounterexampleLine: "claim ID",
// "summary TEXT", "note TEXT", "values k=v ...", "level k=v ...", and one
// "scenario LINE" per line of the scenario.
inline constexpr std::string_view kCounterexampleLine = "cfsv-counterexample ";
std::string serialize(const Counterexample& c);
// Reads one line of serialize()'s output into `into`; false if it is not one.
bool parse_counterexample_line(std::string_view line, Counterexample& into);

}  // namespace cfsv
