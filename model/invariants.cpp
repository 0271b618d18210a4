#include "invariants.h"

#include <array>
#include <cinttypes>
#include <cstdio>

#include "sim.h"

namespace cfsv {

namespace {
enum Inv : std::size_t {
  kLoadEqualsSum,
  kNrRunning,
  kMinVruntime,
  kCurrNotInTimeline,
  kRunnableQueuedOnce,
  kSleepingNotQueued,
  kTimelineOrder,
  kGroupEntity,
  kCurrChain,
  kCount
};

constexpr std::array<InvariantInfo, kCount> kInvariants = {{
    {"load-equals-sum", "a cfs_rq's load.weight equals the sum of the weights of the entities queued on it, curr included"},
    {"nr-running-consistent",
     "nr_running counts the entities queued on a cfs_rq; h_nr_running counts the tasks queued in its subtree"},
    {"min-vruntime-monotonic", "a cfs_rq's min_vruntime never decreases: (s64)(new - old) >= 0"},
    {"curr-not-in-timeline", "a cfs_rq's curr is never in its timeline"},
    {"runnable-queued-once",
     "a running or runnable task is queued exactly once, on its group's cfs_rq of an allowed CPU, with all its "
     "ancestor group entities queued"},
    {"sleeping-not-queued", "a sleeping or exited task is not queued, in no timeline and no cfs_rq's curr"},
    {"timeline-order",
     "a timeline is in entity_before order, its keys are its entities' vruntimes, and it holds exactly the queued "
     "entities other than curr"},
    {"group-entity-queued-iff-busy", "a group entity is queued iff its own cfs_rq has queued entities"},
    {"curr-chain",
     "a CPU runs a task iff the task's entities are curr at every level up to the root; an idle CPU has nothing "
     "queued"},
}};

std::string fmt(const char* f, auto... a) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

std::string format_time(Nanos t) {
  return fmt("%" PRIu64 ".%06" PRIu64 "ms", t / 1000000, t % 1000000);
}
}  // namespace

std::span<const InvariantInfo> all_invariants() { return kInvariants; }

const InvariantInfo* invariant_by_name(std::string_view name) {
  for (const InvariantInfo& i : kInvariants)
    if (i.name == name) return &i;
  return nullptr;
}

std::string Violation::to_string() const {
  return "t=" + format_time(t) + " after " + step + ": " + invariant + ": " + detail;
}

std::string cfs_rq_name(const Sim& sim, int32_t cq) {
  const CfsRq& c = sim.cfs_rqs()[cq];
  return sim.groups()[c.tg].path + "@cpu" + std::to_string(c.cpu);
}

std::string entity_name(const Sim& sim, int32_t se) {
  if (se < 0) return "none";
  const SchedEntity& e = sim.entities()[se];
  if (e.is_task()) return "task " + sim.tasks()[e.task].name;
  return "group " + cfs_rq_name(sim, e.my_q);
}

std::string describe(const Sim& sim, const Step& step) {
  if (step.op) return describe(*step.op);
  if (step.id < 0) return std::string(step.kind);
  if (step.kind == "tick" || step.kind == "stop") return std::string(step.kind) + " cpu" + std::to_string(step.id);
  if (step.id < static_cast<int32_t>(sim.tasks().size()))
    return std::string(step.kind) + " " + sim.tasks()[step.id].name;
  return std::string(step.kind);
}

void InvariantChecker::fail(const Sim& sim, const Step& step, std::size_t inv, std::string detail) {
  ++total_;
  ++failed_now_;
  ++per_invariant_[inv];
  if (kept_.size() < max_kept_)
    kept_.push_back({std::string(kInvariants[inv].name), std::move(detail), describe(sim, step), sim.now()});
}

std::size_t InvariantChecker::check(const Sim& sim, const Step& step) {
  ++checks_;
  failed_now_ = 0;
  per_invariant_.resize(kCount, 0);
  const auto& cfs = sim.cfs_rqs();
  const auto se = sim.entities();
  const auto tasks = sim.tasks();
  const std::size_t ncfs = cfs.size();

  sum_load_.assign(ncfs, 0);
  count_nr_.assign(ncfs, 0);
  count_h_.assign(ncfs, 0);
  occurrences_.assign(se.size(), 0);
  last_min_vruntime_.resize(ncfs, kInitMinVruntime);

  // Entities queued on each cfs_rq: weights and counts.
  for (std::size_t i = 0; i < se.size(); ++i) {
    const SchedEntity& e = se[i];
    if (!e.on_rq) continue;
    if (e.cfs_rq < 0 || static_cast<std::size_t>(e.cfs_rq) >= ncfs) {
      fail(sim, step, kNrRunning, fmt("%s is queued on no cfs_rq", entity_name(sim, int32_t(i)).c_str()));
      continue;
    }
    sum_load_[e.cfs_rq] += e.load.weight;
    count_nr_[e.cfs_rq] += 1;
    count_h_[e.cfs_rq] += e.is_task() ? 1 : cfs[e.my_q].h_nr_running;
  }

  for (std::size_t q = 0; q < ncfs; ++q) {
    const CfsRq& c = cfs[q];
    const auto cq = static_cast<int32_t>(q);
    if (c.load_weight != sum_load_[q])
      fail(sim, step, kLoadEqualsSum,
           fmt("cfs_rq %s: load.weight %" PRIu64 " != sum of queued weights %" PRIu64, cfs_rq_name(sim, cq).c_str(),
               c.load_weight, sum_load_[q]));
    if (c.nr_running != count_nr_[q] || c.h_nr_running != count_h_[q])
      fail(sim, step, kNrRunning,
           fmt("cfs_rq %s: nr_running %u (queued entities %u), h_nr_running %u (tasks below %u)",
               cfs_rq_name(sim, cq).c_str(), c.nr_running, count_nr_[q], c.h_nr_running, count_h_[q]));
    if (static_cast<int64_t>(c.min_vruntime - last_min_vruntime_[q]) < 0)
      fail(sim, step, kMinVruntime,
           fmt("cfs_rq %s: min_vruntime went from %" PRIu64 " back to %" PRIu64, cfs_rq_name(sim, cq).c_str(),
               last_min_vruntime_[q], c.min_vruntime));
    last_min_vruntime_[q] = c.min_vruntime;
    if (c.curr >= 0 && se[c.curr].in_timeline)
      fail(sim, step, kCurrNotInTimeline,
           fmt("cfs_rq %s: curr %s is in the timeline", cfs_rq_name(sim, cq).c_str(),
               entity_name(sim, c.curr).c_str()));

    // Timeline order, keys and contents.
    const TimelineKey* prev = nullptr;
    std::size_t n = 0;
    for (const TimelineKey& k : c.timeline) {
      ++n;
      if (k.se < 0 || static_cast<std::size_t>(k.se) >= se.size()) {
        fail(sim, step, kTimelineOrder, fmt("cfs_rq %s: a node names entity %d", cfs_rq_name(sim, cq).c_str(), k.se));
        continue;
      }
      ++occurrences_[k.se];
      const SchedEntity& e = se[k.se];
      if (prev && vruntime_before(k.vruntime, prev->vruntime))
        fail(sim, step, kTimelineOrder,
             fmt("cfs_rq %s: %s (vruntime %" PRIu64 ") sorts after one with vruntime %" PRIu64,
                 cfs_rq_name(sim, cq).c_str(), entity_name(sim, k.se).c_str(), k.vruntime, prev->vruntime));
      if (k.vruntime != e.vruntime || !e.on_rq || e.cfs_rq != cq || !e.in_timeline)
        fail(sim, step, kTimelineOrder,
             fmt("cfs_rq %s: node of %s has key %" PRIu64 " (entity vruntime %" PRIu64 ", on_rq %d, on cfs_rq %d)",
                 cfs_rq_name(sim, cq).c_str(), entity_name(sim, k.se).c_str(), k.vruntime, e.vruntime, int(e.on_rq),
                 e.cfs_rq));
      prev = &k;
    }
    const std::size_t expect = c.nr_running - ((c.curr >= 0 && se[c.curr].on_rq) ? 1 : 0);
    if (n != expect)
      fail(sim, step, kTimelineOrder,
           fmt("cfs_rq %s: %zu nodes for %zu queued entities besides curr", cfs_rq_name(sim, cq).c_str(), n, expect));
    if (!c.timeline.empty() && c.first() != c.timeline.begin()->se)
      fail(sim, step, kTimelineOrder, fmt("cfs_rq %s: cached leftmost is stale", cfs_rq_name(sim, cq).c_str()));

    // Group entities are queued iff their cfs_rq has work.
    if (c.group_se >= 0) {
      const bool queued = se[c.group_se].on_rq;
      if (queued != (c.nr_running > 0))
        fail(sim, step, kGroupEntity,
             fmt("cfs_rq %s: nr_running %u but its group entity is %squeued", cfs_rq_name(sim, cq).c_str(),
                 c.nr_running, queued ? "" : "not "));
    }
  }

  // Tasks.
  for (std::size_t ti = 0; ti < tasks.size(); ++ti) {
    const Task& t = tasks[ti];
    const SchedEntity& e = se[t.se];
    const bool is_curr = e.cfs_rq >= 0 && cfs[e.cfs_rq].curr == t.se;
    const unsigned places = occurrences_[t.se] + (is_curr && e.on_rq ? 1 : 0);
    if (t.state == TaskState::running || t.state == TaskState::runnable) {
      const CfsRq* own = static_cast<std::size_t>(t.cpu) < sim.nr_cpus()
                             ? &cfs[sim.groups()[t.group].cfs_rq[t.cpu]]
                             : nullptr;
      std::string why;
      if (!e.on_rq) why = "is not queued";
      else if (places != 1) why = fmt("is queued %u times", places);
      else if (!own || e.cfs_rq != sim.groups()[t.group].cfs_rq[t.cpu]) why = "is queued on the wrong cfs_rq";
      else if (t.allowed.any() && !t.allowed.test(t.cpu)) why = fmt("runs on cpu%d outside its affinity", t.cpu);
      else
        for (int32_t x = e.parent; x >= 0; x = se[x].parent)
          if (!se[x].on_rq) {
            why = entity_name(sim, x) + " above it is not queued";
            break;
          }
      if (!why.empty())
        fail(sim, step, kRunnableQueuedOnce, fmt("%s task %s %s", std::string(to_string(t.state)).c_str(),
                                                 t.name.c_str(), why.c_str()));
    } else if (e.on_rq || occurrences_[t.se] || is_curr) {
      fail(sim, step, kSleepingNotQueued,
           fmt("%s task %s: on_rq %d, timeline nodes %u, curr %d", std::string(to_string(t.state)).c_str(),
               t.name.c_str(), int(e.on_rq), occurrences_[t.se], int(is_curr)));
    }
  }

  // Per CPU: the running task's chain is curr everywhere; idle means empty.
  for (const Rq& r : sim.rqs()) {
    const CfsRq& root = cfs[r.cfs];
    if (r.curr >= 0) {
      const Task& t = tasks[r.curr];
      std::string why;
      if (t.state != TaskState::running) why = fmt("its state is %s", std::string(to_string(t.state)).c_str());
      else if (t.cpu != r.cpu) why = fmt("the task says cpu%d", t.cpu);
      else
        for (int32_t x = t.se; x >= 0; x = se[x].parent)
          if (cfs[se[x].cfs_rq].curr != x) {
            why = "cfs_rq " + cfs_rq_name(sim, se[x].cfs_rq) + " has curr " +
                  entity_name(sim, cfs[se[x].cfs_rq].curr);
            break;
          }
      if (!why.empty())
        fail(sim, step, kCurrChain, fmt("cpu%d runs %s but %s", r.cpu, t.name.c_str(), why.c_str()));
    } else if (root.nr_running != 0 || root.curr >= 0) {
      fail(sim, step, kCurrChain,
           fmt("cpu%d is idle with nr_running %u and root curr %s", r.cpu, root.nr_running,
               entity_name(sim, root.curr).c_str()));
    }
  }
  for (std::size_t ti = 0; ti < tasks.size(); ++ti)
    if (tasks[ti].state == TaskState::running && sim.rqs()[tasks[ti].cpu].curr != int32_t(ti))
      fail(sim, step, kCurrChain, fmt("task %s is marked running but cpu%d runs something else",
                                      tasks[ti].name.c_str(), tasks[ti].cpu));
  return failed_now_;
}

}  // namespace cfsv
