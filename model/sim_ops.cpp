// Sim's ops (model/sim.h): each checked (names, ranges, limits), then handed
// to the kernel paths of core.cpp, fair.cpp and cgroup.cpp; and the ops that
// wait for their task to run. Split from sim.cpp.
#include <algorithm>
#include <limits>
#include <optional>
#include <variant>

#include "arith/weights.h"
#include "balance.h"
#include "cgroup.h"
#include "core.h"
#include "fair.h"
#include "hotplug.h"
#include "limits.h"
#include "overloaded.h"
#include "scenario_parser.h"
#include "sim.h"

namespace cfsv {

namespace {

// An affinity mask without the CPUs beyond the machine's.
CpuMask trim_to(const CpuMask& cpus, unsigned nr_cpus) { return cpus & first_cpus(nr_cpus); }

}  // namespace

// ---------------------------------------------------------------------------
// Ops: each is checked (names, ranges, limits), then applied by the kernel
// path. One rule for all (docs/scenario-format.md, "Rejected ops"): an op
// that names a task or group that does not exist now (never made, or exited)
// or asks for what the model cannot do is rejected; one that asks for the
// state its target already has is applied and changes nothing.

ApplyResult Sim::reject(std::string why, bool refused) {
  last_refused_ = refused;
  const std::string op = describe(*applying_);
  last_error_.assign(op).append(": ").append(why);  // in its own buffer: no allocation once grown
  s_.counters.ops_rejected++;
  if (rejected_.size() < opt_.max_rejections) rejected_.push_back({s_.now, applying_loc_, op, std::move(why)});
  return ApplyResult::rejected;
}

struct Sim::OpHandler {
  Sim& sim;
  Sched& s = sim.s_;
  using R = ApplyResult;
  static constexpr R applied = R::applied;

  // The live task an op names; none, with *r the rejection, when it was never
  // spawned or has exited (as the kernel answers ESRCH for a pid that is gone).
  TaskId live_task(const std::string& name, R* r) {
    const TaskId t = sim.task_index(name);
    if (!t) *r = sim.reject("no task '" + name + "'");
    else if (s.tasks[t].state == TaskState::exited) *r = sim.reject("task '" + name + "' has exited");
    else return t;
    return {};
  }
  GroupId group(const std::string& path, R* r) {
    const GroupId g = sim.group_index(path);
    if (!g) *r = sim.reject("no group '" + path + "'");
    return g;
  }
  // The rejection of an affinity (as written, and within the machine), if
  // any: no CPU of the machine, or none active (__set_cpus_allowed_ptr's EINVAL).
  std::optional<R> affinity_rejected(const CpuMask& written, const CpuMask& allowed) {
    if (written.none()) return std::nullopt;
    if (allowed.none()) return sim.reject("no allowed CPU exists");
    if ((allowed & s.active).none()) return sim.refuse("no allowed CPU is online (EINVAL)");
    return std::nullopt;
  }
  // A task acts only while it runs, after the ops that waited for it to run:
  // otherwise its sleep, exit and forks wait for its next run (run_deferred_ops).
  static bool acts_now(const Task& t) { return t.state == TaskState::running && t.deferred.empty(); }
  // The live task an op that the task itself makes (exit, sleep, setsid,
  // sched_yield) names, unless it waits on a runqueue: then the op waits for
  // its next run, and none is returned with *r applied.
  TaskId caller(const std::string& name, const Op& o, R* r) {
    const TaskId t = live_task(name, r);
    if (!t || !task_on_rq_queued(s.tasks[t]) || acts_now(s.tasks[t])) return t;
    s.tasks[t].deferred.push_back(o);
    *r = applied;
    return {};
  }

