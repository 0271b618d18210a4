// The stated limits of a scenario and of a run (docs/scenario-format.md,
// "Limits"). The parser enforces the scenario limits with the line at fault,
// the simulator rejects ops beyond them, and `cfsv run`/`replay` refuse a run
// whose estimated events exceed --max-events before it starts.
#pragma once
#include <cstddef>
#include <cstdint>

#include "scenario.h"

namespace cfsv {

constexpr Nanos kMaxScenarioTime = 1'000'000'000'000'000'000ull;  // 1e9 s: every time and duration
constexpr std::size_t kMaxInputBytes = std::size_t{16} << 20;      // a scenario file: 16 MiB
constexpr std::size_t kMaxTasks = 100'000;                         // tasks spawned over a whole run
constexpr std::size_t kMaxGroups = 100'000;                        // task groups besides the root
constexpr uint64_t kMaxGroupEntities = uint64_t{1} << 20;          // groups x CPUs (each a cfs_rq and an entity)
constexpr std::size_t kMaxOps = 1'000'000;                         // timed ops (`at` lines and task at=)
// A task that sleeps between bursts: run + sleep (or runtime + sleep) at least
// this long, so that one task costs at most ~2 events per microsecond.
constexpr Nanos kMinPeriod = 1'000;
constexpr uint64_t kDefaultMaxEvents = 1'000'000'000;              // events of one `cfsv run`, --max-events

// About how many events (ticks, burst ends, wakeups, ops) the simulator handles
// to run the scenario at `hz`: ticks while CPUs are busy (the tasks' busy
// fractions, capped by the CPUs they may use), two events per periodic burst,
// one per op. An estimate for refusing hopeless runs up front, not a bound.
double estimate_events(const Scenario& sc, uint64_t hz);

}  // namespace cfsv
