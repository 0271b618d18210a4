#include "invariants.h"

#include <array>
#include <cinttypes>
#include <cstdio>
#include <utility>

#include "balance.h"
#include "invariant_ctx.h"
#include "invariants_groups.h"
#include "sched.h"
#include "sim.h"
#include "util_est.h"

namespace cfsv {

namespace {

using namespace inv;

// The checks of the runqueues and tasks, each for one kind of object; those
// of PELT and the group lifecycle: invariants_groups.h.

[[gnu::always_inline]] inline void load_equals_sum(Ctx& x, CfsRqId q, const CfsRq& c) {
  const uint64_t sum = x.c.queue[q].sum_load;
  if (c.load_weight != sum)
    x.fail(fmt("cfs_rq %s: load.weight %" PRIu64 " != sum of queued weights %" PRIu64, x.cfs_rq(q).c_str(),
               c.load_weight, sum));
}

[[gnu::always_inline]] inline void no_lost_entities(Ctx& x) {
  for (const EntityId e : x.c.lost) x.fail(fmt("%s is queued on no cfs_rq", x.entity(e).c_str()));
}

[[gnu::always_inline]] inline void nr_running_consistent(Ctx& x, CfsRqId q, const CfsRq& c) {
  const InvariantCensus::Queue& n = x.c.queue[q];
  if (c.nr_running != n.nr || c.h_nr_running != n.h_nr || c.idle_h_nr_running != n.idle_h_nr ||
      c.idle_nr_running != n.idle_nr)
    x.fail(fmt("cfs_rq %s: nr_running %u (queued entities %u), h_nr_running %u (tasks below %u), "
               "idle_h_nr_running %u (SCHED_IDLE tasks below %u), idle_nr_running %u (idle entities %u)",
               x.cfs_rq(q).c_str(), c.nr_running, n.nr, c.h_nr_running, n.h_nr, c.idle_h_nr_running, n.idle_h_nr,
               c.idle_nr_running, n.idle_nr));
}

// Compares with the census's last_min_vruntime, which the checker then updates.
[[gnu::always_inline]] inline void min_vruntime_monotonic(Ctx& x, CfsRqId q, const CfsRq& c) {
  const uint64_t now = c.min_vruntime, before = x.c.last_min_vruntime[q];
  if (static_cast<int64_t>(now - before) < 0)
    x.fail(
        fmt("cfs_rq %s: min_vruntime went from %" PRIu64 " back to %" PRIu64, x.cfs_rq(q).c_str(), before, now));
}

[[gnu::always_inline]] inline void curr_not_in_timeline(Ctx& x, CfsRqId q, const CfsRq& c) {
  const EntityId curr = c.curr;
  if (curr && x.s.se[curr].in_timeline)
    x.fail(fmt("cfs_rq %s: curr %s is in the timeline", x.cfs_rq(q).c_str(), x.entity(curr).c_str()));
}

// The timeline as the census copied it (one walk of the tree per check).
[[gnu::always_inline]] inline void timeline_order(Ctx& x, CfsRqId q, const CfsRq& c) {
  const Sched& s = x.s;
  const TimelineKey* prev = nullptr;
  const std::size_t n = x.c.timeline.size();
  for (const TimelineKey& k : x.c.timeline) {
    if (!s.se.contains(k.se)) {
      x.fail(fmt("cfs_rq %s: a node names entity %d", x.cfs_rq(q).c_str(), k.se.v));
      continue;
    }
    const SchedEntity& e = s.se[k.se];
    if (prev && vruntime_before(k.vruntime, prev->vruntime))
      x.fail(fmt("cfs_rq %s: %s (vruntime %" PRIu64 ") sorts after one with vruntime %" PRIu64,
                           x.cfs_rq(q).c_str(), x.entity(k.se).c_str(), k.vruntime, prev->vruntime));
    if (k.vruntime != e.vruntime || !e.on_rq || e.cfs_rq != q || !e.in_timeline)
      x.fail(fmt("cfs_rq %s: node of %s has key %" PRIu64 " (entity vruntime %" PRIu64
                           ", on_rq %d, on cfs_rq %d)",
                           x.cfs_rq(q).c_str(), x.entity(k.se).c_str(), k.vruntime, e.vruntime, int(e.on_rq),
                           e.cfs_rq.v));
    prev = &k;
  }
  const std::size_t expect = c.nr_running - ((c.curr && s.se[c.curr].on_rq) ? 1 : 0);
  if (n != expect)
    x.fail(fmt("cfs_rq %s: %zu nodes for %zu queued entities besides curr", x.cfs_rq(q).c_str(), n, expect));
  if (!c.timeline.empty() && c.first() != c.timeline.begin()->se)
    x.fail(fmt("cfs_rq %s: cached leftmost is stale", x.cfs_rq(q).c_str()));
}

[[gnu::always_inline]] inline void group_entity_queued_iff_busy(Ctx& x, CfsRqId q, const CfsRq& c) {
  if (!c.group_se) return;
  const bool on_rq = x.s.se[c.group_se].on_rq;
  if (on_rq != (c.nr_running > 0))
    x.fail(fmt("cfs_rq %s: nr_running %u but its group entity is %squeued", x.cfs_rq(q).c_str(),
                         c.nr_running, on_rq ? "" : "not "));
}

[[gnu::always_inline]] inline void runnable_queued_once(Ctx& x, TaskId, const Task& t) {
  const Sched& s = x.s;
  if (!queued(t.state)) return;
  const SchedEntity& e = s.se[t.se];
  const InvariantCensus::Entity& f = x.c.entity[t.se];
  const unsigned places = f.nodes + (f.own_curr && e.on_rq ? 1 : 0);
  const auto fail = [&](const std::string& why) {
    x.fail(fmt("%s task %s %s", state_name(t.state).c_str(), t.name.c_str(), why.c_str()));
  };
  if (!e.on_rq) return fail("is not queued");
  if (places != 1) return fail(fmt("is queued %u times", places));
  if (!s.rq.contains(t.cpu) || e.cfs_rq != s.tg[t.group].cfs_rq[t.cpu]) return fail("is queued on the wrong cfs_rq");
  if (!t.allowed.test(t.cpu.index()) && t.allowed.any()) return fail(fmt("runs on cpu%d outside its affinity", t.cpu.v));
  if (!cpu_active(s, t.cpu)) return fail(fmt("is queued on cpu%d, which is offline", t.cpu.v));
  for (EntityId p = e.parent; p; p = s.se[p].parent)
    if (!s.se[p].on_rq) return fail(x.entity(p) + " above it is not queued");
}

[[gnu::always_inline]] inline void sleeping_not_queued(Ctx& x, TaskId, const Task& t) {
  if (queued(t.state)) return;
  const SchedEntity& e = x.s.se[t.se];
  const InvariantCensus::Entity& f = x.c.entity[t.se];
  if (e.on_rq || f.nodes || f.own_curr)
    x.fail(fmt("%s task %s: on_rq %d, timeline nodes %u, curr %d", state_name(t.state).c_str(),
                         t.name.c_str(), int(e.on_rq), f.nodes, int(f.own_curr)));
}

// rq->cfs_tasks (model/cfs_tasks.h) links exactly the tasks queued on the
// CPU: walked from the head, every link is mutual and every task on it is
// queued there (per CPU); every queued task is linked in (per task).
[[gnu::always_inline]] inline void cfs_tasks_list(Ctx& x, const Rq& r) {
  const Sched& s = x.s;
  std::size_t n = 0;
  TaskId prev;
  for (TaskId t = r.cfs_tasks_head; t; prev = t, t = s.tasks[t].lb_next) {
    const Task& k = s.tasks[t];
    if (++n > s.tasks.size() || k.lb_prev != prev || k.cpu != r.cpu || !task_on_rq_queued(k))
      return x.fail(fmt("cpu%d: cfs_tasks links %s (%s, on cpu%d) at position %zu wrongly", r.cpu.v, k.name.c_str(),
                        state_name(k.state).c_str(), k.cpu.v, n));
  }
  if (prev != r.cfs_tasks_tail) x.fail(fmt("cpu%d: cfs_tasks' tail is not its last task", r.cpu.v));
}
// v3.10's leaf list (model/pelt_v3.cpp) links exactly the CPU's cfs_rqs
// marked on_list: walked from the head, every link is mutual and every
// cfs_rq on it is the CPU's and on_list; as many as are on_list.
[[gnu::always_inline]] inline void leaf_list_v3(Ctx& x, const Rq& r) {
  const Sched& s = x.s;
  if (!s.era.pelt_v3) return;
  std::size_t n = 0;
  CfsRqId prev;
  for (CfsRqId q = r.leaf_head; q; prev = q, q = s.cfs[q].pelt.v3.leaf_next) {
    const CfsRq& c = s.cfs[q];
    if (++n > s.tg.size() || c.pelt.v3.leaf_prev != prev || c.cpu != r.cpu || !c.pelt.on_list)
      return x.fail(fmt("cpu%d: the leaf list links %s at position %zu wrongly", r.cpu.v, x.cfs_rq(q).c_str(), n));
  }
  if (prev != r.leaf_tail) return x.fail(fmt("cpu%d: the leaf list's tail is not its last cfs_rq", r.cpu.v));
  std::size_t on = 0;
  for (const TaskGroup& g : s.tg) on += s.cfs[g.cfs_rq[r.cpu]].pelt.on_list;
  if (on != n) x.fail(fmt("cpu%d: %zu cfs_rqs are on_list, %zu on the leaf list", r.cpu.v, on, n));
}
// UTIL_EST: the root cfs_rq's util_est.enqueued is the sum of its queued tasks' estimates.
[[gnu::always_inline]] inline void util_est_sum(Ctx& x, const Rq& r) {
  uint64_t sum = 0;
  std::size_t n = 0;  // a broken list may loop: cfs-tasks-list reports it
  for (TaskId t = r.cfs_tasks_head; t && ++n <= x.s.tasks.size(); t = x.s.tasks[t].lb_next) sum += task_util_est_only(x.s, t);
  if (const uint32_t on_rq = x.s.cfs[r.cfs].pelt.util_est_enqueued; x.s.features[Feature::util_est] && sum != on_rq)
    x.fail(fmt("cpu%d: util_est.enqueued %u, its queued tasks' estimates sum to %" PRIu64, r.cpu.v, on_rq, sum));
}
[[gnu::always_inline]] inline void task_on_cfs_tasks(Ctx& x, TaskId id, const Task& t) {
  const Rq& r = x.s.rq[t.cpu];
  const bool linked = t.lb_prev || r.cfs_tasks_head == id;
  if (task_on_rq_queued(t) != linked)
    x.fail(fmt("%s task %s is %son cpu%d's cfs_tasks", state_name(t.state).c_str(), t.name.c_str(),
               linked ? "" : "not ", t.cpu.v));
}

[[gnu::always_inline]] inline void curr_chain(Ctx& x, const Rq& r) {
  const Sched& s = x.s;
  const CfsRq& root = s.cfs[r.cfs];
  if (!r.curr) {  // tasks may arrive while a newidle balance runs (model/balance.h)
    if ((root.nr_running != 0 && !newidle_walking(s, r.cpu)) || root.curr)
      x.fail(fmt("cpu%d is idle with nr_running %u and root curr %s", r.cpu.v, root.nr_running,
                           x.entity(root.curr).c_str()));
    return;
  }
  const Task& t = s.tasks[r.curr];
  const auto fail = [&](const std::string& why) {
    x.fail(fmt("cpu%d runs %s but %s", r.cpu.v, t.name.c_str(), why.c_str()));
  };
  if (t.state != TaskState::running) return fail("its state is " + state_name(t.state));
  if (t.cpu != r.cpu) return fail(fmt("the task says cpu%d", t.cpu.v));
  for (EntityId e = t.se; e; e = s.se[e].parent) {
    const CfsRqId q = s.se[e].cfs_rq;
    if (s.cfs[q].curr != e) return fail("cfs_rq " + x.cfs_rq(q) + " has curr " + x.entity(s.cfs[q].curr));
  }
}

[[gnu::always_inline]] inline void running_task_is_curr(Ctx& x, TaskId id, const Task& t) {
  if (t.state == TaskState::running && x.s.rq[t.cpu].curr != id)
    x.fail(fmt("task %s is marked running but cpu%d runs something else", t.name.c_str(), t.cpu.v));
}

// The registry. Adding an invariant is one row here, with its checks above:
// one for the whole state, per cfs_rq, per task or per CPU (any of them).
struct Invariant {
  InvariantInfo info;
  void (*state)(Ctx&) = nullptr;
  void (*cfs_rq)(Ctx&, CfsRqId, const CfsRq&) = nullptr;
  void (*task)(Ctx&, TaskId, const Task&) = nullptr;
  void (*cpu)(Ctx&, const Rq&) = nullptr;
};
constexpr Invariant kInvariants[] = {
    {.info = {"load-equals-sum",
              "a cfs_rq's load.weight equals the sum of the weights of the entities queued on it, curr included"},
     .cfs_rq = load_equals_sum},
    {.info = {"nr-running-consistent",
              "nr_running counts the entities queued on a cfs_rq; h_nr_running counts the tasks queued in its "
              "subtree, idle_h_nr_running the SCHED_IDLE ones and those below an idle group; idle_nr_running "
              "the queued entities that are idle"},
     .state = no_lost_entities,
     .cfs_rq = nr_running_consistent},
    {.info = {"min-vruntime-monotonic", "a cfs_rq's min_vruntime never decreases: (s64)(new - old) >= 0"},
     .cfs_rq = min_vruntime_monotonic},
    {.info = {"curr-not-in-timeline", "a cfs_rq's curr is never in its timeline"}, .cfs_rq = curr_not_in_timeline},
    {.info = {"runnable-queued-once",
              "a running or runnable task is queued exactly once, on its group's cfs_rq of an allowed, online CPU, "
              "with all its ancestor group entities queued"},
     .task = runnable_queued_once},
    {.info = {"sleeping-not-queued", "a sleeping or exited task is not queued, in no timeline and no cfs_rq's curr"},
     .task = sleeping_not_queued},
    {.info = {"timeline-order",
              "a timeline is in entity_before order, its keys are its entities' vruntimes, and it holds exactly the "
              "queued entities other than curr"},
     .cfs_rq = timeline_order},
    {.info = {"group-entity-queued-iff-busy", "a group entity is queued iff its own cfs_rq has queued entities"},
     .cfs_rq = group_entity_queued_iff_busy},
    {.info = {"curr-chain",
              "a CPU runs a task iff the task's entities are curr at every level up to the root; an idle CPU has "
              "nothing queued, unless it is in a newidle balance"},
     .task = running_task_is_curr,
     .cpu = curr_chain},
    {.info = {"cfs-tasks-list", "a CPU's cfs_tasks list (load balancing's) links exactly the tasks queued on it"},
     .task = task_on_cfs_tasks,
     .cpu = cfs_tasks_list},
    {.info = {"util-est-sum", "UTIL_EST: a CPU's root util_est.enqueued is the sum of its queued tasks' estimates"},
     .cpu = util_est_sum},
    {.info = {"leaf-list", "v3.10: a CPU's leaf_cfs_rq_list links exactly its cfs_rqs marked on_list, in both directions"},
     .cpu = leaf_list_v3},
    {.info = {"pelt-util-avg-bound", "a task's util_avg is at most 1025 (v5.15's true bound, one above 1024; "
              "v4.4: 1047, 1024 (LOAD_AVG_MAX + 1087) / LOAD_AVG_MAX)"},
     .task = pelt_util_avg_bound},
    {.info = {"pelt-runnable-avg-bound",
              "a task's runnable_avg is at most 1025: 1024 x its h_nr_running (1), plus v5.15's rounding"},
     .task = pelt_runnable_avg_bound},
    {.info = {"pelt-load-avg-bound", "a task's load_avg is at most its weight, scale_load_down(se->load.weight) "
              "(v4.4, where a renice does not rescale it: nice -20's weight x (LOAD_AVG_MAX + 1087) / LOAD_AVG_MAX; "
              "not for a v5.15 task made SCHED_IDLE without reweight_idle_task, whose load keeps the old scale)"},
     .task = pelt_load_avg_bound},
    {.info = {"group-shares-bound", "a queued group entity's weight is within [MIN_SHARES, tg->shares]"},
     .cfs_rq = group_shares_bound},
    {.info = {"pelt-attached-once",
              "each entity's averages are attached to at most one cfs_rq, its own (none once exited), and each "
              "cfs_rq counts exactly the entities attached to it"},
     .cfs_rq = pelt_attached_count,
     .task = pelt_task_attached},
    {.info = {"pelt-removed-once",
              "every removal queued on a cfs_rq (exit, wakeup migration) is applied exactly once, and none is "
              "pending when removed.nr is 0"},
     .cfs_rq = pelt_removed_once},
    {.info = {"tg-load-avg-sum", "tg->load_avg equals the sum of its cfs_rqs' tg_load_avg_contrib"},
     .state = tg_load_avg_sum},
    {.info = {"destroyed-group-unreferenced",
              "a destroyed group's cfs_rqs are empty and off the leaf list, its entities neither queued nor attached, "
              "and no live task's group, cgroup, autogroup or cfs_rq is of it"},
     .cfs_rq = destroyed_cfs_rq_unused,
     .task = destroyed_group_unreferenced},
    {.info = {"task-in-its-group",
              "a live task's group is the one sched_get_task_group names (its cgroup's, or its autogroup's), and its "
              "entity hangs under that group's cfs_rq on its CPU"},
     .task = task_in_its_group},
};
constexpr std::size_t kCount = std::size(kInvariants);

constexpr std::array<InvariantInfo, kCount> kInfos = [] {
  std::array<InvariantInfo, kCount> a{};
  for (std::size_t i = 0; i < kCount; ++i) a[i] = kInvariants[i].info;
  return a;
}();

// The rows that check one kind of object, in table order.
struct Rows {
  std::array<std::size_t, kCount> row{};
  std::size_t n = 0;
};
constexpr Rows rows_where(bool (*has)(const Invariant&)) {
  Rows r;
  for (std::size_t i = 0; i < kCount; ++i)
    if (has(kInvariants[i])) r.row[r.n++] = i;
  return r;
}
constexpr Rows kStateRows = rows_where([](const Invariant& v) { return v.state != nullptr; });
constexpr Rows kCfsRqRows = rows_where([](const Invariant& v) { return v.cfs_rq != nullptr; });
constexpr Rows kTaskRows = rows_where([](const Invariant& v) { return v.task != nullptr; });
constexpr Rows kCpuRows = rows_where([](const Invariant& v) { return v.cpu != nullptr; });

// Calls call(i) for each row i of `rows`, i a compile-time constant, so that
// kInvariants[i]'s check is a direct call the compiler can inline.
template <const Rows& rows, class Call> void for_rows(const Call& call) {
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (call(std::integral_constant<std::size_t, rows.row[K]>{}), ...);
  }(std::make_index_sequence<rows.n>{});
}

// Which cfs_rqs a check looks at: those of the CPUs in `only`, or all.
// Both as a byte per cfs_rq and as a list, which the census and the checks
// walk instead of every cfs_rq.
void census_scope(const Sched& s, const CpuMask* only, InvariantCensus& c) {
  c.in_scope.resize(s.cfs.size());
  c.scope.clear();
  for (const CfsRqId q : s.cfs.ids()) {
    const CpuId cpu = s.cfs[q].cpu;
    const bool in = !only || (cpu.index() < kMaxCpus && only->test(cpu.index()));
    c.in_scope[q.index()] = in;
    if (in) c.scope.push_back(q);
  }
}

// The census's sums over the entities queued on (attached to) the cfs_rqs
// in scope, and the entities queued on no cfs_rq.
void take_census(const Sched& s, InvariantCensus& c) {
  const std::size_t ncfs = s.cfs.size();
  c.queue.resize(ncfs);
  for (const CfsRqId q : c.scope) c.queue[q] = {};
  for (const EntityId e : c.counted) c.entity[e] = {};
  c.counted.clear();
  c.entity.resize(s.se.size());
  c.lost.clear();
  c.last_min_vruntime.resize(ncfs, kInitMinVruntime);
  c.dead_groups = 0;
  for (const TaskGroup& g : s.tg) c.dead_groups += g.dead;
  for (const EntityId i : s.se.ids()) {
    const SchedEntity& e = s.se[i];
    if (e.pelt.attached && e.pelt.attached.index() < ncfs && c.in_scope[e.pelt.attached.index()])
      c.queue[e.pelt.attached].attached++;
    if (!e.on_rq) continue;
    if (!e.cfs_rq || e.cfs_rq.index() >= ncfs) {
      c.lost.push_back(i);
      continue;
    }
    if (!c.in_scope[e.cfs_rq.index()]) continue;
    InvariantCensus::Queue& q = c.queue[e.cfs_rq];
    q.sum_load += e.load.weight;
    q.nr += 1;
    q.h_nr += e.is_task() ? 1 : s.cfs[e.my_q].h_nr_running;
    // Below an idle group's entity every task counts as idle (v5.15+).
    q.idle_h_nr += e.is_task()                   ? s.tasks[e.task].policy == Policy::idle
                   : cfs_rq_is_idle(s, e.my_q) ? s.cfs[e.my_q].h_nr_running
                                               : s.cfs[e.my_q].idle_h_nr_running;
    q.idle_nr += se_is_idle(s, i);
  }
}

// The sums of tg_load_avg_contrib per group: from scratch (the first check,
// a full one, or new cfs_rqs), else updated by the cfs_rqs in scope.
void census_tg_sums(const Sched& s, bool full, InvariantCensus& c) {
  const std::size_t ncfs = s.cfs.size();
  if (full || !c.tg_sums_valid || c.tg_contrib.size() != ncfs || c.tg_contrib_sum.size() != s.tg.size()) {
    c.tg_contrib.assign(ncfs, 0);
    c.tg_contrib_sum.assign(s.tg.size(), 0);
    for (const GroupId g : s.tg.ids())
      for (const CfsRqId q : s.tg[g].cfs_rq) {
        if (q.index() < ncfs) c.tg_contrib[q] = s.cfs[q].pelt.tg_load_avg_contrib;
        c.tg_contrib_sum[g] += s.cfs[q].pelt.tg_load_avg_contrib;
      }
    c.tg_sums_valid = true;
    return;
  }
  for (const CfsRqId q : c.scope) {
    const CfsRq& cq = s.cfs[q];
    if (s.tg.contains(cq.tg)) c.tg_contrib_sum[cq.tg] += cq.pelt.tg_load_avg_contrib - c.tg_contrib[q];
    c.tg_contrib[q] = cq.pelt.tg_load_avg_contrib;
  }
}

// The census's look at one timeline: its nodes in order, and for each
// entity how often a timeline names it and whether it is its cfs_rq's curr.
void census_timeline(const Sched& s, CfsRqId q, const CfsRq& cq, InvariantCensus& c) {
  c.timeline.clear();
  for (const TimelineKey& k : cq.timeline) {
    c.timeline.push_back(k);
    if (c.entity.contains(k.se)) ++c.entity[k.se].nodes, c.counted.push_back(k.se);
  }
  if (c.entity.contains(cq.curr) && s.se[cq.curr].cfs_rq == q) c.entity[cq.curr].own_curr = true, c.counted.push_back(cq.curr);
}

}  // namespace

