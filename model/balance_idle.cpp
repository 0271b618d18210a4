// Idle balancing (kernel/sched/fair.c v5.15; v4.4 under era 1): the nohz
// idle load balancer that a busy CPU's tick kicks, and newidle balance's
// domain walk when a CPU is about to go idle (model/balance.h).
#include <algorithm>

#include "balance.h"
#include "balance_lb.h"
#include "core.h"
#include "fair_cpu.h"
#include "pelt.h"
#include "select_rq.h"

namespace cfsv {

namespace lb {

using F = SdFlag;

// nohz.idle_cpus_mask: the CPUs whose tick stopped in idle; in the model, the
// CPUs running the idle task, but for one still in a blocked task's newidle
// balance (the tick runs only while a CPU is busy), and inactive ones
// (nohz_balance_enter_idle skips them, hotplug clears them).
CpuMask nohz_idle_cpus(const Sched& s) {
  CpuMask m = s.idle_curr_cpus & s.active;
  for (const CpuId c : each_cpu(s.idle_curr_cpus))
    if (newidle_after_task(s, c)) m.reset(c.index());
  return m;
}

// update_nohz_stats (v5.15): an idle CPU's blocked averages, at most once a
// jiffy; whether it still has blocked load to decay.
bool update_nohz_stats(Sched& s, CpuId cpu, const CpuMask& idle) {
  const Rq& rq = s.rq[cpu];
  if (!rq.has_blocked_load || !idle.test(cpu.index())) return false;
  if (!time_after(jiffies(s), rq.last_blocked_load_update_tick)) return true;
  update_blocked_averages_of_era(s, cpu);
  return rq.has_blocked_load;
}

// run_rebalance_domains (v3.10) on the kicked CPU ilb: its own
// rebalance_domains first, then nohz_idle_balance for every other idle CPU
// in CPU order, due or not (update_idle_cpu_load, then rebalance_domains),
// until ilb has a task to run (need_resched); ilb's next_balance, then
// nohz.next_balance, the earliest of theirs.
void nohz_idle_balance_v3(Sched& s, CpuId ilb, const CpuMask& idle) {
  rebalance_domains(s, ilb, Idle::idle);
  Rq& this_rq = s.rq[ilb];
  for (const CpuId c : each_cpu(idle)) {
    if (c == ilb || !idle_cpu(s, c)) continue;
    if (rq_nr_running(s, ilb)) break;
    update_idle_cpu_load(s, c);
    s.lb.ilb_running = ilb;
    rebalance_domains(s, c, Idle::idle);
    s.lb.ilb_running = {};
    if (time_after(this_rq.next_balance, s.rq[c].next_balance)) this_rq.next_balance = s.rq[c].next_balance;
  }
  s.lb.nohz_next_balance = this_rq.next_balance;
}

// _nohz_idle_balance (v5.15), run by ilb at once: every idle CPU from the one
// after ilb round to ilb itself, its blocked averages (update_nohz_stats),
// then its balance if due and a balance was asked for (NOHZ_BALANCE_KICK);
// nohz.next_blocked LOAD_AVG_PERIOD ms on. Era 1: v4.4's nohz_idle_balance
// then run_rebalance_domains: the idle CPUs but ilb in CPU order
// (update_idle_cpu_load before a due one's balance), then ilb's own
// rebalance_domains, due or not, folded into nohz.next_balance.
void nohz_idle_balance(Sched& s, CpuId ilb, const CpuMask& idle, unsigned flags) {
  if (s.era.balance_v3) return nohz_idle_balance_v3(s, ilb, idle);
  const uint64_t now = jiffies(s);
  uint64_t next_balance = now + 60ull * s.tun.hz;
  bool update_next = false, has_blocked_load = false;
  const unsigned n = s.nr_cpus();
  const bool v4 = s.era.balance_v4;
  if (!v4) s.lb.nohz_has_blocked = false;
  for (unsigned i = 1; i <= n; ++i) {
    const CpuId c(v4 ? i - 1 : (ilb.index() + i) % n);
    if (!idle.test(c.index()) || !idle_cpu(s, c) || (v4 && c == ilb)) continue;
    if (!v4) has_blocked_load |= update_nohz_stats(s, c, idle);
    if (time_after_eq(now, s.rq[c].next_balance) && (flags & kNohzBalanceKick)) {
      if (v4) update_idle_cpu_load(s, c);
      rebalance_domains(s, c, Idle::idle);
    }
    if (time_after(next_balance, s.rq[c].next_balance)) {
      next_balance = s.rq[c].next_balance;
      update_next = true;
    }
  }
  if (update_next) s.lb.nohz_next_balance = next_balance;
  if (!v4) {
    s.lb.nohz_next_blocked = now + msecs_to_jiffies(s, kLoadAvgPeriod);
    s.lb.nohz_has_blocked = has_blocked_load;
    return;
  }
  rebalance_domains(s, ilb, Idle::idle);
  if (time_after(s.lb.nohz_next_balance, s.rq[ilb].next_balance)) s.lb.nohz_next_balance = s.rq[ilb].next_balance;
}

// check_misfit_status (v5.15): cpu has a misfit task that a bigger CPU could
// run, or its own capacity is reduced.
bool check_misfit_status(const Sched& s, CpuId cpu, const SchedDomain& sd) {
  return s.rq[cpu].misfit_task_load &&
         (capacity_orig_of(s, cpu) < s.topo.max_cpu_capacity || check_cpu_capacity(s, cpu, sd));
}

// nohz_balancer_kick's balance test (v5.15): the busy CPU runs two tasks, or
// (SD_ASYM_PACKING) a CPU of higher priority is idle, or it has a misfit task
// (asymmetric capacities), or else its LLC has another busy CPU
// (nr_busy_cpus: the LLC's CPUs not running the idle task).
// Era 1 has no misfit test. v4.4 counts the busy CPUs of sd_busy's local
// group, sd_busy being the LLC's parent (none when the LLC is the top
// domain). v3.10 looks at the local group of each domain from the bottom
// while the domains share the package: the kick needs another busy CPU in
// that group (at MC, a whole SMT core busy).
bool balance_kick_needed(const Sched& s, CpuId cpu, const CpuMask& idle) {
  const auto& doms = s.topo.sd[cpu];
  if (rq_nr_running(s, cpu) >= 2) return true;
  if (s.era.balance_v3) {
    for (const SchedDomain& sd : doms) {
      const bool pkg = sd.flags.has(F::SHARE_PKG_RESOURCES), packing = sd.flags.has(F::ASYM_PACKING);
      const CpuMask& local = sd.groups.front().span;
      const std::size_t nr_busy = (local & ~idle).count();  // sgp->nr_busy_cpus
      if (pkg && nr_busy > 1) return true;
      if (packing && nr_busy != local.count() && (sd.span & idle).any() &&
          (sd.span & idle)._Find_first() < cpu.index())
        return true;
      if (!pkg && !packing) break;
    }
    return false;
  }
  if (root_cfs_rq(s, cpu).h_nr_running >= 1 && check_cpu_capacity(s, cpu, doms.front())) return true;
  if (const int packing = s.topo.asym_packing_level[cpu]; packing >= 0)  // sd_asym_packing
    for (const CpuId i : each_cpu(doms[static_cast<std::size_t>(packing)].span & idle))
      if (sched_asym_prefer(s.topo, i, cpu)) return true;
  if (const int asym_level = s.topo.asym_level[cpu]; asym_level >= 0)  // sd_asym_cpucapacity: no LLC test
    return check_misfit_status(s, cpu, doms[static_cast<std::size_t>(asym_level)]);
  const SchedDomain* llc = sd_llc(s, cpu);
  if (s.era.balance_v4 && llc && llc == &doms.back()) return false;  // v4.4: no sd_busy
  return llc && (llc->span & ~idle).count() > 1;
}

// nohz_balancer_kick + kick_ilb (v5.15): a busy CPU asks an idle one to
// update the idle CPUs' blocked averages once nohz.next_blocked has passed
// (NOHZ_STATS_KICK), and, once nohz.next_balance has and the balance test
// holds, to balance for every idle CPU too (NOHZ_KICK_MASK). Era 1 has no
// stats kick, adds one jiffy to nohz.next_balance (nohz.next_balance++) and
// kicks only the first nohz idle CPU.
NohzKick nohz_balancer_kick(Sched& s, CpuId cpu) {
  const uint64_t now = jiffies(s);
  const bool stats = !s.era.balance_v4 && s.lb.nohz_has_blocked && time_after(now, s.lb.nohz_next_blocked);
  const bool balance_due = !time_after(s.lb.nohz_next_balance, now);
  if (!stats && !balance_due) return {};  // before the O(CPUs) mask: same verdict, every busy tick
  const CpuMask idle = nohz_idle_cpus(s);
  if (idle.none()) return {};
  const bool kick = balance_due && balance_kick_needed(s, cpu, idle);
  const unsigned flags = kick ? kNohzKickMask : stats ? kNohzStatsKick : 0;
  if (!flags) return {};
  if (flags & kNohzBalanceKick) s.lb.nohz_next_balance = s.era.balance_v4 ? s.lb.nohz_next_balance + 1 : now + 1;
  for (const CpuId c : each_cpu(idle)) {  // find_new_ilb (era 1: the first nohz idle CPU or none)
    if (c != cpu && idle_cpu(s, c)) return {c, flags};
    if (s.era.balance_v4) break;
  }
  return {};
}

// nohz_csd_func (v5.15): the kicked CPU balances if it is still idle.
void run_nohz_idle_balance(Sched& s, const NohzKick& kick) {
  if (kick.ilb && idle_cpu(s, kick.ilb)) nohz_idle_balance(s, kick.ilb, nohz_idle_cpus(s), kick.flags);
}

// nohz_newidle_balance (v5.15): a CPU going idle with time to spare
// (avg_idle) updates the idle CPUs' blocked averages once nohz.next_blocked
// has passed (NOHZ_NEWILB_KICK, run as it enters idle: _nohz_idle_balance
// with NOHZ_STATS_KICK).
void nohz_newidle_balance(Sched& s, CpuId cpu) {
  if (s.era.balance_v4 || s.rq[cpu].avg_idle < static_cast<Nanos>(s.tun.migration_cost_ns)) return;
  if (!s.lb.nohz_has_blocked || !time_after_eq(jiffies(s), s.lb.nohz_next_blocked)) return;
  nohz_idle_balance(s, cpu, nohz_idle_cpus(s), kNohzStatsKick);
}

// The time a newidle balance of sd takes: the model's `newidle_cost` per CPU
// of its span, not measured (the kernel times it with sched_clock_cpu; most
// of it is update_sd_lb_stats reading every CPU of the span).
Nanos newidle_domain_cost(const Sched& s, const SchedDomain& sd) {
  return static_cast<Nanos>(s.tun.newidle_cost_per_cpu_ns * sd.span_weight);
}

// newidle_balance's domain walk (v5.15), from w.level: each SD_BALANCE_NEWIDLE
// domain's load_balance takes its time, so the walk returns -1 with w.at set
// when one starts (Sim calls it again at w.at); the walk stops when avg_idle
// does not cover the domains' costs, after a pull, or (seed 002) when the rq
// has a runnable task. Then it returns pulled_task (> 0: pick again).
int newidle_walk(Sched& s, CpuId cpu) {
  const bool v3 = s.era.balance_v3;
  NewidleWalk& w = s.lb.walk[cpu];
  Rq& rq = s.rq[cpu];
  const auto& doms = s.topo.sd[cpu];
  int pulled = 0;
  for (; w.level < doms.size(); ++w.level) {
    const SchedDomain& sd = doms[w.level];
    SdBalance& b = s.lb.sd[cpu][w.level];
    if (!w.at) {  // the loop's top, before the domain
      if (!v3 && rq.avg_idle < w.curr_cost + b.max_newidle_lb_cost) {
        update_next_balance(s, sd, b, w.next_balance);
        break;
      }
      if (!sd.flags.has(F::BALANCE_NEWIDLE)) {
        update_next_balance(s, sd, b, w.next_balance);
        continue;
      }
      w.t0 = s.now;
      w.at = s.now + newidle_domain_cost(s, sd);
      if (w.at != s.now) {
        s.lb.walk_event.set(cpu.index());
        return -1;
      }
    }
    w.at = 0;  // the domain's balance is done now
    bool continue_balancing = true;
    pulled = load_balance(s, cpu, w.level, Idle::newly_idle, continue_balancing);
    const Nanos domain_cost = s.now - w.t0;
    if (!v3) b.max_newidle_lb_cost = std::max(b.max_newidle_lb_cost, domain_cost);
    w.curr_cost += domain_cost;
    s.counters.newidle_domains++;
    update_next_balance(s, sd, b, w.next_balance);
    if (newidle_walk_stops<uint64_t>(pulled, rq_nr_running(s, cpu), s.features[Feature::newidle_stop_on_runnable]))
      break;
  }
  w.at = 0;
  if (v3) {  // v3.10's idle_balance keeps no costs, and moves next_balance later too
    if (pulled || time_after(jiffies(s), rq.next_balance)) rq.next_balance = w.next_balance;
  } else {
    rq.max_idle_balance_cost = std::max(rq.max_idle_balance_cost, w.curr_cost);
    if (time_after(rq.next_balance, w.next_balance)) rq.next_balance = w.next_balance;
  }
  if (root_cfs_rq(s, cpu).h_nr_running && !pulled) pulled = 1;
  if (pulled) rq.idle_stamp = 0;
  else nohz_newidle_balance(s, cpu);
  if (w.first_arrival) {
    const Nanos wait = s.now - w.first_arrival;
    s.counters.newidle_arrival_wait_ns += wait;
    s.counters.newidle_arrival_wait_max_ns = std::max(s.counters.newidle_arrival_wait_max_ns, wait);
    w.first_arrival = 0;
  }
  return pulled;
}

}  // namespace lb

using namespace lb;

int newidle_balance(Sched& s, CpuId cpu, bool from_task) {
  Rq& rq = s.rq[cpu];
  if (!s.features[Feature::load_balance] && !s.features[Feature::kernel_placement]) return 0;
  rq.idle_stamp = s.now;
  if (!s.features[Feature::load_balance] || !cpu_active(s, cpu)) return 0;  // v5.15: nothing pulled towards an inactive CPU
  // v3.10 has no rd->overload, and its early return leaves next_balance.
  const bool v3 = s.era.balance_v3;
  const bool early_out = rq.avg_idle < static_cast<Nanos>(s.tun.migration_cost_ns) || (!v3 && !s.lb.overload);
  const auto& doms = s.topo.sd[cpu];
  if (doms.empty()) {  // no domain to walk (one CPU): the blocked averages only
    if (!early_out) update_blocked_averages_of_era(s, cpu);
    return 0;
  }
  NewidleWalk& w = s.lb.walk[cpu];
  w.next_balance = jiffies(s) + s.tun.hz;
  if (early_out && v3) return 0;
  if (early_out) {
    update_next_balance(s, doms.front(), s.lb.sd[cpu].front(), w.next_balance);
    if (time_after(rq.next_balance, w.next_balance)) rq.next_balance = w.next_balance;
    nohz_newidle_balance(s, cpu);
    return 0;
  }
  update_blocked_averages_of_era(s, cpu);  // before the walk (v3.10, v4.4 idle_balance: the same)
  w = {.gen = w.gen + 1, .next_balance = w.next_balance, .from_task = from_task};
  s.counters.newidle_walks++;
  return newidle_walk(s, cpu);
}

bool newidle_walking(const Sched& s, CpuId cpu) { return s.lb.walk.contains(cpu) && s.lb.walk[cpu].at; }

void nohz_balance_enter_idle(Sched& s, CpuId cpu) {
  if (!s.features[Feature::load_balance] || !cpu_active(s, cpu)) return;
  s.rq[cpu].has_blocked_load = true;
  s.lb.nohz_has_blocked = true;
}

bool newidle_balance_done(Sched& s, CpuId cpu) {
  const int pulled = newidle_walk(s, cpu);
  if (pulled == 0 && s.rq[cpu].curr == kIdle) set_next_task_idle(s, cpu);  // nothing pulled: the idle task is picked
  return pulled > 0;
}

void note_arrival(Sched& s, CpuId cpu) {
  if (!newidle_walking(s, cpu)) return;
  s.counters.newidle_arrivals++;
  if (!s.lb.walk[cpu].first_arrival) s.lb.walk[cpu].first_arrival = s.now;
}

}  // namespace cfsv
