// Proof times: each claim the Z3 engine supports, end to end (building the
// queries, solving, re-checking a counterexample) at the ci budget, whose
// task bound the equal-weight queries use. Few iterations: each is seconds.
#include <benchmark/benchmark.h>

#include <string>

#include "model/claims.h"
#include "proofs/prove.h"

namespace cfsv {
namespace {

void BM_Prove(benchmark::State& state, const char* id) {
  const Claim* claim = claim_by_id(id);
  if (!claim) {
    state.SkipWithError("no such claim");
    return;
  }
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

#define CFSV_BENCH_PROOF(name, id) \
  BENCHMARK_CAPTURE(BM_Prove, name, id)->Unit(benchmark::kMillisecond)->Iterations(2)

CFSV_BENCH_PROOF(slice_hierarchical, "slice-min-granularity/hierarchical");
CFSV_BENCH_PROOF(slice_flat, "slice-min-granularity/flat");
CFSV_BENCH_PROOF(slice_base_slice, "slice-min-granularity/base_slice");
CFSV_BENCH_PROOF(slice_flat_equal_weights_exact_set, "slice-min-granularity/flat-equal-weights-exact-set");
CFSV_BENCH_PROOF(slice_flat_equal_weights_rounding, "slice-min-granularity/flat-equal-weights-rounding");
CFSV_BENCH_PROOF(slice_flat_equal_weights_exact_set_v3_10, "slice-min-granularity/flat-equal-weights-exact-set-v3.10");
CFSV_BENCH_PROOF(slice_flat_equal_weights_rounding_v3_10, "slice-min-granularity/flat-equal-weights-rounding-v3.10");
CFSV_BENCH_PROOF(calc_delta_loop_equals_fls, "calc-delta/loop-equals-fls");

}  // namespace
}  // namespace cfsv
