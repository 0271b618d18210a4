#include "limits.h"

#include <algorithm>
#include <variant>

#include "overloaded.h"

namespace cfsv {

double estimate_events(const Scenario& sc, uint64_t hz) {
  const double duration = static_cast<double>(sc.duration);
  if (duration <= 0) return static_cast<double>(sc.ops.size());
  double busy_cpus = 0, bursts = 0;
  CpuMask cpus;
  bool any_cpu = false;
  auto add = [&](const TaskSpec& t, Nanos from) {
    const double span = duration - std::min(static_cast<double>(from), duration);  // how long it may live
    // A waker's burst ends in a wakee's burst too (wakes=), which a task
    // that waits to be woken (sleep=wait) is counted in: one burst of its own.
    const double per_burst = t.wakes.empty() ? 2 : 4;
    auto periodic = [&](Nanos run, const std::optional<Nanos>& sleep) {
      if (!sleep || *sleep == kSleepWait) {  // one burst, then exit or wait
        busy_cpus += std::min(static_cast<double>(run), span) / duration;
        bursts += per_burst;
        return;
      }
      const double period = std::max<double>(static_cast<double>(run + *sleep), 1);
      busy_cpus += static_cast<double>(run) / period * span / duration;
      bursts += per_burst * (span / period + 1);
    };
    std::visit(Overloaded{[&](const RunBusy&) { busy_cpus += span / duration; },
                          [&](const RunPeriodic& b) { periodic(b.run, b.sleep); },
                          [&](const RunWallclock& b) { periodic(b.runtime, b.sleep); }},
               t.behaviour);
    if (t.churn.every) {  // its children: each a one-burst task, and its fork
      double n = span / static_cast<double>(t.churn.every);
      if (t.churn.children) n = std::min(n, static_cast<double>(t.churn.children));
      busy_cpus += n * static_cast<double>(t.churn.child_run) / duration;
      bursts += 3 * n;
    }
    if (t.cpus.none()) any_cpu = true;
    cpus |= t.cpus;
  };
  for (const TaskSpec& t : sc.tasks) add(t, 0);
  for (const TimedOp& o : sc.ops)
    if (const auto* sp = std::get_if<op::Spawn>(&o.op)) add(sp->task, o.at);
  const double nr_cpus = std::max(1u, sc.topology.nr_cpus());
  const double usable = any_cpu ? nr_cpus : std::min<double>(nr_cpus, static_cast<double>(cpus.count()));
  const double ticks = duration / 1e9 * static_cast<double>(hz) * std::min(usable, busy_cpus);
  return ticks + bursts + static_cast<double>(sc.ops.size());
}

}  // namespace cfsv
