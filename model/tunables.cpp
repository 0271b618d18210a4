#include "tunables.h"

#include <algorithm>
#include <bit>

namespace cfsv {

std::string_view to_string(TunableScaling s) {
  switch (s) {
    case TunableScaling::none: return "none";
    case TunableScaling::log: return "log";
    case TunableScaling::linear: return "linear";
  }
  return "?";
}

uint64_t Tunables::scaling_factor(unsigned online_cpus, TunableScaling s) {
  const unsigned cpus = std::clamp(online_cpus, 1u, 8u);
  switch (s) {
    case TunableScaling::none: return 1;
    case TunableScaling::linear: return cpus;
    case TunableScaling::log: return 1 + (std::bit_width(cpus) - 1);  // 1 + ilog2(cpus)
  }
  return 1;
}

Tunables Tunables::for_cpus(unsigned online_cpus) const {
  Tunables t = *this;
  const uint64_t f = scaling_factor(online_cpus, scaling);
  t.latency_ns *= f;
  t.min_granularity_ns *= f;
  t.wakeup_granularity_ns *= f;
  return t;
}

void Tunables::recompute_nr_latency() {
  if (min_granularity_ns) nr_latency = (latency_ns + min_granularity_ns - 1) / min_granularity_ns;
}

}  // namespace cfsv
