// Helpers shared by the simulator's PELT tests (sim_pelt_test.cpp, v5.15;
// sim_pelt_v4_test.cpp, v4.4): the averages a test reads, and the half-life
// case both eras share.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <string_view>

#include "model/sim.h"
#include "properties/sim_test_util.h"

namespace cfsv::simtest {

constexpr Nanos kMs = 1'000'000;
constexpr long double kPeriodNs = 1024.0L * 1024.0L;  // one PELT period

inline const SchedAvg& task_avg(const Sim& sim, std::string_view name) {
  return sim.entities()[sim.tasks()[sim.task_index(name)].se].pelt.avg;
}
inline const SchedAvg& root_avg(const Sim& sim, unsigned cpu) {
  return sim.cfs_rqs()[sim.rqs()[CpuId(cpu)].cfs].pelt.avg;
}

// a runs 1 s on CPU 0, then sleeps; CPU 1 stays busy, so its tick updates
// CPU 0's blocked averages every 32 ms. At each update the root cfs_rq's
// util_avg is within abs_tol + ideal * rel_tol of the ideal
// u0 * 2^(-t / 32 periods), t the PELT time since a stopped; after 400 ms it
// is below a quarter of u0.
inline void expect_blocked_util_halves(std::string kernel, unsigned min_util_at_stop, long double abs_tol,
                                       long double rel_tol) {
  Sim sim(run_then_sleep(std::move(kernel), 1000 * kMs, 10000 * kMs, 1400 * kMs));
  sim.run_to(1000 * kMs);
  ASSERT_EQ(sim.tasks()[sim.task_index("a")].state, TaskState::sleeping);
  const SchedAvg at_stop = root_avg(sim, 0);
  ASSERT_GE(at_stop.util_avg, min_util_at_stop);
  int updates = 0;
  uint64_t seen = at_stop.last_update_time;
  for (Nanos t = 1000 * kMs; t <= 1400 * kMs; t += kMs) {
    sim.run_to(t);
    const SchedAvg& now = root_avg(sim, 0);
    if (now.last_update_time == seen) continue;
    seen = now.last_update_time;
    ++updates;
    const long double periods = (now.last_update_time - at_stop.last_update_time) / kPeriodNs;
    const long double ideal = at_stop.util_avg * std::pow(2.0L, -periods / 32);
    EXPECT_NEAR(static_cast<long double>(now.util_avg), ideal, abs_tol + ideal * rel_tol)
        << "after " << periods << " periods";
  }
  EXPECT_GE(updates, 10);  // every 32 ms for 400 ms
  EXPECT_LE(root_avg(sim, 0).util_avg, at_stop.util_avg / 4);
}

}  // namespace cfsv::simtest
