// RapidCheck generators for the CFS simulation (model/sim.h): random
// hierarchies (1..4 CPUs, groups nested up to depth 3, tasks with random nice,
// affinity and behaviour) and random ops of the one vocabulary (Op), always in
// a form the scenario parser accepts, so any case prints as a scenario file
// that replays it (docs/engines-sim.md).
//
// SimNames (model/ops_decoder.h's OpScope) is what a parser-valid op may name
// at a point of a scenario's timeline; the state-machine test
// (sim_state_machine_test.cpp) uses it as its model, and
// gen_sim_scenario_with_ops() builds whole timelines with it.
#pragma once
#include <rapidcheck.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "model/ops_decoder.h"
#include "model/op_table.h"
#include "model/scenario.h"
#include "model/scenario_text.h"
#include "properties/generators.h"

namespace cfsv::simgen {

constexpr Nanos kUs = 1'000, kMs = 1'000'000;

// The model of what a parser-valid op may name (framework-free, shared with
// the fuzz decoder).
using SimNames = OpScope;
constexpr int kMaxGroupDepth = OpScope::kMaxGroupDepth;

// Shrinks toward the first element.
template <class T> rc::Gen<T> gen_pick(std::vector<T> items) {
  return rc::gen::map(properties::gen_uniform(0, items.size() - 1), [items](uint64_t i) { return items[i]; });
}

// Empty (all CPUs) two times in three, else a non-empty subset of 0..nr_cpus-1.
inline rc::Gen<CpuMask> gen_affinity(unsigned nr_cpus) {
  return rc::gen::exec([nr_cpus] {
    CpuMask m;
    if (*properties::gen_uniform(0, 2) < 2) return m;
    const uint64_t bits = *properties::gen_uniform(1, (uint64_t{1} << nr_cpus) - 1);
    for (unsigned c = 0; c < nr_cpus; ++c)
      if (bits >> c & 1) m.set(c);
    return m;
  });
}

// run=busy, run=<0.1..5ms> sleep=<0.1..20ms> (rarely no sleep: exit after one
// burst; as rarely sleep=wait), or runtime=<wall> sleep=; shrinks toward run=busy.
inline rc::Gen<Behaviour> gen_behaviour() {
  return rc::gen::exec([]() -> Behaviour {
    const uint64_t kind = *properties::gen_uniform(0, 3);
    if (kind <= 1) return RunBusy{};
    const Nanos run = *properties::gen_uniform(100 * kUs, 5 * kMs);
    std::optional<Nanos> sleep = *properties::gen_uniform(100 * kUs, 20 * kMs);
    const uint64_t end = *properties::gen_uniform(0, 7);
    if (end == 7) sleep.reset();
    if (end == 6) sleep = kSleepWait;
    if (kind == 2) return RunPeriodic{run, sleep};
    return RunWallclock{run, sleep};
  });
}

inline rc::Gen<TaskSpec> gen_task_spec(const SimNames& m, std::string name) {
  return rc::gen::exec([m, name] {
    TaskSpec t;
    t.name = name;
    t.group = m.groups[*properties::gen_uniform(0, m.groups.size() - 1)].first;
    t.nice = *properties::gen_nice();
    if (const uint64_t p = *properties::gen_uniform(0, 7); p >= 6) t.policy = p == 6 ? Policy::batch : Policy::idle;
    t.cpus = *gen_affinity(m.nr_cpus);
    t.behaviour = *gen_behaviour();
    if (!std::holds_alternative<RunBusy>(t.behaviour) && !m.tasks.empty() && *properties::gen_uniform(0, 3) == 3) {
      t.wakes = {*gen_pick(m.tasks)};  // wakes another as its bursts end, sync or not
      t.wake_sync = *properties::gen_uniform(0, 1) == 1;
    }
    if (!m.tasks.empty() && *properties::gen_uniform(0, 3) == 3) {  // forked by a task, in its group or not
      t.parent = *gen_pick(m.tasks);
      if (*properties::gen_uniform(0, 1) == 1) t.group.clear();
    }
    return t;
  });
}

// cgroup v1 shares 2..262144 (log-uniform), or one time in four a cgroup v2 weight.
inline rc::Gen<std::pair<uint64_t, std::optional<uint32_t>>> gen_shares() {
  return rc::gen::exec([] {
    if (*properties::gen_uniform(0, 3) == 3) {
      const auto w = static_cast<uint32_t>(*properties::gen_log_uniform(kMinCgroupWeight, kMaxCgroupWeight));
      return std::pair<uint64_t, std::optional<uint32_t>>{sched_weight_from_cgroup(w), w};
    }
    return std::pair<uint64_t, std::optional<uint32_t>>{*properties::gen_log_uniform(kFairMinShares, kFairMaxShares),
                                                        std::nullopt};
  });
}

// A new group under a declared one of depth < 3 (one must exist).
inline rc::Gen<GroupSpec> gen_group_spec(const SimNames& m) {
  return rc::gen::exec([m] {
    std::vector<std::string> parents;
    for (const auto& [p, d] : m.groups)
      if (d < kMaxGroupDepth) parents.push_back(p);
    const std::string parent = *gen_pick(parents);
    GroupSpec g;
    g.path = m.new_group_path(parent);
    std::tie(g.shares, g.weight) = *gen_shares();
    return g;
  });
}

// Clock advances: sub-tick (1 ns .. 1 ms), a few ticks, or up to 50 ms.
inline rc::Gen<Nanos> gen_advance() {
  return rc::gen::exec([] {
    switch (*properties::gen_uniform(0, 2)) {
      case 0: return *properties::gen_log_uniform(1, kMs);
      case 1: return *properties::gen_uniform(1, 4) * kMs;
      default: return *properties::gen_uniform(kMs, 50 * kMs);
    }
  });
}

// An argument of each kind (model/op_table.h).
template <class O> std::string gen_arg(const op_table::Task<O>&, const SimNames& m) {
  return m.tasks[*properties::gen_uniform(0, m.tasks.size() - 1)];
}
template <class O> std::string gen_arg(const op_table::AnyGroup<O>&, const SimNames& m) {
  return m.groups[*properties::gen_uniform(0, m.groups.size() - 1)].first;
}
template <class O> std::string gen_arg(const op_table::Group<O>&, const SimNames& m) {  // not the root, groups[0]
  return m.groups[*properties::gen_uniform(1, m.groups.size() - 1)].first;
}
template <class O> std::string gen_arg(const op_table::LeafGroup<O>&, const SimNames& m) {
  std::vector<std::string> leaves;
  for (const auto& g : m.groups)
    if (m.is_leaf_group(g.first)) leaves.push_back(g.first);
  return leaves[*properties::gen_uniform(0, leaves.size() - 1)];
}
template <class O> int gen_arg(const op_table::Nice<O>&, const SimNames&) { return *properties::gen_nice(); }
template <class O> CpuMask gen_arg(const op_table::Cpus<O>&, const SimNames& m) { return *gen_affinity(m.nr_cpus); }
template <class O> unsigned gen_arg(const op_table::Cpu<O>&, const SimNames& m) {
  return static_cast<unsigned>(*properties::gen_uniform(0, m.nr_cpus - 1));
}
template <class O> Nanos gen_arg(const op_table::Span<O>&, const SimNames&) { return *gen_advance(); }
template <class O> bool gen_arg(const op_table::Word<O>&, const SimNames&) { return *properties::gen_uniform(0, 1) == 1; }
template <class O> Policy gen_arg(const op_table::PolicyName<O>&, const SimNames&) {
  return static_cast<Policy>(*properties::gen_uniform(0, 2));
}

// The Custom rows.
inline op::Spawn gen_custom(const op::Spawn&, const SimNames& m) {
  return {*gen_task_spec(m, "t" + std::to_string(m.next_task))};
}
inline op::CreateGroup gen_custom(const op::CreateGroup&, const SimNames& m) { return {*gen_group_spec(m)}; }
inline op::SetShares gen_custom(const op::SetShares&, const SimNames& m) {
  const std::string g = m.groups[*properties::gen_uniform(1, m.groups.size() - 1)].first;
  const auto [shares, weight] = *gen_shares();
  return {g, shares, weight};
}

// An op of the kind of `kind`; m.can_form(kind) must hold.
inline rc::Gen<Op> gen_op_of(const Op& kind, const SimNames& m) {
  return rc::gen::exec([kind, m]() -> Op {
    return op_table::visit(
        [&](const auto& row, const auto& k) -> Op {
          if constexpr (std::decay_t<decltype(row)>::custom) {
            return gen_custom(k, m);
          } else {
            std::decay_t<decltype(k)> o{};
            op_table::for_each_arg(row, [&](const auto& a) { o.*a.field = gen_arg(a, m); });
            return o;
          }
        },
        kind);
  });
}

// Any op that can be formed at this point, its kind weighed by the op table.
inline rc::Gen<Op> gen_op(const SimNames& m) {
  return rc::gen::exec([m] {
    std::vector<Op> kinds;
    for (std::size_t k = 0; k < std::variant_size_v<Op>; ++k)
      if (const Op kind = default_op(k); m.can_form(kind)) kinds.insert(kinds.end(), op_table::kWeights[k], kind);
    return *gen_op_of(*gen_pick(kinds), m);
  });
}

// The profiles to pick from, shrinking toward the default.
inline rc::Gen<std::string> gen_profile() {
  std::vector<std::string> names;
  for (const Profile* p : profiles_default_first()) names.emplace_back(p->name);
  return gen_pick(names);
}

// A random hierarchy: profile, 1..4 CPUs, sometimes a hz setting and feature
// overrides (sched_feats and the seed patches), 0..5 groups nested up to depth
// 3, 0..6 tasks at time 0. No ops, duration 0.
inline rc::Gen<Scenario> gen_sim_scenario() {
  return rc::gen::exec([] {
    Scenario s;
    s.kernel = *gen_profile();
    const unsigned cpus = static_cast<unsigned>(*properties::gen_uniform(1, 4));
    s.topology = cpus % 2 == 0 && *properties::gen_uniform(0, 1) ? Topology{1, cpus / 2, 2} : Topology{1, cpus, 1};
    if (*properties::gen_uniform(0, 2) == 2) s.settings.push_back({"hz", *gen_pick<uint64_t>({1000, 250, 100, 300})});
    for (const FeatureInfo& f : all_features())
      if (f.generators_vary && *properties::gen_uniform(0, 3) == 3)
        s.feature_overrides.emplace_back(f.feature, *properties::gen_uniform(0, 1) == 1);
    SimNames m = SimNames::of(s);
    const auto groups = *properties::gen_uniform(0, 5);
    for (uint64_t i = 0; i < groups; ++i) {
      const GroupSpec g = *gen_group_spec(m);
      s.groups.push_back(g);
      m.note(op::CreateGroup{g});
    }
    const auto tasks = *properties::gen_uniform(0, 6);
    for (uint64_t i = 0; i < tasks; ++i) {
      const TaskSpec t = *gen_task_spec(m, "t" + std::to_string(m.next_task));
      s.tasks.push_back(t);
      m.note(op::Spawn{t});
    }
    return s;
  });
}

// A scenario's timeline as the Sim applies it: each op at the time reached so
// far (advance ops included, as `at T advance D` lines), then `run` to the end
// (at least 1 ns, the parser's minimum).
inline Scenario with_ops(Scenario s, std::vector<TimedOp> ops, Nanos end) {
  s.ops = std::move(ops);
  s.duration = std::max<Nanos>(end, 1);
  return s;
}

// A random scenario with 0..max_ops timed ops after its time-0 hierarchy,
// run for the ops' span plus 0..100 ms.
inline rc::Gen<Scenario> gen_sim_scenario_with_ops(std::size_t max_ops) {
  return rc::gen::exec([max_ops] {
    Scenario s = *gen_sim_scenario();
    SimNames m = SimNames::of(s);
    std::vector<TimedOp> ops;
    const auto n = *properties::gen_uniform(0, max_ops);
    for (uint64_t i = 0; i < n; ++i) {
      const Op o = *gen_op(m);
      ops.push_back({m.now, o, {}});
      m.note(o);
    }
    return with_ops(std::move(s), std::move(ops), m.now + *properties::gen_uniform(0, 100 * kMs));
  });
}

}  // namespace cfsv::simgen

namespace cfsv {
// RapidCheck prints generated scenarios as scenario files.
inline void showValue(const Scenario& s, std::ostream& os) { os << "\n" << print_scenario(s); }
}  // namespace cfsv
