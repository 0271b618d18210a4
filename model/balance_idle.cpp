// Idle balancing (kernel/sched/fair.c v5.15; v4.4 under era 1): the nohz
// idle load balancer that a busy CPU's tick kicks, and newidle balance's
// domain walk when a CPU is about to go idle (model/balance.h).
#include <algorithm>

#include "balance.h"
#include "balance_lb.h"
#include "core.h"
#include "fair_cpu.h"
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

// _nohz_idle_balance (v5.15), NOHZ_BALANCE_KICK, run by ilb at once: every
// idle CPU that is due, from the one after ilb round to ilb itself. Era 1:
// v4.4's nohz_idle_balance then run_rebalance_domains: the idle CPUs but ilb
// in CPU order (update_idle_cpu_load before a due one's balance), then ilb's
// own rebalance_domains, due or not, folded into nohz.next_balance.
void nohz_idle_balance(Sched& s, CpuId ilb, const CpuMask& idle) {
  const uint64_t now = jiffies(s);
  uint64_t next_balance = now + 60ull * s.tun.hz;
  bool update_next = false;
  const unsigned n = s.nr_cpus();
  const bool v4 = s.era.balance_v4;
  for (unsigned i = 1; i <= n; ++i) {
    const CpuId c(v4 ? i - 1 : (ilb.index() + i) % n);
    if (!idle.test(c.index()) || !idle_cpu(s, c) || (v4 && c == ilb)) continue;
    if (time_after_eq(now, s.rq[c].next_balance)) {
      if (v4) update_idle_cpu_load(s, c);
      rebalance_domains(s, c, Idle::idle);
    }
    if (time_after(next_balance, s.rq[c].next_balance)) {
      next_balance = s.rq[c].next_balance;
      update_next = true;
    }
  }
  if (update_next) s.lb.nohz_next_balance = next_balance;
  if (!v4) return;
  rebalance_domains(s, ilb, Idle::idle);
  if (time_after(s.lb.nohz_next_balance, s.rq[ilb].next_balance)) s.lb.nohz_next_balance = s.rq[ilb].next_balance;
}

// check_misfit_status (v5.15): cpu has a misfit task that a bigger CPU could
// run, or its own capacity is reduced.
bool check_misfit_status(const Sched& s, CpuId cpu, const SchedDomain& sd) {
  return s.rq[cpu].misfit_task_load &&
         (capacity_orig_of(s, cpu) < s.topo.max_cpu_capacity || check_cpu_capacity(s, cpu, sd));
}

// nohz_balancer_kick + kick_ilb (v5.15): a busy CPU asks an idle one to
// balance for every idle CPU when it runs two tasks, or (SD_ASYM_PACKING) a
// CPU of higher priority is idle, or has a misfit task (asymmetric
// capacities), or else its LLC has another busy CPU
// (nr_busy_cpus: the LLC's CPUs not running the idle task).
void nohz_balancer_kick(Sched& s, CpuId cpu) {
  const uint64_t now = jiffies(s);
  if (time_after(s.lb.nohz_next_balance, now)) return;  // before the O(CPUs) mask: same verdict, every busy tick
  const CpuMask idle = nohz_idle_cpus(s);
  if (idle.none()) return;
  const auto& doms = s.topo.sd[cpu];
  bool kick = rq_nr_running(s, cpu) >= 2 ||
              (root_cfs_rq(s, cpu).h_nr_running >= 1 && check_cpu_capacity(s, cpu, doms.front()));
  if (const int packing = s.topo.asym_packing_level[cpu]; !kick && packing >= 0)  // sd_asym_packing
    for (const CpuId i : each_cpu(doms[static_cast<std::size_t>(packing)].span & idle))
      kick = kick || sched_asym_prefer(s.topo, i, cpu);
  const int asym_level = s.topo.asym_level[cpu];  // sd_asym_cpucapacity
  if (!kick && asym_level >= 0) kick = check_misfit_status(s, cpu, doms[static_cast<std::size_t>(asym_level)]);
  if (!kick && asym_level < 0)
    if (const SchedDomain* llc = sd_llc(s, cpu)) kick = (llc->span & ~idle).count() > 1;
  if (!kick) return;
  s.lb.nohz_next_balance = now + 1;
  for (const CpuId c : each_cpu(idle))  // find_new_ilb
    if (c != cpu && idle_cpu(s, c)) return nohz_idle_balance(s, c, idle);
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
  NewidleWalk& w = s.lb.walk[cpu];
  Rq& rq = s.rq[cpu];
  const auto& doms = s.topo.sd[cpu];
  int pulled = 0;
  for (; w.level < doms.size(); ++w.level) {
    const SchedDomain& sd = doms[w.level];
    SdBalance& b = s.lb.sd[cpu][w.level];
    if (!w.at) {  // the loop's top, before the domain
      if (rq.avg_idle < w.curr_cost + b.max_newidle_lb_cost) {
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
    b.max_newidle_lb_cost = std::max(b.max_newidle_lb_cost, domain_cost);
    w.curr_cost += domain_cost;
    s.counters.newidle_domains++;
    update_next_balance(s, sd, b, w.next_balance);
    if (newidle_walk_stops<uint64_t>(pulled, rq_nr_running(s, cpu), s.features[Feature::newidle_stop_on_runnable]))
      break;
  }
  w.at = 0;
  rq.max_idle_balance_cost = std::max(rq.max_idle_balance_cost, w.curr_cost);
  if (root_cfs_rq(s, cpu).h_nr_running && !pulled) pulled = 1;
  if (time_after(rq.next_balance, w.next_balance)) rq.next_balance = w.next_balance;
  if (pulled) rq.idle_stamp = 0;
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
  const auto& doms = s.topo.sd[cpu];
  if (!s.features[Feature::load_balance] || doms.empty()) return 0;
  NewidleWalk& w = s.lb.walk[cpu];
  w.next_balance = jiffies(s) + s.tun.hz;
  if (rq.avg_idle < static_cast<Nanos>(s.tun.migration_cost_ns) || !s.lb.overload) {
    update_next_balance(s, doms.front(), s.lb.sd[cpu].front(), w.next_balance);
    if (time_after(rq.next_balance, w.next_balance)) rq.next_balance = w.next_balance;
    return 0;
  }
  w = {.gen = w.gen + 1, .next_balance = w.next_balance, .from_task = from_task};
  s.counters.newidle_walks++;
  return newidle_walk(s, cpu);
}

bool newidle_walking(const Sched& s, CpuId cpu) { return s.lb.walk.contains(cpu) && s.lb.walk[cpu].at; }

bool newidle_balance_done(Sched& s, CpuId cpu) { return newidle_walk(s, cpu) > 0; }

void note_arrival(Sched& s, CpuId cpu) {
  if (!newidle_walking(s, cpu)) return;
  s.counters.newidle_arrivals++;
  if (!s.lb.walk[cpu].first_arrival) s.lb.walk[cpu].first_arrival = s.now;
}

}  // namespace cfsv
