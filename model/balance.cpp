// Load balancing of kernel/sched/fair.c v5.15 (model/balance.h).
#include "balance.h"

#include <algorithm>
#include <vector>

#include "arith/balance.h"
#include "balance_lb.h"
#include "cfs_tasks.h"
#include "core.h"
#include "fair_cpu.h"
#include "pelt.h"
#include "select_rq.h"

namespace cfsv {

namespace lb {

using F = SdFlag;

// msecs_to_jiffies (include/linux/jiffies.h), rounded up.
uint64_t msecs_to_jiffies(const Sched& s, uint64_t ms) { return (ms * s.tun.hz + 999) / 1000; }

// get_sd_balance_interval (v5.15; v4.4 under era 1, without the busy CPU's
// jiffy off): balance_interval (ms), times busy_factor on a busy CPU, in
// jiffies, within [1, max_load_balance_interval] (HZ * online CPUs / 10).
uint64_t sd_balance_interval(const Sched& s, const SchedDomain& sd, const SdBalance& b, bool busy) {
  uint64_t interval = msecs_to_jiffies(s, uint64_t{b.balance_interval} * (busy ? sd.busy_factor : 1));
  if (busy && !s.era.balance_v4) interval -= 1;
  const uint64_t max_interval = std::max<uint64_t>(1, uint64_t{s.tun.hz} * s.active.count() / 10);  // update_max_interval
  return std::clamp<uint64_t>(interval, 1, max_interval);
}

// update_next_balance (v5.15): the earlier of next_balance and when sd is next due.
// v3.10's idle_balance takes the balance_interval in jiffies, not clamped.
void update_next_balance(const Sched& s, const SchedDomain& sd, const SdBalance& b, uint64_t& next_balance) {
  const uint64_t interval =
      s.era.balance_v3 ? msecs_to_jiffies(s, b.balance_interval) : sd_balance_interval(s, sd, b, false);
  const uint64_t next = b.last_balance + interval;
  if (time_after(next_balance, next)) next_balance = next;
}

// check_cpu_capacity (v5.15): other classes took a noticeable part of cpu.
bool check_cpu_capacity(const Sched& s, CpuId cpu, const SchedDomain& sd) {
  return capacity_of(s, cpu) * sd.imbalance_pct < capacity_orig_of(s, cpu) * 100;
}

uint8_t& sgc_imbalance(Sched& s, unsigned level, CpuId sgc) {
  return s.lb.group_imbalance[BalanceState::group_imbalance_index(level, sgc, s.nr_cpus())];
}

LbEnv make_env(Sched& s, CpuId dst, std::size_t level, Idle idle) {
  LbEnv env;
  env.level = level;
  env.sd = &s.topo.sd[dst][level];
  env.sdb = &s.lb.sd[dst][level];
  if (level + 1 < s.topo.sd[dst].size()) env.parent = env.sd + 1;
  env.dst_cpu = dst;
  env.this_cpu = s.lb.ilb_running ? s.lb.ilb_running : dst;
  env.dst_grpmask = env.sd->groups.front().span;
  env.cpus = env.sd->span;  // & cpu_active_mask: every CPU is active
  env.idle = idle;
  return env;
}

// task_hot (v5.15; v4.4 under era 1, which has no SMT exemption): p ran on
// its CPU within migration_cost, or is a buddy while dst_rq has tasks (v3.10:
// this_rq(), the CPU running the balance, whose tasks the pass's moves count).
// A SCHED_IDLE task is never hot (every era).
bool task_hot(const Sched& s, TaskId p, const LbEnv& env) {
  if (s.tasks[p].policy == Policy::idle) return false;
  if (env.sd->flags.has(F::SHARE_CPUCAPACITY) && !s.era.balance_v4) return false;  // SMT siblings share cache
  const EntityId se = s.tasks[p].se;
  const CfsRq& c = s.cfs[s.se[se].cfs_rq];
  const CpuId busy = s.era.balance_v3 ? env.this_cpu : env.dst_cpu;
  if (s.features[Feature::cache_hot_buddy] && rq_nr_running(s, busy) && (c.next == se || c.last == se))
    return true;
  if (s.tun.migration_cost_ns == 0) return false;
  return static_cast<int64_t>(s.now - s.se[se].exec_start) < static_cast<int64_t>(s.tun.migration_cost_ns);
}

// can_migrate_task (v5.15), without NUMA balancing's locality test.
bool can_migrate_task(const Sched& s, TaskId p, LbEnv& env) {
  const Task& t = s.tasks[p];
  if (!cpu_allowed(t, env.dst_cpu)) {
    env.flags |= kSomePinned;
    if (env.idle == Idle::newly_idle || (env.flags & (kDstPinned | kActiveLb))) return false;
    for (const CpuId c : each_cpu(env.dst_grpmask & env.cpus))
      if (cpu_allowed(t, c)) {
        env.flags |= kDstPinned;
        env.new_dst_cpu = c;
        break;
      }
    return false;
  }
  env.flags &= ~kAllPinned;
  if (s.rq[t.cpu].curr == p) return false;  // task_running
  if (env.flags & kActiveLb) return true;
  return !task_hot(s, p, env) || env.sdb->nr_balance_failed > env.sd->cache_nice_tries;
}

// detach_tasks' switch on migration_type: whether p fits what is left of
// the imbalance, and if so, take it off. LB_MIN is off (its default).
bool take_imbalance(const Sched& s, TaskId p, LbEnv& env) {
  int64_t& imbalance = env.imb.imbalance;
  switch (env.imb.type) {
    case MigrationType::load: {
      const uint64_t load = std::max<uint64_t>(task_h_load(s, p), 1);
      if (!detach_load_fits<uint64_t>(load, env.sdb->nr_balance_failed, static_cast<uint64_t>(imbalance))) return false;
      imbalance -= static_cast<int64_t>(load);
      return true;
    }
    case MigrationType::util: {
      const uint64_t util = task_util_est(s, p);
      if (util > static_cast<uint64_t>(imbalance)) return false;
      imbalance -= static_cast<int64_t>(util);
      return true;
    }
    case MigrationType::task: --imbalance; return true;
    case MigrationType::misfit:  // only a task that does not fit src
      if (task_fits_cpu(s, p, env.src_cpu)) return false;
      imbalance = 0;
      return true;
  }
  return false;
}

// attach_task for a task load_balance moved, counted by its kind.
void attach_moved(Sched& s, const LbEnv& env, TaskId p) {
  attach_task(s, p, env.idle != Idle::newly_idle);
  ++(env.idle == Idle::newly_idle ? s.counters.newidle_migrations : s.counters.periodic_migrations);
}

// detach_tasks' loop (v5.15 from the tail of src's cfs_tasks, the least
// recently run; v4.4 from the head): at most loop_max looks, a breather every
// 32; a task that does not go (can_migrate_task, then the era's `take`) moves
// to the other end; an idle dst leaves src one task. CONFIG_PREEMPTION
// (newidle_pulls_one): newidle takes one task. v3.10's move_tasks moves each
// task to dst as it takes it and leaves src nothing in particular.
int detach_tasks_loop(Sched& s, LbEnv& env, bool from_head, bool (*take)(const Sched&, TaskId, LbEnv&)) {
  const CpuId src = env.src_cpu;
  const bool move_at_once = s.era.balance_v3;
  if (env.imb.imbalance <= 0) return 0;
  int detached = 0;
  while (const TaskId p = from_head ? s.rq[src].cfs_tasks_head : s.rq[src].cfs_tasks_tail) {
    if (!move_at_once && env.idle != Idle::not_idle && rq_nr_running(s, src) <= 1) break;
    if (++env.loop > env.loop_max) break;
    if (env.loop > env.loop_break) {
      env.loop_break += kNrMigrateBreak;
      env.flags |= kNeedBreak;
      break;
    }
    const int64_t before = env.imb.imbalance;
    if (!can_migrate_task(s, p, env) || !take(s, p, env)) {
      (from_head ? cfs_tasks_move_to_tail : cfs_tasks_move_to_head)(s, src, p);
      continue;
    }
    env.last_take = static_cast<uint64_t>(before - env.imb.imbalance);
    env.max_take = std::max(env.max_take, env.last_take);
    detach_task(s, p, env.dst_cpu);
    if (move_at_once) attach_moved(s, env, p);
    else env.tasks.push_back(p);
    ++detached;
    if ((env.idle == Idle::newly_idle && s.features[Feature::newidle_pulls_one]) || env.imb.imbalance <= 0) break;
  }
  return detached;
}

// detach_tasks (v5.15): none from a CPU running one task; else the loop.
int detach_tasks(Sched& s, LbEnv& env) {
  if (rq_nr_running(s, env.src_cpu) <= 1) {
    env.flags &= ~kAllPinned;
    return 0;
  }
  return detach_tasks_loop(s, env, false, take_imbalance);
}

// attach_tasks (v5.15): env->tasks is a stack, so the last detached comes
// first. A newidle balance runs inside its CPU's schedule(), which picks next.
void attach_tasks(Sched& s, LbEnv& env) {
  for (auto it = env.tasks.rbegin(); it != env.tasks.rend(); ++it) attach_moved(s, env, *it);
  env.tasks.clear();
}

// load_balance's more_balance loop (v5.15; v4.4 the same): model/balance_lb.h.
int more_balance(Sched& s, LbEnv& env, int (*detach)(Sched&, LbEnv&)) {
  int ld_moved = 0;
  for (;;) {
    const int cur = detach(s, env);
    if (cur) attach_tasks(s, env), ld_moved += cur;  // v3.10: moved already, env.tasks empty
    if (env.flags & kNeedBreak) {
      env.flags &= ~kNeedBreak;
      continue;
    }
    if ((env.flags & kDstPinned) && env.imb.imbalance > 0) {  // try another CPU of the local group
      // v3.10 clears the new dst from env->cpus, not the one it leaves
      env.cpus.reset((s.era.balance_v3 ? env.new_dst_cpu : env.dst_cpu).index());
      env.dst_cpu = env.new_dst_cpu;
      env.flags &= ~kDstPinned;
      env.loop = 0, env.loop_break = kNrMigrateBreak;
      continue;
    }
    return ld_moved;
  }
}

// update_sg_lb_stats (v5.15) over the group's CPUs in env.cpus. overload: a
// CPU runs more than one task, or (SD_ASYM_CPUCAPACITY) a CPU of another
// group than dst's has a misfit task (SG_OVERLOAD). SD_ASYM_PACKING: an idle
// dst preferred to the group's best CPU makes a group with tasks asym_packing.
SgLbStats update_sg_lb_stats(Sched& s, const LbEnv& env, const SchedGroup& g, bool& overload) {
  SgLbStats sgs;
  auto& v = sgs.v;
  const bool local_group = g.span.test(env.dst_cpu.index());
  const bool asym = env.sd->flags.has(F::ASYM_CPUCAPACITY);
  for (const CpuId c : each_cpu(g.span & env.cpus)) {
    v.group_load += cpu_load(s, c);
    v.group_util += cpu_util(s, c);
    v.group_runnable += cpu_runnable(s, c);
    v.sum_h_nr_running += root_cfs_rq(s, c).h_nr_running;
    const uint32_t nr = rq_nr_running(s, c);
    v.sum_nr_running += nr;
    if (nr > 1) overload = true;
    if (!nr && idle_cpu(s, c)) {
      v.idle_cpus++;
      continue;
    }
    if (!local_group && asym && sgs.misfit_task_load < s.rq[c].misfit_task_load) {
      sgs.misfit_task_load = s.rq[c].misfit_task_load;
      overload = true;
    }
  }
  const bool asym_packing = env.sd->flags.has(F::ASYM_PACKING) && env.idle != Idle::not_idle &&
                            v.sum_h_nr_running && sched_asym_prefer(s.topo, env.dst_cpu, g.asym_prefer_cpu);
  v.group_capacity = g.capacity;
  v.group_weight = g.span.count();
  sgs.type = group_classify(env.sd->imbalance_pct, sgc_imbalance(s, env.sd->level, g.id), v,
                            sgs.misfit_task_load != 0, asym_packing);
  if (sgs.type == GroupType::overloaded) v.avg_load = v.group_load * kSchedCapacityScale / v.group_capacity;
  return sgs;
}

// update_sd_pick_busiest's (v5.15) tests of the capacities of g and dst, and
// of g's priority against the busiest group so far (if any).
PickCapacity pick_capacity(const Sched& s, const LbEnv& env, const SchedGroup& g, const SchedGroup* busiest) {
  const uint64_t dst = capacity_of(s, env.dst_cpu);
  return {.out_of_reach = !capacity_greater(dst, g.max_capacity),
          .keeps_bigger = env.sd->flags.has(F::ASYM_CPUCAPACITY) && capacity_greater(g.min_capacity, dst),
          .preferred = busiest && env.sd->flags.has(F::ASYM_PACKING) &&
                       sched_asym_prefer(s.topo, g.asym_prefer_cpu, busiest->asym_prefer_cpu)};
}

// find_busiest_group (v5.15): update_sd_lb_stats, then the verdict; the
// busiest group, or nullptr when balanced. Sets env.imb.
const SchedGroup* find_busiest_group(Sched& s, LbEnv& env) {
  SdLbStats sds;
  const SchedGroup* busiest = nullptr;
  bool overload = false;
  for (const SchedGroup& g : env.sd->groups) {
    const SgLbStats sgs = update_sg_lb_stats(s, env, g, overload);
    if (g.span.test(env.dst_cpu.index())) {
      sds.local = sgs;
    } else if (update_sd_pick_busiest(sds, sgs, pick_capacity(s, env, g, busiest))) {
      sds.busiest = sgs;
      sds.has_busiest = true;
      busiest = &g;
    }
    sds.total_load += sgs.v.group_load;
    sds.total_capacity += sgs.v.group_capacity;
  }
  const SchedDomain* child = env.level ? env.sd - 1 : nullptr;  // sd->child
  sds.prefer_sibling = child && child->flags.has(F::PREFER_SIBLING);
  if (!env.parent) s.lb.overload = overload;  // at the root domain
  const ImbalanceEnv ie{env.idle, env.sd->imbalance_pct, env.sd->flags.has(F::SHARE_PKG_RESOURCES),
                        env.sd->flags.has(F::NUMA)};
  env.imb = find_busiest_group_verdict(ie, sds);
  if (env.pass) note_lb_verdict(s, env, sds);
  return env.imb.imbalance ? busiest : nullptr;
}

// find_busiest_queue (v5.15): the group's CPU to pull from, by migration_type.
CpuId find_busiest_queue(const Sched& s, const LbEnv& env, const SchedGroup& g) {
  CpuId busiest;
  uint64_t busiest_util = 0, busiest_load = 0, busiest_capacity = 1;
  uint32_t busiest_nr = 0;
  for (const CpuId c : each_cpu(g.span & env.cpus)) {
    const uint32_t nr = root_cfs_rq(s, c).h_nr_running;
    if (!nr) continue;
    const uint64_t capacity = capacity_of(s, c);
    // not one task to a CPU that is not bigger: it would be pushed back
    if (env.sd->flags.has(F::ASYM_CPUCAPACITY) && !capacity_greater(capacity_of(s, env.dst_cpu), capacity) && nr == 1)
      continue;
    switch (env.imb.type) {
      case MigrationType::load: {
        const uint64_t load = cpu_load(s, c);
        if (nr == 1 && load > static_cast<uint64_t>(env.imb.imbalance) && !check_cpu_capacity(s, c, *env.sd)) continue;
        if (load * busiest_capacity > busiest_load * capacity) busiest_load = load, busiest_capacity = capacity, busiest = c;
        continue;
      }
      case MigrationType::util: {
        const uint64_t util = cpu_util(s, c);
        if (nr > 1 && busiest_util < util) busiest_util = util, busiest = c;
        continue;
      }
      case MigrationType::task:
        if (busiest_nr < nr) busiest_nr = nr, busiest = c;
        continue;
      case MigrationType::misfit:  // the biggest misfit task
        if (s.rq[c].misfit_task_load > busiest_load) busiest_load = s.rq[c].misfit_task_load, busiest = c;
        continue;
    }
  }
  return busiest;
}

// need_active_balance (v5.15): asym_active_balance (an idle dst preferred to
// src under SD_ASYM_PACKING), the task migration that failed too often, src's
// capacity reduced, or a misfit task.
bool need_active_balance(const Sched& s, const LbEnv& env) {
  if (env.idle != Idle::not_idle && env.sd->flags.has(F::ASYM_PACKING) &&
      sched_asym_prefer(s.topo, env.dst_cpu, env.src_cpu))
    return true;
  if (env.imb.type == MigrationType::task && env.sdb->nr_balance_failed > env.sd->cache_nice_tries + 2) return true;
  if (env.idle != Idle::not_idle && root_cfs_rq(s, env.src_cpu).h_nr_running == 1 &&
      check_cpu_capacity(s, env.src_cpu, *env.sd) &&
      capacity_of(s, env.src_cpu) * env.sd->imbalance_pct < capacity_of(s, env.dst_cpu) * 100)
    return true;
  return env.imb.type == MigrationType::misfit;
}

// should_we_balance (v5.15): newidle always; else only the group's first
// idle CPU, or its balance CPU when none is idle. Every CPU with the paper's
// Scheduling Group Construction fix (its patch returns 1).
bool should_we_balance(const Sched& s, const LbEnv& env) {
  if (!env.cpus.test(env.dst_cpu.index())) return false;
  if (env.idle == Idle::newly_idle || s.features[Feature::wasted_cores_group_construction]) return true;
  const SchedGroup& sg = env.sd->groups.front();
  for (const CpuId c : each_cpu(sg.balance_mask & env.cpus))
    if (idle_cpu(s, c)) return c == env.dst_cpu;
  return sg.balance_mask._Find_first() == env.dst_cpu.index();
}

// active_load_balance_cpu_stop (v5.15; v4.4 under era 1), run at once rather
// than queued: the stopper preempts what runs on busiest and pushes one task
// to target over the lowest of target's domains that spans busiest. v5.15's
// detach_one_task walks cfs_tasks from the tail with LBF_ACTIVE_LB and clears
// nr_balance_failed; v4.4's walks from the head, the task tests unchanged.
void active_load_balance(Sched& s, CpuId busiest, CpuId target) {
  stopper_preempt(s, busiest);
  const auto& doms = s.topo.sd[target];
  std::size_t level = 0;
  while (level < doms.size() && !doms[level].span.test(busiest.index())) ++level;
  if (rq_nr_running(s, busiest) > 1 && level < doms.size()) {
    const bool v4 = s.era.balance_v4;
    LbEnv env = make_env(s, target, level, Idle::idle);
    env.src_cpu = busiest;
    env.this_cpu = busiest;  // the stopper runs there
    env.flags = v4 ? 0 : kActiveLb;
    const Rq& rq = s.rq[busiest];
    for (TaskId p = v4 ? rq.cfs_tasks_head : rq.cfs_tasks_tail; p; p = v4 ? s.tasks[p].lb_next : s.tasks[p].lb_prev) {
      if (!can_migrate_task(s, p, env)) continue;
      detach_task(s, p, target);
      if (!v4) env.sdb->nr_balance_failed = 0;
      attach_task(s, p, true);
      s.counters.active_migrations++;
      break;
    }
  }
  resched_curr(s, busiest);
}

// load_balance (v5.15) of dst's domain at `level`: pull from the busiest
// CPU of the busiest group. Returns the tasks moved (ld_moved).
int load_balance(Sched& s, CpuId dst, std::size_t level, Idle idle, bool& continue_balancing) {
  if (s.era.balance_v4) return load_balance_v4(s, dst, level, idle, continue_balancing);
  LbEnv env = make_env(s, dst, level, idle);
  LbPass pass;
  if (s.sink) env.pass = &pass;
  const SchedDomain& sd = *env.sd;
  SdBalance& b = *env.sdb;
  // sd_parent->groups->sgc->imbalance: the parent's group of dst is imbalanced
  uint8_t* parent_imbalance =
      env.parent ? &sgc_imbalance(s, env.parent->level, env.parent->groups.front().id) : nullptr;
  enum class Out { moved, balanced, all_pinned, one_pinned } out = Out::balanced;
  int ld_moved = 0;
  CpuId busiest;
  for (;;) {  // redo
    if (!should_we_balance(s, env)) {
      continue_balancing = false;
      break;
    }
    const SchedGroup* group = find_busiest_group(s, env);
    if (!group) break;
    busiest = find_busiest_queue(s, env, *group);
    if (!busiest || busiest == env.dst_cpu) break;
    env.src_cpu = busiest;
    ld_moved = 0;
    env.flags |= kAllPinned;
    out = Out::moved;
    if (rq_nr_running(s, busiest) <= 1) break;
    env.loop_max = std::min(s.tun.nr_migrate, rq_nr_running(s, busiest));
    ld_moved += more_balance(s, env, detach_tasks);
    if (parent_imbalance && (env.flags & kSomePinned) && env.imb.imbalance > 0) *parent_imbalance = 1;
    if (!(env.flags & kAllPinned)) break;
    env.cpus.reset(busiest.index());
    out = Out::all_pinned;
    if ((env.cpus & ~env.dst_grpmask).none()) break;
    env.loop = 0, env.loop_break = kNrMigrateBreak;
    out = Out::balanced;
  }
  if (ld_moved && env.pass) note_lb_pass(s, env, ld_moved);
  bool active = false;
  if (out == Out::moved) {
    if (!ld_moved) {
      if (idle != Idle::newly_idle) b.nr_balance_failed++;
      if (need_active_balance(s, env)) {
        const TaskId curr = s.rq[busiest].curr;
        if (!curr || !cpu_allowed(s.tasks[curr], dst)) out = Out::one_pinned;
        else env.flags &= ~kAllPinned, active = true;
      }
    } else {
      b.nr_balance_failed = 0;
    }
  }
  if (out == Out::moved) {
    if (!active || need_active_balance(s, env)) b.balance_interval = sd.min_interval;
    if (active) active_load_balance(s, busiest, dst);
    return ld_moved;
  }
  if (out == Out::balanced && parent_imbalance && !(env.flags & kAllPinned)) *parent_imbalance = 0;
  if (out != Out::one_pinned) b.nr_balance_failed = 0;
  if (idle == Idle::newly_idle) return 0;
  if (((env.flags & kAllPinned) && b.balance_interval < kMaxPinnedInterval) || b.balance_interval < sd.max_interval)
    b.balance_interval *= 2;
  return 0;
}

// rebalance_domains (v5.15): every domain of cpu that is due, bottom up,
// until should_we_balance says another CPU balances the rest; decays
// max_newidle_lb_cost about 1% a second; sets rq->next_balance. Era 1 (v3.10,
// v4.4) first brings cpu's blocked averages up to date; v3.10 keeps no
// newidle costs and takes a domain's interval once, before its balance.
void rebalance_domains(Sched& s, CpuId cpu, Idle idle) {
  const bool v3 = s.era.balance_v3;
  if (s.era.balance_v4) update_blocked_averages_of_era(s, cpu);
  bool continue_balancing = true, busy = idle != Idle::idle && !sched_idle_cpu(s, cpu);
  const uint64_t now = jiffies(s);
  uint64_t next_balance = now + 60ull * s.tun.hz;
  bool update_next = false, need_decay = false;
  Nanos max_cost = 0;
  for (std::size_t level = 0; level < s.topo.sd[cpu].size(); ++level) {
    const SchedDomain& sd = s.topo.sd[cpu][level];
    SdBalance& b = s.lb.sd[cpu][level];
    if (!v3 && time_after(now, b.next_decay_max_lb_cost)) {
      b.max_newidle_lb_cost = b.max_newidle_lb_cost * 253 / 256;
      b.next_decay_max_lb_cost = now + s.tun.hz;
      need_decay = true;
    }
    max_cost += b.max_newidle_lb_cost;
    if (!continue_balancing) {
      if (need_decay) continue;
      break;
    }
    uint64_t interval = sd_balance_interval(s, sd, b, busy);
    if (time_after_eq(now, b.last_balance + interval)) {
      if (load_balance(s, cpu, level, idle, continue_balancing)) {
        idle = idle_cpu(s, cpu) ? Idle::idle : Idle::not_idle;
        busy = idle != Idle::idle && !sched_idle_cpu(s, cpu);
      }
      b.last_balance = now;
      if (!v3) interval = sd_balance_interval(s, sd, b, busy);
    }
    if (time_after(next_balance, b.last_balance + interval)) {
      next_balance = b.last_balance + interval;
      update_next = true;
    }
  }
  if (need_decay) s.rq[cpu].max_idle_balance_cost = std::max<Nanos>(s.tun.migration_cost_ns, max_cost);
  if (update_next) s.rq[cpu].next_balance = next_balance;
}

}  // namespace lb

using namespace lb;

void init_domains_balance(Sched& s) {
  const uint64_t now = jiffies(s);
  s.lb.levels = 0;
  for (const CpuId c : s.rq.ids()) {
    s.lb.sd[c].clear();
    for (const SchedDomain& sd : s.topo.sd[c]) {
      s.lb.sd[c].push_back({.last_balance = now, .balance_interval = sd.balance_interval, .next_decay_max_lb_cost = now});
      s.lb.levels = std::max(s.lb.levels, sd.level + 1);
    }
  }
  s.lb.group_imbalance.assign(std::size_t{s.lb.levels} * s.nr_cpus(), 0);
}

void init_balance(Sched& s) {
  s.lb.clear();
  const uint64_t now = jiffies(s);
  s.lb.sd.resize(s.nr_cpus());
  for (const CpuId c : s.rq.ids()) s.rq[c].next_balance = now;
  init_domains_balance(s);
  s.lb.walk.resize(s.nr_cpus());
  s.lb.cpu_load.assign(s.nr_cpus(), CpuLoadV4{.last_update_tick = now});
  s.lb.nohz_next_balance = s.lb.nohz_next_blocked = now;
}

void update_misfit_status(Sched& s, TaskId p, CpuId cpu) {
  if (!s.topo.asym_cpucap_active) return;
  const bool misfit = p && nr_cpus_allowed(s, s.tasks[p]) > 1 && !task_fits_cpu(s, p, cpu);
  s.rq[cpu].misfit_task_load = misfit ? std::max<uint64_t>(task_h_load(s, p), 1) : 0;
}

void trigger_load_balance(Sched& s, CpuId cpu) {
  // v4.4's scheduler_tick: rq->cpu_load[], which era 1's balancing and placement read
  if (s.era.balance_v4 || s.era.placement_v4) update_cpu_load_active(s, cpu);
  if (!s.features[Feature::load_balance]) return;
  if (s.topo.sd[cpu].empty()) return;
  const bool due = time_after_eq(jiffies(s), s.rq[cpu].next_balance);  // raise_softirq(SCHED_SOFTIRQ)
  const NohzKick kick = nohz_balancer_kick(s, cpu);                    // in the tick, before the softirqs
  if (due) {  // run_rebalance_domains, at the tick's end
    if (!s.era.balance_v4) update_blocked_averages_of_era(s, cpu);
    rebalance_domains(s, cpu, Idle::not_idle);
  }
  run_nohz_idle_balance(s, kick);  // the kicked CPU's, after its IPI
}

}  // namespace cfsv
