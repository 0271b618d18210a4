// PELT's constants and tables, computed from their definitions the way the
// kernel's generator (Documentation/scheduler/sched-pelt.c, v4.13+; the
// sched-avg.txt program before) computes them. properties/pelt_tables_test.cpp
// checks every value against the kernel's literal tables.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "fixed_point.h"

namespace cfsv {

constexpr uint64_t kLoadAvgPeriod = 32;        // LOAD_AVG_PERIOD: y^32 = 1/2
constexpr uint64_t kPeltPeriodUs = 1024;       // one PELT period: 1024 units of 1024 ns
constexpr uint64_t kPeltUnitShift = 10;        // ns >> 10: PELT's "microsecond"
constexpr uint64_t kSchedCapacityShift = 10;   // SCHED_CAPACITY_SHIFT
constexpr uint64_t kSchedCapacityScale = 1024; // SCHED_CAPACITY_SCALE
constexpr uint64_t kPeltMaxDecayPeriods = kLoadAvgPeriod * 63;  // decay_load returns 0 beyond

struct PeltTables {
  // runnable_avg_yN_inv[i] = (u32)((2^32 - 1) * y^i), y = 0.5^(1/32) in double.
  std::array<uint32_t, kLoadAvgPeriod> yN_inv;
  // runnable_avg_yN_sum[n] (v3.8..v4.11) = floor(1024 * (y + ... + y^n)) as
  // the generator rounds it: s_1 = (int)(1024 y), s_n = (int)(s_{n-1} y + 1024 y).
  std::array<uint32_t, kLoadAvgPeriod + 1> yN_sum;
  // LOAD_AVG_MAX: the fixed point of s = decay_load(s, 1) + 1024 from s = 1024.
  uint64_t load_avg_max;
  // LOAD_AVG_MAX_N: how many decay steps that iteration takes, as the generator counts them.
  uint64_t load_avg_max_n;
  // __accumulated_sum_N32[k] (v4.7..v4.11, first release unverified): x_1 =
  // yN_sum[32], x_k = x_{k-1} / 2 + yN_sum[32], for k <= LOAD_AVG_MAX_N / 32 + 1.
  std::array<uint32_t, 12> accumulated_sum_N32;
};

// The generator's steps (pelt_tables.cpp).
PeltTables compute_pelt_tables();
// The tables, computed once on first use (inline: every decay reads them).
inline const PeltTables& pelt_tables() {
  static const PeltTables t = compute_pelt_tables();
  return t;
}

// t[i] without branching on i (i < N): the select chain for a symbolic value
// type, a plain index for uint64_t (the overload below, chosen for it).
template <class V, std::size_t N> V table_at(const std::array<uint32_t, N>& t, V i) {
  V r(uint64_t{t[0]});
  for (std::size_t k = 1; k < N; ++k) r = select(i == V(uint64_t{k}), V(uint64_t{t[k]}), r);
  return r;
}
template <std::size_t N> uint64_t table_at(const std::array<uint32_t, N>& t, uint64_t i) { return t[i]; }

// The kernel's u32 fields and locals: the low 32 bits.
template <class V> V u32(V x) { return x & V(uint64_t{0xffffffffu}); }

// (s64)x < 0 for a u64 difference, written unsigned.
template <class V> auto negative_s64(V x) { return x > V(~uint64_t{0} >> 1); }

namespace detail {
// decay_load's shared body (kernel/sched/fair.c v3.8..v4.18, pelt.c v4.19+):
// 0 beyond 63 half-lives, else (val >> n/32) * runnable_avg_yN_inv[n % 32] >> 32,
// the product formed by `mul`. decay_load_by(n, mul) is val -> decay_load(val, n),
// its shift and table entry formed once for every sum an update decays by n.
template <class V, class Mul> auto decay_load_by(V n, Mul mul) {
  const auto beyond = n > V(kPeltMaxDecayPeriods);
  const V m = select(beyond, V(0), n);
  const V halvings = m >> V(5);  // m / LOAD_AVG_PERIOD <= 63
  const V inv = table_at(pelt_tables().yN_inv, m & V(kLoadAvgPeriod - 1));
  return [=](V val) { return select(beyond, V(0), mul(val >> halvings, inv)); };
}
template <class V, class Mul> V decay_load_with(V val, V n, Mul mul) { return decay_load_by(n, mul)(val); }

// __compute_runnable_contrib, loop form (kernel/sched/fair.c v3.10, v4.4):
// 1024 (y + ... + y^n) from runnable_avg_yN_sum, halving once per 32 periods,
// with the era's decay_load. The do/while runs at most 10 times (n < 345).
template <class V, class Decay> V compute_runnable_contrib_loop(V n, Decay decay) {
  const PeltTables& t = pelt_tables();
  const V sum32(uint64_t{t.yN_sum[kLoadAvgPeriod]});
  V contrib = sum32;  // the first round: 0 / 2 + yN_sum[32]
  V m = n - V(kLoadAvgPeriod);
  for (int round = 1; round < 10; ++round) {
    const auto again = m > V(kLoadAvgPeriod);
    contrib = select(again, (contrib >> V(1)) + sum32, contrib);
    m = select(again, m - V(kLoadAvgPeriod), m);
  }
  const V looped = u32(decay(contrib, m) + table_at(t.yN_sum, min(m, V(kLoadAvgPeriod))));
  return select(n <= V(kLoadAvgPeriod), table_at(t.yN_sum, min(n, V(kLoadAvgPeriod))),
                select(n >= V(t.load_avg_max_n), V(t.load_avg_max), looped));
}
}  // namespace detail

}  // namespace cfsv
