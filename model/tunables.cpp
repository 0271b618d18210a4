#include "tunables.h"

#include "scenario.h"

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
  t.update_sysctl(*this, online_cpus);
  return t;
}

void Tunables::update_sysctl(const Tunables& normalized, unsigned online_cpus) {
  const uint64_t f = scaling_factor(online_cpus, normalized.scaling);
  latency_ns = f * normalized.latency_ns;
  min_granularity_ns = f * normalized.min_granularity_ns;
  wakeup_granularity_ns = f * normalized.wakeup_granularity_ns;
}

Tunables Tunables::normalized_by(unsigned online_cpus) const {
  Tunables t = *this;
  const uint64_t f = scaling_factor(online_cpus, scaling);
  t.latency_ns /= f;
  t.min_granularity_ns /= f;
  t.wakeup_granularity_ns /= f;
  return t;
}

void Tunables::recompute_nr_latency() {
  if (min_granularity_ns) nr_latency = (latency_ns + min_granularity_ns - 1) / min_granularity_ns;
}

// A tunable write after boot: sched_proc_update_handler (kernel/sched/fair.c
// v3.10, v4.4) recomputes sched_nr_latency after a latency/min_granularity/
// wakeup_granularity write; the v5.13+ debugfs files (kernel/sched/debug.c)
// are plain writes. `scaling` was applied at boot.
std::string Tunables::write(const Setting& s, bool sysctl_recomputes_nr_latency) {
  Tunables& tun = *this;
  const uint64_t v = s.value;
  const bool gran = s.key == "latency" || s.key == "min_granularity" || s.key == "wakeup_granularity";
  std::string error;
  if (s.key == "hz") tun.hz = static_cast<uint32_t>(std::max<uint64_t>(v, 1));
  else if (s.key == "latency") tun.latency_ns = v;
  else if (s.key == "min_granularity") tun.min_granularity_ns = std::max<uint64_t>(v, 1);
  else if (s.key == "wakeup_granularity") tun.wakeup_granularity_ns = v;
  else if (s.key == "idle_min_granularity") tun.idle_min_granularity_ns = v;
  else if (s.key == "migration_cost") tun.migration_cost_ns = v;
  else if (s.key == "nr_latency") tun.nr_latency = v;
  else if (s.key == "nr_migrate") tun.nr_migrate = static_cast<uint32_t>(v);
  else if (s.key == "newidle_cost") tun.newidle_cost_per_cpu_ns = v;
  else if (s.key == "autogroup") tun.autogroup_enabled = v != 0;
  else if (s.key != "scaling") error = "unknown setting '" + s.key + "'";
  if (gran && sysctl_recomputes_nr_latency) tun.recompute_nr_latency();
  return error;
}

}  // namespace cfsv
