// ops/s of the scheduler arithmetic the model runs (model/calc_delta.h,
// model/slice.h): __calc_delta in both forms, calc_delta_fair, and sched_slice
// in each variant on a depth-3 hierarchy. Inputs come from a table filled at
// run time and cycled through, so nothing is constant-folded.
#include <benchmark/benchmark.h>

#include <array>
#include <vector>

#include "model/deterministic_random.h"
#include "model/arith/calc_delta.h"
#include "model/arith/slice.h"
#include "model/tunables.h"
#include "model/arith/weights.h"

namespace cfsv {
namespace {

constexpr std::size_t kInputs = 4096;  // a power of two
constexpr LoadResolution kRes = kLoadResolutionV5_7;

struct Input {
  uint64_t delta;                          // ns
  uint64_t weight;                         // the entity's weight (scaled)
  LoadWeight<uint64_t> se_load;            // a task's load, inverse weight cached (as set_load_weight does)
  LoadWeight<uint64_t> rq_load;            // a cfs_rq's load, inverse weight 0 (computed lazily)
  std::array<SliceLevel<uint64_t>, 3> chain;  // task, group, top-level group
  uint64_t nr_running, rq_h_nr_running;
};


const std::vector<Input>& inputs() {
  static const std::vector<Input> in = [] {
    std::vector<Input> v(kInputs);
    DeterministicRandom rng(1);
    auto nice_weight = [&] { return scale_load(uint64_t{nice_to_weight(int(rng.next() % 40) + kNiceMin)}, kRes); };
    for (Input& x : v) {
      const int nice = int(rng.next() % 40) + kNiceMin;
      x.delta = 1 + rng.next() % 50'000'000;
      x.weight = nice_weight();
      x.se_load = {scale_load(uint64_t{nice_to_weight(nice)}, kRes), nice_to_wmult(nice)};
      x.rq_load = {x.weight + (1 + rng.next() % 64) * nice_weight(), 0};
      x.nr_running = 1 + rng.next() % 32;
      x.rq_h_nr_running = x.nr_running + rng.next() % 96;
      for (std::size_t l = 0; l < x.chain.size(); ++l) {
        const uint64_t w = l == 0 ? nice_weight() : scale_load(2 + rng.next() % 10240, kRes);  // task, or group shares
        x.chain[l] = {w, w * (1 + rng.next() % 8) + (l == 0 ? 0 : nice_weight()), l == 0 ? rng.next() % 2 : 1};
      }
    }
    return v;
  }();
  return in;
}

template <class F> void run(benchmark::State& state, F f) {
  const std::vector<Input>& in = inputs();
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(f(in[i++ & (kInputs - 1)]));
  state.SetItemsProcessed(state.iterations());
}

void BM_calc_delta_fls(benchmark::State& state) {
  run(state, [](const Input& x) { return calc_delta(x.delta, x.weight, x.rq_load, kRes); });
}
void BM_calc_delta_loop(benchmark::State& state) {
  run(state, [](const Input& x) { return calc_delta_loop(x.delta, x.weight, x.rq_load, kRes); });
}
void BM_calc_delta_fair(benchmark::State& state) {
  run(state, [](const Input& x) { return calc_delta_fair(x.delta, x.se_load, kRes); });
}
void BM_sched_slice(benchmark::State& state, SliceFeatures f) {
  const Tunables t = Tunables{}.for_cpus(8);
  const SliceTunables<uint64_t> st{t.latency_ns, t.min_granularity_ns, t.nr_latency};
  run(state, [&](const Input& x) {
    return sched_slice<uint64_t>(x.chain, x.nr_running, x.rq_h_nr_running, st, f, kRes);
  });
}

BENCHMARK(BM_calc_delta_fls);
BENCHMARK(BM_calc_delta_loop);
BENCHMARK(BM_calc_delta_fair);
BENCHMARK_CAPTURE(BM_sched_slice, hierarchical, SliceFeatures{});
BENCHMARK_CAPTURE(BM_sched_slice, flat, SliceFeatures{.flat_slice = true});
BENCHMARK_CAPTURE(BM_sched_slice, alt_period_base_slice, SliceFeatures{.alt_period = true, .base_slice = true});

}  // namespace
}  // namespace cfsv
