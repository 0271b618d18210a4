#include "features.h"

#include <array>
#include <vector>

namespace cfsv {

namespace {
using F = Feature;
constexpr bool kVary = true, kKeep = false;  // FeatureInfo::generators_vary
constexpr std::array<FeatureInfo, kFeatureCount> kFeatures = {{
    {F::gentle_fair_sleepers, "gentle_fair_sleepers", "a waking task is placed at most latency/2 behind min_vruntime", kVary},
    {F::start_debit, "start_debit", "a new task starts one vslice after min_vruntime", kVary},
    {F::next_buddy, "next_buddy", "prefer the last woken task", kVary},
    {F::last_buddy, "last_buddy", "prefer the task preempted by a wakeup", kVary},
    {F::cache_hot_buddy, "cache_hot_buddy", "buddies count as cache hot for migration", kKeep},
    {F::wakeup_preemption, "wakeup_preemption", "a waking task may preempt the current one", kVary},
    {F::alt_period, "alt_period", "sched_slice period from the rq-wide h_nr_running", kKeep},
    {F::base_slice, "base_slice", "sched_slice is at least min_granularity", kKeep},
    {F::hi_res_load, "hi_res_load", "weights carry 10 extra fixed-point bits (64-bit, v4.7+)", kKeep},
    {F::scale_load_down_min_2, "scale_load_down_min_2", "scale_load_down never rounds a weight below 2 (v5.7+)", kKeep},
    {F::calc_delta_mine, "calc_delta_mine", "deltas scaled by calc_delta_mine: WMULT_CONST 2^32, rounded shifts (v3.2..v3.12)", kKeep},
    {F::simple_pick, "simple_pick", "schedule() puts prev, then picks top-down setting every level (up to v3.14)", kKeep},
    {F::shares_on_cfs_rq, "shares_on_cfs_rq", "update_cfs_shares(cfs_rq) reweights the group entity owning it (v3.10..v4.14)", kKeep},
    {F::min_vruntime_skips_dequeued_curr, "min_vruntime_skips_dequeued_curr", "update_min_vruntime ignores a curr no longer on_rq (v4.9+)", kKeep},
    {F::renorm_after_update_curr, "renorm_after_update_curr", "enqueue_entity renormalises a non-curr entity after update_curr (v4.6+)", kKeep},
    {F::change_pattern, "change_pattern", "set_user_nice puts and sets curr around the change; moves and mask changes set it after the enqueue (v5.x)", kKeep},
    {F::sysctl_nr_latency, "sysctl_nr_latency", "a latency/min_granularity sysctl write recomputes sched_nr_latency (up to v5.12)", kKeep},
    {F::dequeue_save_keeps_min_vruntime, "dequeue_save_keeps_min_vruntime", "dequeue_entity with DEQUEUE_SAVE (no DEQUEUE_MOVE) leaves min_vruntime alone (v5.4+; not v4.4)", kVary},
    {F::nice_prio_changed, "nice_prio_changed", "set_user_nice reschedules through prio_changed_fair (v5.15; v3.10..v5.4 use their own rule)", kVary},
    {F::clear_buddies_on_set_next, "clear_buddies_on_set_next", "buddies are cleared in set_next_entity, not pick_next_entity (v5.15; v3.10..v5.4 pick)", kVary},
    {F::affinity_change_pattern, "affinity_change_pattern", "a new CPU mask dequeues, puts, enqueues and sets the task (do_set_cpus_allowed, v4.4+; not v3.10)", kVary},
    {F::pelt_v5, "pelt_v5", "load tracking of kernel/sched/pelt.c v5.15 at every update site; group entity weights from calc_group_shares", kKeep},
    {F::pelt_v4_4, "pelt_v4_4", "load tracking of kernel/sched/fair.c v4.4 (the v4.3 rewrite) at its update sites; group entity weights from its calc_cfs_shares (pelt_v5 takes precedence)", kKeep},
    {F::pelt_v3_10, "pelt_v3_10", "the 3.8-era runnable averages of kernel/sched/fair.c v3.10 at its update sites (blocked load, decay counters, tg_load_contrib); group entity weights from its calc_cfs_shares (pelt_v5 and pelt_v4_4 take precedence)", kKeep},
    {F::util_est, "util_est", "with pelt_v5: utilization estimates (UTIL_EST, UTIL_EST_FASTUP; kernel/sched/fair.c v5.15): a task's util_avg at each dequeue to sleep, kept with a moving average, and the root cfs_rq's sum of its queued tasks' estimates, which cpu_util and task_fits_cpu read", kKeep},
    {F::pelt_relaxed_sum_sync, "pelt_relaxed_sum_sync", "with pelt_v5: dequeue, detach, propagation and removed load subtract the entity's sums from the cfs_rq's and floor them at avg * PELT_MIN_DIVIDER through max_t(u32, ...), which cuts a u64 load_sum or runnable_sum to its low 32 bits (v5.17: 2d02fa8cc21a, 7ceb77103001, 95246d1ec80b; read in v6.4); off: v5.15.100 rebuilds them from the averages; on in v6.4", kVary},
    {F::pelt_attach_at_enqueue, "pelt_attach_at_enqueue", "with pelt_v5: a migrating task's averages leave its cfs_rq in dequeue_entity (DO_DETACH, e1f078f50478) instead of migrate_task_rq_fair's detach_entity_cfs_rq, and a new task's join at its first enqueue (DO_ATTACH, d6531ab6e501) instead of post_init_entity_util_avg's attach_entity_cfs_rq (v6.1; read in v6.4); on in v6.4", kVary},
    {F::pelt_migrate_lag, "pelt_migrate_lag", "with pelt_v5: migrate_se_pelt_lag (e2f3e35f1f5a, v6.0; read in v6.4): a task woken on another CPU than the idle one it slept on has its averages decayed to that CPU's PELT time now (the cfs_rq's last update plus the time the CPU has been idle since its clock was last read, exact in the model), not left at the cfs_rq's last update; on in v6.4", kVary},
    {F::instant_shares, "instant_shares", "group entity weights from the instantaneous load.weight sums instead of PELT (the model before load tracking, for comparison)", kVary},
    {F::root_tg_load_avg_skip, "root_tg_load_avg_skip", "seed 000: update_tg_load_avg skips root_task_group", kKeep},
    {F::move_task_skip_same_group, "move_task_skip_same_group", "seed 001: sched_move_task returns when the group is unchanged", kVary},
    {F::newidle_stop_on_runnable, "newidle_stop_on_runnable", "seed 002: newidle balance stops once this rq has a runnable task", kKeep},
    {F::flat_slice, "flat_slice", "seed 003: sched_slice ignores the entities above the task's cfs_rq", kVary},
    {F::kernel_placement, "kernel_placement", "select_task_rq_fair places forks and wakeups (kernel/sched/fair.c v5.15, in every profile); off: the lowest allowed CPU with the fewest tasks", kKeep},
    {F::load_balance, "load_balance", "load balancing moves queued and running tasks between CPUs: periodic, nohz idle, newidle and active balance (kernel/sched/fair.c v5.15; its load_balance is v4.4's with balance_v4_4)", kKeep},
    {F::balance_v4_4, "balance_v4_4", "with load_balance: era-1 load balancing of kernel/sched/fair.c v4.4 (groups by avg_load over the cpu_load[] indexes, group_imbalanced, fix_small_imbalance, detach_tasks by load); off: v5.15's", kKeep},
    {F::lb_bias, "lb_bias", "era 1: source_load/target_load take the min/max of cpu_load[idx] and the current load (LB_BIAS, on up to v4.19)", kKeep},
    {F::lb_min, "lb_min", "era 1: detach_tasks skips tasks of load below 16 until a balance failed (LB_MIN, off by default)", kKeep},
    {F::wasted_cores_min_load, "wasted_cores_min_load", "era 1: the Wasted Cores paper's Group Imbalance fix (Lozi et al., EuroSys 2016): find_busiest_group compares the groups' least loaded CPUs instead of their average loads; imbalance half the gap between busiest's most and local's least loaded CPU (off in every profile)", kKeep},
    {F::wasted_cores_wakeup_idle, "wasted_cores_wakeup_idle", "with kernel_placement: the Wasted Cores paper's Overload-on-Wakeup fix (Lozi et al., EuroSys 2016): a waking task goes to its previous CPU if that runs nothing, else to the allowed CPU that has idled longest anywhere, before select_task_rq_fair's usual path (off in every profile)", kKeep},
    {F::wasted_cores_group_construction, "wasted_cores_group_construction", "the Wasted Cores paper's Scheduling Group Construction fix (Lozi et al., EuroSys 2016): era 1's build_overlap_sched_groups builds the CPU's own group first, then walks from CPU 0 (v5.15 builds from the CPU anyway), and should_we_balance lets every CPU balance (off in every profile)", kKeep},
    {F::sched_autogroup, "sched_autogroup", "CONFIG_SCHED_AUTOGROUP=y: setsid makes an autogroup, do_exit calls sched_autogroup_exit_task (kernel/sched/autogroup.c v6.4); on in v6.4, off in the older profiles", kVary},
    {F::sanitize_vruntime, "sanitize_vruntime", "place_entity ignores the old vruntime of an entity that slept more than 2^63 / scale_load_down(NICE_0_LOAD) ns (about 104 days; entity_is_long_sleeper), and a migrated task (ENQUEUE_MIGRATED, which activate_task now sets for a queued one too) has exec_start 0 after its enqueue, so it is not cache hot (v6.3: 829c1651e9c4, a53ce18cacb4; read in v6.4); on in v6.4", kVary},
    {F::online_drops_numa_levels, "online_drops_numa_levels", "CPU hotplug on a machine whose sockets hold several NUMA nodes: x86's set_cpu_sibling_map sets the numa-in-package topology table again at every CPU online, replacing the one sched_init_numa extended, so every later domain rebuild has no NUMA level and no balance crosses nodes (v3.16..v4.9; the Wasted Cores paper's Missing Scheduling Domains bug; v4.10's set_sched_topology refuses a call after boot); on in v4.4", kVary},
    {F::tg_load_offline_clear, "tg_load_offline_clear", "with pelt_v5: CPU hotplug: rq_offline_fair takes each group's tg_load_avg_contrib of the CPU out of tg->load_avg (clear_tg_offline_cfs_rqs) and update_tg_load_avg skips an inactive CPU (\"sched: Fix tg->load when offlining a CPU\", posted 2023-12-21, after v6.4); off in every profile: an offline CPU's part of tg->load_avg stays, and calc_group_shares gives the group less weight on the CPUs left", kVary},
    {F::migrate_clears_exec_start, "migrate_clears_exec_start", "migrate_task_rq_fair ends with exec_start = 0 (\"We have migrated, no longer consider this task hot\"): a task that changes CPU (wakeup, balance, hotplug) is not cache hot for task_hot until it runs again (read in v4.4 and v5.15.100; not in v3.10; v6.3 moved the reset to enqueue_entity, which sanitize_vruntime models); on in v4.4 and v5.15", kVary},
    {F::recent_used_cpu_affinity_fix, "recent_used_cpu_affinity_fix", "with kernel_placement: select_idle_sibling takes the recently used CPU only if the task may run there; off: v5.15.100's and v6.4.0's test of p->recent_used_cpu, which holds prev by then, so prev's affinity is tested and a CPU the task may not run on can be chosen (select_task_rq then falls back to select_fallback_rq) or an allowed one passed over (fixed after v6.4; in 6.1.55 as a stable backport); off in every profile", kVary},
    {F::affinity_move_by_stopper, "affinity_move_by_stopper", "set_cpus_allowed_ptr moves a queued task that may no longer run on its CPU through the stopper even when it is not the running one (v3.10: `if (p->on_rq) stop_one_cpu(migration_cpu_stop)`): migration/N preempts whatever runs on that CPU, which then picks again (a slice restarts); off: move_queued_task at once, the stopper only for the running task (v3.18+); on in v3.10", kVary},
    {F::move_places_sleeper, "move_places_sleeper", "sched_move_task of a sleeping task (one that has run) places it on its old cfs_rq (place_entity(cfs_rq, se, 0): at most a latency, or half of one with GENTLE_FAIR_SLEEPERS, behind min_vruntime) before normalising its vruntime, so the sleeper credit is capped at the move (detach_task_cfs_rq, v4.4+: daa59407b558; read in v4.4.121 and v5.15.100); off: v3.10's task_move_group_fair only normalises; on in v4.4, v5.15 and v6.4", kVary},
    {F::balance_v3_10, "balance_v3_10", "with load_balance and balance_v4_4: era-1 balancing as kernel/sched/fair.c v3.10 has it (before v3.13's sgp->imbalance and v4.1's utilisation capacity): a group's capacity is its cpu_power in whole CPUs and only a group running more tasks than that (or with group_imb, computed from its own CPUs' loads) can be the busiest; calculate_imbalance keeps the tasks above capacity; no rd->overload; idle_balance walks every domain with no cost limit; rebalance_domains balances its own CPU before the nohz idle ones; the nohz kick looks for a busy SMT core; move_tasks moves each task to dst as it takes it, and task_hot's buddy test reads the balancing CPU's queue; on in v3.10", kKeep},
    {F::exit_moves_to_root, "exit_moves_to_root", "do_exit's cgroup_exit puts the exiting task in the root cgroup and the cpu controller's exit callback (cpu_cgroup_exit, v3.10; gone by v4.4) moves it there with sched_move_task while it still runs: its group's cfs_rq loses it then, and its last dequeue (and v3.10's blocked load) is the root's; on in v3.10", kKeep},
    {F::newidle_pulls_one, "newidle_pulls_one", "the kernel is built with CONFIG_PREEMPT (v3.10, v4.4) or CONFIG_PREEMPTION (v5.15, v6.4; PREEMPT_DYNAMIC selects it): detach_tasks (v3.10: move_tasks) stops after the first task a newidle balance takes, to keep the critical section short; off: a kernel built with PREEMPT_VOLUNTARY or PREEMPT_NONE, whose newidle balance takes tasks until the imbalance is met, like a periodic one; on in every profile", kKeep},
    {F::placement_v4_4, "placement_v4_4", "with kernel_placement: era-1 placement of kernel/sched/fair.c v4.4: select_task_rq_fair with the old select_idle_sibling (an LLC group whose CPUs are all idle, from the LLC domain down; no idle-core or SIS_PROP scan, no recent_used_cpu) and, for forks, find_idlest_group over the cpu_load[] indexes (forkexec_idx; wake_idx for wakeups) with half the imbalance_pct as margin, then find_idlest_cpu (the most recently idled CPU, else the least weighted_cpuload); wake_affine by the load indexes and effective_load; off: v5.15's; on in v4.4 and v3.10", kKeep},
    {F::placement_v3_10, "placement_v3_10", "with placement_v4_4: select_task_rq_fair as kernel/sched/fair.c v3.10 has it: a fork with no SD_BALANCE_FORK domain stays on the forking CPU, the domain search does not stop at the first domain without the flag, a wakeup with no SD_WAKE_AFFINE domain holding prev_cpu stays on prev_cpu (no select_idle_sibling), find_idlest_cpu takes the least weighted_cpuload (no idle-state or idle-stamp test), and wake_affine also passes a CPU whose load and prev_cpu's fit in one average task; on in v3.10", kKeep},
    {F::sched_idle_cpu, "sched_idle_cpu", "a CPU whose queued tasks are all SCHED_IDLE (sched_idle_cpu: rq->nr_running == cfs.idle_h_nr_running) counts as idle: select_idle_sibling's target, prev and recent_used_cpu tests and its scans (select_idle_core, select_idle_smt, __select_idle_cpu, select_idle_capacity) and find_idlest_group_cpu place a task there, rebalance_domains balances it at the idle interval, and dequeue_task_fair makes its balance due when only such tasks are left (the v5.4..v5.8 patches \"Fall back to sched-idle CPU if idle CPU isn't found\", \"Load balance aggressively for SCHED_IDLE CPUs\", \"Make sched-idle CPU selection consistent throughout\"; read in v5.15.100); v5.15's placement and balancing only; on in v5.15 and v6.4", kKeep},
    {F::reweight_idle_task, "reweight_idle_task", "with pelt_v5: set_load_weight(p, true) (a renice or sched_setscheduler) gives a SCHED_IDLE task its weight through reweight_task as it does any other fair task, so its PELT load is rescaled (\"sched/fair: set_load_weight() must also call reweight_task() for SCHED_IDLE tasks\", v6.11, backported to stable series); off: v5.15.100's and v6.4's set_load_weight assigns WEIGHT_IDLEPRIO and returns, so a task made SCHED_IDLE keeps load_avg at its old weight's scale, and a later attach (a group move) turns that into load_sum = load_avg x divider / 3: after `policy T idle`, `move T /g`, `policy T normal` a nice-16 task's load_avg is 29 x 29 / 3 = 280, ten times its weight (docs/model.md, \"Policies\"); off in every profile", kVary},
    {F::idle_min_granularity, "idle_min_granularity", "a SCHED_IDLE entity competing with entities that are not all idle has BASE_SLICE's floor at sysctl_sched_idle_min_granularity (0.75 ms, not scaled by the CPU count) instead of min_granularity, and a waking one is placed at most (half) a min_granularity before min_vruntime instead of (half) a latency; cfs_rq->idle_nr_running counts the idle entities (\"sched: reduce sched slice for SCHED_IDLE entities\", 51ce83ed523b, v5.16; read in 6.1.55); on in v6.4", kKeep},
    {F::cgroup_idle, "cgroup_idle", "a group's cpu.idle (the op `idle /path 0|1`; sched_group_set_idle): an idle group's entity is se_is_idle, so its tasks count in the idle_h_nr_running above it (sched_idle_cpu), check_preempt_wakeup preempts it for a waking entity that is not idle where the two meet and never lets it preempt one, set_next_buddy and set_last_buddy stop at it, and its shares are WEIGHT_IDLEPRIO (3; NICE_0_LOAD when cleared; cpu.shares refused while idle) (\"sched: Cgroup SCHED_IDLE support\", 304000390f88, v5.15; read in v5.15.100); off: no cpu.idle file, the op is refused; on in v5.15 and v6.4", kKeep},
}};

// Rows are looked up by the enum's value (to_string): one row per Feature, in its order.
constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < kFeatures.size(); ++i)
    if (static_cast<std::size_t>(kFeatures[i].feature) != i) return false;
  return true;
}
static_assert(rows_in_enum_order(), "kFeatures: one row per Feature, in the enum's order");

