// ops/s of the scheduler arithmetic the model runs (model/arith/): __calc_delta
// in both forms, calc_delta_fair, sched_slice in each variant on a depth-3
// hierarchy, and PELT's decay_load, accumulate_sum and one entity update per
// era. Inputs come from a table filled at run time and cycled through, so
// nothing is constant-folded.
#include <benchmark/benchmark.h>

#include <array>
#include <vector>

#include "model/deterministic_random.h"
#include "model/arith/calc_delta.h"
#include "model/arith/pelt.h"
#include "model/arith/pelt_v3.h"
#include "model/arith/pelt_v4.h"
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
  uint64_t pelt_delta;                     // ns since the entity's last PELT update: mostly < 4 ms
  uint64_t pelt_flags;                     // bit 0 on_rq, bit 1 running
  pelt_v5_15::SchedAvg<uint64_t> avg;      // a reachable state: a task's after a random history
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
      x.pelt_delta = rng.next() % 8 == 0 ? rng.next() % 100'000'000 : rng.next() % 4'000'000;
      x.pelt_flags = rng.next() % 4;
      for (uint64_t t = 0, k = rng.next() % 50; k > 0; --k) {
        t += rng.next() % 4'000'000;
        pelt_v5_15::update_load_avg_se<uint64_t>(t, x.avg, x.weight, k & 1, k & 1, k & 2, kRes);
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
  const SliceTunables<uint64_t> st = slice_tunables(t);
  run(state, [&](const Input& x) {
    return sched_slice<uint64_t>(x.chain, x.nr_running, x.rq_h_nr_running, st, f, kRes);
  });
}

void BM_decay_load(benchmark::State& state) {
  run(state, [](const Input& x) { return pelt_v5_15::decay_load(x.avg.load_sum + x.delta, x.pelt_delta >> 20); });
}
void BM_accumulate_sum(benchmark::State& state) {
  run(state, [](const Input& x) {
    pelt_v5_15::SchedAvg<uint64_t> sa = x.avg;
    return pelt_v5_15::accumulate_sum<uint64_t>(x.pelt_delta >> 10, sa, x.pelt_flags & 1, x.pelt_flags & 1,
                                                x.pelt_flags & 2) + sa.load_sum;
  });
}
// One __update_load_avg_se: ___update_load_sum and ___update_load_avg.
void BM_update_load_avg_se(benchmark::State& state) {
  run(state, [](const Input& x) {
    pelt_v5_15::SchedAvg<uint64_t> sa = x.avg;
    const uint64_t on = x.pelt_flags & 1;
    pelt_v5_15::update_load_avg_se<uint64_t>(sa.last_update_time + x.pelt_delta, sa, x.weight, on, on,
                                             x.pelt_flags & 2, kRes);
    return sa.load_avg + sa.util_avg;
  });
}
void BM_update_load_avg_v4_4(benchmark::State& state) {
  run(state, [](const Input& x) {
    pelt_v4_4::SchedAvg<uint64_t> sa{x.avg.last_update_time, x.avg.load_sum, x.avg.util_sum, x.avg.period_contrib,
                                     x.avg.load_avg, x.avg.util_avg};
    pelt_v4_4::update_load_avg<uint64_t>(sa.last_update_time + x.pelt_delta, sa, (x.pelt_flags & 1) * 1024,
                                         x.pelt_flags & 2, nullptr);
    return sa.load_avg + sa.util_avg;
  });
}
void BM_update_entity_runnable_avg_v3_10(benchmark::State& state) {
  run(state, [](const Input& x) {
    pelt_v3_10::SchedAvg<uint64_t> sa{x.avg.util_sum >> 10, x.avg.util_sum >> 10, x.avg.last_update_time, 0};
    pelt_v3_10::update_entity_runnable_avg<uint64_t>(sa.last_runnable_update + x.pelt_delta, sa, x.pelt_flags & 1);
    return pelt_v3_10::task_entity_contrib<uint64_t>(sa, 1024, kLoadResolutionV3_10);
  });
}

BENCHMARK(BM_calc_delta_fls);
BENCHMARK(BM_calc_delta_loop);
BENCHMARK(BM_calc_delta_fair);
BENCHMARK_CAPTURE(BM_sched_slice, hierarchical, SliceFeatures{});
BENCHMARK_CAPTURE(BM_sched_slice, flat, SliceFeatures{.flat_slice = true});
BENCHMARK_CAPTURE(BM_sched_slice, alt_period_base_slice, SliceFeatures{.alt_period = true, .base_slice = true});
BENCHMARK(BM_decay_load);
BENCHMARK(BM_accumulate_sum);
BENCHMARK(BM_update_load_avg_se);
BENCHMARK(BM_update_load_avg_v4_4);
BENCHMARK(BM_update_entity_runnable_avg_v3_10);

}  // namespace
}  // namespace cfsv
