#include "claims/lb_pass.h"

#include <algorithm>

#include "model/sched.h"

namespace cfsv {

namespace {
std::string_view idle_name(CpuIdleType i) {
  return i == CpuIdleType::idle ? "idle" : i == CpuIdleType::newly_idle ? "newly_idle" : "not_idle";
}
std::string_view type_name(MigrationType t) {
  switch (t) {
    case MigrationType::load: return "migrate_load";
    case MigrationType::util: return "migrate_util";
    case MigrationType::task: return "migrate_task";
    case MigrationType::misfit: return "migrate_misfit";
  }
  return "?";
}
std::string group(const char* name, const LbGroupFigures& g) {
  return std::string(name) + " load " + std::to_string(g.group_load) + " avg " + std::to_string(g.avg_load) + " cap " + std::to_string(g.group_capacity) +
         " nr " + std::to_string(g.sum_nr_running) + " idle " + std::to_string(g.idle_cpus) + " of " +
         std::to_string(g.group_weight) + " type " + std::to_string(g.type);
}
}  // namespace

std::string pass_beyond_verdict(const LbPass& p) {
  if (p.tasks < 1) return "a pass with ld_moved 0 was reported";
  if (p.imbalance <= 0) return "tasks moved against X <= 0";
  const int64_t before_last = p.left + static_cast<int64_t>(p.last_take);
  if (before_last <= 0) return "a task was taken at imbalance <= 0";
  const uint64_t moved = static_cast<uint64_t>(p.imbalance - p.left);
  if (moved < p.max_take || moved < p.last_take) return "the takes exceed X - left";
  if (p.idle == CpuIdleType::newly_idle && p.pulls_one && p.tasks != 1) return "a newly idle pass moved more than one task";
  switch (p.type) {
    case MigrationType::task:
      if (moved != p.tasks) return "migrate_task: X - left is not the number of tasks moved";
      return p.left < 0 ? "migrate_task: more than X tasks moved" : "";
    case MigrationType::util: return p.left < 0 ? "migrate_util: more than X util moved" : "";
    case MigrationType::load:
      if (p.era1)
        return detach_load_fits_v4<uint64_t>(p.last_take, static_cast<uint64_t>(before_last))
                   ? ""
                   : "era 1: the last task's load / 2 did not fit";
      if (!detach_load_fits<uint64_t>(p.last_take, p.nr_balance_failed, static_cast<uint64_t>(before_last)))
        return "migrate_load: the last task's shr_bound(load, nr_balance_failed) did not fit";
      return p.nr_balance_failed == 0 && p.left < 0 ? "migrate_load: more than X load moved with nr_balance_failed 0"
                                                    : "";
    case MigrationType::misfit:  // detach_tasks takes the one task that does not fit src, then stops
      return p.imbalance == 1 && p.tasks == 1 && p.left == 0 ? "" : "migrate_misfit: not the one misfit task at X 1";
  }
  return "";
}

uint64_t load_moved(const LbPass& p) { return static_cast<uint64_t>(p.imbalance - p.left); }

bool reverses(const LbPass& p, bool without_largest) {
  if (p.type != MigrationType::load) return false;
  using W = __int128;
  const W m = static_cast<W>(load_moved(p)) - (without_largest ? static_cast<W>(p.max_take) : 0);
  if (m <= 0) return false;
  const W local = (static_cast<W>(p.local.group_load) + m) * static_cast<W>(p.busiest.group_capacity);
  const W busiest = (static_cast<W>(p.busiest.group_load) - m) * static_cast<W>(p.local.group_capacity);
  return local > busiest;
}

std::string describe(const LbPass& p) {
  return std::string(p.era1 ? "era 1" : "v5.15") + " cpu" + std::to_string(p.dst.v) + "<-cpu" +
         std::to_string(p.src.v) + " level " + std::to_string(p.level) + " " + std::string(idle_name(p.idle)) + " " +
         std::string(type_name(p.type)) + " X=" + std::to_string(p.imbalance) + " left=" + std::to_string(p.left) +
         " failed=" + std::to_string(p.nr_balance_failed) + " tasks=" + std::to_string(p.tasks) + " (last " +
         std::to_string(p.last_take) + ", max " + std::to_string(p.max_take) + "); domain avg_load " + std::to_string(p.domain_avg_load) + "; " + group("local", p.local) + "; " +
         group("busiest", p.busiest);
}

void LbPassWatch::lb_pass(const Sched& s, const LbPass& p) {
  ++passes;
  if (p.type == MigrationType::load) ++load_passes, failed_load_passes += p.nr_balance_failed > 0;
  const auto at = [&] { return "t=" + std::to_string(s.now) + "ns " + describe(p); };
  if (first_violation.empty())
    if (const std::string v = pass_beyond_verdict(p); !v.empty()) first_violation = at() + ": " + v;
  if (reverses(p, false)) ++reversals;
  if (reverses(p, true)) {
    ++reversals_beyond_one;
    if (first_reversal.empty()) first_reversal = at();
  }
}

}  // namespace cfsv
