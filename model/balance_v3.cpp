// v3.10's find_busiest_group and find_busiest_queue (kernel/sched/fair.c
// v3.10), under the feature balance_v3_10 within era 1: the statistics
// gathered over the domain's groups, then model/arith/balance_v3.h's verdict.
// The rest of load_balance is model/balance_v4.cpp's. docs/balancing.md,
// "Era 1 in v3.10".
#include <algorithm>

#include "arith/balance_v3.h"
#include "balance.h"
#include "balance_lb.h"
#include "cfs_tasks.h"
#include "fair_cpu.h"

namespace cfsv::lb {

namespace {

// update_sg_lb_stats (kernel/sched/fair.c v3.10) over the group's CPUs in
// env.cpus: loads biased up for the local group, down for the others, whose
// spread of load and nr_running makes group_imb; nr_running counts every
// class (rq->nr_running). The balance-CPU test that v3.10 makes here is
// should_we_balance's, before the walk (load_balance_v4).
SgLbStatsV3 update_sg_lb_stats_v3(const Sched& s, const LbEnv& env, const SchedGroup& g, bool local) {
  SgLbStatsV3 sgs;
  SgSpreadV3T<uint64_t> spread;
  const unsigned idx = sd_load_idx(*env.sd, env.idle);
  bool first = true;
  for (const CpuId c : each_cpu(g.span & env.cpus)) {
    const uint64_t nr = rq_nr_running(s, c), load = biased_load(s, c, idx, local);
    sgs.min_load = first ? load : std::min(sgs.min_load, load);  // wasted_cores_min_load's
    sgs.max_load = std::max(sgs.max_load, load);
    first = false;
    if (!local) {
      spread.max_cpu_load = std::max(spread.max_cpu_load, load);
      spread.min_cpu_load = std::min(spread.min_cpu_load, load);
      spread.max_nr_running = std::max(spread.max_nr_running, nr);
      spread.min_nr_running = std::min(spread.min_nr_running, nr);
    }
    sgs.group_load += load;
    sgs.sum_nr_running += nr;
    sgs.sum_weighted_load += weighted_cpuload(s, c);
    if (idle_cpu(s, c)) sgs.idle_cpus++;
  }
  sgs.power = g.capacity;
  sgs.group_weight = g.span.count();
  update_sg_lb_stats_tail_v3<uint64_t>(sgs, spread, env.sd->flags.has(SdFlag::SHARE_CPUCAPACITY));
  return sgs;
}

}  // namespace

// find_busiest_group (kernel/sched/fair.c v3.10): update_sd_lb_stats, then the
// verdict; the busiest group, or nullptr when balanced. Sets env.imb.
const SchedGroup* find_busiest_group_v3(Sched& s, LbEnv& env) {
  SdLbStatsV3 sds;
  sds.min_load_cmp = s.features[Feature::wasted_cores_min_load];
  const SchedGroup* busiest = nullptr;
  const SchedDomain* child = env.level ? env.sd - 1 : nullptr;  // sd->child
  const bool prefer_sibling = child && child->flags.has(SdFlag::PREFER_SIBLING);
  for (const SchedGroup& g : env.sd->groups) {
    const bool local = g.span.test(env.dst_cpu.index());
    if (update_sd_lb_stats_group_v3<uint64_t>(sds, update_sg_lb_stats_v3(s, env, g, local), local, prefer_sibling))
      busiest = &g;
  }
  const ImbalanceEnvV4 ie{env.idle, env.sd->imbalance_pct, cpu_avg_load_per_task(s, env.dst_cpu)};
  const VerdictV4 v = find_busiest_group_verdict_v3<uint64_t>(ie, sds);
  env.imb = {MigrationType::load, static_cast<int64_t>(v.imbalance)};
  if (env.pass) note_lb_verdict(s, env, sds);
  return v.busiest ? busiest : nullptr;
}

// find_busiest_queue (kernel/sched/fair.c v3.10): the group's CPU with the
// highest weighted_cpuload scaled by its power (1024 / power, rounded down),
// passing over a CPU of at least one CPU's capacity that runs one task heavier
// than the imbalance.
CpuId find_busiest_queue_v3(const Sched& s, const LbEnv& env, const SchedGroup& g) {
  CpuId busiest;
  uint64_t max_load = 0;
  for (const CpuId c : each_cpu(g.span & env.cpus)) {
    const uint64_t power = capacity_of(s, c), wl = weighted_cpuload(s, c);
    const uint64_t cpus = power_in_cpus(power);
    const uint64_t capacity = cpus ? cpus : env.sd->flags.has(SdFlag::SHARE_CPUCAPACITY);  // fix_small_capacity
    if (capacity && rq_nr_running(s, c) == 1 && static_cast<int64_t>(wl) > env.imb.imbalance) continue;
    if (const uint64_t scaled = wl * kSchedCapacityScale / power; scaled > max_load) max_load = scaled, busiest = c;
  }
  return busiest;
}

}  // namespace cfsv::lb