  R operator()(const op::Spawn& o) {
    const TaskSpec& spec = o.task;
    R r{};
    if (spec.name.empty()) return sim.reject("a task needs a name");
    // A churn child has no name ops use (it is not looked up), and may reuse a reaped one's slot.
    const bool reuse = spec.churn_child && !sim.free_slots_.empty();
    if (!spec.churn_child && sim.task_index(spec.name))
      return sim.reject("task '" + spec.name + "' exists (names are never reused)");
    if (s.tasks.size() >= kMaxTasks && !reuse) return sim.reject("more than " + std::to_string(kMaxTasks) + " tasks");
    const TaskId parent = spec.parent.empty() ? TaskId{} : live_task(spec.parent, &r);
    if (!spec.parent.empty() && !parent) return r;
    // An empty group is the parent's (its group when it forks).
    const GroupId g = spec.group.empty() && parent ? s.tasks[parent].cgroup : group(spec.group, &r);
    if (!g) return r;
    if (spec.nice < kNiceMin || spec.nice > kNiceMax) return sim.reject("nice out of range");
    const bool zero_loop = std::visit(Overloaded{
                                          [](const RunBusy&) { return false; },
                                          [](const RunPeriodic& b) { return b.run == 0 && b.sleep == Nanos{0}; },
                                          [](const RunWallclock& b) { return b.runtime == 0 && b.sleep == Nanos{0}; },
                                      },
                                      spec.behaviour);
    if (zero_loop) return sim.reject("a 0 run with a 0 sleep never lets time pass");
    const CpuMask allowed = trim_to(spec.cpus, s.nr_cpus());
    if (const std::optional<R> r = affinity_rejected(spec.cpus, allowed)) return *r;
    if (parent && !acts_now(s.tasks[parent])) {  // it forks when it next runs
      s.tasks[parent].deferred.push_back(o);
      return applied;
    }
    TaskId slot{};
    if (reuse) slot = sim.free_slots_.back(), sim.free_slots_.pop_back();
    const TaskId t = sched_fork(s, spec, g, allowed, parent, slot);
    if (spec.churn_child) {
      s.tasks[t].churn_parent = parent;
      s.tasks[parent].children.forked++;
    } else {
      sim.task_by_name_.emplace(spec.name, t);
    }
    if (spec.churn.every) sim.churners_.push_back({t, s.now + spec.churn.every});
    s.tasks[t].waits_first = sleep_of(spec.behaviour) == kSleepWait;  // a reader's first read blocks
    wake_up_new_task(s, t);
    sim.begin_burst(t);
    return applied;
  }
  R operator()(const op::Exit& o) {
    R r{};
    const TaskId t = caller(o.task, o, &r);
    if (!t) return r;
    do_exit(s, t);
    return applied;
  }
  R operator()(const op::Sleep& o) {
    R r{};
    const TaskId t = caller(o.task, o, &r);
    if (!t) return r;
    if (s.tasks[t].state == TaskState::running) block_task(s, t, TaskState::sleeping);
    return applied;
  }
  // A sleeping task wakes; a waiting one whose sleep is still to come stays
  // queued and is checked for preemption.
  R operator()(const op::Wake& o) { return wake(o.task, CpuId{}); }
  // The same from another CPU: select_task_rq_fair's this_cpu is o.cpu,
  // online; a sync waker is the task running there (were it the idle thread,
  // wake_affine would read that thread's load, which the model does not have).
  R operator()(const op::Ttwu& o) {
    if (o.cpu >= s.nr_cpus()) return sim.reject("CPU " + std::to_string(o.cpu) + " is not in the topology");
    const CpuId cpu(static_cast<int32_t>(o.cpu));
    if (!s.active.test(o.cpu)) return sim.refuse("CPU " + std::to_string(o.cpu) + " is offline");
    if (o.sync && !s.rq[cpu].curr)
      return sim.refuse("sync: no task runs on CPU " + std::to_string(o.cpu) + " to be the waker");
    return wake(o.task, cpu, o.sync);
  }
  R wake(const std::string& task, CpuId waker, bool sync = false) {
    R r{};
    const TaskId t = live_task(task, &r);
    if (!t) return r;
    sim.try_to_wake_up(t, waker, sync);
    return applied;
  }
  R operator()(const op::SetNice& o) {
    R r{};
    const TaskId t = live_task(o.task, &r);
    if (!t) return r;
    if (o.nice < kNiceMin || o.nice > kNiceMax) return sim.reject(std::to_string(o.nice) + " is out of range");
    set_user_nice(s, t, o.nice);
    return applied;
  }
  // Another process's call (chrt -p): the task need not run.
  R operator()(const op::SetPolicy& o) {
    R r{};
    const TaskId t = live_task(o.task, &r);
    if (!t) return r;
    sched_setscheduler(s, t, o.policy);
    return applied;
  }
  R operator()(const op::SetAffinity& o) {
    R r{};
    const TaskId t = live_task(o.task, &r);
    if (!t) return r;
    const CpuMask allowed = trim_to(o.cpus, s.nr_cpus());
    if (const std::optional<R> r = affinity_rejected(o.cpus, allowed)) return *r;
    set_cpus_allowed_ptr(s, t, allowed);
    return applied;
  }
  R operator()(const op::CreateGroup& o) {
    const GroupSpec& g = o.group;
    R r{};
    if (g.path.size() < 2 || g.path[0] != '/' || g.path.back() == '/') return sim.reject("bad path '" + g.path + "'");
    if (sim.group_index(g.path)) return sim.reject("group '" + g.path + "' exists");
    if (s.tg.size() > kMaxGroups || s.tg.size() * s.nr_cpus() > kMaxGroupEntities)
      return sim.reject("more than " + std::to_string(kMaxGroups) + " groups or " + std::to_string(kMaxGroupEntities) +
                        " group entities (groups x CPUs)");
    const GroupId parent = group(scenario_text::parent_path(g.path), &r);
    if (!parent) return r;
    if (s.tg[parent].depth + 1 >= kMaxDepth - 1) return sim.reject("nested too deep");
    sim.group_by_path_.emplace(g.path, sched_create_group(s, parent, g.path, g.shares));
    return applied;
  }
  R operator()(const op::SetShares& o) {
    R r{};
    const GroupId g = group(o.group, &r);
    if (!g) return r;
    if (g == kRootGroup) return sim.reject("the root group's shares cannot change");
    if (s.tg[g].idle) return sim.refuse("group '" + o.group + "' is idle: its shares cannot change (EINVAL)");
    sched_group_set_shares(s, g, o.shares);
    return applied;
  }
  // cpu_idle_write_s64 (kernel/sched/core.c v5.15+): EINVAL for the root.
  R operator()(const op::SetGroupIdle& o) {
    R r{};
    const GroupId g = group(o.group, &r);
    if (!g) return r;
    if (!s.features[Feature::cgroup_idle]) return sim.refuse("no cpu.idle before v5.15 (feature cgroup_idle)");
    if (g == kRootGroup) return sim.refuse("the root group cannot be idle (EINVAL)");
    sched_group_set_idle(s, g, o.idle);
    return applied;
  }
  R operator()(const op::MoveTask& o) {
    R r{};
    const TaskId t = live_task(o.task, &r);
    if (!t) return r;
    const GroupId g = group(o.group, &r);
    if (!g) return r;
    // cgroup_migrate_prepare_dst (kernel/cgroup/cgroup.c v6.4): a css_set
    // that stays the same is a no-op, no ->attach; else cpu_cgroup_attach.
    if (s.tasks[t].cgroup == g) return applied;
    s.tasks[t].cgroup = g;
    sched_move_task(s, t);
    return applied;
  }
  // rmdir (cgroup_destroy_locked, kernel/cgroup/cgroup.c v6.4): EBUSY while
  // the group has live tasks or child groups.
  R operator()(const op::DestroyGroup& o) {
    R r{};
    const GroupId g = group(o.group, &r);
    if (!g) return r;
    if (g == kRootGroup) return sim.reject("the root group cannot be destroyed");
    if (std::string why = cgroup_rmdir_refusal(s, g); !why.empty()) return sim.refuse(std::move(why));
    sched_destroy_group(s, g);
    sim.group_by_path_.erase(sim.group_by_path_.find(o.group));
    return applied;
  }
  // ksys_setsid (kernel/sys.c v6.4): EPERM for a task that already leads a
  // session; the task calls it, so a waiting task does when it next runs.
  R operator()(const op::Setsid& o) {
    R r{};
    const TaskId t = caller(o.task, o, &r);
    if (!t) return r;
    Task& k = s.tasks[t];
    if (k.session_leader) return sim.refuse("task '" + o.task + "' already leads a session (EPERM)");
    if (s.features[Feature::sched_autogroup] &&
        (s.tg.size() >= kMaxGroups || (s.tg.size() + 1) * s.nr_cpus() > kMaxGroupEntities))
      return sim.reject("no room for its autogroup: more than " + std::to_string(kMaxGroups) + " groups or " +
                        std::to_string(kMaxGroupEntities) + " group entities");
    k.session_leader = true;
    if (s.features[Feature::sched_autogroup]) sched_autogroup_create_attach(s, t);
    return applied;
  }
  R operator()(const op::AutogroupNice& o) {
    R r{};
    const TaskId t = live_task(o.task, &r);
    if (!t) return r;
    if (!s.features[Feature::sched_autogroup])
      return sim.refuse("no /proc/PID/autogroup without CONFIG_SCHED_AUTOGROUP (feature sched_autogroup)");
    if (o.nice < kNiceMin || o.nice > kNiceMax) return sim.reject(std::to_string(o.nice) + " is out of range");
    if (!proc_sched_autogroup_set_nice(s, t, o.nice))
      return sim.refuse("task '" + o.task + "' has no autogroup of its own (EINVAL)");
    return applied;
  }
  // A write to /sys/devices/system/cpu/cpuN/online: cpu_down refuses the
  // last online CPU (EBUSY); a CPU already in the state asked is left alone.
  R operator()(const op::SetCpuOnline& o) {
    if (o.cpu >= s.nr_cpus())
      return sim.reject("no cpu" + std::to_string(o.cpu) + " in a machine of " + std::to_string(s.nr_cpus()) + " CPUs");
    const CpuId cpu(static_cast<int>(o.cpu));
    if (cpu_active(s, cpu) == o.online) return applied;
    if (!o.online && s.active.count() == 1)
      return sim.refuse("cpu" + std::to_string(o.cpu) + " is the last one online (EBUSY)");
    sim.set_cpu_online(cpu, o.online);
    return applied;
  }
  // sched_yield(2): do_sched_yield (kernel/sched/core.c v5.15) calls the
  // class's yield_task, then schedule(). The task calls it, so a waiting task
  // does when it next runs; a sleeping one cannot, and nothing happens.
  R operator()(const op::Yield& o) {
    R r{};
    const TaskId t = caller(o.task, o, &r);
    if (!t) return r;
    if (const Task& k = s.tasks[t]; k.state == TaskState::running) {
      yield_task_fair(s, k.cpu);
      resched_curr(s, k.cpu);
    }
    return applied;
  }
  R operator()(const op::Advance& o) {
    sim.run_until(o.by > UINT64_MAX - s.now ? UINT64_MAX : s.now + o.by);
    return applied;
  }
};

// cpu_down's and cpu_up's scheduler steps (model/hotplug.h): the active mask,
// the domains rebuilt over the active CPUs (cpuset's partition_sched_domains)
// with their balancing fields, then a dying CPU's tasks moved away.
void Sim::set_cpu_online(CpuId cpu, bool online) {
  set_cpu_active(s_, cpu, online);
  // An online runs x86's set_cpu_sibling_map, which under the feature sets
  // the numa-in-package table again: no NUMA level from now on.
  const bool numa_levels = s_.topo.numa_levels && !(online && s_.features[Feature::online_drops_numa_levels]);
  // v3.10 and v4.4 rebuild at CPU_DOWN_PREPARE, the dying CPU still in the
  // sibling masks and online; v5.15 in cpuset's hotplug work, once it is gone.
  const bool dying_counted = !online && s_.topo.era != TopologyEra::v5_15;
  CpuMask dying;
  if (dying_counted) dying.set(cpu.index());
  use_topology(s_.topo.era, s_.topo.own_group_first, s_.active, numa_levels, dying);
  init_domains_balance(s_);
  // The new domains' sd->avg_scan_cost and sd_llc_shared->has_idle_cores
  // start at zero (topology.c's kzalloc'd sched_domain_shared, build_sched_domain).
  for (Rq& r : s_.rq) r.avg_scan_cost = 0, r.has_idle_cores = false;
  // The rebuild's rq_attach_root puts every rq online again: rq_online_fair's
  // update_sysctl, the dying CPU counted where it is still online.
  s_.tun.update_sysctl(normalized_, static_cast<unsigned>(s_.active.count()) + (dying_counted ? 1 : 0));
  if (!online) migrate_tasks(s_, cpu);
}

ApplyResult Sim::apply(const Op& op, SourceLoc loc) {
  applying_ = &op;
  applying_loc_ = loc;
  const ApplyResult r = std::visit(OpHandler{*this}, op);
  if (s_.sink) s_.sink->op(s_, op, loc.line, r == ApplyResult::applied ? std::string_view() : last_error_);
  if (r == ApplyResult::applied) {
    s_.counters.ops++;
    after_step("op", -1, &op);
  }
  return r;
}

// The ops that waited for the task to run, in order, now that it runs; a
// sleep leaves the rest for its next run. Then its burst's end is armed.
void Sim::run_deferred_ops(TaskId task) {
  std::vector<Op> ops = std::move(s_.tasks[task].deferred);
  s_.tasks[task].deferred.clear();
  for (auto op = ops.begin(); op != ops.end(); ++op) {
    const TaskState st = s_.tasks[task].state;
    if (st != TaskState::running) {
      if (st == TaskState::sleeping) s_.tasks[task].deferred.assign(op, ops.end());
      break;
    }
    applying_ = &*op;  // for a rejection: its line is not kept
    applying_loc_ = {};
    std::visit(OpHandler{*this}, *op);
  }
  if (Task& t = s_.tasks[task]; t.deferred.empty()) {  // the storage back, for the ops that wait next
    ops.clear();
    t.deferred = std::move(ops);
  }
  if (s_.tasks[task].state == TaskState::running) arm_stop(s_.tasks[task].cpu);
}

// ---------------------------------------------------------------------------
// Fork/exit churn (docs/model.md, "Fork/exit churn"): each churning task
// forks a child every TaskSpec::churn.every, through the spawn path as a
// `spawn <parent>/c<N> parent=<parent> run=<child>` op at that time would
// (the child inherits the parent's nice and affinity, as fork copies them);
// each child exits through do_exit after its run, and its slot is reused.

Nanos Sim::next_churn_fork() const {
  Nanos t = std::numeric_limits<Nanos>::max();
  for (const Churner& c : churners_) t = std::min(t, c.next);
  return t;
}

void Sim::churn_fork() {
  const auto first = std::min_element(churners_.begin(), churners_.end(),
                                      [](const Churner& a, const Churner& b) { return a.next < b.next; });
  const Task& p = s_.tasks[first->parent];
  if (p.state == TaskState::exited) {  // an exited task forks no more
    churners_.erase(first);
    return;
  }
  TaskSpec child;
  child.name = p.name + "/c" + std::to_string(first->forked);
  child.group.clear();  // the parent's, when it forks
  child.parent = p.name;
  child.nice = p.nice;
  child.policy = p.policy;  // sched_fork keeps the parent's (no sched_reset_on_fork)
  child.cpus = p.allowed;
  child.behaviour = RunPeriodic{p.spec.churn.child_run, std::nullopt};
  child.churn_child = true;
  const TaskId parent = first->parent;
  first->next += p.spec.churn.every;
  if (++first->forked == p.spec.churn.children) churners_.erase(first);
  const Op op = op::Spawn{std::move(child)};
  applying_ = &op;
  applying_loc_ = {};
  std::visit(OpHandler{*this}, op);
  after_step("fork", parent.v, nullptr);
}

// A churn child that exited and was switched away from (finish_task_switch's
// task_dead_fair done: nothing refers to it) is reaped: its figures fold into
// its parent's ChurnChildren, and its slot is free for the next child, unless
// the run keeps task ids past the step (SimOptions::reuse_task_slots off, or
// record_trace, whose stretches name tasks by slot): then every child keeps its own.
void Sim::reap_children() {
  std::erase_if(exited_children_, [&](TaskId c) {
    const Task& k = s_.tasks[c];
    if (s_.rq[k.cpu].curr == c) return false;
    ChurnChildren& to = s_.tasks[k.churn_parent].children;
    to.exited++;
    to.cpu_ns += s_.se[k.se].sum_exec_runtime;
    to.wait_ns += k.stats.wait_ns;
    to.switches += k.stats.switches;
    to.migrations += k.stats.migrations;
    if (opt_.reuse_task_slots && !opt_.record_trace) free_slots_.push_back(c);
    return true;
  });
}

}  // namespace cfsv
