// Proof times: every claim, end to end (building the queries, solving,
// re-checking a counterexample) at the ci budget, one benchmark per claim of
// claims/registry.cpp. Few iterations: each is up to seconds.
#include <benchmark/benchmark.h>

#include <string>

#include "claims/claim.h"
#include "proofs/prove.h"

namespace cfsv {
namespace {

void BM_Prove(benchmark::State& state, const Claim* claim) {
  CheckConfig config;
  config.budget = Budget::ci;
  std::size_t queries = 0;
  for (auto _ : state) {
    const proofs::ProofResult r = proofs::prove_claim(*claim, config);
    if (!agrees(claim->expect, to_verdict(r.outcome))) {
      state.SkipWithError(("unexpected verdict: " + r.detail).c_str());
      return;
    }
    queries = r.queries.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["queries"] = static_cast<double>(queries);
}

// BM_Prove/<claim id>.
[[maybe_unused]] const bool kRegistered = [] {
  for (const Claim& c : all_claims())
    benchmark::RegisterBenchmark(("BM_Prove/" + std::string(c.id)).c_str(), BM_Prove, &c)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(2);
  return true;
}();

}  // namespace
}  // namespace cfsv
