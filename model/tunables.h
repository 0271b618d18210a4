// Scheduler tunables and their scaling with CPU count (kernel/sched/fair.c
// sysctl_sched_*, get_update_sysctl_factor, update_sysctl; v3.10..v6.5).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "arith/slice.h"

namespace cfsv {

struct Setting;  // scenario.h

enum class TunableScaling { none, log, linear };  // SCHED_TUNABLESCALING_*

std::string_view to_string(TunableScaling s);

struct Tunables {
  // Normalised (1-CPU) defaults; for_cpus() scales latency, min_granularity
  // and wakeup_granularity as the kernel does at boot.
  uint64_t latency_ns = 6'000'000;
  uint64_t min_granularity_ns = 750'000;
  uint64_t wakeup_granularity_ns = 1'000'000;
  uint64_t idle_min_granularity_ns = 750'000;  // v5.16+ (feature idle_min_granularity), never scaled
  uint64_t migration_cost_ns = 500'000;
  uint64_t nr_latency = 8;  // sched_nr_latency
  uint32_t nr_migrate = 32;
  // Not the kernel's: the time a newidle balance of a domain takes per CPU of
  // its span (model/balance.h; the kernel measures it with sched_clock_cpu).
  uint64_t newidle_cost_per_cpu_ns = 200;
  uint32_t hz = 1000;
  TunableScaling scaling = TunableScaling::log;
  uint32_t autogroup_enabled = 1;  // sysctl_sched_autogroup_enabled (kernel/sched/autogroup.c; CONFIG_SCHED_AUTOGROUP)

  // get_update_sysctl_factor: 1, min(cpus, 8), or 1 + ilog2(min(cpus, 8)).
  static uint64_t scaling_factor(unsigned online_cpus, TunableScaling s);
  // update_sysctl: this set of normalised values, scaled for online_cpus.
  Tunables for_cpus(unsigned online_cpus) const;
  // update_sysctl after boot (rq_online_fair, rq_offline_fair: CPU hotplug):
  // latency, min_granularity and wakeup_granularity become `normalized`'s
  // scaled for online_cpus; the rest stays.
  void update_sysctl(const Tunables& normalized, unsigned online_cpus);
  // What sched_proc_update_handler leaves in normalized_sysctl_* after this
  // set's sysctl writes at online_cpus (v3.10, v4.4): each value over the
  // factor, rounded down. v5.13+'s debugfs writes leave them alone.
  Tunables normalized_by(unsigned online_cpus) const;
  // sched_proc_update_handler: after a latency/min_granularity write,
  // sched_nr_latency = DIV_ROUND_UP(latency, min_granularity).
  void recompute_nr_latency();
  // A `set` line after boot (sched_proc_update_handler and the debugfs
  // writes, tunables.cpp): what is wrong with it, "" when it applied.
  std::string write(const Setting& s, bool sysctl_recomputes_nr_latency);

  uint64_t tick_ns() const { return 1'000'000'000ull / hz; }
  bool operator==(const Tunables&) const = default;
};

// What sched_slice reads of them (model/arith/slice.h).
inline SliceTunables<uint64_t> slice_tunables(const Tunables& t) {
  return {t.latency_ns, t.min_granularity_ns, t.nr_latency, t.idle_min_granularity_ns};
}

}  // namespace cfsv