std::span<const InvariantInfo> all_invariants() { return kInfos; }

const InvariantInfo* invariant_by_name(std::string_view name) {
  for (const InvariantInfo& i : kInfos)
    if (i.name == name) return &i;
  return nullptr;
}

std::string Violation::to_string() const {
  return "t=" + format_time(t) + " after " + step + ": " + invariant + ": " + detail;
}

std::string cfs_rq_name(const Sched& s, CfsRqId cq) {
  const CfsRq& c = s.cfs[cq];
  return s.tg[c.tg].path + "@cpu" + std::to_string(c.cpu.v);
}

std::string entity_name(const Sched& s, EntityId se) {
  if (!se) return "none";
  const SchedEntity& e = s.se[se];
  if (e.is_task()) return "task " + s.tasks[e.task].name;
  return "group " + cfs_rq_name(s, e.my_q);
}

std::string describe(const Sched& s, const Step& step) {
  if (step.op) return describe(*step.op);
  if (step.id < 0) return std::string(step.kind);
  if (step.kind == "tick" || step.kind == "stop") return std::string(step.kind) + " cpu" + std::to_string(step.id);
  if (s.tasks.contains(TaskId(step.id))) return std::string(step.kind) + " " + s.tasks[TaskId(step.id)].name;
  return std::string(step.kind);
}

