// The parser's pieces shared between its files (scenario_parse.cpp reads the
// lines, scenario_timeline.cpp checks the timed ops in time order). Private to
// them; the public API is scenario_text.h.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "scenario.h"

namespace cfsv::scenario_text {

// An error at a place of the file, thrown inside the parser only;
// parse_scenario turns it into a ParseError.
struct ParseFailure {
  SourceLoc loc;
  std::string message;
};
[[noreturn]] inline void fail_at(SourceLoc loc, std::string message) { throw ParseFailure{loc, std::move(message)}; }

// A timed op as parsed, with the places its names came from.
struct PendingOp {
  TimedOp op;
  SourceLoc time, task, group, parent;  // task/group/parent: line 0 when the op names none
  SourceLoc value;                      // an advance's duration
};

// Names declared by the time-0 `task` and `group` lines, and where.
using Declared = std::map<std::string, SourceLoc>;

// "/a" for "/a/b", "/" for "/a".
std::string parent_path(const std::string& path);

// Sorts the ops by time (stable: equal times keep file order), then checks
// that each names only tasks and groups that exist at its time and declares
// nothing twice.
void resolve_names(std::vector<PendingOp>& ops, Declared tasks, Declared groups);

// Checks the ops' times against the clock: no op is before the end of an
// earlier advance, and none (nor the end of an advance) after the end of the
// run (`run` on line run_line).
void check_times(const std::vector<PendingOp>& ops, Nanos duration, unsigned run_line);

}  // namespace cfsv::scenario_text
