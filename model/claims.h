// Claims as data (DESIGN "Claims"): what a patch or invariant promises, the
// feature set it is checked under, and the verdict we expect. Every engine
// implements check_claim() for the claims it supports; `cfsv verify` joins them.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "features.h"

namespace cfsv {

enum class Expect { holds, refuted };

struct Claim {
  std::string_view id;         // e.g. "slice-min-granularity/hierarchical"
  std::string_view about;      // the seed patch or invariant, e.g. "seed 003"
  FeatureSet features;         // the feature set the claim is checked under
  std::string_view relation;   // "invariant holds", "equivalent traces", "never worse"
  std::string_view statement;  // the conjecture, one line
  Expect expect;
};

std::span<const Claim> all_claims();

// The arithmetic era a claim pins through its features (hi_res_load,
// scale_load_down_min_2, calc_delta_mine), if it names one.
std::optional<LoadResolution> pinned_resolution(const Claim& claim);
// The era every engine checks a claim in when one era is wanted: the pinned
// one, else v5.15's.
LoadResolution claim_resolution(const Claim& claim);
const Claim* claim_by_id(std::string_view id);
std::string_view to_string(Expect e);

enum class Engine { properties, fuzz, proofs };
std::string_view to_string(Engine e);

// proved: a proof; passed: tested, no counterexample found; refuted: a
// counterexample; unknown: the engine could not decide (detail says why).
enum class Verdict { proved, passed, refuted, unknown };
std::string_view to_string(Verdict v);

// Whether a verdict is the one the claim expects: `holds` wants proved or
// passed, `refuted` wants refuted; unknown never agrees.
bool agrees(Expect e, Verdict v);

enum class Budget { smoke, ci, long_ };
std::string_view to_string(Budget b);

// What every engine's check_claim() takes.
struct CheckConfig {
  uint64_t seed = 1;
  Budget budget = Budget::ci;
  uint32_t timeout_ms = 0;   // 0: the budget's default
  std::string fuzz_bin_dir;  // "": the build's own libFuzzer sub-build
};

struct EngineResult {
  Engine engine{};
  Verdict verdict = Verdict::unknown;
  std::string detail;      // counterexample, case count or reason, one line
  std::string reproducer;  // multi-line text to replay the counterexample, if any
  double seconds = 0;
};

}  // namespace cfsv
