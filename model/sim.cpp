// The simulation around the kernel functions: set-up from a scenario, the
// event loop (ticks, burst ends, deadlines, wake timers), the task behaviours,
// and the ops, each checked and then handed to core.cpp / fair.cpp.
#include "sim.h"

#include <algorithm>
#include <optional>
#include <variant>

#include "arith/weights.h"
#include "core.h"
#include "fair.h"
#include "overloaded.h"

namespace cfsv {

namespace {

std::string parent_path(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

// An affinity mask without the CPUs beyond the machine's.
CpuMask trim_to(const CpuMask& cpus, unsigned nr_cpus) { return cpus & (~CpuMask{} >> (kMaxCpus - nr_cpus)); }

// sched_proc_update_handler / update_sysctl (kernel/sched/fair.c v3.10) for
// the sysctl era; plain debugfs writes (kernel/sched/debug.c v5.13+)
// otherwise. Returns what is wrong with the setting, "" when it applied.
std::string apply_setting(Sched& sch, const Setting& s, uint64_t& factor, Tunables& normalized) {
  Tunables& tun = sch.tun;
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
  else if (s.key == "scaling") {
    // sched_scaling_write / sysctl_sched_tunable_scaling -> update_sysctl()
    tun.scaling = static_cast<TunableScaling>(std::min<uint64_t>(v, 2));
    factor = Tunables::scaling_factor(sch.nr_cpus(), tun.scaling);
    tun.latency_ns = factor * normalized.latency_ns;
    tun.min_granularity_ns = factor * normalized.min_granularity_ns;
    tun.wakeup_granularity_ns = factor * normalized.wakeup_granularity_ns;
  } else {
    error = "unknown setting '" + s.key + "'";
  }
  if (gran && sch.era.sysctl_recomputes_nr_latency) {
    tun.recompute_nr_latency();
    normalized.latency_ns = tun.latency_ns / factor;
    normalized.min_granularity_ns = tun.min_granularity_ns / factor;
    normalized.wakeup_granularity_ns = tun.wakeup_granularity_ns / factor;
  }
  return error;
}

}  // namespace

// ---------------------------------------------------------------------------
// Set-up

Sim::Sim(const Scenario& sc, SimOptions opt) : sc_(sc), opt_(opt) {
  const Profile* p = profile_by_name(sc_.kernel);
  if (!p) {
    last_error_ = "unknown kernel profile '" + sc_.kernel + "', using " + std::string(default_profile().name);
    p = &default_profile();
  }
  s_.features = p->features;
  for (const auto& [f, on] : sc_.feature_overrides) s_.features.set(f, on);
  s_.era = ModelEra::from(s_.features);
  s_.res = s_.features.load_resolution();
  s_.record_trace = opt_.record_trace;
  checker_ = std::make_unique<InvariantChecker>(opt_.max_violations);

  const unsigned n = std::clamp(sc_.topology.nr_cpus(), 1u, kMaxCpus);
  sched_init(s_, n);
  group_by_path_.emplace("/", kRootGroup);
  // The profile's normalised tunables scaled for the CPUs, then each `set`.
  Tunables normalized = p->tunables;
  uint64_t factor = Tunables::scaling_factor(n, normalized.scaling);
  s_.tun = normalized.for_cpus(n);
  for (const Setting& st : sc_.settings)
    if (std::string e = apply_setting(s_, st, factor, normalized); !e.empty()) last_error_ = std::move(e);

  s_.se.reserve(64 + sc_.tasks.size() + sc_.groups.size() * n);
  s_.tasks.reserve(sc_.tasks.size() + 16);
  if (opt_.record_trace) {
    s_.trace.stretches.reserve(1024);
    s_.trace.switches.reserve(1024);
  }

  for (const GroupSpec& g : sc_.groups) {
    const Op op = op::CreateGroup{g};
    apply(op);
  }
  for (const TaskSpec& t : sc_.tasks) {
    const Op op = op::Spawn{t};
    apply(op);
  }
}

Sim::~Sim() = default;

// ---------------------------------------------------------------------------
// Lookups and statistics

TaskId Sim::task_index(std::string_view name) const {
  const auto it = task_by_name_.find(name);
  return it == task_by_name_.end() ? TaskId{} : it->second;
}

GroupId Sim::group_index(std::string_view path) const {
  const auto it = group_by_path_.find(path);
  return it == group_by_path_.end() ? GroupId{} : it->second;
}

Nanos Sim::cpu_time(TaskId task) const {
  const Task& t = s_.tasks[task];
  const SchedEntity& e = s_.se[t.se];
  Nanos v = e.sum_exec_runtime;
  if (t.state == TaskState::running && s_.rq[t.cpu].curr == task && s_.now > e.exec_start) v += s_.now - e.exec_start;
  return v;
}

Nanos Sim::wait_ns(TaskId task) const {
  const Task& t = s_.tasks[task];
  return t.stats.wait_ns + (t.waiting ? s_.now - t.wait_start : 0);
}

Nanos Sim::idle_ns(CpuId cpu) const {
  const Rq& r = s_.rq[cpu];
  return r.idle_ns + (r.curr == kIdle ? s_.now - r.since : 0);
}

Nanos Sim::busy_ns(CpuId cpu) const {
  const Rq& r = s_.rq[cpu];
  return r.busy_ns + (r.curr != kIdle ? s_.now - r.since : 0);
}

std::vector<Stretch> Sim::stretches_until_now() const {
  std::vector<Stretch> v = s_.trace.stretches;
  for (const Rq& r : s_.rq)
    if (r.curr && s_.now > r.since) v.push_back({r.curr, r.cpu, r.since, s_.now});
  return v;
}

uint64_t Sim::sched_slice_of(EntityId se) const { return sched_slice(s_, s_.se[se].cfs_rq, se); }

bool Sim::check_now(std::string_view context) {
  const Step step{context, -1, nullptr};
  return checker_->check(s_, step) == 0;
}

// ---------------------------------------------------------------------------
// Task behaviours and the event loop

void Sim::begin_burst(TaskId task) {
  Task& t = s_.tasks[task];
  t.burst_start_exec = s_.se[t.se].sum_exec_runtime;
  t.deadline_passed = false;
  if (const auto* w = std::get_if<RunWallclock>(&t.spec.behaviour)) {
    t.deadline = s_.now + w->runtime;
    events_.push({t.deadline, EvKind::deadline, task.v, t.gen});
  }
}

void Sim::end_burst(TaskId task) {
  Task& t = s_.tasks[task];
  const std::optional<Nanos> sleep = std::visit(Overloaded{
                                                    [](const RunBusy&) { return std::optional<Nanos>{}; },
                                                    [](const RunPeriodic& b) { return b.sleep; },
                                                    [](const RunWallclock& b) { return b.sleep; },
                                                },
                                                t.spec.behaviour);
  if (!sleep) {
    block_task(s_, task, TaskState::exited);
    return;
  }
  block_task(s_, task, TaskState::sleeping);
  events_.push({s_.now + *sleep, EvKind::wake, task.v, t.gen});
}

// The exact end of the running task's CPU-time burst (run=), or an immediate
// stop for a runtime= task whose wall-clock deadline passed while it waited.
void Sim::arm_stop(CpuId cpu) {
  const Rq& r = s_.rq[cpu];
  const Task& t = s_.tasks[r.curr];
  std::visit(Overloaded{
                 [](const RunBusy&) {},
                 [&](const RunPeriodic& b) {
                   const uint64_t ran = s_.se[t.se].sum_exec_runtime - t.burst_start_exec;
                   const Nanos rem = b.run > ran ? b.run - ran : 0;
                   events_.push({s_.now + rem, EvKind::stop, cpu.v, r.stop_gen});
                 },
                 [&](const RunWallclock&) {
                   if (t.deadline_passed || t.deadline <= s_.now)
                     events_.push({s_.now, EvKind::stop, cpu.v, r.stop_gen});
                 },
             },
             t.spec.behaviour);
}

// The periodic tick on jiffy boundaries while the CPU is busy (NOHZ idle).
void Sim::arm_tick(CpuId cpu) {
  Rq& r = s_.rq[cpu];
  if (r.tick_armed) return;
  r.tick_armed = true;
  const Nanos tick = s_.tun.tick_ns();
  events_.push({(s_.now / tick + 1) * tick, EvKind::tick, cpu.v, 0});
}

bool Sim::handle(const Event& e) {
  switch (e.kind) {
    case EvKind::tick: {
      const CpuId cpu(e.id);
      Rq& r = s_.rq[cpu];
      r.tick_armed = false;
      s_.now = e.t;
      s_.counters.ticks++;
      if (r.curr) {
        task_tick_fair(s_, cpu);
        r.tick_armed = true;
        events_.push({e.t + s_.tun.tick_ns(), EvKind::tick, e.id, 0});
      }
      return true;
    }
    case EvKind::stop: {
      const Rq& r = s_.rq[CpuId(e.id)];
      if (e.gen != r.stop_gen || !r.curr) return false;
      s_.now = e.t;
      end_burst(r.curr);
      return true;
    }
    case EvKind::deadline: {
      const TaskId task(e.id);
      Task& t = s_.tasks[task];
      if (e.gen != t.gen) return false;
      s_.now = e.t;
      if (t.state == TaskState::running) end_burst(task);
      else if (t.state == TaskState::runnable) t.deadline_passed = true;
      return true;
    }
    case EvKind::wake: {
      const TaskId task(e.id);
      const Task& t = s_.tasks[task];
      if (e.gen != t.gen || t.state != TaskState::sleeping) return false;
      s_.now = e.t;
      wake_up_task(s_, task);
      begin_burst(task);
      return true;
    }
  }
  return false;
}

// Every CPU with need_resched schedules, in CPU order; one that switches to a
// task starts that task's burst timer and its tick.
void Sim::resched_pending() {
  for (Rq& r : s_.rq) {
    if (!s_.nr_need_resched) return;
    if (!r.need_resched) continue;
    const TaskId prev = r.curr;
    schedule(s_, r.cpu);
    if (r.curr != prev && r.curr) {
      arm_stop(r.cpu);
      arm_tick(r.cpu);
    }
  }
}

void Sim::after_step(std::string_view kind, int32_t id, const Op* op) {
  resched_pending();
  ++steps_;
  if (opt_.check_every && steps_ % opt_.check_every == 0) checker_->check(s_, Step{kind, id, op});
}

void Sim::run_until(Nanos t) {
  while (!events_.empty() && events_.top().t <= t) {
    const Event e = events_.top();
    events_.pop();
    if (!handle(e)) continue;
    s_.counters.events++;
    static constexpr std::string_view kKinds[] = {"stop", "deadline", "wake-timer", "tick"};
    after_step(kKinds[static_cast<int>(e.kind)], e.id, nullptr);
  }
  if (t > s_.now) s_.now = t;
}

void Sim::run() {
  std::vector<const TimedOp*> ops;
  ops.reserve(sc_.ops.size());
  for (const TimedOp& o : sc_.ops) ops.push_back(&o);
  std::stable_sort(ops.begin(), ops.end(), [](const TimedOp* a, const TimedOp* b) { return a->at < b->at; });
  for (const TimedOp* o : ops) {
    run_until(o->at);
    apply(o->op);
  }
  run_until(std::max(sc_.duration, s_.now));
  if (opt_.check_every > 1 && steps_ % opt_.check_every != 0) checker_->check(s_, Step{"end of run", -1, nullptr});
}

// ---------------------------------------------------------------------------
// Ops: each is checked (names, ranges), then applied by the kernel path.

ApplyResult Sim::reject(std::string why) {
  last_error_ = std::move(why);
  s_.counters.ops_rejected++;
  return ApplyResult::rejected;
}

struct Sim::OpHandler {
  Sim& sim;
  Sched& s = sim.s_;
  using R = ApplyResult;
  static constexpr R applied = R::applied;

