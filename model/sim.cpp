#include "sim.h"

#include <algorithm>
#include <array>
#include <variant>

#include "arith/fair_math.h"
#include "invariants.h"
#include "arith/slice.h"
#include "arith/weights.h"

namespace cfsv {

namespace {
constexpr int kMaxDepth = 32;  // task groups nest at most this deep (sched_slice's chain buffer)

template <class... F> struct Overloaded : F... { using F::operator()...; };
template <class... F> Overloaded(F...) -> Overloaded<F...>;

std::string parent_path(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}
}  // namespace

std::string_view to_string(TaskState s) {
  switch (s) {
    case TaskState::running: return "running";
    case TaskState::runnable: return "runnable";
    case TaskState::sleeping: return "sleeping";
    case TaskState::exited: return "exited";
  }
  return "?";
}

ModelEra ModelEra::from(const FeatureSet& f) {
  ModelEra e;
  e.simple_pick = f[Feature::simple_pick];
  e.shares_on_cfs_rq = f[Feature::shares_on_cfs_rq];
  e.min_vruntime_skips_dequeued_curr = f[Feature::min_vruntime_skips_dequeued_curr];
  e.renorm_after_update_curr = f[Feature::renorm_after_update_curr];
  e.change_pattern_v5 = f[Feature::change_pattern];
  e.sysctl_recomputes_nr_latency = f[Feature::sysctl_nr_latency];
  return e;
}

// ---------------------------------------------------------------------------
// Set-up

Sim::Sim(const Scenario& sc, SimOptions opt) : sc_(sc), opt_(opt) {
  const Profile* p = profile_by_name(sc_.kernel);
  if (!p) {
    last_error_ = "unknown kernel profile '" + sc_.kernel + "', using " + std::string(default_profile().name);
    p = &default_profile();
  }
  features_ = p->features;
  for (const auto& [f, on] : sc_.feature_overrides) features_.set(f, on);
  era_ = ModelEra::from(features_);
  res_ = features_.load_resolution();
  checker_ = std::make_unique<InvariantChecker>(opt_.max_violations);

  const unsigned n = std::clamp(sc_.topology.nr_cpus(), 1u, kMaxCpus);
  rqs_.resize(n);
  init_tunables();

  // The root task group: ROOT_TASK_GROUP_LOAD shares, a cfs_rq per CPU, no entities.
  tgs_.push_back(TaskGroup{"/", -1, scale_load<uint64_t>(kNice0Weight, res_), {}, {}, 0, 0});
  group_by_path_.emplace("/", 0);
  for (unsigned c = 0; c < n; ++c) {
    rqs_[c].cpu = static_cast<int32_t>(c);
    rqs_[c].cfs = new_cfs_rq(0, static_cast<int32_t>(c));
    rqs_[c].curr = kIdle;
  }
  se_.reserve(64 + sc_.tasks.size() + sc_.groups.size() * n);
  tasks_.reserve(sc_.tasks.size() + 16);
  trace_.stretches.reserve(1024);
  trace_.switches.reserve(1024);

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

void Sim::init_tunables() {
  const Profile* p = profile_by_name(sc_.kernel);
  Tunables normalized = p ? p->tunables : default_profile().tunables;
  uint64_t factor = Tunables::scaling_factor(nr_cpus(), normalized.scaling);
  tun_ = normalized.for_cpus(nr_cpus());
  for (const Setting& s : sc_.settings) apply_setting(s, factor, normalized);
}

// sched_proc_update_handler / update_sysctl (kernel/sched/fair.c v3.10) for
// the sysctl era; plain debugfs writes (kernel/sched/debug.c v5.13+) otherwise.
void Sim::apply_setting(const Setting& s, uint64_t& factor, Tunables& normalized) {
  const uint64_t v = s.value;
  const bool gran = s.key == "latency" || s.key == "min_granularity" || s.key == "wakeup_granularity";
  if (s.key == "hz") tun_.hz = static_cast<uint32_t>(std::max<uint64_t>(v, 1));
  else if (s.key == "latency") tun_.latency_ns = v;
  else if (s.key == "min_granularity") tun_.min_granularity_ns = std::max<uint64_t>(v, 1);
  else if (s.key == "wakeup_granularity") tun_.wakeup_granularity_ns = v;
  else if (s.key == "idle_min_granularity") tun_.idle_min_granularity_ns = v;
  else if (s.key == "migration_cost") tun_.migration_cost_ns = v;
  else if (s.key == "nr_latency") tun_.nr_latency = v;
  else if (s.key == "nr_migrate") tun_.nr_migrate = static_cast<uint32_t>(v);
  else if (s.key == "scaling") {
    // sched_scaling_write / sysctl_sched_tunable_scaling -> update_sysctl()
    tun_.scaling = static_cast<TunableScaling>(std::min<uint64_t>(v, 2));
    factor = Tunables::scaling_factor(nr_cpus(), tun_.scaling);
    tun_.latency_ns = factor * normalized.latency_ns;
    tun_.min_granularity_ns = factor * normalized.min_granularity_ns;
    tun_.wakeup_granularity_ns = factor * normalized.wakeup_granularity_ns;
  } else {
    last_error_ = "unknown setting '" + s.key + "'";
  }
  if (gran && era_.sysctl_recomputes_nr_latency) {
    tun_.recompute_nr_latency();
    normalized.latency_ns = tun_.latency_ns / factor;
    normalized.min_granularity_ns = tun_.min_granularity_ns / factor;
    normalized.wakeup_granularity_ns = tun_.wakeup_granularity_ns / factor;
  }
}

int32_t Sim::new_cfs_rq(int32_t tg, int32_t cpu) {
  cfs_.emplace_back(&pool_);
  CfsRq& c = cfs_.back();
  c.tg = tg;
  c.cpu = cpu;
  const auto idx = static_cast<int32_t>(cfs_.size() - 1);
  tgs_[tg].cfs_rq.push_back(idx);
  return idx;
}

// sched_create_group + init_tg_cfs_entry (kernel/sched/fair.c v3.10..v6.5):
// a cfs_rq and an entity of weight NICE_0_LOAD per CPU under the parent's.
int32_t Sim::create_group(const GroupSpec& g) {
  const int32_t parent = group_index(parent_path(g.path));
  const auto tgi = static_cast<int32_t>(tgs_.size());
  TaskGroup t;
  t.path = g.path;
  t.parent = parent;
  t.shares = scale_load<uint64_t>(std::clamp<uint64_t>(g.shares, kFairMinShares, kFairMaxShares), res_);
  t.depth = tgs_[parent].depth + 1;
  tgs_.push_back(std::move(t));
  group_by_path_.emplace(g.path, tgi);
  for (unsigned c = 0; c < nr_cpus(); ++c) {
    const int32_t cq = new_cfs_rq(tgi, static_cast<int32_t>(c));
    SchedEntity e;
    e.load = {nice_0_load<uint64_t>(res_), 0};
    e.cfs_rq = tgs_[parent].cfs_rq[c];
    e.parent = parent == 0 ? -1 : tgs_[parent].se[c];
    e.depth = e.parent < 0 ? 0 : se_[e.parent].depth + 1;
    e.my_q = cq;
    se_.push_back(e);
    const auto sei = static_cast<int32_t>(se_.size() - 1);
    tgs_[tgi].se.push_back(sei);
    cfs_[cq].group_se = sei;
  }
  return tgi;
}

// ---------------------------------------------------------------------------
// Lookups and statistics

int32_t Sim::task_index(std::string_view name) const {
  const auto it = task_by_name_.find(name);
  return it == task_by_name_.end() ? -1 : it->second;
}

int32_t Sim::group_index(std::string_view path) const {
  const auto it = group_by_path_.find(path);
  return it == group_by_path_.end() ? -1 : it->second;
}

Nanos Sim::cpu_time(int32_t task) const {
  const Task& t = tasks_[task];
  const SchedEntity& e = se_[t.se];
  Nanos v = e.sum_exec_runtime;
  if (t.state == TaskState::running && rqs_[t.cpu].curr == task && now_ > e.exec_start) v += now_ - e.exec_start;
  return v;
}

Nanos Sim::wait_ns(int32_t task) const {
  const Task& t = tasks_[task];
  return t.stats.wait_ns + (t.waiting ? now_ - t.wait_start : 0);
}

Nanos Sim::idle_ns(int32_t cpu) const {
  const Rq& r = rqs_[cpu];
  return r.idle_ns + (r.curr == kIdle ? now_ - r.since : 0);
}

Nanos Sim::busy_ns(int32_t cpu) const {
  const Rq& r = rqs_[cpu];
  return r.busy_ns + (r.curr != kIdle ? now_ - r.since : 0);
}

std::vector<Stretch> Sim::stretches_until_now() const {
  std::vector<Stretch> v = trace_.stretches;
  for (const Rq& r : rqs_)
    if (r.curr >= 0 && now_ > r.since) v.push_back({r.curr, r.cpu, r.since, now_});
  return v;
}

uint64_t Sim::sched_slice_of(int32_t se) const { return sched_slice(se_[se].cfs_rq, se); }

bool Sim::check_now(std::string_view context) {
  const Step step{context, -1, nullptr};
  return checker_->check(*this, step) == 0;
}

// ---------------------------------------------------------------------------
// Kernel functions

// update_min_vruntime (kernel/sched/fair.c v3.10; v4.9+ skips a dequeued curr)
void Sim::update_min_vruntime(int32_t cq) {
  CfsRq& c = cfs_[cq];
  uint64_t v = c.min_vruntime;
  bool have_curr = c.curr >= 0;
  if (have_curr) {
    if (era_.min_vruntime_skips_dequeued_curr && !se_[c.curr].on_rq) have_curr = false;
    else v = se_[c.curr].vruntime;
  }
  const int32_t left = c.first();
  if (left >= 0) v = have_curr ? min_vruntime(v, se_[left].vruntime) : se_[left].vruntime;
  c.min_vruntime = max_vruntime(c.min_vruntime, v);
}

// update_curr (kernel/sched/fair.c v3.10..v6.5): charge the time since
// exec_start to curr's sum_exec_runtime and, weighted, to its vruntime.
void Sim::update_curr(int32_t cq) {
  CfsRq& c = cfs_[cq];
  if (c.curr < 0) return;
  SchedEntity& e = se_[c.curr];
  const uint64_t delta = now_ - e.exec_start;
  if (static_cast<int64_t>(delta) <= 0) return;
  e.exec_start = now_;
  e.sum_exec_runtime += delta;
  e.vruntime += calc_delta_fair<uint64_t>(delta, e.load, res_);
  update_min_vruntime(cq);
}

// __enqueue_entity (kernel/sched/fair.c v3.10..v6.5): insert into the timeline.
void Sim::enqueue_entity_tree(int32_t cq, int32_t sei) {
  SchedEntity& e = se_[sei];
  e.node = cfs_[cq].timeline.insert(TimelineKey{e.vruntime, seq_++, sei}).first;
  e.in_timeline = true;
}

// __dequeue_entity (kernel/sched/fair.c v3.10..v6.5)
void Sim::dequeue_entity_tree(int32_t cq, int32_t sei) {
  SchedEntity& e = se_[sei];
  cfs_[cq].timeline.erase(e.node);
  e.node = {};
  e.in_timeline = false;
}

// The group's instantaneous load follows each change of a cfs_rq's weight.
void Sim::cfs_load_changed(int32_t cq) {
  CfsRq& c = cfs_[cq];
  const uint64_t down = scale_load_down<uint64_t>(c.load_weight, res_);
  TaskGroup& g = tgs_[c.tg];
  g.load_down_sum = g.load_down_sum - c.load_down + down;
  c.load_down = down;
}

// account_entity_enqueue (kernel/sched/fair.c v3.10..v6.5)
void Sim::account_entity_enqueue(int32_t cq, int32_t sei) {
  CfsRq& c = cfs_[cq];
  c.load_weight += se_[sei].load.weight;
  c.nr_running++;
  cfs_load_changed(cq);
}

// account_entity_dequeue (kernel/sched/fair.c v3.10..v6.5)
void Sim::account_entity_dequeue(int32_t cq, int32_t sei) {
  CfsRq& c = cfs_[cq];
  c.load_weight -= se_[sei].load.weight;
  c.nr_running--;
  cfs_load_changed(cq);
}

// sched_slice (kernel/sched/fair.c; the variant in force comes from
// model/slice.h), with the chain taken from the live hierarchy.
uint64_t Sim::sched_slice(int32_t cq, int32_t sei) const {
  std::array<SliceLevel<uint64_t>, kMaxDepth> chain;
  std::size_t n = 0;
  for (int32_t x = sei; x >= 0 && n < chain.size(); x = se_[x].parent) {
    const SchedEntity& e = se_[x];
    chain[n++] = {e.load.weight, cfs_[e.cfs_rq].load_weight, e.on_rq ? 1u : 0u};
  }
  const SliceTunables<uint64_t> t{tun_.latency_ns, tun_.min_granularity_ns, tun_.nr_latency};
  const CfsRq& c = cfs_[cq];
  const uint64_t rq_h = cfs_[rqs_[c.cpu].cfs].h_nr_running;
  return cfsv::sched_slice<uint64_t>(std::span<const SliceLevel<uint64_t>>(chain.data(), n), c.nr_running, rq_h, t,
                                     features_.slice(), res_);
}

// sched_vslice (kernel/sched/fair.c v3.10..v6.5)
uint64_t Sim::sched_vslice(int32_t cq, int32_t sei) const {
  return calc_delta_fair<uint64_t>(sched_slice(cq, sei), se_[sei].load, res_);
}

// place_entity (kernel/sched/fair.c v3.10..v6.2; SCHED_IDLE's smaller
// sleeper credit (v5.15) not modelled): a new entity starts a vslice after
// min_vruntime with START_DEBIT; a waking one at most (half) a latency
// before it; never backwards.
void Sim::place_entity(int32_t cq, int32_t sei, bool initial) {
  uint64_t v = cfs_[cq].min_vruntime;
  if (initial && features_[Feature::start_debit]) v += sched_vslice(cq, sei);
  if (!initial) v -= sleeper_thresh<uint64_t>(tun_.latency_ns, features_[Feature::gentle_fair_sleepers]);
  se_[sei].vruntime = max_vruntime(se_[sei].vruntime, v);
}

// reweight_entity (kernel/sched/fair.c v3.10..v6.5, PELT parts not modelled)
void Sim::reweight_entity(int32_t cq, int32_t sei, uint64_t weight) {
  SchedEntity& e = se_[sei];
  CfsRq& c = cfs_[cq];
  if (e.on_rq) {
    if (c.curr == sei) update_curr(cq);
    c.load_weight -= e.load.weight;
  }
  e.load = {weight, 0};
  if (e.on_rq) c.load_weight += weight;
  cfs_load_changed(cq);
  counters_.reweights++;
}

// update_cfs_group (kernel/sched/fair.c v4.15..v6.5) with the instantaneous
// share (fair_math.h calc_group_shares_instant) in place of PELT.
void Sim::update_cfs_group(int32_t sei) {
  if (sei < 0) return;
  const SchedEntity& e = se_[sei];
  if (e.my_q < 0) return;
  const CfsRq& gq = cfs_[e.my_q];
  const TaskGroup& g = tgs_[gq.tg];
  const uint64_t shares = calc_group_shares_instant<uint64_t>(g.shares, gq.load_down, g.load_down_sum);
  if (e.load.weight != shares) reweight_entity(e.cfs_rq, sei, shares);
}

// update_cfs_shares (kernel/sched/fair.c v3.10..v4.14): reweight the group
// entity that owns cfs_rq (none for the root).
void Sim::update_cfs_shares(int32_t cq) { update_cfs_group(cfs_[cq].group_se); }

// enqueue_entity (kernel/sched/fair.c v3.10; v4.6+ renormalises after
// update_curr; v4.15+ update_cfs_group(se) before accounting)
void Sim::enqueue_entity(int32_t cq, int32_t sei, unsigned flags) {
  CfsRq& c = cfs_[cq];
  const bool renorm = !(flags & kEnqueueWakeup) || (flags & kEnqueueMigrated);
  const bool is_curr = c.curr == sei;
  if (renorm && (is_curr || !era_.renorm_after_update_curr)) se_[sei].vruntime += c.min_vruntime;
  update_curr(cq);
  if (renorm && !is_curr && era_.renorm_after_update_curr) se_[sei].vruntime += c.min_vruntime;
  if (!era_.shares_on_cfs_rq) update_cfs_group(sei);
  account_entity_enqueue(cq, sei);
  if (era_.shares_on_cfs_rq) update_cfs_shares(cq);
  if (flags & kEnqueueWakeup) place_entity(cq, sei, false);
  if (!is_curr) {
    if (se_[sei].is_task()) wait_begin(se_[sei].task);
    enqueue_entity_tree(cq, sei);
  }
  se_[sei].on_rq = true;
  counters_.enqueues++;
}

// dequeue_entity (kernel/sched/fair.c v3.10; v4.15+ update_cfs_group(se)
// before update_min_vruntime)
void Sim::dequeue_entity(int32_t cq, int32_t sei, unsigned flags) {
  update_curr(cq);
  CfsRq& c = cfs_[cq];
  const bool is_curr = c.curr == sei;
  if (!is_curr && se_[sei].is_task()) wait_end(se_[sei].task);
  clear_buddies(cq, sei);
  if (!is_curr) dequeue_entity_tree(cq, sei);
  se_[sei].on_rq = false;
  account_entity_dequeue(cq, sei);
  if (!(flags & kDequeueSleep)) se_[sei].vruntime -= c.min_vruntime;
  if (!era_.shares_on_cfs_rq) update_cfs_group(sei);
  update_min_vruntime(cq);
  if (era_.shares_on_cfs_rq) update_cfs_shares(cq);
  counters_.dequeues++;
}

// enqueue_task_fair (kernel/sched/fair.c v3.10..v6.5, no bandwidth control)
void Sim::enqueue_task_fair(int32_t cpu, int32_t task, unsigned flags) {
  int32_t sei = tasks_[task].se;
  for (; sei >= 0; sei = se_[sei].parent) {
    if (se_[sei].on_rq) break;
    const int32_t cq = se_[sei].cfs_rq;
    enqueue_entity(cq, sei, flags);
    cfs_[cq].h_nr_running++;
    flags = kEnqueueWakeup;
  }
  for (; sei >= 0; sei = se_[sei].parent) {
    const int32_t cq = se_[sei].cfs_rq;
    cfs_[cq].h_nr_running++;
    if (era_.shares_on_cfs_rq) update_cfs_shares(cq);
    else update_cfs_group(sei);
  }
  (void)cpu;
}

// dequeue_task_fair (kernel/sched/fair.c v3.10..v6.5, no bandwidth control):
// a parent stays queued while its cfs_rq has load; a sleeping task makes
// that parent the next buddy.
void Sim::dequeue_task_fair(int32_t cpu, int32_t task, unsigned flags) {
  const bool task_sleep = flags & kDequeueSleep;
  int32_t sei = tasks_[task].se;
  while (sei >= 0) {
    const int32_t cq = se_[sei].cfs_rq;
    dequeue_entity(cq, sei, flags);
    cfs_[cq].h_nr_running--;
    if (cfs_[cq].load_weight) {
      const int32_t parent = se_[sei].parent;
      if (task_sleep && parent >= 0) set_next_buddy(parent);
      sei = parent;
      break;
    }
    flags |= kDequeueSleep;
    sei = se_[sei].parent;
  }
  for (; sei >= 0; sei = se_[sei].parent) {
    const int32_t cq = se_[sei].cfs_rq;
    cfs_[cq].h_nr_running--;
    if (era_.shares_on_cfs_rq) update_cfs_shares(cq);
    else update_cfs_group(sei);
  }
  (void)cpu;
}

// check_preempt_tick (kernel/sched/fair.c v3.10..v6.5)
void Sim::check_preempt_tick(int32_t cq, int32_t curr) {
  const uint64_t ideal_runtime = sched_slice(cq, curr);
  const SchedEntity& e = se_[curr];
  const uint64_t delta_exec = e.sum_exec_runtime - e.prev_sum_exec_runtime;
  const int32_t cpu = cfs_[cq].cpu;
  if (delta_exec > ideal_runtime) {
    resched_curr(cpu);
    counters_.resched_tick++;
    clear_buddies(cq, curr);
    return;
  }
  if (delta_exec < tun_.min_granularity_ns) return;
  const int32_t left = cfs_[cq].first();
  if (left < 0) return;
  const int64_t delta = static_cast<int64_t>(e.vruntime - se_[left].vruntime);
  if (delta < 0) return;
  if (static_cast<uint64_t>(delta) > ideal_runtime) {
    resched_curr(cpu);
    counters_.resched_tick++;
  }
}

// entity_tick (kernel/sched/fair.c v3.10; v4.15+ update_cfs_group(curr)),
// without PELT and hrtick.
void Sim::entity_tick(int32_t cq, int32_t curr) {
  update_curr(cq);
  if (era_.shares_on_cfs_rq) update_cfs_shares(cq);
  else update_cfs_group(curr);
  if (cfs_[cq].nr_running > 1) check_preempt_tick(cq, curr);
}

// task_tick_fair (kernel/sched/fair.c v3.10..v6.5): entity_tick at every level.
void Sim::task_tick_fair(int32_t cpu) {
  for (int32_t sei = tasks_[rqs_[cpu].curr].se; sei >= 0; sei = se_[sei].parent) entity_tick(se_[sei].cfs_rq, sei);
}

// wakeup_preempt_entity (kernel/sched/fair.c v3.10..v6.5): 1 when se is more
// than wakeup_gran ahead of curr in virtual time, -1 when not ahead at all.
int Sim::wakeup_preempt_entity(int32_t curr, int32_t sei) const {
  const int64_t vdiff = static_cast<int64_t>(se_[curr].vruntime - se_[sei].vruntime);
  if (vdiff <= 0) return -1;
  const uint64_t gran = wakeup_gran<uint64_t>(tun_.wakeup_granularity_ns, se_[sei].load, res_);
  if (vdiff > static_cast<int64_t>(gran)) return 1;
  return 0;
}

// set_next_buddy (kernel/sched/fair.c v3.10..v6.5; the on_rq guard is v5.x's)
void Sim::set_next_buddy(int32_t sei) {
  for (; sei >= 0; sei = se_[sei].parent) {
    if (!se_[sei].on_rq) return;
    cfs_[se_[sei].cfs_rq].next = sei;
  }
}

// set_last_buddy (kernel/sched/fair.c v3.10..v6.5)
void Sim::set_last_buddy(int32_t sei) {
  for (; sei >= 0; sei = se_[sei].parent) {
    if (!se_[sei].on_rq) return;
    cfs_[se_[sei].cfs_rq].last = sei;
  }
}

// clear_buddies + __clear_buddies_{last,next,skip} (kernel/sched/fair.c v3.10..v6.5)
void Sim::clear_buddies(int32_t cq, int32_t sei) {
  auto clear_up = [&](int32_t CfsRq::*which) {
    for (int32_t x = sei; x >= 0; x = se_[x].parent) {
      CfsRq& c = cfs_[se_[x].cfs_rq];
      if (c.*which != x) break;
      c.*which = -1;
    }
  };
  if (cfs_[cq].last == sei) clear_up(&CfsRq::last);
  if (cfs_[cq].next == sei) clear_up(&CfsRq::next);
  if (cfs_[cq].skip == sei) clear_up(&CfsRq::skip);
}

// find_matching_se + check_preempt_wakeup (kernel/sched/fair.c v3.10..v6.5;
// SCHED_IDLE and SCHED_BATCH policies not modelled)
void Sim::check_preempt_wakeup(int32_t cpu, int32_t task, unsigned wake_flags) {
  Rq& r = rqs_[cpu];
  int32_t se = tasks_[r.curr].se;
  int32_t pse = tasks_[task].se;
  const int32_t cq = se_[se].cfs_rq;
  const bool scale = cfs_[cq].nr_running >= tun_.nr_latency;
  bool next_buddy_marked = false;
  if (se == pse) return;
  if (features_[Feature::next_buddy] && scale && !(wake_flags & kWfFork)) {
    set_next_buddy(pse);
    next_buddy_marked = true;
  }
  if (r.need_resched) return;
  if (!features_[Feature::wakeup_preemption]) return;
  // find_matching_se
  while (se_[se].depth > se_[pse].depth) se = se_[se].parent;
  while (se_[pse].depth > se_[se].depth) pse = se_[pse].parent;
  while (se_[se].cfs_rq != se_[pse].cfs_rq) {
    se = se_[se].parent;
    pse = se_[pse].parent;
  }
  update_curr(se_[se].cfs_rq);
  if (wakeup_preempt_entity(se, pse) != 1) return;
  if (!next_buddy_marked) set_next_buddy(pse);
  resched_curr(cpu);
  counters_.resched_wakeup++;
  if (!se_[se].on_rq) return;
  if (features_[Feature::last_buddy] && scale && se_[se].is_task()) set_last_buddy(se);
}

// check_preempt_curr (kernel/sched/core.c v3.10..v6.5): an idle (or stopper)
// CPU always reschedules; a fair one asks check_preempt_wakeup.
void Sim::check_preempt_curr(int32_t cpu, int32_t task, unsigned wake_flags) {
  if (rqs_[cpu].curr < 0) {
    resched_curr(cpu);
    return;
  }
  check_preempt_wakeup(cpu, task, wake_flags);
}

// pick_next_entity (kernel/sched/fair.c v3.10: leftmost; v3.15+: the
// still-queued curr competes with the leftmost), then the next and last buddies
// when they are within wakeup_gran of it. No skip buddy (no yield op yet).
int32_t Sim::pick_next_entity(int32_t cq, int32_t curr) {
  CfsRq& c = cfs_[cq];
  int32_t left = c.first();
  if (left < 0 || (curr >= 0 && vruntime_before(se_[curr].vruntime, se_[left].vruntime))) left = curr;
  int32_t se = left;
  if (c.next >= 0 && wakeup_preempt_entity(c.next, left) < 1) se = c.next;
  else if (c.last >= 0 && wakeup_preempt_entity(c.last, left) < 1) se = c.last;
  clear_buddies(cq, se);
  return se;
}

// put_prev_entity (kernel/sched/fair.c v3.10..v6.5)
void Sim::put_prev_entity(int32_t cq, int32_t prev) {
  if (se_[prev].on_rq) {
    update_curr(cq);
    if (se_[prev].is_task()) wait_begin(se_[prev].task);
    enqueue_entity_tree(cq, prev);
  }
  cfs_[cq].curr = -1;
}

// set_next_entity (kernel/sched/fair.c v3.10..v6.5)
void Sim::set_next_entity(int32_t cq, int32_t sei) {
  SchedEntity& e = se_[sei];
  if (e.on_rq) {
    if (e.is_task()) wait_end(e.task);
    dequeue_entity_tree(cq, sei);
  }
  e.exec_start = now_;
  cfs_[cq].curr = sei;
  e.prev_sum_exec_runtime = e.sum_exec_runtime;
}

// put_prev_task_fair (kernel/sched/fair.c v3.10..v6.5)
void Sim::put_prev_task_fair(int32_t task) {
  for (int32_t x = tasks_[task].se; x >= 0; x = se_[x].parent) put_prev_entity(se_[x].cfs_rq, x);
}

// set_curr_task_fair (v3.10) / set_next_task_fair (v5.x), kernel/sched/fair.c
void Sim::set_next_task_fair(int32_t task) {
  for (int32_t x = tasks_[task].se; x >= 0; x = se_[x].parent) set_next_entity(se_[x].cfs_rq, x);
}

// pick_next_task_fair (kernel/sched/fair.c): v3.10's simple top-down pick
// (after put_prev_task), or v3.15+'s, which only puts and sets the levels
// where prev and next differ. Returns the task, or kIdle.
int32_t Sim::pick_next_task_fair(int32_t cpu, int32_t prev) {
  const int32_t root = rqs_[cpu].cfs;
  if (era_.simple_pick && prev >= 0) put_prev_task_fair(prev);
  if (cfs_[root].nr_running == 0) {
    if (!era_.simple_pick && prev >= 0) put_prev_task_fair(prev);
    return kIdle;
  }
  int32_t cq = root;
  int32_t se = -1;
  if (era_.simple_pick || prev < 0) {
    do {
      se = pick_next_entity(cq, -1);
      set_next_entity(cq, se);
      cq = se_[se].my_q;
    } while (cq >= 0);
    return se_[se].task;
  }
  do {
    int32_t curr = cfs_[cq].curr;
    if (curr >= 0) {
      if (se_[curr].on_rq) update_curr(cq);
      else curr = -1;
    }
    se = pick_next_entity(cq, curr);
    cq = se_[se].my_q;
  } while (cq >= 0);
  const int32_t p = se_[se].task;
  if (p != prev) {
    int32_t pse = tasks_[prev].se;
    while (se_[se].cfs_rq != se_[pse].cfs_rq) {
      const int32_t se_depth = se_[se].depth, pse_depth = se_[pse].depth;
      if (se_depth <= pse_depth) {
        put_prev_entity(se_[pse].cfs_rq, pse);
        pse = se_[pse].parent;
      }
      if (se_depth >= pse_depth) {
        set_next_entity(se_[se].cfs_rq, se);
        se = se_[se].parent;
      }
    }
    put_prev_entity(se_[se].cfs_rq, pse);
    set_next_entity(se_[se].cfs_rq, se);
  }
  return p;
}

// __schedule (kernel/sched/core.c), the CFS part: pick, then switch if the
// pick differs from what ran.
void Sim::schedule(int32_t cpu) {
  Rq& r = rqs_[cpu];
  r.need_resched = false;
  counters_.schedules++;
  const int32_t prev = r.curr;
  const int32_t next = pick_next_task_fair(cpu, prev);
  if (next != prev) context_switch(cpu, prev, next);
}

// set_task_rq (kernel/sched/sched.h v3.10..v6.5): the task's entity hangs
// under its group's cfs_rq and entity on that CPU.
void Sim::set_task_rq(int32_t task, int32_t cpu) {
  Task& t = tasks_[task];
  SchedEntity& e = se_[t.se];
  const TaskGroup& g = tgs_[t.group];
  e.cfs_rq = g.cfs_rq[cpu];
  e.parent = g.se.empty() ? -1 : g.se[cpu];
  e.depth = e.parent < 0 ? 0 : se_[e.parent].depth + 1;
  t.cpu = cpu;
}

// task_fork_fair (kernel/sched/fair.c v3.10..v6.2): the child starts at the
// parent cfs_rq's curr vruntime, placed with START_DEBIT, then normalised.
// The model's "parent" is whatever runs on the child's cfs_rq on its CPU
// (docs/model.md): a spawn has no real parent task.
void Sim::task_fork_fair(int32_t task) {
  const int32_t sei = tasks_[task].se;
  const int32_t cq = se_[sei].cfs_rq;
  update_curr(cq);
  const int32_t curr = cfs_[cq].curr;
  if (curr >= 0) se_[sei].vruntime = se_[curr].vruntime;
  place_entity(cq, sei, true);
  se_[sei].vruntime -= cfs_[cq].min_vruntime;
}

// ---------------------------------------------------------------------------
// Simulation

bool Sim::cpu_allowed(const Task& t, int32_t cpu) const { return t.allowed.none() || t.allowed.test(cpu); }

// Placement without load balancing: the lowest allowed CPU with the fewest
// runnable tasks (cfs.h_nr_running).
int32_t Sim::select_cpu(const Task& t) const {
  int32_t best = -1;
  uint32_t best_nr = 0;
  for (unsigned c = 0; c < nr_cpus(); ++c) {
    if (!cpu_allowed(t, static_cast<int32_t>(c))) continue;
    const uint32_t nr = cfs_[rqs_[c].cfs].h_nr_running;
    if (best < 0 || nr < best_nr) {
      best = static_cast<int32_t>(c);
      best_nr = nr;
    }
  }
  return best;
}

void Sim::wait_begin(int32_t task) {
  Task& t = tasks_[task];
  if (t.waiting) return;
  t.waiting = true;
  t.wait_start = now_;
}

void Sim::wait_end(int32_t task) {
  Task& t = tasks_[task];
  if (!t.waiting) return;
  t.waiting = false;
  t.stats.wait_ns += now_ - t.wait_start;
}

void Sim::context_switch(int32_t cpu, int32_t prev, int32_t next) {
  Rq& r = rqs_[cpu];
  const Nanos ran = now_ - r.since;
  if (prev == kIdle) r.idle_ns += ran;
  else r.busy_ns += ran;
  TaskState prev_state = TaskState::runnable;
  if (prev >= 0) {
    Task& p = tasks_[prev];
    if (p.state == TaskState::running) p.state = TaskState::runnable;
    prev_state = p.state;
    if (opt_.record_trace && ran > 0) trace_.stretches.push_back({prev, cpu, r.since, now_});
  }
  if (opt_.record_trace) trace_.switches.push_back({now_, cpu, prev, next, prev_state});
  r.curr = next;
  r.since = now_;
  r.stop_gen++;
  counters_.context_switches++;
  if (next >= 0) {
    tasks_[next].state = TaskState::running;
    tasks_[next].stats.switches++;
    arm_stop(cpu);
    arm_tick(cpu);
  }
}

// The exact end of the running task's CPU-time burst (run=), or an immediate
// stop for a runtime= task whose wall-clock deadline passed while it waited.
void Sim::arm_stop(int32_t cpu) {
  Rq& r = rqs_[cpu];
  const Task& t = tasks_[r.curr];
  std::visit(Overloaded{
                 [](const RunBusy&) {},
                 [&](const RunPeriodic& b) {
                   const uint64_t ran = se_[t.se].sum_exec_runtime - t.burst_start_exec;
                   const Nanos rem = b.run > ran ? b.run - ran : 0;
                   push({now_ + rem, EvKind::stop, cpu, r.stop_gen});
                 },
                 [&](const RunWallclock&) {
                   if (t.deadline_passed || t.deadline <= now_) push({now_, EvKind::stop, cpu, r.stop_gen});
                 },
             },
             t.spec.behaviour);
}

// The periodic tick on jiffy boundaries while the CPU is busy (NOHZ idle).
void Sim::arm_tick(int32_t cpu) {
  Rq& r = rqs_[cpu];
  if (r.tick_armed) return;
  r.tick_armed = true;
  const Nanos tick = tun_.tick_ns();
  push({(now_ / tick + 1) * tick, EvKind::tick, cpu, 0});
}

void Sim::begin_burst(int32_t task) {
  Task& t = tasks_[task];
  t.burst_start_exec = se_[t.se].sum_exec_runtime;
  t.deadline_passed = false;
  if (const auto* w = std::get_if<RunWallclock>(&t.spec.behaviour)) {
    t.deadline = now_ + w->runtime;
    push({t.deadline, EvKind::deadline, task, t.gen});
  }
}

void Sim::end_burst(int32_t task) {
  Task& t = tasks_[task];
  const std::optional<Nanos> sleep = std::visit(Overloaded{
                                                    [](const RunBusy&) { return std::optional<Nanos>{}; },
                                                    [](const RunPeriodic& b) { return b.sleep; },
                                                    [](const RunWallclock& b) { return b.sleep; },
                                                },
                                                t.spec.behaviour);
  if (!sleep) {
    block_task(task, TaskState::exited);
    return;
  }
  block_task(task, TaskState::sleeping);
  push({now_ + *sleep, EvKind::wake, task, t.gen});
}

// deactivate_task(DEQUEUE_SLEEP) from __schedule (or do_exit). A task that
// is only waiting is dequeued at once too (the model's simplification).
void Sim::block_task(int32_t task, TaskState to) {
  Task& t = tasks_[task];
  const bool running = rqs_[t.cpu].curr == task;
  if (t.state == TaskState::running || t.state == TaskState::runnable)
    dequeue_task_fair(t.cpu, task, kDequeueSleep);
  t.state = to;
  t.gen++;
  t.deadline_passed = false;
  if (running) resched_curr(t.cpu);
  if (to == TaskState::exited) counters_.exits++;
  else counters_.sleeps++;
}

// try_to_wake_up (kernel/sched/core.c): on the task's CPU unless its affinity
// no longer allows it (then placement; task_waking_fair / migrate_task_rq_fair
// normalise vruntime against the old cfs_rq), enqueue, check preemption.
void Sim::wake_up_task(int32_t task) {
  Task& t = tasks_[task];
  counters_.wakeups++;
  t.gen++;
  unsigned flags = kEnqueueWakeup;
  if (!cpu_allowed(t, t.cpu)) {
    const int32_t dest = select_cpu(t);
    SchedEntity& e = se_[t.se];
    e.vruntime -= cfs_[e.cfs_rq].min_vruntime;
    set_task_rq(task, dest);
    flags |= kEnqueueMigrated;
    t.stats.migrations++;
    counters_.migrations++;
  }
  t.state = TaskState::runnable;
  begin_burst(task);
  enqueue_task_fair(t.cpu, task, flags);
  check_preempt_curr(t.cpu, task, 0);
}

// move_queued_task via the stopper (kernel/sched/core.c __migrate_task): a
// running task is first preempted by migration/N.
void Sim::move_queued_task(int32_t task, int32_t dest) {
  Task& t = tasks_[task];
  const int32_t src = t.cpu;
  const bool running = rqs_[src].curr == task;
  if (running) {
    put_prev_task_fair(task);
    context_switch(src, task, kStopper);
  }
  dequeue_task_fair(src, task, 0);
  set_task_rq(task, dest);
  t.stats.migrations++;
  counters_.migrations++;
  enqueue_task_fair(dest, task, 0);
  check_preempt_curr(dest, task, 0);
  if (running) resched_curr(src);
}

bool Sim::handle(const Event& e) {
  switch (e.kind) {
    case EvKind::tick: {
      Rq& r = rqs_[e.id];
      r.tick_armed = false;
      now_ = e.t;
      counters_.ticks++;
      if (r.curr >= 0) {
        task_tick_fair(e.id);
        r.tick_armed = true;
        push({e.t + tun_.tick_ns(), EvKind::tick, e.id, 0});
      }
      return true;
    }
    case EvKind::stop: {
      Rq& r = rqs_[e.id];
      if (e.gen != r.stop_gen || r.curr < 0) return false;
      now_ = e.t;
      end_burst(r.curr);
      return true;
    }
    case EvKind::deadline: {
      Task& t = tasks_[e.id];
      if (e.gen != t.gen) return false;
      now_ = e.t;
      if (t.state == TaskState::running) end_burst(e.id);
      else if (t.state == TaskState::runnable) t.deadline_passed = true;
      return true;
    }
    case EvKind::wake: {
      Task& t = tasks_[e.id];
      if (e.gen != t.gen || t.state != TaskState::sleeping) return false;
      now_ = e.t;
      wake_up_task(e.id);
      return true;
    }
  }
  return false;
}

void Sim::resched_pending() {
  for (Rq& r : rqs_)
    if (r.need_resched) schedule(r.cpu);
}

void Sim::after_step(std::string_view kind, int32_t id, const Op* op) {
  resched_pending();
  if (opt_.check_invariants) checker_->check(*this, Step{kind, id, op});
}

void Sim::run_until(Nanos t) {
  while (!events_.empty() && events_.top().t <= t) {
    const Event e = events_.top();
    events_.pop();
    if (!handle(e)) continue;
    counters_.events++;
    static constexpr std::string_view kKinds[] = {"stop", "deadline", "wake-timer", "tick"};
    after_step(kKinds[static_cast<int>(e.kind)], e.id, nullptr);
  }
  if (t > now_) now_ = t;
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
  run_until(std::max(sc_.duration, now_));
}

// ---------------------------------------------------------------------------
// Ops

ApplyResult Sim::reject(std::string why) {
  last_error_ = std::move(why);
  counters_.ops_rejected++;
  return ApplyResult::rejected;
}

ApplyResult Sim::apply(const Op& op) {
  ApplyResult r = std::visit(Overloaded{
                                 [&](const op::Spawn& o) { return op_spawn(o.task); },
                                 [&](const op::Exit& o) { return op_exit(o.task); },
                                 [&](const op::Sleep& o) { return op_sleep(o.task); },
                                 [&](const op::Wake& o) { return op_wake(o.task); },
                                 [&](const op::SetNice& o) { return op_set_nice(o.task, o.nice); },
                                 [&](const op::SetAffinity& o) { return op_set_affinity(o.task, o.cpus); },
                                 [&](const op::CreateGroup& o) { return op_create_group(o.group); },
                                 [&](const op::SetShares& o) { return op_set_shares(o.group, o.shares); },
                                 [&](const op::MoveTask& o) { return op_move_task(o.task, o.group); },
                                 [&](const op::Advance& o) {
                                   run_until(now_ + o.by);
                                   return ApplyResult::applied;
                                 },
                             },
                             op);
  if (r == ApplyResult::applied) {
    counters_.ops++;
    after_step("op", -1, &op);
  }
  return r;
}

// fork: sched_fork + task_fork_fair + wake_up_new_task (kernel/sched/core.c).
ApplyResult Sim::op_spawn(const TaskSpec& spec) {
  if (spec.name.empty()) return reject("spawn: a task needs a name");
  if (task_index(spec.name) >= 0) return reject("spawn: task '" + spec.name + "' exists");
  const int32_t g = group_index(spec.group);
  if (g < 0) return reject("spawn " + spec.name + ": no group '" + spec.group + "'");
  if (spec.nice < kNiceMin || spec.nice > kNiceMax) return reject("spawn " + spec.name + ": nice out of range");
  const bool zero_loop = std::visit(Overloaded{
                                        [](const RunBusy&) { return false; },
                                        [](const RunPeriodic& b) { return b.run == 0 && b.sleep == Nanos{0}; },
                                        [](const RunWallclock& b) { return b.runtime == 0 && b.sleep == Nanos{0}; },
                                    },
                                    spec.behaviour);
  if (zero_loop) return reject("spawn " + spec.name + ": a 0 run with a 0 sleep never lets time pass");
  Task t;
  t.name = spec.name;
  t.spec = spec;
  t.nice = spec.nice;
  t.allowed = spec.cpus;
  for (unsigned c = nr_cpus(); c < kMaxCpus; ++c) t.allowed.reset(c);
  if (spec.cpus.any() && t.allowed.none()) return reject("spawn " + spec.name + ": no allowed CPU exists");
  t.group = g;
  const auto idx = static_cast<int32_t>(tasks_.size());
  t.pid = 1000 + idx;
  SchedEntity e;
  e.task = idx;
  e.load = {scale_load<uint64_t>(nice_to_weight(spec.nice), res_), nice_to_wmult(spec.nice)};
  se_.push_back(e);
  t.se = static_cast<int32_t>(se_.size() - 1);
  tasks_.push_back(std::move(t));
  task_by_name_.emplace(spec.name, idx);
  set_task_rq(idx, select_cpu(tasks_[idx]));
  counters_.forks++;
  task_fork_fair(idx);
  Task& k = tasks_[idx];
  k.state = TaskState::runnable;
  k.gen++;
  begin_burst(idx);
  enqueue_task_fair(k.cpu, idx, 0);
  check_preempt_curr(k.cpu, idx, kWfFork);
  return ApplyResult::applied;
}

ApplyResult Sim::op_exit(const std::string& name) {
  const int32_t i = task_index(name);
  if (i < 0) return reject("exit: no task '" + name + "'");
  Task& t = tasks_[i];
  if (t.state == TaskState::exited) return ApplyResult::applied;
  if (t.state == TaskState::sleeping) {
    t.state = TaskState::exited;
    t.gen++;
    counters_.exits++;
    return ApplyResult::applied;
  }
  block_task(i, TaskState::exited);
  return ApplyResult::applied;
}

ApplyResult Sim::op_sleep(const std::string& name) {
  const int32_t i = task_index(name);
  if (i < 0) return reject("sleep: no task '" + name + "'");
  const TaskState s = tasks_[i].state;
  if (s == TaskState::running || s == TaskState::runnable) block_task(i, TaskState::sleeping);
  return ApplyResult::applied;
}

ApplyResult Sim::op_wake(const std::string& name) {
  const int32_t i = task_index(name);
  if (i < 0) return reject("wake: no task '" + name + "'");
  if (tasks_[i].state == TaskState::sleeping) wake_up_task(i);
  return ApplyResult::applied;
}

// set_user_nice (kernel/sched/core.c v3.10; v5.x change pattern, see ModelEra)
ApplyResult Sim::op_set_nice(const std::string& name, int nice) {
  const int32_t i = task_index(name);
  if (i < 0) return reject("nice: no task '" + name + "'");
  if (nice < kNiceMin || nice > kNiceMax) return reject("nice: " + std::to_string(nice) + " out of range");
  Task& t = tasks_[i];
  const LoadWeight<uint64_t> lw{scale_load<uint64_t>(nice_to_weight(nice), res_), nice_to_wmult(nice)};
  const int delta = nice - t.nice;
  t.nice = nice;
  if (t.state != TaskState::running && t.state != TaskState::runnable) {
    se_[t.se].load = lw;
    return ApplyResult::applied;
  }
  const int32_t cpu = t.cpu;
  const bool running = rqs_[cpu].curr == i;
  dequeue_task_fair(cpu, i, 0);
  if (running && era_.change_pattern_v5) put_prev_task_fair(i);
  se_[t.se].load = lw;  // set_load_weight
  enqueue_task_fair(cpu, i, 0);
  if (delta < 0 || (delta > 0 && running)) resched_curr(cpu);
  if (running && era_.change_pattern_v5) set_next_task_fair(i);
  return ApplyResult::applied;
}

// set_cpus_allowed_ptr (kernel/sched/core.c): nothing moves while the current
// CPU stays allowed; a sleeping task moves at its next wakeup.
ApplyResult Sim::op_set_affinity(const std::string& name, const CpuMask& cpus) {
  const int32_t i = task_index(name);
  if (i < 0) return reject("affinity: no task '" + name + "'");
  CpuMask m = cpus;
  for (unsigned c = nr_cpus(); c < kMaxCpus; ++c) m.reset(c);
  if (cpus.any() && m.none()) return reject("affinity " + name + ": no allowed CPU exists");
  Task& t = tasks_[i];
  t.allowed = m;
  if (t.state != TaskState::running && t.state != TaskState::runnable) return ApplyResult::applied;
  if (cpu_allowed(t, t.cpu)) return ApplyResult::applied;
  move_queued_task(i, select_cpu(t));
  return ApplyResult::applied;
}

ApplyResult Sim::op_create_group(const GroupSpec& g) {
  if (g.path.size() < 2 || g.path[0] != '/' || g.path.back() == '/')
    return reject("group: bad path '" + g.path + "'");
  if (group_index(g.path) >= 0) return reject("group: '" + g.path + "' exists");
  const int32_t parent = group_index(parent_path(g.path));
  if (parent < 0) return reject("group " + g.path + ": no parent group '" + parent_path(g.path) + "'");
  if (tgs_[parent].depth + 1 >= kMaxDepth - 1) return reject("group " + g.path + ": nested too deep");
  create_group(g);
  return ApplyResult::applied;
}

// sched_group_set_shares (kernel/sched/fair.c v3.10..v6.5)
ApplyResult Sim::op_set_shares(const std::string& group, uint64_t shares) {
  const int32_t g = group_index(group);
  if (g < 0) return reject("shares: no group '" + group + "'");
  if (g == 0) return reject("shares: the root group's shares cannot change");
  tgs_[g].shares = scale_load<uint64_t>(std::clamp<uint64_t>(shares, kFairMinShares, kFairMaxShares), res_);
  for (unsigned c = 0; c < nr_cpus(); ++c) {
    for (int32_t x = tgs_[g].se[c]; x >= 0; x = se_[x].parent) update_cfs_group(x);
  }
  return ApplyResult::applied;
}

// sched_move_task (kernel/sched/core.c v3.10; v5.x order, see ModelEra) with
// task_move_group_fair / task_change_group_fair's vruntime handling; seed
// 001's early return under move_task_skip_same_group.
ApplyResult Sim::op_move_task(const std::string& name, const std::string& group) {
  const int32_t i = task_index(name);
  if (i < 0) return reject("move: no task '" + name + "'");
  const int32_t g = group_index(group);
  if (g < 0) return reject("move " + name + ": no group '" + group + "'");
  Task& t = tasks_[i];
  if (t.state == TaskState::exited) return reject("move: task '" + name + "' has exited");
  if (features_[Feature::move_task_skip_same_group] && g == t.group) return ApplyResult::applied;
  const int32_t cpu = t.cpu;
  SchedEntity& e = se_[t.se];
  if (t.state == TaskState::sleeping) {
    const bool normalise = e.sum_exec_runtime != 0;
    if (normalise) e.vruntime -= cfs_[e.cfs_rq].min_vruntime;
    t.group = g;
    set_task_rq(i, cpu);
    if (normalise) e.vruntime += cfs_[e.cfs_rq].min_vruntime;
    return ApplyResult::applied;
  }
  const bool running = rqs_[cpu].curr == i;
  dequeue_task_fair(cpu, i, 0);
  if (running) put_prev_task_fair(i);
  t.group = g;
  set_task_rq(i, cpu);
  if (era_.change_pattern_v5) {
    enqueue_task_fair(cpu, i, 0);
    if (running) {
      set_next_task_fair(i);
      resched_curr(cpu);
    }
  } else {
    if (running) set_next_task_fair(i);
    enqueue_task_fair(cpu, i, 0);
  }
  return ApplyResult::applied;
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
