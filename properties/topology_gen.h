// RapidCheck generators of machine topologies: up to 4 sockets of up to 4
// cores of 1 or 2 threads, NUMA nodes dividing the sockets, sometimes a
// distance table (few distinct values, so that levels repeat), per-CPU
// capacities and ITMT priorities.
#pragma once
#include <rapidcheck.h>

#include <ostream>

#include "model/scenario.h"
#include "model/scenario_parser.h"

namespace cfsv {
// How RapidCheck shows a topology: its statement's text.
inline void showValue(const Topology& t, std::ostream& os) { os << scenario_text::topology_text(t); }
}  // namespace cfsv

namespace cfsv::topology_gen {

inline rc::Gen<Topology> topology() {
  return rc::gen::exec([] {
    Topology t;
    t.sockets = *rc::gen::inRange(1u, 5u);
    t.cores = *rc::gen::inRange(1u, 5u);
    t.threads = *rc::gen::inRange(1u, 3u);
    std::vector<unsigned> divisors;
    for (unsigned d = 1; d <= t.sockets; ++d)
      if (t.sockets % d == 0) divisors.push_back(d);
    if (*rc::gen::arbitrary<bool>()) t.nodes = *rc::gen::elementOf(divisors);
    const unsigned n = t.nr_nodes();
    if (*rc::gen::arbitrary<bool>()) {
      t.distance.assign(n * n, 10);
      for (unsigned a = 0; a < n; ++a)
        for (unsigned b = 0; b < a; ++b)
          t.distance[a * n + b] = t.distance[b * n + a] = *rc::gen::element(12u, 20u, 21u, 30u, 31u, 40u);
    }
    if (*rc::gen::inRange(0, 4) == 0) {
      t.capacity.resize(t.nr_cpus());
      for (unsigned& c : t.capacity) c = *rc::gen::element(0u, 446u, 1024u);
      if (std::count(t.capacity.begin(), t.capacity.end(), 0u) == long(t.capacity.size())) t.capacity.clear();
    }
    if (*rc::gen::inRange(0, 4) == 0) {  // ITMT priorities (v5.15: SD_ASYM_PACKING), 0 where not given
      t.priority.resize(t.nr_cpus());
      for (unsigned& p : t.priority) p = *rc::gen::inRange(0u, 5u);
      if (std::count(t.priority.begin(), t.priority.end(), 0u) == long(t.priority.size())) t.priority.clear();
    }
    return t;
  });
}

}  // namespace cfsv::topology_gen