  R operator()(const op::Spawn& o) {
    const TaskSpec& spec = o.task;
    if (spec.name.empty()) return sim.reject("spawn: a task needs a name");
    if (sim.task_index(spec.name)) return sim.reject("spawn: task '" + spec.name + "' exists");
    const GroupId g = sim.group_index(spec.group);
    if (!g) return sim.reject("spawn " + spec.name + ": no group '" + spec.group + "'");
    if (spec.nice < kNiceMin || spec.nice > kNiceMax) return sim.reject("spawn " + spec.name + ": nice out of range");
    const bool zero_loop = std::visit(Overloaded{
                                          [](const RunBusy&) { return false; },
                                          [](const RunPeriodic& b) { return b.run == 0 && b.sleep == Nanos{0}; },
                                          [](const RunWallclock& b) { return b.runtime == 0 && b.sleep == Nanos{0}; },
                                      },
                                      spec.behaviour);
    if (zero_loop) return sim.reject("spawn " + spec.name + ": a 0 run with a 0 sleep never lets time pass");
    const CpuMask allowed = trim_to(spec.cpus, s.nr_cpus());
    if (spec.cpus.any() && allowed.none()) return sim.reject("spawn " + spec.name + ": no allowed CPU exists");
    const TaskId t = sched_fork(s, spec, g, allowed);
    sim.task_by_name_.emplace(spec.name, t);
    wake_up_new_task(s, t);
    sim.begin_burst(t);
    return applied;
  }
  R operator()(const op::Exit& o) {
    const TaskId t = sim.task_index(o.task);
    if (!t) return sim.reject("exit: no task '" + o.task + "'");
    do_exit(s, t);
    return applied;
  }
  R operator()(const op::Sleep& o) {
    const TaskId t = sim.task_index(o.task);
    if (!t) return sim.reject("sleep: no task '" + o.task + "'");
    const TaskState st = s.tasks[t].state;
    if (st == TaskState::running || st == TaskState::runnable) block_task(s, t, TaskState::sleeping);
    return applied;
  }
  R operator()(const op::Wake& o) {
    const TaskId t = sim.task_index(o.task);
    if (!t) return sim.reject("wake: no task '" + o.task + "'");
    if (s.tasks[t].state == TaskState::sleeping) {
      wake_up_task(s, t);
      sim.begin_burst(t);
    }
    return applied;
  }
  R operator()(const op::SetNice& o) {
    const TaskId t = sim.task_index(o.task);
    if (!t) return sim.reject("nice: no task '" + o.task + "'");
    if (o.nice < kNiceMin || o.nice > kNiceMax) return sim.reject("nice: " + std::to_string(o.nice) + " out of range");
    set_user_nice(s, t, o.nice);
    return applied;
  }
  R operator()(const op::SetAffinity& o) {
    const TaskId t = sim.task_index(o.task);
    if (!t) return sim.reject("affinity: no task '" + o.task + "'");
    const CpuMask allowed = trim_to(o.cpus, s.nr_cpus());
    if (o.cpus.any() && allowed.none()) return sim.reject("affinity " + o.task + ": no allowed CPU exists");
    set_cpus_allowed_ptr(s, t, allowed);
    return applied;
  }
  R operator()(const op::CreateGroup& o) {
    const GroupSpec& g = o.group;
    if (g.path.size() < 2 || g.path[0] != '/' || g.path.back() == '/')
      return sim.reject("group: bad path '" + g.path + "'");
    if (sim.group_index(g.path)) return sim.reject("group: '" + g.path + "' exists");
    const GroupId parent = sim.group_index(parent_path(g.path));
    if (!parent) return sim.reject("group " + g.path + ": no parent group '" + parent_path(g.path) + "'");
    if (s.tg[parent].depth + 1 >= kMaxDepth - 1) return sim.reject("group " + g.path + ": nested too deep");
    sim.group_by_path_.emplace(g.path, sched_create_group(s, parent, g.path, g.shares));
    return applied;
  }
  R operator()(const op::SetShares& o) {
    const GroupId g = sim.group_index(o.group);
    if (!g) return sim.reject("shares: no group '" + o.group + "'");
    if (g == kRootGroup) return sim.reject("shares: the root group's shares cannot change");
    sched_group_set_shares(s, g, o.shares);
    return applied;
  }
  R operator()(const op::MoveTask& o) {
    const TaskId t = sim.task_index(o.task);
    if (!t) return sim.reject("move: no task '" + o.task + "'");
    const GroupId g = sim.group_index(o.group);
    if (!g) return sim.reject("move " + o.task + ": no group '" + o.group + "'");
    if (s.tasks[t].state == TaskState::exited) return sim.reject("move: task '" + o.task + "' has exited");
    sched_move_task(s, t, g);
    return applied;
  }
  R operator()(const op::Advance& o) {
    sim.run_until(s.now + o.by);
    return applied;
  }
};

ApplyResult Sim::apply(const Op& op) {
  const ApplyResult r = std::visit(OpHandler{*this}, op);
  if (r == ApplyResult::applied) {
    s_.counters.ops++;
    after_step("op", -1, &op);
  }
  return r;
}

std::string describe(const Op& op) {
  return std::visit(Overloaded{
                        [](const op::Spawn& o) { return "spawn " + o.task.name; },
                        [](const op::Exit& o) { return "exit " + o.task; },
                        [](const op::Sleep& o) { return "sleep " + o.task; },
                        [](const op::Wake& o) { return "wake " + o.task; },
                        [](const op::SetNice& o) { return "nice " + o.task + " " + std::to_string(o.nice); },
                        [](const op::SetAffinity& o) { return "affinity " + o.task; },
                        [](const op::CreateGroup& o) { return "group " + o.group.path; },
                        [](const op::SetShares& o) { return "shares " + o.group + " " + std::to_string(o.shares); },
                        [](const op::MoveTask& o) { return "move " + o.task + " " + o.group; },
                        [](const op::Advance& o) { return "advance " + std::to_string(o.by) + "ns"; },
                    },
                    op);
}

}  // namespace cfsv
