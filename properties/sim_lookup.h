// Looking into a Sim in tests: a task and its entity by name (scenarios
// built in C++: sim_test_util.h).
#pragma once
#include <string_view>

#include "model/sim.h"

namespace cfsv::sim_lookup {

constexpr Nanos kMs = 1'000'000;

inline const Task& task(const Sim& sim, std::string_view name) { return sim.tasks()[sim.task_index(name)]; }
inline const SchedEntity& se(const Sim& sim, std::string_view name) { return sim.sched().se[task(sim, name).se]; }

}  // namespace cfsv::sim_lookup
