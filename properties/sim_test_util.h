// Helpers shared by the properties/sim_*_test.cpp tests: scenarios built in C++.
#pragma once
#include <regex>
#include <sstream>
#include <string>

#include "model/scenario.h"
#include "model/sim.h"
#include "model/trace.h"

namespace cfsv::simtest {

inline Scenario basic(std::string kernel, unsigned cpus = 1) {
  Scenario s;
  s.kernel = std::move(kernel);
  s.topology = {1, cpus, 1};
  return s;
}

inline TaskSpec task(std::string name, int nice = 0, std::string group = "/", Behaviour b = RunBusy{}) {
  TaskSpec t;
  t.name = std::move(name);
  t.nice = nice;
  t.group = std::move(group);
  t.behaviour = b;
  return t;
}

// Everything a run shows: perf lines, Perfetto JSON (the ops' file lines left
// out: a scenario built in C++ has none) and its migrations.
inline std::string traces(const Scenario& s) {
  std::ostringstream perf, json;
  PerfScriptWriter w(perf, "perf");
  PerfettoWriter p(json, "perfetto");
  SinkTee sinks{&w, &p};
  Sim sim(s, SimOptions{.sink = &sinks});
  sim.run();
  p.finish(sim.sched(), sim.now());
  return perf.str() + "\n" + std::regex_replace(json.str(), std::regex("\"line\":[0-9]+"), "\"line\":_") + "\n" +
         std::to_string(sim.counters().migrations);
}

inline CpuMask cpus(std::initializer_list<unsigned> l) {
  CpuMask m;
  for (unsigned c : l) m.set(c);
  return m;
}

// The PELT tests' blocked-load case: a runs `run` on CPU 0, then sleeps
// `sleep`; b keeps CPU 1 busy, so its ticks update CPU 0's blocked averages.
inline Scenario run_then_sleep(std::string kernel, Nanos run, Nanos sleep, Nanos duration) {
  Scenario s = basic(std::move(kernel), 2);
  TaskSpec a = task("a", 0, "/", RunPeriodic{run, sleep});
  a.cpus = cpus({0});
  TaskSpec b = task("b");
  b.cpus = cpus({1});
  s.tasks = {a, b};
  s.duration = duration;
  return s;
}

// The PELT tests' group case: one group /g of 1024 shares, busy nice-0 tasks
// a and b on CPU 0 and c on CPU 1.
inline Scenario group_on_two_cpus(std::string kernel, Nanos duration) {
  Scenario s = basic(std::move(kernel), 2);
  s.groups = {{"/g", 1024}};
  for (const auto& [name, cpu] : {std::pair{"a", 0u}, {"b", 0u}, {"c", 1u}}) {
    TaskSpec t = task(name, 0, "/g");
    t.cpus = cpus({cpu});
    s.tasks.push_back(t);
  }
  s.duration = duration;
  return s;
}

// Seed 003's experiment: 4 CPUs, v3.10, HZ 1000, min_granularity 2.25 ms,
// latency 18 ms, 4 groups of 1024 shares with 20 busy nice-0 tasks each, all
// pinned to CPU 3.
inline Scenario seed003(bool flat_slice, Nanos duration = 1'000'000'000) {
  Scenario s = basic("v3.10", 4);
  s.settings = {{"hz", 1000}, {"min_granularity", 2'250'000}, {"latency", 18'000'000}};
  s.feature_overrides = {{Feature::flat_slice, flat_slice}};
  for (int g = 0; g < 4; ++g) {
    s.groups.push_back({"/g" + std::to_string(g), 1024});
    for (int t = 0; t < 20; ++t) {
      TaskSpec k = task("g" + std::to_string(g) + "t" + std::to_string(t), 0, "/g" + std::to_string(g));
      k.cpus = cpus({3});
      s.tasks.push_back(k);
    }
  }
  s.duration = duration;
  return s;
}

}  // namespace cfsv::simtest
