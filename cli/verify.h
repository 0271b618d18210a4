// The core of `cfsv verify`, apart from the real engines so that tests can
// drive it with fake ones: run claims x engines, then render the report as a
// table, JSON or JUnit XML, and decide the exit code.
#pragma once
#include <atomic>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "claims/claim.h"
#include "cli/json.h"

namespace cfsv::cli {

// One engine: its name and its check_claim().
struct EngineCheck {
  Engine engine;
  std::function<EngineResult(const Claim&, const CheckConfig&)> check;
};

struct ClaimVerdicts {
  Claim claim;
  std::vector<EngineResult> results;  // one per engine that ran, in run order
  bool ok() const;                    // every result agrees with claim.expect
};

struct VerifyReport {
  CheckConfig config;
  std::vector<Engine> engines;  // the engines that ran, in order
  std::vector<ClaimVerdicts> claims;

  std::size_t verdicts() const;
  std::size_t disagreements() const;
  std::size_t interrupted() const;  // checks stopped or never run after Ctrl-C
  bool ok() const { return disagreements() == 0; }
  int exit_code() const { return ok() ? 0 : 1; }  // 1: some verdict differs from the expected one
};

// Called before each check: the claim, the engine, checks done so far, total.
using Progress = std::function<void(const Claim&, Engine, std::size_t, std::size_t)>;

// Runs every engine on every claim, sequentially, claim by claim. A result is
// stamped with its engine; an exception becomes an unknown verdict; seconds
// is the engine's own figure, or the wall time of the call when it gives 0.
// Once *stop is true (Ctrl-C), the check under way and every later one are
// unknown with the detail kInterrupted (report.interrupted() counts them).
VerifyReport run_verify(std::span<const Claim> claims, std::span<const EngineCheck> engines,
                        const CheckConfig& config, const Progress& progress = {},
                        const std::atomic<bool>* stop = nullptr);
constexpr std::string_view kInterrupted = "interrupted";

// A table cell: `refuted`, `passed (1000 cases)`, `proved (0.4 s)`, `unknown: <reason>`.
// Sets *complete to whether the cell shows the whole detail.
std::string verdict_cell(const EngineResult& r, bool* complete = nullptr);

// The table, then the details the cells leave out (every refuted verdict's
// counterexample and reproducer, cut reasons), then `N claims, M engine
// verdicts, K disagree`.
void print_table(std::ostream& out, const VerifyReport& report);
void print_json(std::ostream& out, const VerifyReport& report);
// One testcase per claim x engine; a <failure> for each disagreeing verdict.
void print_junit(std::ostream& out, const VerifyReport& report);

// A counterexample as a JSON object: summary, note, its values (decimal ones
// as numbers), "levels": one object per level; null when there is none.
void json_counterexample(JsonWriter& j, const Counterexample& c);

// XML text (or, with `attribute`, attribute value) content: markup escaped,
// tab/newline kept as such in text and as character references in attributes;
// characters XML 1.0 cannot hold (other C0 controls) become '?'.
std::string xml_escape(std::string_view s, bool attribute = false);

}  // namespace cfsv::cli
