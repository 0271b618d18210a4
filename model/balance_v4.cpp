// Era-1 load balancing (kernel/sched/fair.c v4.4, before v5.5), under the
// feature balance_v4_4 (profiles v4.4 and v3.10): load_balance with groups
// compared by average load over the rq->cpu_load[] indexes, the pinned-task
// flag sgc->imbalance, fix_small_imbalance, detach_tasks by load. The walks
// that call it (rebalance_domains, the nohz idle balance, idle_balance) are
// model/balance.cpp's, shared with v5.15; the arithmetic is
// model/arith/balance_v4.h. docs/balancing.md, "Era 1".
#include <algorithm>
#include <array>

#include "arith/balance_v4.h"
#include "balance.h"
#include "balance_lb.h"
#include "cfs_tasks.h"
#include "core.h"
#include "fair_cpu.h"
#include "select_rq.h"

namespace cfsv::lb {

// update_h_load (kernel/sched/fair.c v3.10): once a jiffy per rq, every live
// group's h_load on cpu, top down (walk_tg_tree with tg_load_down; a parent
// group is always older than its children): the root's is the rq's
// load.weight, a group's its parent's h_load times its entity's weight over
// the parent's weight + 1.
void update_h_load(Sched& s, CpuId cpu) {
  const uint64_t now = jiffies(s);
  if (s.rq[cpu].h_load_throttle == now) return;
  s.rq[cpu].h_load_throttle = now;
  for (const GroupId g : s.tg.ids()) {
    const TaskGroup& tg = s.tg[g];
    if (tg.dead) continue;
    CfsRq& c = s.cfs[tg.cfs_rq[cpu]];
    if (!c.group_se) {
      c.h_load = c.load().weight;
      continue;
    }
    const SchedEntity& gse = s.se[c.group_se];
    const CfsRq& parent = s.cfs[gse.cfs_rq];
    c.h_load = parent.h_load * gse.load.weight / (parent.load().weight + 1);
  }
}
// task_h_load (kernel/sched/fair.c v3.10): the task's weight times its
// cfs_rq's h_load, as update_h_load last left it, over the cfs_rq's weight +
// 1. v4.4's is select_rq.h's task_h_load.
uint64_t task_h_load_era1(const Sched& s, TaskId p) {
  if (!s.era.pelt_v3) return task_h_load(s, p);
  const SchedEntity& e = s.se[s.tasks[p].se];
  return e.load.weight * s.cfs[e.cfs_rq].h_load / (s.cfs[e.cfs_rq].load().weight + 1);
}

namespace {

using F = SdFlag;

// degrade_zero_ticks / degrade_factor (kernel/sched/fair.c v4.4): after this
// many missed ticks cpu_load[idx] is 0; else the factors (x/128) that decay it
// over 1, 2, 4, ... missed ticks. The kernel's precomputed literals.
constexpr std::array<unsigned, kCpuLoadIdxMax> kDegradeZeroTicks = {0, 8, 32, 64, 128};
constexpr unsigned kDegradeShift = 7;
constexpr std::array<std::array<uint8_t, kDegradeShift + 1>, kCpuLoadIdxMax> kDegradeFactor = {{
    {0, 0, 0, 0, 0, 0, 0, 0},
    {64, 32, 8, 0, 0, 0, 0, 0},
    {96, 72, 40, 12, 1, 0, 0, 0},
    {112, 98, 75, 43, 15, 1, 0, 0},
    {120, 112, 98, 76, 45, 16, 2, 0},
}};

// decay_load_missed (kernel/sched/fair.c v4.4): cpu_load[idx] after `missed`
// ticks at load 0.
uint64_t decay_load_missed(uint64_t load, uint64_t missed, unsigned idx) {
  if (!missed) return load;
  if (missed >= kDegradeZeroTicks[idx]) return 0;
  if (idx == 1) return load >> missed;
  for (unsigned j = 0; missed; missed >>= 1, ++j)
    if (missed & 1) load = (load * kDegradeFactor[idx][j]) >> kDegradeShift;
  return load;
}

// __update_cpu_load (kernel/sched/fair.c v4.4): cpu_load[0] is this_load;
// cpu_load[i] decays the missed ticks, then averages in this_load with weight
// 1/2^i, rounding up while the load rises.
void update_cpu_load(CpuLoadV4& cl, uint64_t this_load, uint64_t pending) {
  cl.load[0] = this_load;
  for (unsigned i = 1; i < kCpuLoadIdxMax; ++i) {
    const uint64_t scale = uint64_t{1} << i;
    const uint64_t old_load = decay_load_missed(cl.load[i], pending - 1, i);
    const uint64_t new_load = this_load > old_load ? this_load + scale - 1 : this_load;
    cl.load[i] = (old_load * (scale - 1) + new_load) >> i;
  }
}

// update_sg_lb_stats (kernel/sched/fair.c v4.4) over the group's CPUs in
// env.cpus; no NUMA balancing counts. overload: a CPU runs more than one task.
// min_load / max_load: the Wasted Cores fix's (0 for a group with no CPU in
// env.cpus, where the authors' patch leaves ULONG_MAX: docs/balancing.md).
SgLbStatsV4 update_sg_lb_stats_v4(Sched& s, const LbEnv& env, const SchedGroup& g, bool local, bool& overload) {
  SgLbStatsV4 sgs;
  const unsigned idx = sd_load_idx(*env.sd, env.idle);
  bool first = true;
  for (const CpuId c : each_cpu(g.span & env.cpus)) {
    const uint64_t load = biased_load(s, c, idx, local);
    sgs.min_load = first ? load : std::min(sgs.min_load, load);
    sgs.max_load = std::max(sgs.max_load, load);
    first = false;
    sgs.group_load += load;
    sgs.group_util += cpu_util(s, c);
    sgs.sum_nr_running += root_cfs_rq(s, c).h_nr_running;
    if (rq_nr_running(s, c) > 1) overload = true;
    sgs.sum_weighted_load += weighted_cpuload(s, c);
    if (idle_cpu(s, c)) sgs.idle_cpus++;
  }
  sgs.group_capacity = g.capacity;
  sgs.group_weight = g.span.count();
  sgs.sg_imbalanced = sgc_imbalance(s, env.sd->level, g.id) != 0;
  update_sg_lb_stats_tail_v4<uint64_t>(env.sd->imbalance_pct, sgs);
  return sgs;
}

// find_busiest_group (kernel/sched/fair.c v4.4): update_sd_lb_stats, then the
// verdict; the busiest group, or nullptr when balanced. Sets env.imb.
const SchedGroup* find_busiest_group_v4(Sched& s, LbEnv& env) {
  SdLbStatsV4 sds;
  sds.min_load_cmp = s.features[Feature::wasted_cores_min_load];
  const SchedGroup* busiest = nullptr;
  bool overload = false;
  const SchedDomain* child = env.level ? env.sd - 1 : nullptr;  // sd->child
  const bool prefer_sibling = child && child->flags.has(F::PREFER_SIBLING);
  for (const SchedGroup& g : env.sd->groups) {
    const bool local = g.span.test(env.dst_cpu.index());
    const SgLbStatsV4 sgs = update_sg_lb_stats_v4(s, env, g, local, overload);
    if (update_sd_lb_stats_group_v4<uint64_t>(sds, sgs, local, prefer_sibling, env.sd->imbalance_pct)) busiest = &g;
  }
  if (!env.parent) s.lb.overload = overload;  // at the root domain
  const ImbalanceEnvV4 ie{env.idle, env.sd->imbalance_pct, cpu_avg_load_per_task(s, env.dst_cpu)};
  const VerdictV4 v = find_busiest_group_verdict_v4<uint64_t>(ie, sds);
  env.imb = {MigrationType::load, static_cast<int64_t>(v.imbalance)};  // env->imbalance (long)
  if (env.pass) note_lb_verdict(s, env, sds);
  return v.busiest ? busiest : nullptr;
}

// find_busiest_queue (kernel/sched/fair.c v4.4): the group's CPU with the
// highest weighted_cpuload per capacity, passing over a CPU with one task
// heavier than the imbalance (unless its capacity is reduced).
CpuId find_busiest_queue_v4(const Sched& s, const LbEnv& env, const SchedGroup& g) {
  CpuId busiest;
  uint64_t busiest_load = 0, busiest_capacity = 1;
  for (const CpuId c : each_cpu(g.span & env.cpus)) {
    const uint64_t capacity = capacity_of(s, c), wl = weighted_cpuload(s, c);
    if (rq_nr_running(s, c) == 1 && static_cast<int64_t>(wl) > env.imb.imbalance && !check_cpu_capacity(s, c, *env.sd))
      continue;
    if (wl * busiest_capacity > busiest_load * capacity) busiest_load = wl, busiest_capacity = capacity, busiest = c;
  }
  return busiest;
}

// detach_tasks' test (kernel/sched/fair.c v4.4): p goes when half its
// task_h_load fits the imbalance left (with LB_MIN, not below 16 until a
// balance failed); then its load comes off the imbalance.
bool take_load_v4(const Sched& s, TaskId p, LbEnv& env) {
  const uint64_t load = task_h_load_era1(s, p);
  if (s.features[Feature::lb_min] && load < 16 && !env.sdb->nr_balance_failed) return false;
  if (!detach_load_fits_v4<uint64_t>(load, static_cast<uint64_t>(env.imb.imbalance))) return false;  // imbalance > 0 here
  env.imb.imbalance -= static_cast<int64_t>(load);
  return true;
}

// detach_tasks (kernel/sched/fair.c v4.4): from the head of src's cfs_tasks, a
// task that stays moves to the tail (the shared loop, model/balance_lb.h).
int detach_tasks_v4(Sched& s, LbEnv& env) { return detach_tasks_loop(s, env, true, take_load_v4); }

// need_active_balance (kernel/sched/fair.c v4.4), without asym packing;
// v3.10's has only the failure count.
bool need_active_balance_v4(const Sched& s, const LbEnv& env) {
  if (!s.era.balance_v3 && env.idle != Idle::not_idle && root_cfs_rq(s, env.src_cpu).h_nr_running == 1 &&
      check_cpu_capacity(s, env.src_cpu, *env.sd) &&
      capacity_of(s, env.src_cpu) * env.sd->imbalance_pct < capacity_of(s, env.dst_cpu) * 100)
    return true;
  return env.sdb->nr_balance_failed > env.sd->cache_nice_tries + 2;
}

}  // namespace

// source_load / target_load (kernel/sched/fair.c v4.4): with LB_BIAS, a low
// guess (the min of cpu_load[type - 1] and the current load) for a CPU to pull
// from, a high one (the max) for a CPU of the local group.
uint64_t biased_load(const Sched& s, CpuId cpu, unsigned type, bool target) {
  const uint64_t total = weighted_cpuload(s, cpu);
  if (type == 0 || !s.features[Feature::lb_bias]) return total;
  const uint64_t idx = s.lb.cpu_load[cpu].load[type - 1];
  return target ? std::max(idx, total) : std::min(idx, total);
}

// get_sd_load_idx (kernel/sched/fair.c v4.4): the domain's index for the idle type.
unsigned sd_load_idx(const SchedDomain& sd, Idle idle) {
  return idle == Idle::not_idle ? sd.busy_idx : idle == Idle::newly_idle ? sd.newidle_idx : sd.idle_idx;
}

// cpu_avg_load_per_task (kernel/sched/fair.c v4.4)
uint64_t cpu_avg_load_per_task(const Sched& s, CpuId cpu) {
  const uint32_t nr = root_cfs_rq(s, cpu).h_nr_running;
  return nr ? weighted_cpuload(s, cpu) / nr : 0;
}

void update_cpu_load_active(Sched& s, CpuId cpu) {
  CpuLoadV4& cl = s.lb.cpu_load[cpu];
  const uint64_t now = jiffies(s);
  // update_cpu_load_nohz at the idle exit, done here: the ticks missed while
  // idle, at load 0 (docs/balancing.md).
  if (now - cl.last_update_tick > 1) update_cpu_load(cl, 0, now - 1 - cl.last_update_tick);
  cl.last_update_tick = now;
  update_cpu_load(cl, weighted_cpuload(s, cpu), 1);
}

void update_idle_cpu_load(Sched& s, CpuId cpu) {
  CpuLoadV4& cl = s.lb.cpu_load[cpu];
  const uint64_t now = jiffies(s), load = weighted_cpuload(s, cpu);
  if (load || now == cl.last_update_tick) return;
  const uint64_t pending = now - cl.last_update_tick;
  cl.last_update_tick = now;
  update_cpu_load(cl, load, pending);
}

uint64_t weighted_cpuload(const Sched& s, CpuId cpu) {
  const CfsRq& c = root_cfs_rq(s, cpu);
  if (s.era.pelt_v3) return c.load().weight;          // v3.10: rq->load.weight
  if (s.era.pelt_v4) return c.pelt.runnable_load.avg;  // v4.4: cfs_rq->runnable_load_avg
  return cpu_load(s, cpu);
}

// load_balance (kernel/sched/fair.c v4.4) of dst's domain at `level`.
int load_balance_v4(Sched& s, CpuId dst, std::size_t level, Idle idle, bool& continue_balancing) {
  LbEnv env = make_env(s, dst, level, idle);
  LbPass pass;
  if (s.sink) env.pass = &pass;
  if (idle == Idle::newly_idle) env.dst_grpmask.reset();  // no other CPU of the group for newidle
  for (const CpuId c : s.rq.ids()) env.cpus.set(c.index());  // cpu_active_mask
  const SchedDomain& sd = *env.sd;
  SdBalance& b = *env.sdb;
  const bool v3 = s.era.balance_v3;  // v3.10: no sgc->imbalance (group_imb is the group's own)
  uint8_t* parent_imbalance =
      env.parent && !v3 ? &sgc_imbalance(s, env.parent->level, env.parent->groups.front().id) : nullptr;
  int ld_moved = 0;
  CpuId busiest;
  bool active = false;
  enum class Out { moved, balanced, all_pinned, one_pinned } out = Out::balanced;
  for (;;) {  // redo
    if (!should_we_balance(s, env)) {
      continue_balancing = false;
      break;
    }
    const SchedGroup* group = v3 ? find_busiest_group_v3(s, env) : find_busiest_group_v4(s, env);
    if (!group) break;
    busiest = v3 ? find_busiest_queue_v3(s, env, *group) : find_busiest_queue_v4(s, env, *group);
    if (!busiest) break;
    env.src_cpu = busiest;
    ld_moved = 0;
    out = Out::moved;
    if (rq_nr_running(s, busiest) <= 1) break;
    env.flags |= kAllPinned;
    env.loop_max = std::min(s.tun.nr_migrate, rq_nr_running(s, busiest));
    if (s.era.pelt_v3) update_h_load(s, busiest);
    ld_moved += more_balance(s, env, detach_tasks_v4);
    if (parent_imbalance && (env.flags & kSomePinned) && env.imb.imbalance > 0) *parent_imbalance = 1;
    if (!(env.flags & kAllPinned)) break;
    env.cpus.reset(busiest.index());
    out = Out::all_pinned;
    if (env.cpus.none()) break;
    env.loop = 0, env.loop_break = kNrMigrateBreak;
    out = Out::balanced;
  }
  if (ld_moved && env.pass) note_lb_pass(s, env, ld_moved);
  if (out == Out::moved) {
    if (!ld_moved) {
      if (idle != Idle::newly_idle) b.nr_balance_failed++;
      if (need_active_balance_v4(s, env)) {
        const TaskId curr = s.rq[busiest].curr;
        if (!curr || curr == kStopper || !cpu_allowed(s.tasks[curr], dst)) {
          env.flags |= kAllPinned;
          out = Out::one_pinned;
        } else {
          active = true;
          b.nr_balance_failed = sd.cache_nice_tries + 1;
        }
      }
    } else {
      b.nr_balance_failed = 0;
    }
  }
  if (out == Out::moved) {
    if (!active) b.balance_interval = sd.min_interval;
    else if (b.balance_interval < sd.max_interval) b.balance_interval *= 2;
    if (active) active_load_balance(s, busiest, dst);
    return ld_moved;
  }
  if (out == Out::balanced && parent_imbalance) *parent_imbalance = 0;
  if (out != Out::one_pinned) b.nr_balance_failed = 0;
  if (((env.flags & kAllPinned) && b.balance_interval < kMaxPinnedInterval) || b.balance_interval < sd.max_interval)
    b.balance_interval *= 2;
  return 0;
}

}  // namespace cfsv::lb
