// Named behaviours (the kernel's sched_feat names in lower case, plus the seed
// patches and era differences) and profiles: named feature sets with tunables.
#pragma once
#include <bitset>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "arith/calc_delta.h"
#include "arith/slice.h"
#include "tunables.h"

namespace cfsv {

enum class Feature : unsigned {
  gentle_fair_sleepers,       // sched_feat GENTLE_FAIR_SLEEPERS
  start_debit,                // sched_feat START_DEBIT
  next_buddy,                 // sched_feat NEXT_BUDDY
  last_buddy,                 // sched_feat LAST_BUDDY
  cache_hot_buddy,            // sched_feat CACHE_HOT_BUDDY
  wakeup_preemption,          // sched_feat WAKEUP_PREEMPTION
  alt_period,                 // sched_feat ALT_PERIOD (v5.13..v6.5)
  base_slice,                 // sched_feat BASE_SLICE (v5.13..v6.5)
  hi_res_load,                // 64-bit SCHED_FIXEDPOINT_SHIFT load resolution (v4.7+)
  scale_load_down_min_2,      // scale_load_down keeps at least 2 (v5.7+: commit 26cf52229efc)
  calc_delta_mine,            // deltas scaled by calc_delta_mine (v3.2..v3.12)
  simple_pick,                // put_prev then a full top-down pick (up to v3.14)
  shares_on_cfs_rq,           // update_cfs_shares(cfs_rq) reweights the owner (v3.10..v4.14)
  min_vruntime_skips_dequeued_curr,  // update_min_vruntime ignores a dequeued curr (v4.9+)
  renorm_after_update_curr,   // enqueue_entity renormalises after update_curr (v4.6+)
  change_pattern,             // nice/move/affinity: put_prev, change, enqueue, set_next (v5.x)
  sysctl_nr_latency,          // a latency/min_granularity write recomputes nr_latency (up to v5.12)
  dequeue_save_keeps_min_vruntime,  // dequeue_entity(DEQUEUE_SAVE) skips update_min_vruntime (v5.4+, not v4.4)
  nice_prio_changed,          // set_user_nice reschedules through prio_changed_fair (v5.15, not v5.4)
  clear_buddies_on_set_next,  // buddies cleared in set_next_entity, not pick_next_entity (v5.15, not v5.4)
  affinity_change_pattern,    // do_set_cpus_allowed dequeues/puts/sets/enqueues the task (v4.4+, not v3.10)
  pelt_v5,                    // v5.15's PELT in the simulator, group shares from it (v4.15+ calc_group_shares)
  pelt_v4_4,                  // v4.4's PELT in the simulator, group shares from it (v4.4 calc_cfs_shares)
  pelt_v3_10,                 // v3.10's runnable averages in the simulator, group shares from them (v3.10 calc_cfs_shares)
  util_est,                   // sched_feat UTIL_EST and UTIL_EST_FASTUP (v4.17+; v5.15's form): tasks' utilization estimates
  pelt_relaxed_sum_sync,      // v5.17+: a cfs_rq's PELT sums lose an entity's sums and are floored, not rebuilt
  pelt_attach_at_enqueue,     // v6.1+: a migrating task detaches in dequeue_entity, a new task attaches at its enqueue
  pelt_migrate_lag,           // v6.0+: a task woken off an idle CPU decays to that CPU's PELT time before it moves
  instant_shares,             // group entities weighted by the instantaneous load (the model before PELT)
  root_tg_load_avg_skip,      // seed 000 (v4.5+)
  move_task_skip_same_group,  // seed 001 (v6.4+)
  newidle_stop_on_runnable,   // seed 002 (v3.13+, unverified)
  flat_slice,                 // seed 003 (never merged)
  kernel_placement,           // select_task_rq_fair places forks and wakeups (v5.15's in every profile)
  load_balance,               // periodic, nohz idle, newidle and active balance (v5.15's, or era 1's with balance_v4_4)
  balance_v4_4,               // era-1 load balancing of v4.4: avg_load groups, cpu_load[] indexes (before v5.5)
  lb_bias,                    // sched_feat LB_BIAS (up to v4.19): source_load/target_load bias by cpu_load[]
  lb_min,                     // sched_feat LB_MIN (v3.10..v5.4, off): detach_tasks skips tasks of load < 16
  wasted_cores_min_load,      // era 1: groups compared by their least loaded CPU (Lozi et al., EuroSys 2016; never merged)
  wasted_cores_wakeup_idle,   // a wakeup goes to the longest-idle CPU anywhere (Lozi et al., EuroSys 2016; never merged)
  wasted_cores_group_construction,  // each CPU's NUMA group first, every CPU balances (Lozi et al., EuroSys 2016)
  sched_autogroup,            // CONFIG_SCHED_AUTOGROUP=y (v2.6.38+; built in on distribution kernels)
  sanitize_vruntime,          // v6.3+: a long sleeper's vruntime is reset at placement; a migrated task is not cache hot
  online_drops_numa_levels,   // v3.16..v4.9 x86: a CPU online drops the NUMA levels on a numa-in-package machine
  tg_load_offline_clear,      // after v6.4: an offline CPU's part of every tg->load_avg is cleared
  migrate_clears_exec_start,  // v4.4..v6.2: migrate_task_rq_fair zeroes exec_start, so a migrated task is not cache hot
  recent_used_cpu_affinity_fix,  // after v6.4 (6.1.y stable): select_idle_sibling tests the recent CPU's own affinity
  affinity_move_by_stopper,   // v3.10..v3.17: set_cpus_allowed_ptr moves any queued task through the stopper
  move_places_sleeper,        // v4.4+: a sleeping task's group move places it first (detach_task_cfs_rq)
  balance_v3_10,              // with balance_v4_4: v3.10's era-1 balancing (capacity in CPUs, group_imb, no cost limits)
  exit_moves_to_root,         // v3.10: cpu_cgroup_exit moves an exiting task to the root group before its last dequeue
  newidle_pulls_one,          // CONFIG_PREEMPT(ION)=y: a newidle balance moves one task (every profile; off: PREEMPT_VOLUNTARY)
  placement_v4_4,             // with kernel_placement: era-1 select_task_rq_fair of v4.4 (profiles v4.4, v3.10)
  placement_v3_10,            // with placement_v4_4: v3.10's differences (profile v3.10)
  sched_idle_cpu,             // v5.4..v5.8: a CPU running only SCHED_IDLE tasks counts as idle for placement and balancing
  reweight_idle_task,         // v6.11 (and stable): set_load_weight reweights a SCHED_IDLE task through reweight_task too
  idle_min_granularity,       // v5.16: a SCHED_IDLE entity's slice floor and sleeper credit are smaller
  cgroup_idle,                // v5.15: cpu.idle makes a group's entity idle (se_is_idle), weight 3
  count_
};
constexpr std::size_t kFeatureCount = static_cast<std::size_t>(Feature::count_);

struct FeatureInfo {
  Feature feature;
  std::string_view name;
  std::string_view what;
  // The scenario generators (the fuzz decoder, RapidCheck) turn it on and off
  // at random; the others keep the profile's value.
  bool generators_vary;
};
std::span<const FeatureInfo> all_features();
std::string_view to_string(Feature f);
std::optional<Feature> feature_by_name(std::string_view name);

class FeatureSet {
 public:
  FeatureSet() = default;
  FeatureSet(std::initializer_list<Feature> on) {
    for (Feature f : on) set(f);
  }
  bool operator[](Feature f) const { return bits_[static_cast<std::size_t>(f)]; }
  FeatureSet& set(Feature f, bool on = true) {
    bits_[static_cast<std::size_t>(f)] = on;
    return *this;
  }
  bool operator==(const FeatureSet&) const = default;
  // These features with each override applied in order (a scenario's
  // `feature` lines, then command-line flags).
  FeatureSet with(std::span<const std::pair<Feature, bool>> overrides) const {
    FeatureSet r = *this;
    for (const auto& [f, on] : overrides) r.set(f, on);
    return r;
  }
  // "alt_period base_slice ..." (the features that are on).
  std::string to_string() const;

  SliceFeatures slice() const {
    return {(*this)[Feature::alt_period], (*this)[Feature::base_slice], (*this)[Feature::flat_slice],
            (*this)[Feature::idle_min_granularity]};
  }
  LoadResolution load_resolution() const {
    return {(*this)[Feature::hi_res_load] ? 10u : 0u, (*this)[Feature::scale_load_down_min_2],
            (*this)[Feature::calc_delta_mine]};
  }

 private:
  std::bitset<kFeatureCount> bits_;
};

// A kernel era: its features and normalised tunable defaults.
struct Profile {
  std::string_view name;
  std::string_view what;
  FeatureSet features;
  Tunables tunables;
};
constexpr std::string_view kDefaultProfile = "v5.15";  // a scenario without `kernel`
std::span<const Profile> all_profiles();
const Profile* profile_by_name(std::string_view name);
const Profile& default_profile();  // kDefaultProfile's
// Every profile, the default first (what generators shrink toward, and what a
// fuzzer's exhausted input picks), then the others in table order.
std::span<const Profile* const> profiles_default_first();

}  // namespace cfsv
