// Seed 001's claim, move-task-same-group/noop (claims/registry.cpp): the
// same-group skip of sched_move_task against the requeue it saves, on the
// claim's random cases and on its shrunk counterexample
// (regressions/move_task_same_group_exit.scn).
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <variant>

#include "claims/sim_diff.h"
#include "fuzz/byte_reader.h"
#include "model/scenario_text.h"
#include "model/scenario.h"
#include "model/sim.h"

namespace cfsv {
namespace {

const Claim& claim() {
  const Claim* c = claim_by_id("move-task-same-group/noop");
  EXPECT_NE(c, nullptr);
  return *c;
}

// The claim's cases as the fuzz engine decodes them from seeded bytes: in a
// good share the skip saves requeues and a cfs_rq's PELT then differs; in
// every case with no same-group call the runs are the same.
TEST(MoveTaskSkip, TheClaimsCasesReachSameGroupMovesAndTheirPeltDiffers) {
  const Claim& c = claim();
  std::mt19937_64 rng(20261202);
  int same_group = 0, differ = 0, decisions = 0;
  for (int i = 0; i < 200; ++i) {
    std::vector<uint8_t> bytes(512);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    fuzz::ByteReader r(bytes.data(), bytes.size());
    const Scenario s = decode_sim_case(r, c);
    const SimRun off = run_with(s, c.domain.sim.before), on = run_with(s, c.domain.sim.after);
    const std::string diff = unobservable_difference(off, on, false);
    const Counters &a = off.sim->counters(), &b = on.sim->counters();
    EXPECT_EQ(b.move_task_skips, b.move_task_same_group);  // the skip returns from each same-group call
    EXPECT_EQ(a.move_task_skips, 0u);
    if (!b.move_task_skips) {
      EXPECT_EQ(diff, "") << print_scenario(s);  // nothing skipped: nothing may differ
      continue;
    }
    ++same_group;
    differ += !diff.empty();
    decisions += off.events != on.events;
  }
  std::printf("move-task-same-group: of 200 cases %d skip a requeue, %d of them differ, %d in a decision\n",
              same_group, differ, decisions);
  EXPECT_GE(same_group, 50);
  EXPECT_GE(differ, same_group / 2);
}


Scenario exit_case() {
  const ParseResult r = load_scenario_file(CFSV_REGRESSIONS_DIR "/move_task_same_group_exit.scn");
  EXPECT_TRUE(std::holds_alternative<Scenario>(r));
  return std::get<Scenario>(r);
}

// The shrunk counterexample: t1's exit requeues it (t2's too, in the root);
// the requeue's set_next_entity restarts /g0's slice at 3ms, so t2 first runs
// at 9ms instead of 6ms; the claim's check finds both.
TEST(MoveTaskSkip, TheShrunkExitCaseRestartsTheGroupSliceAndT2RunsLater) {
  const Claim& c = claim();
  const Scenario s = exit_case();
  const SimRun off = run_with(s, c.domain.sim.before), on = run_with(s, c.domain.sim.after);
  EXPECT_EQ(off.sim->counters().move_task_calls, 2u);
  EXPECT_EQ(off.sim->counters().move_task_requeues, 2u);
  EXPECT_EQ(on.sim->counters().move_task_skips, 2u);
  EXPECT_EQ(on.sim->counters().move_task_requeues, 0u);
  const std::string state = first_state_difference(s, c.domain.sim.before, c.domain.sim.after);
  EXPECT_EQ(state.rfind("at 3ms: cfs_rq of / on cpu0: util_sum ", 0), 0u) << state;
  EXPECT_NE(state.find("group entity of /g0 on cpu0: prev_sum_exec_runtime (slice start) 3000000 vs 0"),
            std::string::npos)
      << state;
  EXPECT_EQ(first_decision_difference(off, on),
            "9ms cpu0: switch t3 -> t2 without the feature, 6ms cpu0: switch t3 -> t2 with it");
  const std::optional<Counterexample> cx = check_sim_case(c, s);
  ASSERT_TRUE(cx.has_value());
  EXPECT_NE(cx->summary.find("first decision changed: 9ms cpu0: switch t3 -> t2"), std::string::npos) << cx->summary;
  EXPECT_NE(cx->scenario.find("move_task_skip_same_group=on"), std::string::npos);
}

// Without CONFIG_SCHED_AUTOGROUP no exit calls sched_move_task: the skip has
// nothing to skip and the runs are the same.
TEST(MoveTaskSkip, WithoutConfigSchedAutogroupTheExitCaseIsTheSame) {
  const Scenario s = with_overrides(exit_case(), {{Feature::sched_autogroup, false}});
  const SimRun off = run_with(s, {{Feature::move_task_skip_same_group, false}}),
               on = run_with(s, {{Feature::move_task_skip_same_group, true}});
  EXPECT_EQ(off.sim->counters().move_task_calls, 0u);
  EXPECT_EQ(unobservable_difference(off, on, true), "");
}

// Profile v6.4 is v5.15 with CONFIG_SCHED_AUTOGROUP, seed 001's skip,
// v5.16's idle slices, v5.17..v6.1's three PELT changes and v6.3's vruntime
// sanitising (docs/model.md, "Profile v6.4"), and the exit case runs under it
// as v5.15 with those seven features on.
TEST(ProfileV6_4, IsV5_15WithAutogroupTheSkipAndTheV6ChangesTheModelCovers) {
  const Profile *v5 = profile_by_name("v5.15"), *v6 = profile_by_name("v6.4");
  ASSERT_NE(v5, nullptr);
  ASSERT_NE(v6, nullptr);
  for (const FeatureInfo& f : all_features()) {
    const bool added = f.feature == Feature::sched_autogroup || f.feature == Feature::move_task_skip_same_group ||
                       f.feature == Feature::pelt_relaxed_sum_sync || f.feature == Feature::pelt_attach_at_enqueue ||
                       f.feature == Feature::pelt_migrate_lag || f.feature == Feature::sanitize_vruntime ||
                       f.feature == Feature::idle_min_granularity;
    // v6.3 moved migrate_task_rq_fair's exec_start reset to enqueue_entity (sanitize_vruntime)
    const bool dropped = f.feature == Feature::migrate_clears_exec_start;
    EXPECT_EQ(v6->features[f.feature], (added || v5->features[f.feature]) && !dropped) << f.name;
    if (added) {
      EXPECT_FALSE(v5->features[f.feature]) << f.name;
    }
  }
  EXPECT_EQ(v6->tunables, v5->tunables);
  Scenario s = exit_case();
  s.feature_overrides.clear();
  s.kernel = "v6.4";
  const SimRun v64 = run_with(s, {});
  s.kernel = "v5.15";
  const SimRun v515 = run_with(s, {{Feature::sched_autogroup, true},
                                   {Feature::move_task_skip_same_group, true},
                                   {Feature::pelt_relaxed_sum_sync, true},
                                   {Feature::pelt_attach_at_enqueue, true},
                                   {Feature::pelt_migrate_lag, true},
                                   {Feature::sanitize_vruntime, true},
                                   {Feature::idle_min_granularity, true},
                                   {Feature::migrate_clears_exec_start, false}});
  EXPECT_EQ(v64.perf, v515.perf);
  EXPECT_EQ(v64.sim->counters().move_task_skips, 2u);
}

// Greedy one-at-a-time reduction of a scenario's ops, time-0 tasks, groups,
// feature overrides and settings while `keep` holds, until no removal keeps it.
template <class Keep> Scenario reduce(Scenario s, Keep keep) {
  const auto drop = [&](auto member) {
    bool any = false;
    for (std::size_t i = 0; i < (s.*member).size();) {
      Scenario t = s;
      (t.*member).erase((t.*member).begin() + static_cast<std::ptrdiff_t>(i));
      if (keep(t)) s = std::move(t), any = true;
      else ++i;
    }
    return any;
  };
  for (bool any = true; any;) {
    any = drop(&Scenario::ops);
    any = drop(&Scenario::tasks) || any;
    any = drop(&Scenario::groups) || any;
    any = drop(&Scenario::feature_overrides) || any;
    any = drop(&Scenario::settings) || any;
  }
  return s;
}

// The tool that cut regressions/move_task_same_group_exit.scn: the claim's
// cases with only the exit path calling sched_move_task (no setsid, move or
// autogroup nice), the first whose decisions differ, reduced while they
// still do. Run by hand: --gtest_also_run_disabled_tests.
TEST(MoveTaskSkip, DISABLED_ShrinkAnExitCaseWhoseDecisionsDiffer) {
  const Claim& c = claim();
  std::mt19937_64 rng(20261202);
  const auto decisions_differ = [&](const Scenario& t) {
    const SimRun off = run_with(t, c.domain.sim.before), on = run_with(t, c.domain.sim.after);
    return off.sim->rejected_ops().empty() && on.sim->rejected_ops().empty() && off.events != on.events;
  };
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> bytes(512);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    fuzz::ByteReader r(bytes.data(), bytes.size());
    Scenario s = decode_sim_case(r, c);
    std::erase_if(s.ops, [](const TimedOp& o) {
      return std::holds_alternative<op::Setsid>(o.op) || std::holds_alternative<op::MoveTask>(o.op) ||
             std::holds_alternative<op::AutogroupNice>(o.op) || std::holds_alternative<op::DestroyGroup>(o.op);
    });
    if (!decisions_differ(s)) continue;
    const Scenario m = reduce(s, decisions_differ);
    const SimRun off = run_with(m, c.domain.sim.before), on = run_with(m, c.domain.sim.after);
    std::printf("%s\n%s\n%s\n", first_state_difference(m, c.domain.sim.before, c.domain.sim.after).c_str(),
                first_decision_difference(off, on).c_str(), print_scenario(m).c_str());
    return;
  }
  FAIL() << "no exit case changes a decision";
}


// group-move/invariants (claims/registry.cpp): its check reads the run's
// invariant checker, and only the invariants the claim names.
TEST(GroupMoveInvariants, TheClaimsCheckReportsAViolationOfAnInvariantItNamesOnly) {
  Sim sim(exit_case());
  sim.run_to(2'000'000);
  ASSERT_TRUE(sim.check_now());
  EXPECT_EQ(invariant_violation(sim, {}), "");
  sim.mutable_cfs_rq(sim.rqs()[CpuId(0)].cfs).load_weight += 1;
  EXPECT_FALSE(sim.check_now("corrupt"));
  const std::string v = invariant_violation(sim, {"pelt-removed-once", "load-equals-sum"});
  EXPECT_NE(v.find("load-equals-sum"), std::string::npos) << v;
  EXPECT_EQ(invariant_violation(sim, {}), v);
  EXPECT_EQ(invariant_violation(sim, {"pelt-removed-once", "task-in-its-group"}), "");
}

// Its random cases, decoded as the fuzz engine decodes them, move tasks
// between groups (sched_move_task), fork churning children and keep every
// invariant; the claim holds on each.
TEST(GroupMoveInvariants, TheClaimsCasesMoveTasksAndChurnAndKeepTheInvariants) {
  const Claim* c = claim_by_id("group-move/invariants");
  ASSERT_NE(c, nullptr);
  std::mt19937_64 rng(20261203);
  int moving = 0, churning = 0;
  for (int i = 0; i < 200; ++i) {
    std::vector<uint8_t> bytes(512);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    fuzz::ByteReader r(bytes.data(), bytes.size());
    const Scenario s = decode_sim_case(r, *c);
    const SimRun run = run_with(s, c->domain.sim.before);
    EXPECT_TRUE(run.sim->checker()->ok()) << run.sim->checker()->violations().front().to_string();
    EXPECT_EQ(check_sim_case(*c, s), std::nullopt) << print_scenario(s);
    moving += run.sim->counters().move_task_calls > 0;
    bool churn = false;
    for (const TaskSpec& t : s.tasks) churn = churn || t.churn.every != 0;
    churning += churn;
  }
  std::printf("group-move/invariants: of 200 cases %d call sched_move_task, %d have a churning task\n", moving,
              churning);
  EXPECT_GE(moving, 60);
  EXPECT_GE(churning, 30);
}

}  // namespace
}  // namespace cfsv
