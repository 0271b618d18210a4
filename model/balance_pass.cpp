// The sink's view of one load_balance pass (model/lb_pass.h), filled only
// when a sink listens (LbEnv::pass): both eras' verdicts and what
// detach_tasks took. docs/balancing.md, "One pass against its verdict".
#include "arith/balance_v3.h"
#include "balance_lb.h"
#include "sink.h"

namespace cfsv::lb {

namespace {
LbGroupFigures figures(const SgLbStats& g) {
  return {g.v.group_load,     g.v.group_capacity, g.v.avg_load,
          g.v.sum_nr_running, g.v.idle_cpus,      g.v.group_weight, static_cast<uint8_t>(g.type)};
}
LbGroupFigures figures(const SgLbStatsV4& g) {
  return {g.group_load,     g.group_capacity, g.avg_load,
          g.sum_nr_running, g.idle_cpus,      g.group_weight, static_cast<uint8_t>(g.type)};
}
// v3.10: the group's power stands for its capacity (what avg_load is scaled by);
// type 1 (imbalanced) when group_imb.
LbGroupFigures figures(const SgLbStatsV3& g) {
  return {g.group_load,     g.power,     g.avg_load,
          g.sum_nr_running, g.idle_cpus, g.group_weight, static_cast<uint8_t>(g.group_imb ? GroupTypeV4::imbalanced : GroupTypeV4::other)};
}
void verdict(const Sched& s, LbEnv& env, uint64_t domain_avg_load, const LbGroupFigures& local,
             const LbGroupFigures& busiest) {
  *env.pass = {.dst = env.dst_cpu, .src = {}, .level = static_cast<uint32_t>(env.level), .idle = env.idle,
               .era1 = s.era.balance_v4,
               .pulls_one = s.features[Feature::newidle_pulls_one], .type = env.imb.type, .imbalance = env.imb.imbalance, .left = 0,
               .nr_balance_failed = env.sdb->nr_balance_failed, .tasks = 0, .last_take = 0, .max_take = 0,
               .domain_avg_load = domain_avg_load, .local = local, .busiest = busiest};
}
}  // namespace

void note_lb_verdict(const Sched& s, LbEnv& env, const SdLbStats& sds) {
  verdict(s, env, sds.avg_load, figures(sds.local), figures(sds.busiest));
}
void note_lb_verdict(const Sched& s, LbEnv& env, const SdLbStatsV4& sds) {
  verdict(s, env, sds.avg_load, figures(sds.local), figures(sds.busiest));
}
void note_lb_verdict(const Sched& s, LbEnv& env, const SdLbStatsV3& sds) {
  verdict(s, env, sds.avg_load, figures(sds.local), figures(sds.busiest));
}

void note_lb_pass(const Sched& s, const LbEnv& env, int ld_moved) {
  LbPass& p = *env.pass;
  p.dst = env.dst_cpu, p.src = env.src_cpu, p.left = env.imb.imbalance, p.tasks = static_cast<uint32_t>(ld_moved);
  p.last_take = env.last_take, p.max_take = env.max_take;
  s.sink->lb_pass(s, p);
}

}  // namespace cfsv::lb
