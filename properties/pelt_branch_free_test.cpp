// The PELT templates never branch on a value: instantiated with Checked, a
// value type whose comparisons yield a Flag that does not convert to bool
// (as the proofs' symbolic type), they compile, and over random update
// histories they compute what the uint64_t instantiation computes (which
// also runs table_at's select chain against plain indexing).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "model/arith/pelt.h"
#include "model/arith/pelt_shares.h"
#include "model/arith/pelt_v3.h"
#include "model/arith/pelt_v4.h"
#include "model/deterministic_random.h"

namespace cfsv::checked {

struct Flag {
  bool b;
  friend Flag operator!(Flag a) { return {!a.b}; }
  friend Flag operator&&(Flag a, Flag c) { return {a.b && c.b}; }
  friend Flag operator||(Flag a, Flag c) { return {a.b || c.b}; }
};

struct Checked {
  uint64_t v;
  Checked(uint64_t x) : v(x) {}  // NOLINT: implicit, as the templates write V(32)
  friend Checked operator+(Checked a, Checked b) { return a.v + b.v; }
  friend Checked operator-(Checked a, Checked b) { return a.v - b.v; }
  friend Checked operator*(Checked a, Checked b) { return a.v * b.v; }
  friend Checked operator/(Checked a, Checked b) { return b.v ? a.v / b.v : ~uint64_t{0}; }  // bvudiv
  friend Checked operator&(Checked a, Checked b) { return a.v & b.v; }
  friend Checked operator|(Checked a, Checked b) { return a.v | b.v; }
  friend Checked operator<<(Checked a, Checked b) { return b.v < 64 ? a.v << b.v : 0; }
  friend Checked operator>>(Checked a, Checked b) { return b.v < 64 ? a.v >> b.v : 0; }
  friend Flag operator==(Checked a, Checked b) { return {a.v == b.v}; }
  friend Flag operator!=(Checked a, Checked b) { return {a.v != b.v}; }
  friend Flag operator<(Checked a, Checked b) { return {a.v < b.v}; }
  friend Flag operator<=(Checked a, Checked b) { return {a.v <= b.v}; }
  friend Flag operator>(Checked a, Checked b) { return {a.v > b.v}; }
  friend Flag operator>=(Checked a, Checked b) { return {a.v >= b.v}; }
};
Checked select(Flag c, Checked a, Checked b) { return c.b ? a : b; }
Checked min(Checked a, Checked b) { return a.v < b.v ? a : b; }
Checked max(Checked a, Checked b) { return a.v > b.v ? a : b; }
Checked mul_u64_u32_shr(Checked a, Checked mul, Checked shift) {
  return cfsv::mul_u64_u32_shr(a.v, mul.v & 0xffffffffu, shift.v);
}

}  // namespace cfsv::checked

namespace cfsv {
namespace {

using checked::Checked;
uint64_t value(uint64_t x) { return x; }
uint64_t value(Checked x) { return x.v; }

// One random history through every era's functions; every result in order.
template <class V> std::vector<uint64_t> run(uint64_t seed) {
  DeterministicRandom rng(seed);
  std::vector<uint64_t> out;
  const auto put = [&](V x) { out.push_back(value(x)); };
  pelt_v5_15::SchedAvg<V> se, cfs_rq;
  pelt_v4_4::SchedAvg<V> v4;
  pelt_v4_4::RunnableLoad<V> runnable_load;
  pelt_v3_10::SchedAvg<V> v3;
  pelt_v3_10::GroupCfsRqAvg<V> my_q{V(0), V(0)};
  pelt_v3_10::TaskGroupAvg<V> tg{V(0), V(0), V(1024)};
  V contrib(0), tg_load_avg(0);
  uint64_t now = 0;
  for (int step = 0; step < 200; ++step) {
    now += rng.below(8) == 0 ? rng.below(uint64_t{1} << 33) : rng.below(3 << 20);
    const V t(now), on(rng.below(4) != 0), running(value(on) && rng.below(2)), nr(value(on) * (1 + rng.below(8)));
    const V weight((uint64_t{15} + rng.below(88761)) << 10), n(rng.below(2100)), x(rng.next());
    put(pelt_v5_15::update_load_avg_se<V>(t, se, weight, on, on, running, kLoadResolutionV5_7));
    put(pelt_v5_15::update_load_avg_cfs_rq<V>(t, cfs_rq, weight * nr, nr, running, kLoadResolutionV5_7));
    put(pelt_v4_4::update_load_avg<V>(t, v4, on * (weight >> V(10)), running, &runnable_load));
    put(pelt_v3_10::update_entity_runnable_avg<V>(t, v3, on));
    put(pelt_v3_10::update_entity_load_avg_contrib<V>(v3, weight >> V(10), kLoadResolutionV3_10));
    put(pelt_v3_10::update_entity_load_avg_contrib<V>(v3, my_q, tg));
    put(pelt_v3_10::update_cfs_rq_tg_load_contrib<V>(v3.load_avg_contrib, V(rng.below(1000)), my_q, tg, V(0)));
    put(update_tg_load_avg<V>(se.load_avg + cfs_rq.load_avg, contrib, tg_load_avg, V(rng.below(4) == 0), V(0)));
    put(calc_group_shares<V>(V(1024 << 10), weight * nr, cfs_rq.load_avg, tg_load_avg + cfs_rq.load_avg,
                             cfs_rq.load_avg, kLoadResolutionV5_7));
    put(calc_cfs_shares<V>(V(1024), weight >> V(10), tg_load_avg + contrib, contrib));
    for (V r : {pelt_v5_15::decay_load(x, n), pelt_v4_4::decay_load(x, n), pelt_v3_10::decay_load(x, n),
                pelt_v4_4::compute_runnable_contrib(n), pelt_v4_4::compute_runnable_contrib_n32(n),
                pelt_v5_15::accumulate_pelt_segments(n, V(rng.below(1024)), V(rng.below(1024)))})
      put(r);
    for (V s : {se.load_sum, se.runnable_sum, se.util_sum, se.period_contrib, se.load_avg, se.runnable_avg,
                se.util_avg, cfs_rq.load_avg, cfs_rq.util_avg, v4.load_sum, v4.util_sum, v4.load_avg, v4.util_avg,
                runnable_load.avg, v3.runnable_avg_sum, v3.runnable_avg_period, tg.load_avg, tg.runnable_avg})
      put(s);
  }
  return out;
}

TEST(PeltTemplates, ComputeTheSameWithAValueTypeThatCannotBranch) {
  for (uint64_t seed = 1; seed <= 20; ++seed) EXPECT_EQ(run<Checked>(seed), run<uint64_t>(seed)) << "seed " << seed;
}

}  // namespace
}  // namespace cfsv
