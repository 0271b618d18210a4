// The verification plumbing every engine shares: which engine, its verdict on
// a claim, how hard it tries (the budget) and what it reports back.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "claims/counterexample.h"

namespace cfsv {

enum class Expect { holds, refuted };
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

// A bound that grows with the budget.
template <class T> struct PerBudget {
  T smoke, ci, long_;
  constexpr T at(Budget b) const { return b == Budget::smoke ? smoke : b == Budget::ci ? ci : long_; }
  bool operator==(const PerBudget&) const = default;
};

// What every engine's check_claim() takes.
struct CheckConfig {
  uint64_t seed = 1;
  Budget budget = Budget::ci;
  uint32_t timeout_ms = 0;   // 0: the budget's default
  std::string fuzz_bin_dir;  // "": the build's own libFuzzer sub-build
  uint32_t rlimit = 0;       // Z3's resource limit per query (0: none; proofs/bridge.h)
  // What a proof asks as it goes, for a progress line (`cfsv prove`): the
  // query it starts (decided false) and each path it has decided (true).
  // Empty: nothing is told. The PELT proofs tell it; the others are quick.
  std::function<void(std::string_view text, bool decided)> on_query = {};
};

struct EngineResult {
  Engine engine{};
  Verdict verdict = Verdict::unknown;
  std::string detail;      // counterexample, case count or reason, one line
  std::string reproducer;  // multi-line text to replay the counterexample, if any
  double seconds = 0;
  Counterexample counterexample;  // when refuted: every intermediate, as data
};

}  // namespace cfsv
