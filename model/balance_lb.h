// The parts of load_balance that both eras share (model/balance.cpp, v5.15)
// and era 1 reuses (model/balance_v4.cpp, v4.4): struct lb_env, the task
// tests and moves, should_we_balance, active balance. Internal to the two
// files; model/balance.h is the interface.
#pragma once
#include <cstdint>
#include <vector>

#include "arith/balance.h"
#include "lb_pass.h"
#include "sched.h"

namespace cfsv {
template <class V> struct SdLbStatsV4T;  // model/arith/balance_v4.h
template <class V> struct SdLbStatsV3T;  // model/arith/balance_v3.h
}  // namespace cfsv

namespace cfsv::lb {

using Idle = CpuIdleType;

constexpr unsigned kNrMigrateBreak = 32;      // sched_nr_migrate_break
constexpr unsigned kMaxPinnedInterval = 512;  // MAX_PINNED_INTERVAL
// struct lb_env's LBF_* flags
constexpr unsigned kAllPinned = 1, kNeedBreak = 2, kDstPinned = 4, kSomePinned = 8, kActiveLb = 16;

// time_after / time_after_eq (include/linux/jiffies.h): wrap-safe comparisons.
inline bool time_after(uint64_t a, uint64_t b) { return static_cast<int64_t>(b - a) < 0; }
inline bool time_after_eq(uint64_t a, uint64_t b) { return static_cast<int64_t>(a - b) >= 0; }

// struct lb_env (v5.15; v4.4's has the same fields but migration_type): one
// load_balance's state; sd is dst's domain at `level`.
struct LbEnv {
  std::size_t level = 0;
  const SchedDomain* sd = nullptr;
  const SchedDomain* parent = nullptr;  // sd->parent
  SdBalance* sdb = nullptr;
  CpuId dst_cpu, src_cpu, new_dst_cpu;
  CpuId this_cpu;  // the CPU running the balance: v3.10's task_hot reads this_rq(), later eras dst_rq
  CpuMask dst_grpmask, cpus;
  Idle idle = Idle::not_idle;
  Imbalance imb;
  unsigned flags = 0, loop = 0, loop_break = kNrMigrateBreak, loop_max = 0;
  std::vector<TaskId> tasks;  // detached, in detach order
  uint64_t last_take = 0, max_take = 0;  // what detached tasks took off imb.imbalance: the last, the most
  LbPass* pass = nullptr;     // with a sink: the verdict's figures, for note_lb_pass
};

LbEnv make_env(Sched& s, CpuId dst, std::size_t level, Idle idle);
// check_cpu_capacity (v5.15, v4.4): other classes took a noticeable part of cpu.
bool check_cpu_capacity(const Sched& s, CpuId cpu, const SchedDomain& sd);
// sgc->imbalance of the group whose sched_group_capacity is sgc's, at level.
uint8_t& sgc_imbalance(Sched& s, unsigned level, CpuId sgc);
// can_migrate_task (v5.15; v4.4 under era 1: no SMT exemption from task_hot).
bool can_migrate_task(const Sched& s, TaskId p, LbEnv& env);
// detach_tasks' loop (v5.15 from the tail, v4.4 from the head), with the
// era's test and take of a task's load.
int detach_tasks_loop(Sched& s, LbEnv& env, bool from_head, bool (*take)(const Sched&, TaskId, LbEnv&));
// attach_tasks (v5.15, v4.4), counting the migrations by kind.
void attach_tasks(Sched& s, LbEnv& env);
// load_balance's more_balance loop (v5.15, v4.4): detach (the era's
// detach_tasks) and attach until no breather is due, then again for another
// CPU of the local group when LBF_DST_PINNED; returns the tasks moved.
int more_balance(Sched& s, LbEnv& env, int (*detach)(Sched&, LbEnv&));
// With a sink (env.pass set; model/balance_pass.cpp): the pass's verdict as
// find_busiest_group left it, v5.15's or era 1's, with its statistics;
// note_lb_pass tells the sink once the pass moved ld_moved > 0 tasks
// (model/lb_pass.h).
void note_lb_verdict(const Sched& s, LbEnv& env, const SdLbStats& sds);
void note_lb_verdict(const Sched& s, LbEnv& env, const SdLbStatsV4T<uint64_t>& sds);
void note_lb_verdict(const Sched& s, LbEnv& env, const SdLbStatsV3T<uint64_t>& sds);
void note_lb_pass(const Sched& s, const LbEnv& env, int ld_moved);
// should_we_balance (v5.15, v4.4).
bool should_we_balance(const Sched& s, const LbEnv& env);
// active_load_balance_cpu_stop (v5.15; v4.4 under era 1), run at once.
void active_load_balance(Sched& s, CpuId busiest, CpuId target);
// update_next_balance (v5.15): the earlier of next_balance and when sd is next due.
void update_next_balance(const Sched& s, const SchedDomain& sd, const SdBalance& b, uint64_t& next_balance);
// load_balance (v5.15; era 1's under balance_v4) of dst's domain at level: the tasks moved.
int load_balance(Sched& s, CpuId dst, std::size_t level, Idle idle, bool& continue_balancing);
// rebalance_domains (v5.15): every domain of cpu that is due (model/balance.cpp).
void rebalance_domains(Sched& s, CpuId cpu, Idle idle);
// nohz_balancer_kick + kick_ilb (v5.15) at a busy CPU's tick
// (model/balance_idle.cpp): the idle CPU kicked (none: no kick) and the
// kick's flags, NOHZ_BALANCE_KICK and/or NOHZ_STATS_KICK; then what that CPU
// runs, _nohz_idle_balance (era 1: v4.4's nohz_idle_balance).
constexpr unsigned kNohzBalanceKick = 1, kNohzStatsKick = 2, kNohzKickMask = kNohzBalanceKick | kNohzStatsKick;
struct NohzKick {
  CpuId ilb;
  unsigned flags = 0;
};
NohzKick nohz_balancer_kick(Sched& s, CpuId cpu);
void run_nohz_idle_balance(Sched& s, const NohzKick& kick);
// msecs_to_jiffies (include/linux/jiffies.h), rounded up.
uint64_t msecs_to_jiffies(const Sched& s, uint64_t ms);

// Era 1 (model/balance_v4.cpp): load_balance (v4.4) of dst's domain at level.
// update_cpu_load_active (v4.4) at a busy CPU's tick, update_idle_cpu_load
// (v4.4) for an idle CPU before the nohz idle balance balances for it;
// weighted_cpuload (v4.4: the root cfs_rq's runnable_load_avg; v3.10: the
// rq's load.weight).
void update_cpu_load_active(Sched& s, CpuId cpu);
void update_idle_cpu_load(Sched& s, CpuId cpu);
uint64_t weighted_cpuload(const Sched& s, CpuId cpu);
int load_balance_v4(Sched& s, CpuId dst, std::size_t level, Idle idle, bool& continue_balancing);
// Era 1's loads (v4.4, v3.10): source_load / target_load (`target`) of the
// cpu_load[] index `type` (0: the current load); get_sd_load_idx, the
// domain's index for the idle type; cpu_avg_load_per_task.
uint64_t biased_load(const Sched& s, CpuId cpu, unsigned type, bool target);
unsigned sd_load_idx(const SchedDomain& sd, Idle idle);
uint64_t cpu_avg_load_per_task(const Sched& s, CpuId cpu);
// v3.10's find_busiest_group (sets env.imb) and find_busiest_queue under
// balance_v3_10 (model/balance_v3.cpp).
const SchedGroup* find_busiest_group_v3(Sched& s, LbEnv& env);
CpuId find_busiest_queue_v3(const Sched& s, const LbEnv& env, const SchedGroup& g);
// v3.10: update_h_load, every live group's h_load on cpu once a jiffy per rq,
// and task_h_load_era1, which reads it (other eras: select_rq.h's task_h_load).
void update_h_load(Sched& s, CpuId cpu);
uint64_t task_h_load_era1(const Sched& s, TaskId p);

}  // namespace cfsv::lb
