// Runs a RapidCheck property programmatically, silently and deterministically,
// and turns its result into an EngineResult (claims/verdict.h).
#pragma once
#include <rapidcheck.h>

#include <string>
#include <utility>

#include "claims/counterexample.h"
#include "claims/verdict.h"

namespace cfsv::properties {

// Successful cases a property must pass per budget: smoke 100, ci 1000, long 100000.
int max_success(Budget b);

// A smoke-budget config with this seed (for tests).
inline CheckConfig smoke_config(uint64_t seed) {
  CheckConfig c;
  c.seed = seed;
  c.budget = Budget::smoke;
  return c;
}

// Fails the current case. `summary` is one readable line; `reproducer`
// lists every intermediate, one per line. run_property() reports them as
// EngineResult::detail and ::reproducer of the shrunk counterexample.
[[noreturn]] void refute(const std::string& summary, const std::string& reproducer = {});
// Fails the current case with a claim's counterexample: its summary, the
// formatted counterexample as the reproducer, and the data itself as
// EngineResult::counterexample.
[[noreturn]] void refute(const Counterexample& c);

// Checks `property` with seed config.seed and max_success(config.budget)
// cases. Prints nothing (no listener output, RC_PARAMS is not read).
// Success -> passed ("N cases"), failure -> refuted with the shrunk
// counterexample, too many discarded cases -> unknown.
EngineResult run_property(const rc::detail::Property& property, const CheckConfig& config);

template <class Testable>
EngineResult run_testable(Testable&& testable, const CheckConfig& config) {
  return run_property(rc::detail::toProperty(std::forward<Testable>(testable)), config);
}

}  // namespace cfsv::properties
