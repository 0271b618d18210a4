// The parser's pieces shared between its files (scenario_parse.cpp reads the
// lines, scenario_timeline.cpp checks the timed ops in time order). Private to
// them; the public API is scenario_text.h.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
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

// A token of a statement, and its 1-based column.
struct Token {
  std::string_view text;
  unsigned col = 0;
  unsigned end() const { return col + static_cast<unsigned>(text.size()); }
};
// A line's tokens: runs of non-space characters, up to a '#'.
std::vector<Token> tokenize(std::string_view line);
// text cut at each sep, every piece with its column (text starts at col).
std::vector<Token> split(std::string_view text, unsigned col, char sep);

struct KeyValue {
  std::string_view key, value;
  unsigned key_col = 0, value_col = 0;
};
// `key=value` (both non-empty) on line `line`.
KeyValue key_value(const Token& t, unsigned line);
// key=value pairs of toks[first..], each key at most once.
std::vector<KeyValue> key_values(const std::vector<Token>& toks, std::size_t first, unsigned line);

// Decimal digits in [lo, hi], else an error at loc naming `what`.
uint64_t number_at(SourceLoc loc, std::string_view text, std::string_view what, uint64_t lo, uint64_t hi);

// "/", "/a", "/a/b" at loc: components of name characters, not "." or ".."; "/" only when allow_root.
std::string group_path_at(SourceLoc loc, std::string_view text, bool allow_root);

// "3", "0-3", "0,2,4-7" at loc (not "all"); *max_cpu is its largest CPU, at column *max_col.
CpuMask cpu_list_at(SourceLoc loc, std::string_view text, unsigned* max_cpu, unsigned* max_col);

// The `topology` statement's arguments, toks[first..] on line `line`
// (docs/scenario-format.md, "Topology"; model/topology_spec.cpp).
Topology topology_args(const std::vector<Token>& toks, std::size_t first, unsigned line);
// Its canonical text, without the keyword: "sockets=2 cores=4 threads=2 nodes=2".
std::string topology_text(const Topology& t);

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
// nothing twice. Returns every task of the file: time 0's and the spawned.
Declared resolve_names(std::vector<PendingOp>& ops, Declared tasks, Declared groups);

// Checks the ops' times against the clock: no op is before the end of an
// earlier advance, and none (nor the end of an advance) after the end of the
// run (`run` on line run_line).
void check_times(const std::vector<PendingOp>& ops, Nanos duration, unsigned run_line);

}  // namespace cfsv::scenario_text