const auto kProfiles = std::to_array<Profile>({
    {"v3.10", "CFS of Linux 3.10 (seed 003's base)",
     FeatureSet{F::gentle_fair_sleepers, F::start_debit, F::last_buddy, F::cache_hot_buddy, F::wakeup_preemption,
                F::calc_delta_mine, F::simple_pick, F::shares_on_cfs_rq, F::sysctl_nr_latency, F::pelt_v3_10,
                F::balance_v4_4, F::lb_bias, F::affinity_move_by_stopper, F::balance_v3_10,
                F::exit_moves_to_root, F::newidle_pulls_one, F::placement_v4_4, F::placement_v3_10},
     Tunables{}},
    {"v4.4", "CFS of Linux 4.4",
     FeatureSet{F::gentle_fair_sleepers, F::start_debit, F::last_buddy, F::cache_hot_buddy, F::wakeup_preemption,
                F::shares_on_cfs_rq, F::sysctl_nr_latency, F::affinity_change_pattern, F::pelt_v4_4,
                F::newidle_stop_on_runnable, F::balance_v4_4, F::lb_bias, F::online_drops_numa_levels,
                F::migrate_clears_exec_start, F::move_places_sleeper, F::newidle_pulls_one, F::placement_v4_4},
     Tunables{}},
    {"v5.15", "CFS of Linux 5.13..6.5 (as a distribution's 6.1 kernel)",
     FeatureSet{F::gentle_fair_sleepers, F::start_debit, F::last_buddy, F::cache_hot_buddy, F::wakeup_preemption,
                F::alt_period, F::base_slice, F::hi_res_load, F::scale_load_down_min_2,
                F::min_vruntime_skips_dequeued_curr, F::renorm_after_update_curr, F::change_pattern,
                F::dequeue_save_keeps_min_vruntime, F::nice_prio_changed, F::clear_buddies_on_set_next,
                F::affinity_change_pattern, F::pelt_v5, F::util_est, F::root_tg_load_avg_skip,
                F::newidle_stop_on_runnable, F::migrate_clears_exec_start, F::move_places_sleeper,
                F::newidle_pulls_one, F::sched_idle_cpu, F::cgroup_idle},
     Tunables{}},
    // v5.15 plus what v6.4 changed that the model covers (docs/model.md, "Profile v6.4"):
    // CONFIG_SCHED_AUTOGROUP built in (as distributions build it), seed 001's skip (eff6c8ce8d, v6.4),
    // v5.17's relaxed PELT sum syncs, v6.0's migrate_se_pelt_lag, v6.1's PELT attach at enqueue and v6.3's
    // vruntime sanitising.
    {"v6.4", "CFS of Linux 6.4 (v5.15 with autogroup built in, sched_move_task's same-group return, v5.17..v6.1's PELT changes and v6.3's vruntime sanitising)",
     FeatureSet{F::gentle_fair_sleepers, F::start_debit, F::last_buddy, F::cache_hot_buddy, F::wakeup_preemption,
                F::alt_period, F::base_slice, F::hi_res_load, F::scale_load_down_min_2,
                F::min_vruntime_skips_dequeued_curr, F::renorm_after_update_curr, F::change_pattern,
                F::dequeue_save_keeps_min_vruntime, F::nice_prio_changed, F::clear_buddies_on_set_next,
                F::affinity_change_pattern, F::pelt_v5, F::util_est, F::root_tg_load_avg_skip,
                F::newidle_stop_on_runnable, F::sched_autogroup, F::move_task_skip_same_group,
                F::pelt_relaxed_sum_sync, F::pelt_attach_at_enqueue, F::pelt_migrate_lag, F::sanitize_vruntime,
                F::move_places_sleeper, F::newidle_pulls_one, F::sched_idle_cpu, F::idle_min_granularity,
                F::cgroup_idle},
     Tunables{}},
});
}  // namespace

std::span<const FeatureInfo> all_features() { return kFeatures; }

std::string_view to_string(Feature f) { return kFeatures[static_cast<std::size_t>(f)].name; }

std::optional<Feature> feature_by_name(std::string_view name) {
  for (const FeatureInfo& i : kFeatures)
    if (i.name == name) return i.feature;
  return std::nullopt;
}

std::string FeatureSet::to_string() const {
  std::string s;
  for (const FeatureInfo& i : kFeatures) {
    if (!(*this)[i.feature]) continue;
    if (!s.empty()) s += ' ';
    s += i.name;
  }
  return s;
}

std::span<const Profile> all_profiles() { return kProfiles; }

const Profile* profile_by_name(std::string_view name) {
  for (const Profile& p : kProfiles)
    if (p.name == name) return &p;
  return nullptr;
}

const Profile& default_profile() {
  static const Profile& p = *profile_by_name(kDefaultProfile);
  return p;
}

std::span<const Profile* const> profiles_default_first() {
  static const std::vector<const Profile*> v = [] {
    std::vector<const Profile*> r{&default_profile()};
    for (const Profile& p : kProfiles)
      if (&p != r.front()) r.push_back(&p);
    return r;
  }();
  return v;
}

}  // namespace cfsv
