#include "signals.h"

#include <array>

#include "pelt_eras.h"
#include "stats.h"

namespace cfsv {

namespace {

using V = std::optional<int64_t>;

int64_t down(const Sched& s, uint64_t weight) {  // scale_load_down: nice 0 is 1024 in every era
  return static_cast<int64_t>(scale_load_down<uint64_t>(weight, s.res));
}
bool gone(const Sched& s, TaskId t) { return s.tasks[t].state == TaskState::exited; }

V state(const Sched& s, const SignalTarget& t) {
  switch (s.tasks[t.task].state) {
    case TaskState::running: return kStateRunning;
    case TaskState::runnable: return kStateRunnable;
    case TaskState::sleeping: return kStateSleeping;
    case TaskState::exited: return std::nullopt;
  }
  return std::nullopt;
}
V task_cpu(const Sched& s, const SignalTarget& t) { return gone(s, t.task) ? V{} : V{s.tasks[t.task].cpu.v}; }
V nr_switches(const Sched& s, const SignalTarget& t) {
  return gone(s, t.task) ? V{} : V{static_cast<int64_t>(s.tasks[t.task].stats.switches)};
}
V nr_migrations(const Sched& s, const SignalTarget& t) {
  return gone(s, t.task) ? V{} : V{static_cast<int64_t>(s.tasks[t.task].stats.migrations)};
}
V wait_sum(const Sched& s, const SignalTarget& t) {
  return gone(s, t.task) ? V{} : V{static_cast<int64_t>(wait_at(s, t.task, s.now))};
}

bool entity_gone(const Sched& s, const SignalTarget& t) { return t.task && gone(s, t.task); }
V load_weight(const Sched& s, const SignalTarget& t) {
  if (t.se) return entity_gone(s, t) ? V{} : V{down(s, s.se[t.se].load.weight)};
  return down(s, s.cfs[t.cfs_rq].load_weight);
}
V se_vruntime(const Sched& s, const SignalTarget& t) {
  if (entity_gone(s, t)) return std::nullopt;
  const SchedEntity& e = s.se[t.se];
  return static_cast<int64_t>(e.vruntime - s.cfs[e.cfs_rq].min_vruntime);
}
V se_sum_exec_runtime(const Sched& s, const SignalTarget& t) {
  if (entity_gone(s, t)) return std::nullopt;
  if (t.task) return static_cast<int64_t>(cpu_time_at(s, t.task, s.now));
  return static_cast<int64_t>(s.se[t.se].sum_exec_runtime);
}

V cfs_nr_running(const Sched& s, const SignalTarget& t) { return s.cfs[t.cfs_rq].nr_running; }
V cfs_h_nr_running(const Sched& s, const SignalTarget& t) { return s.cfs[t.cfs_rq].h_nr_running; }
V cfs_min_vruntime(const Sched& s, const SignalTarget& t) {
  return static_cast<int64_t>(s.cfs[t.cfs_rq].min_vruntime);
}

V tg_shares(const Sched& s, const SignalTarget& t) { return down(s, s.tg[t.group].shares); }
V tg_load(const Sched& s, const SignalTarget& t) { return static_cast<int64_t>(s.tg[t.group].load_down_sum); }

// PELT (only with the era's load tracking: pelt_v5, pelt_v4_4, pelt_v3_10):
// an entity's or cfs_rq's sched_avg, a group's tg->load_avg. v4.4 has no
// runnable_avg; v3.10 has neither that nor util_avg, its entity load_avg is
// load_avg_contrib and its cfs_rq's runnable_load_avg + blocked_load_avg.
const SchedAvg* avg_of(const Sched& s, const SignalTarget& t) {
  if (!s.era.tracks_pelt || entity_gone(s, t)) return nullptr;
  return t.se ? &s.se[t.se].pelt.avg : &s.cfs[t.cfs_rq].pelt.avg;
}
V load_avg(const Sched& s, const SignalTarget& t) {
  if (!t.se && !t.cfs_rq) return s.era.tracks_pelt ? V{static_cast<int64_t>(s.tg[t.group].load_avg)} : V{};
  if (s.era.pelt_v3 && !t.se) return static_cast<int64_t>(pelt3::cfs_rq_load_avg(s.cfs[t.cfs_rq]));
  const SchedAvg* a = avg_of(s, t);
  return a ? V{static_cast<int64_t>(a->load_avg)} : V{};
}
V runnable_avg(const Sched& s, const SignalTarget& t) {
  const SchedAvg* a = s.era.pelt ? avg_of(s, t) : nullptr;
  return a ? V{static_cast<int64_t>(a->runnable_avg)} : V{};
}
V util_avg(const Sched& s, const SignalTarget& t) {
  const SchedAvg* a = s.era.pelt_v3 ? nullptr : avg_of(s, t);
  return a ? V{static_cast<int64_t>(a->util_avg)} : V{};
}

constexpr std::array kSignals = {
    Signal{"state", "state", on_task, "0 sleeping, 1 runnable (waiting), 2 running; none once exited", state},
    Signal{"cpu", "cpu", on_task, "task_cpu(p): the CPU it runs or waits on, or last ran on", task_cpu},
    Signal{"nr_switches", "count", on_task, "times switched onto a CPU (cfsv run's `switches`)", nr_switches},
    Signal{"nr_migrations", "count", on_task, "set_task_cpu to another CPU (se.nr_migrations)", nr_migrations},
    Signal{"wait_sum", "ns", on_task, "time runnable but not running (schedstat se.statistics.wait_sum)", wait_sum},
    Signal{"load.weight", "weight", on_entity | on_cfs_rq, "scale_load_down(load.weight): nice 0 is 1024 in "
           "every era; a group entity's is its share of the group (calc_group_shares), a cfs_rq's the sum of its "
           "queued entities'", load_weight},
    Signal{"vruntime", "ns", on_entity, "se->vruntime - cfs_rq_of(se)->min_vruntime, signed (as of the last "
           "update_curr)", se_vruntime},
    Signal{"sum_exec_runtime", "ns", on_entity, "CPU time (a task's brought up to now, as task_sched_runtime "
           "does; a group entity's as of the last update_curr)", se_sum_exec_runtime},
    Signal{"nr_running", "tasks", on_cfs_rq, "entities queued on the cfs_rq, curr included", cfs_nr_running},
    Signal{"h_nr_running", "tasks", on_cfs_rq, "tasks queued in the cfs_rq's subtree (a root cfs_rq's: "
           "rq->nr_running)", cfs_h_nr_running},
    Signal{"min_vruntime", "ns", on_cfs_rq, "cfs_rq->min_vruntime, signed (it starts at -2^20)", cfs_min_vruntime},
    Signal{"shares", "weight", on_group, "scale_load_down(tg->shares): cpu.shares", tg_shares},
    Signal{"load", "weight", on_group, "the group's instantaneous load: the sum over CPUs of "
           "scale_load_down(its cfs_rq's load.weight); instant_shares divides by it", tg_load},
    Signal{"load_avg", "weight", on_entity | on_cfs_rq | on_group, "PELT (pelt_v5, pelt_v4_4, pelt_v3_10): "
           "se->avg.load_avg, cfs_rq->avg.load_avg (v3.10: load_avg_contrib, runnable_load_avg + "
           "blocked_load_avg); a group's tg->load_avg, which calc_group_shares (v3.10, v4.4: calc_cfs_shares) "
           "divides by", load_avg},
    Signal{"runnable_avg", "capacity", on_entity | on_cfs_rq, "PELT (pelt_v5; v3.10 and v4.4 have none): "
           "se->avg.runnable_avg, cfs_rq->avg.runnable_avg", runnable_avg},
    Signal{"util_avg", "capacity", on_entity | on_cfs_rq, "PELT (pelt_v5, pelt_v4_4; v3.10 has none): "
           "se->avg.util_avg, cfs_rq->avg.util_avg", util_avg},
};

}  // namespace

std::span<const Signal> all_signals() { return kSignals; }

std::string_view prefix_of(SignalOn kind) {
  switch (kind) {
    case on_task: return "";
    case on_entity: return "se.";
    case on_cfs_rq: return "cfs_rq.";
    case on_group: return "tg.";
  }
  return "";
}

std::string full_name(const Signal& g, SignalOn kind) { return std::string(prefix_of(kind)) + std::string(g.name); }

std::optional<SignalRef> signal_by_name(std::string_view full) {
  for (const Signal& g : kSignals)
    for (const SignalOn kind : kSignalKinds)
      if ((g.on & kind) && full.starts_with(prefix_of(kind)) && full.substr(prefix_of(kind).size()) == g.name)
        return SignalRef{&g, kind};
  return std::nullopt;
}

}  // namespace cfsv
