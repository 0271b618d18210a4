// The simulation around the kernel functions: set-up from a scenario, the
// event loop (ticks, burst ends, deadlines, wake timers), the task behaviours,
// and the ops, each checked and then handed to core.cpp / fair.cpp
// (sim_ops.cpp).
#include "sim.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <variant>

#include "balance.h"
#include "core.h"
#include "fair.h"
#include "limits.h"
#include "overloaded.h"
#include "stats.h"

namespace cfsv {


// ---------------------------------------------------------------------------
// Set-up

Sim::Sim(const Scenario& sc, SimOptions opt) : opt_(opt) { reset(sc); }

void Sim::reset(const Scenario& sc) {
  // Everything back to a new Sim's state; the containers keep their storage.
  if (&sc != &sc_) sc_ = sc;
  s_.clear();
  task_by_name_.clear();
  group_by_path_.clear();
  events_.clear();
  steps_ = 0;
  in_setup_ = false;
  run_end_ = RunEnd::finished;
  last_error_.clear();
  applying_ = nullptr;
  applying_loc_ = {};
  rejected_.clear();
  sinks_ = SinkTee{};
  ops_.clear();
  next_op_ = 0;
  end_time_.reset();
  churners_.clear();
  exited_children_.clear();
  free_slots_.clear();

  const Profile* p = profile_by_name(sc_.kernel);
  if (!p) {
    last_error_ = "unknown kernel profile '" + sc_.kernel + "', using " + std::string(default_profile().name);
    p = &default_profile();
  }
  s_.features = p->features.with(sc_.feature_overrides);
  s_.era = ModelEra::from(s_.features);
  s_.res = s_.features.load_resolution();
  if (opt_.record_trace) sinks_.add((recorder_ = std::make_unique<TraceRecorder>()).get());
  sinks_.add(opt_.sink);
  s_.sink = sinks_.single_or_this();
  if (checker_) checker_->reset();
  else checker_ = std::make_unique<InvariantChecker>(opt_.max_violations);

  const unsigned n = std::clamp(sc_.topology.nr_cpus(), 1u, kMaxCpus);
  sched_init(s_, n);
  const TopologyEra te = topology_era(p->name);
  const bool own_first = s_.features[Feature::wasted_cores_group_construction];
  use_topology(te, own_first);
  init_balance(s_);
  group_by_path_.emplace("/", kRootGroup);
  // Boot (sched_init_granularity -> update_sysctl, kernel/sched/fair.c
  // v3.10..v6.5): the profile's normalised tunables scaled for the CPUs with
  // the scenario's `scaling`, a boot-time setting (the last one written wins;
  // docs/model.md says why). Then every other `set`, in file order.
  Tunables normalized = p->tunables;
  for (const Setting& st : sc_.settings)
    if (st.key == "scaling") normalized.scaling = static_cast<TunableScaling>(std::min<uint64_t>(st.value, 2));
  s_.tun = normalized.for_cpus(n);
  for (const Setting& st : sc_.settings)
    if (std::string e = s_.tun.write(st, s_.era.sysctl_recomputes_nr_latency); !e.empty()) last_error_ = std::move(e);
  // update_sysctl's input at a CPU hotplug: v3.10's and v4.4's sysctl writes
  // set normalized_sysctl_* too (sched_proc_update_handler), v5.13+'s
  // debugfs writes do not, so a hotplug undoes them.
  normalized_ = s_.era.sysctl_recomputes_nr_latency ? s_.tun.normalized_by(n) : normalized;

  s_.se.reserve(64 + sc_.tasks.size() + sc_.groups.size() * n);
  s_.tasks.reserve(sc_.tasks.size() + 16);
  ops_.reserve(sc_.ops.size());
  for (const TimedOp& o : sc_.ops) ops_.push_back(&o);
  std::stable_sort(ops_.begin(), ops_.end(), [](const TimedOp* a, const TimedOp* b) { return a->at < b->at; });

  // The set-up is one step: its ops reschedule as they go, the checker runs
  // once at its end (a check costs O(state), so one per set-up op would make
  // a big set-up quadratic).
  in_setup_ = true;
  for (const GroupSpec& g : sc_.groups) {
    const Op op = op::CreateGroup{g};
    apply(op);
  }
  for (const TaskSpec& t : sc_.tasks) {
    const Op op = op::Spawn{t};
    apply(op);
  }
  in_setup_ = false;
  count_step("set-up", -1, nullptr);
}

Sim::~Sim() = default;

// s_.topo for sc_.topology in era te over cpu_map (empty: every CPU; a
// hotplug passes the active ones): the one there, one set aside by an earlier
// reset or hotplug, or a new build (the one it replaces set aside).
void Sim::use_topology(TopologyEra te, bool own_group_first, const CpuMask& cpu_map, bool numa_levels,
                       const CpuMask& dying) {
  const CpuMask map = cpu_map.any() ? cpu_map : first_cpus(sc_.topology.nr_cpus());
  const auto built_for = [&](const Topology& spec, const SchedTopology& st) {
    return spec == sc_.topology && st.era == te && st.own_group_first == own_group_first && st.cpu_map == map &&
           st.numa_levels == numa_levels && st.dying == dying;
  };
  if (topo_for_ && built_for(*topo_for_, s_.topo)) return;
  const auto kept = std::find_if(topologies_kept_.begin(), topologies_kept_.end(),
                                 [&](const BuiltTopology& b) { return built_for(b.spec, b.topo); });
  if (kept != topologies_kept_.end()) {  // kept ones exist only once one was built
    std::swap(kept->spec, *topo_for_);
    std::swap(kept->topo, s_.topo);
    return;
  }
  if (topo_for_ && topo_for_->nr_cpus() <= kKeptCpus) {
    BuiltTopology old{std::move(*topo_for_), std::move(s_.topo)};
    if (topologies_kept_.size() < kTopologiesKept) {
      topologies_kept_.push_back(std::move(old));
    } else {
      topologies_kept_[next_replaced_] = std::move(old);
      next_replaced_ = (next_replaced_ + 1) % kTopologiesKept;
    }
  }
  s_.topo = build_sched_topology(sc_.topology, te, own_group_first, map, numa_levels, dying);
  topo_for_ = sc_.topology;
}

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

Nanos Sim::cpu_time(TaskId task) const { return cpu_time_at(s_, task, s_.now); }
Nanos Sim::wait_ns(TaskId task) const { return wait_at(s_, task, s_.now); }
Nanos Sim::idle_ns(CpuId cpu) const { return idle_at(s_, cpu, s_.now); }
Nanos Sim::offline_ns(CpuId cpu) const { return offline_at(s_, cpu, s_.now); }
Nanos Sim::busy_ns(CpuId cpu) const { return busy_at(s_, cpu, s_.now); }

const Trace& Sim::trace() const {
  if (!recorder_) throw std::logic_error("Sim::trace(): the trace is recorded only with SimOptions::record_trace");
  return recorder_->trace();
}

std::vector<Stretch> Sim::stretches_until_now() const {
  std::vector<Stretch> v = trace().stretches;
  for (const Rq& r : s_.rq)
    if (r.curr && s_.now > r.since) v.push_back({r.curr, r.cpu, r.since, s_.now});
  return v;
}

uint64_t Sim::sched_slice_of(EntityId se) const { return sched_slice(s_, s_.se[se].cfs_rq, se); }

bool Sim::check_now(std::string_view context) { return run_check(Step{context, -1, nullptr}, true) == 0; }
bool Sim::check_touched(std::string_view context) { return run_check(Step{context, -1, nullptr}, false) == 0; }

std::size_t Sim::run_check(const Step& step, bool full) {
  full = full || opt_.full_check_every <= 1 || (checker_->checks() + 1) % opt_.full_check_every == 0;
  const std::size_t found = checker_->check(s_, step, full ? nullptr : &s_.touched_cpus);
  s_.touched_cpus.reset();
  return found;
}

// ---------------------------------------------------------------------------
// Task behaviours and the event loop

void Sim::begin_burst(TaskId task) {
  Task& t = s_.tasks[task];
  t.burst_start_exec = s_.se[t.se].sum_exec_runtime;
  t.deadline_passed = false;
  if (const auto* w = std::get_if<RunWallclock>(&t.spec.behaviour)) {
    t.deadline = s_.now + (t.waits_first ? 0 : w->runtime);
    events_.push({t.deadline, EvKind::deadline, task.v, t.gen});
  }
}

void Sim::try_to_wake_up(TaskId task, CpuId waker, bool sync) {
  Task& t = s_.tasks[task];
  if (t.state == TaskState::sleeping) {
    s_.counters.wakeups_sync += sync;
    wake_up_task(s_, task, waker, sync);
    begin_burst(task);
  } else if (t.state == TaskState::runnable &&
             std::erase_if(t.deferred, [](const Op& d) { return std::holds_alternative<op::Sleep>(d); }) > 0) {
    s_.counters.wakeups_sync += sync;
    ttwu_runnable(s_, task);
  } else if (t.state != TaskState::exited) {
    t.wake_pending = true;  // not lost, as a pipe's data or a futex's new value is not
  }
}

void Sim::end_burst(TaskId task) {
  Task& t = s_.tasks[task];
  // As a pipe write before the read that blocks: from its CPU, while it runs
  // (not after the empty first burst of a task that waits from the start).
  if (!std::exchange(t.waits_first, false) && !t.spec.wakes.empty()) {
    const TaskId wakee = task_index(t.spec.wakes[t.next_wakee++ % t.spec.wakes.size()]);
    if (wakee) try_to_wake_up(wakee, t.cpu, t.spec.wake_sync);
  }
  const std::optional<Nanos> sleep = sleep_of(t.spec.behaviour);
  if (!sleep) {
    do_exit(s_, task);
    if (t.churn_parent && t.state == TaskState::exited) exited_children_.push_back(task);
    return;
  }
  if (*sleep == kSleepWait && std::exchange(t.wake_pending, false)) {  // woken already: runs on
    t.gen++;                  // as a sleep and a wakeup would: the last burst's deadline is stale,
    s_.rq[t.cpu].stop_gen++;  // and so is its stop
    begin_burst(task);
    arm_stop(t.cpu);
    return;
  }
  block_task(s_, task, TaskState::sleeping);
  if (*sleep != kSleepWait) events_.push({s_.now + *sleep, EvKind::wake, task.v, t.gen});
}

// The exact end of the running task's CPU-time burst (run=), or an immediate
// stop for a runtime= task whose wall-clock deadline passed while it waited.
void Sim::arm_stop(CpuId cpu) {
  const Rq& r = s_.rq[cpu];
  const Task& t = s_.tasks[r.curr];
  if (!t.deferred.empty()) {  // ops that waited for it to run: at once
    events_.push({s_.now, EvKind::stop, cpu.v, r.stop_gen});
    return;
  }
  std::visit(Overloaded{
                 [](const RunBusy&) {},
                 [&](const RunPeriodic& b) {
                   const uint64_t ran = s_.se[t.se].sum_exec_runtime - t.burst_start_exec;
                   const Nanos rem = b.run > ran && !t.waits_first ? b.run - ran : 0;
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
        trigger_load_balance(s_, cpu);  // scheduler_tick's last step
        r.tick_armed = true;
        events_.push({e.t + s_.tun.tick_ns(), EvKind::tick, e.id, 0});
      }
      return true;
    }
    case EvKind::stop: {
      const Rq& r = s_.rq[CpuId(e.id)];
      if (e.gen != r.stop_gen || !r.curr) return false;
      s_.now = e.t;
      if (!s_.tasks[r.curr].deferred.empty()) run_deferred_ops(r.curr);
      else end_burst(r.curr);
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
    case EvKind::newidle: {  // a newidle walk's domain balance is done (model/balance.h)
      const CpuId cpu(e.id);
      if (e.gen != s_.lb.walk[cpu].gen || !newidle_walking(s_, cpu)) return false;
      s_.now = e.t;
      if (newidle_balance_done(s_, cpu)) resched_curr(s_, cpu);
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

// Every CPU with need_resched schedules, in CPU order, until none has it
// (a schedule that balances may set it on other CPUs); one that switches to
// a task starts that task's burst timer and its tick.
void Sim::resched_pending() {
  const CpuMask& pending = s_.need_resched_cpus;
  while (pending.any()) {
    for (const CpuId c : each_cpu(pending)) {  // read as it goes: schedule() sets and clears bits
      Rq& r = s_.rq[c];
      const TaskId prev = r.curr;
      schedule(s_, r.cpu);
      if (r.curr != prev && r.curr) {
        arm_stop(r.cpu);
        arm_tick(r.cpu);
      }
    }
  }
  CpuMask& walks = s_.lb.walk_event;  // newidle walks that started a domain's balance
  for (const CpuId c : each_cpu(walks)) {
    const NewidleWalk& w = s_.lb.walk[c];
    events_.push({w.at, EvKind::newidle, c.v, w.gen});
  }
  walks.reset();
}

void Sim::after_step(std::string_view kind, int32_t id, const Op* op) {
  resched_pending();
  if (!exited_children_.empty()) reap_children();
  if (!in_setup_) count_step(kind, id, op);
}

void Sim::count_step(std::string_view kind, int32_t id, const Op* op) {
  ++steps_;
  if (s_.sink) s_.sink->step_end(s_);
  if (opt_.check_every && steps_ % opt_.check_every == 0) run_check(Step{kind, id, op}, false);
}

bool Sim::halted() {
  if (run_end_ != RunEnd::finished) return true;
  if (opt_.max_events && s_.counters.events >= opt_.max_events) run_end_ = RunEnd::event_limit;
  else if (opt_.stop && opt_.stop->load(std::memory_order_relaxed)) run_end_ = RunEnd::interrupted;
  return run_end_ != RunEnd::finished;
}

// The events at or before t in time order; a churn fork due at time f comes
// after the events at f, as a timed op at f would.
void Sim::run_until(Nanos t) {
  for (;;) {
    const Nanos fork_at = churners_.empty() ? std::numeric_limits<Nanos>::max() : next_churn_fork();
    const bool event = !events_.empty() && events_.top().t <= std::min(t, fork_at);
    if (!event && fork_at > t) break;
    if (halted()) return;
    if (!event) {
      s_.now = fork_at;
      churn_fork();
      continue;
    }
    const Event e = events_.top();
    events_.pop();
    if (!handle(e)) continue;
    s_.counters.events++;
    static constexpr std::string_view kKinds[] = {"stop", "deadline", "wake-timer", "tick", "newidle"};
    after_step(kKinds[static_cast<int>(e.kind)], e.id, nullptr);
    if (opt_.progress && s_.counters.events % kProgressEvery == 0) opt_.progress(*this);
  }
  if (t > s_.now && !halted()) s_.now = t;
}

bool Sim::run_to(Nanos t) {
  for (; next_op_ < ops_.size() && ops_[next_op_]->at <= t; ++next_op_) {
    run_until(ops_[next_op_]->at);
    if (halted()) return true;
    apply(ops_[next_op_]->op, ops_[next_op_]->loc);
  }
  if (next_op_ == ops_.size() && !end_time_) end_time_ = std::max(sc_.duration, s_.now);
  run_until(end_time_ ? std::min(t, *end_time_) : t);
  return halted() || (end_time_ && s_.now >= *end_time_);
}

RunEnd Sim::finish() {
  if (opt_.check_every && (steps_ % opt_.check_every != 0 || opt_.full_check_every > 1))
    run_check(Step{"end of run", -1, nullptr}, true);
  if (opt_.progress) opt_.progress(*this);
  return run_end_;
}

RunEnd Sim::run() {
  run_to(std::numeric_limits<Nanos>::max());
  return finish();
}

std::string_view to_string(RunEnd e) {
  switch (e) {
    case RunEnd::finished: return "finished";
    case RunEnd::interrupted: return "interrupted";
    case RunEnd::event_limit: return "event-limit";
  }
  return "?";
}

}  // namespace cfsv