void InvariantChecker::fail(const Sched& s, const Step& step, std::size_t inv, std::string detail) {
  ++total_;
  ++failed_now_;
  ++per_invariant_[inv];
  if (kept_.size() < max_kept_)
    kept_.push_back({std::string(kInfos[inv].name), std::move(detail), describe(s, step), s.now});
}

void InvariantChecker::reset() {
  kept_.clear();
  total_ = checks_ = 0;
  per_invariant_.clear();
  failed_now_ = 0;
  census_.entity.clear();
  census_.counted.clear();
  census_.last_min_vruntime.clear();
  census_.tg_sums_valid = false;
  found_.clear();
}

std::size_t InvariantChecker::check(const Sched& s, const Step& step, const CpuMask* only) {
  ++checks_;
  failed_now_ = 0;
  per_invariant_.resize(kCount, 0);
  census_scope(s, only, census_);
  take_census(s, census_);
  census_tg_sums(s, only == nullptr, census_);
  Ctx x{s, census_, found_};
  x.util_bound = s.era.pelt_v4 ? pelt_v4_avg_max(kSchedCapacityScale) : kPeltTaskAvgMax;
  x.v4_load_bound = pelt_v4_avg_max(nice_to_weight(kNiceMin));
  x.attaches = s.era.pelt || s.era.pelt_v4;
  for_rows<kStateRows>([&](auto i) { x.row = i, kInvariants[i].state(x); });
  for (const CfsRqId q : census_.scope) {
    const CfsRq& c = s.cfs[q];
    census_timeline(s, q, c, census_);
    for_rows<kCfsRqRows>([&](auto i) { x.row = i, kInvariants[i].cfs_rq(x, q, c); });
    census_.last_min_vruntime[q] = c.min_vruntime;
  }
  // The CPUs in scope, as one byte each (a task's CPU may be out of range).
  cpu_scope_.assign(s.rq.size(), 1);
  if (only)
    for (const CpuId c : s.rq.ids()) cpu_scope_[c.index()] = only->test(c.index());
  const auto cpu_in_scope = [&](CpuId c) { return c.index() < cpu_scope_.size() && cpu_scope_[c.index()]; };
  for (const TaskId t : s.tasks.ids()) {
    const Task& k = s.tasks[t];
    if (!only || cpu_in_scope(k.cpu)) for_rows<kTaskRows>([&](auto i) { x.row = i, kInvariants[i].task(x, t, k); });
  }
  for (const Rq& r : s.rq)
    if (!only || cpu_in_scope(r.cpu)) for_rows<kCpuRows>([&](auto i) { x.row = i, kInvariants[i].cpu(x, r); });
  for (auto& [row, detail] : found_) fail(s, step, row, std::move(detail));
  found_.clear();
  return failed_now_;
}

}  // namespace cfsv
