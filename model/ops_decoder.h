// Random op sequences without a test framework: OpScope (what a scenario may
// name at a point of its timeline) and decode_ops_scenario, which turns a
// stream of bounded integers (a fuzzer's bytes through fuzz::ByteReader, or a
// seeded generator in bench/) into a Scenario of the one op vocabulary.
//
// Every decoded scenario is one the parser accepts: ops in time order, each
// naming only tasks and groups declared at or before its time, values in
// range. So print_scenario() of it is a reproducer that `cfsv replay` re-runs
// exactly, and Sim::run() of it applies the ops with the invariant checker
// after each. The RapidCheck generators (properties/sim_gen.h) share OpScope.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "op_table.h"
#include "scenario.h"
#include "scenario_text.h"

namespace cfsv {

// The tasks and groups a scenario has declared up to `now`, and its CPUs.
struct OpScope {
  static constexpr int kMaxGroupDepth = 3;  // "/a/b/c"

  unsigned nr_cpus = 1;
  std::vector<std::pair<std::string, int>> groups{{"/", 0}};  // path, depth
  std::vector<std::string> tasks;                             // spawned, maybe exited since
  unsigned next_task = 0, next_group = 0;                     // fresh-name counters
  Nanos now = 0;

  static OpScope of(const Scenario& s) {
    OpScope m;
    m.nr_cpus = s.topology.nr_cpus();
    for (const GroupSpec& g : s.groups) m.note(op::CreateGroup{g});
    for (const TaskSpec& t : s.tasks) m.note(op::Spawn{t});
    return m;
  }
  bool has_task(const std::string& n) const { return std::find(tasks.begin(), tasks.end(), n) != tasks.end(); }
  int depth_of(const std::string& path) const {
    for (const auto& [p, d] : groups)
      if (p == path) return d;
    return -1;
  }
  static std::string parent_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  }
  // A group other than the root with no child group: what `cgroup destroy` may name.
  bool is_leaf_group(const std::string& path) const {
    if (path == "/" || depth_of(path) < 0) return false;
    for (const auto& [p, d] : groups)
      if (parent_of(p) == path) return false;
    return true;
  }
  bool cpus_fit(const CpuMask& m) const {
    for (unsigned c = nr_cpus; c < kMaxCpus; ++c)
      if (m[c]) return false;
    return true;
  }
  bool group_has_room() const {
    return std::any_of(groups.begin(), groups.end(), [](const auto& g) { return g.second < kMaxGroupDepth; });
  }
  // A fresh name "/g<next_group>" under a parent (which must have room).
  std::string new_group_path(const std::string& parent) const {
    return (parent == "/" ? "" : parent) + "/g" + std::to_string(next_group);
  }

  // Whether the parser accepts `o` here: it names only declared tasks and
  // groups, declares nothing twice, nests groups at most kMaxGroupDepth deep,
  // names CPUs of the topology. (Whether a task is still alive is the
  // model's question, as it is for the parser.)
  bool can_apply(const Op& o) const {
    return op_table::visit(
        [&](const auto& row, const auto& x) {
          bool ok = true;
          if constexpr (std::decay_t<decltype(row)>::custom)
            ok = custom_can_apply(x);
          else
            op_table::for_each_arg(row, [&](const auto& a) { ok = ok && arg_fits(a, x.*a.field); });
          return ok;
        },
        o);
  }
  // Whether an op of the kind of `kind` (a default op of that kind) can be
  // formed here: it needs a task, a non-root group, or a group with room below it.
  bool can_form(const Op& kind) const {
    return op_table::visit(
        [&](const auto& row, const auto& x) {
          using O = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<O, op::CreateGroup>) return group_has_room();
          if constexpr (std::is_same_v<O, op::SetShares>) return groups.size() > 1;
          bool ok = true;
          if constexpr (!std::decay_t<decltype(row)>::custom)
            op_table::for_each_arg(row, [&](const auto& a) {
              if (a.kind == op_table::Arg::task) ok = ok && !tasks.empty();
              if (a.kind == op_table::Arg::leaf_group || a.kind == op_table::Arg::group)
                ok = ok && groups.size() > 1;  // a group besides the root (the last one made is a leaf)
            });
          return ok;
        },
        kind);
  }
  // Declares what the op creates, forgets a group it removes; an advance moves the clock.
  void note(const Op& o) {
    op_table::visit(
        [&](const auto& row, const auto& x) {
          using O = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<O, op::Spawn>) {
            tasks.push_back(x.task.name);
            next_task++;
          } else if constexpr (std::is_same_v<O, op::CreateGroup>) {
            groups.emplace_back(x.group.path, depth_of(parent_of(x.group.path)) + 1);
            next_group++;
          } else if constexpr (std::is_same_v<O, op::Advance>) {
            now += x.by;
          } else if constexpr (!std::decay_t<decltype(row)>::custom) {
            op_table::for_each_arg(row, [&](const auto& a) {
              if constexpr (std::decay_t<decltype(a)>::kind == op_table::Arg::leaf_group)
                std::erase_if(groups, [&](const auto& g) { return g.first == x.*a.field; });
            });
          }
        },
        o);
  }

 private:
  // An argument's value fits the scope (op_table.h's kinds).
  template <class A, class V> bool arg_fits(const A&, const V& v) const {
    if constexpr (A::kind == op_table::Arg::task) return has_task(v);
    else if constexpr (A::kind == op_table::Arg::any_group) return depth_of(v) >= 0;
    else if constexpr (A::kind == op_table::Arg::group) return depth_of(v) > 0;
    else if constexpr (A::kind == op_table::Arg::leaf_group) return is_leaf_group(v);
    else if constexpr (A::kind == op_table::Arg::cpus) return cpus_fit(v);
    else if constexpr (A::kind == op_table::Arg::cpu) return v < nr_cpus;
    else return true;
  }
  // The Custom rows.
  bool custom_can_apply(const op::Spawn& s) const {
    const TaskSpec& t = s.task;  // an empty group is the parent's
    return !has_task(t.name) && (t.parent.empty() || has_task(t.parent)) &&
           (t.group.empty() ? !t.parent.empty() : depth_of(t.group) >= 0) && cpus_fit(t.cpus) &&
           std::all_of(t.wakes.begin(), t.wakes.end(), [&](const std::string& w) { return has_task(w); });
  }
  bool custom_can_apply(const op::CreateGroup& g) const {
    const int pd = depth_of(parent_of(g.group.path));
    return depth_of(g.group.path) < 0 && pd >= 0 && pd < kMaxGroupDepth;
  }
  bool custom_can_apply(const op::SetShares& s) const { return depth_of(s.group) > 0; }
};

// A default op of kind k (Op's k-th alternative), for the generators to fill in.
inline Op default_op(std::size_t k) {
  static constexpr auto kMake = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<Op (*)(), sizeof...(I)>{+[]() -> Op { return std::variant_alternative_t<I, Op>{}; }...};
  }(std::make_index_sequence<std::variant_size_v<Op>>{});
  return kMake[k]();
}

// Bounds of a decoded scenario. They keep one fuzz execution short: the
// interesting states come from the ops and from times within and across a
// tick and a PELT period, so about ten ticks of simulated time (10 ms: 10 at
// HZ=1000, 1 at HZ=100, plus a tail of up to 2 ms) reach the edges that 20 ms
// and 200 ms did, at a fraction of the events (docs/fuzzing.md).
struct DecodeOptions {
  unsigned max_cpus = 4;         // 1..max_cpus CPUs
  unsigned max_groups = 6;       // at time 0 and created by ops
  unsigned max_tasks = 12;       // at time 0 and spawned by ops
  unsigned max_ops = 64;         // timed ops
  Nanos max_advance = 2'000'000;  // one advance op, and the tail after the last op
  Nanos max_time = 10'000'000;    // advances stop at 1 ns each once the ops reach this time
  bool busy_only = false;        // every task run=busy
  bool root_tasks_only = false;  // every task in the root group (groups may exist, empty)
  // Load balancing and the kernel's placement on (fuzz_balance_ops): 2 to 8
  // CPUs as 1..2 sockets x 1..2 cores x 1..2 threads, one machine of two
  // cores a socket in four with a NUMA node per core (x86's numa-in-package
  // table, online_drops_numa_levels), one in four with little CPUs (capacity
  // 446: misfit balancing), one in four with ITMT priorities (asym packing),
  // and a newidle_cost.
  bool balancing = false;
  // Fork/exit churn (TaskSpec::churn; fuzz_ops): one task in eight forks
  // children every 50us..2ms, each running 1ns..500us, 1..16 of them, or
  // without a limit every 1..2ms (a fork every 50us for the whole run made an
  // input cost ~15x the median; docs/fuzz-throughput.md, "Measured a ninth time").
  bool churn = false;
  bool hotplug = true;  // `cpu offline|online N` ops (one op in 20)
};

// Decodes a scenario from a reader with `uint64_t range(lo, hi)` and
// `bool exhausted()` (fuzz::ByteReader: reads never pass the end, and an
// exhausted reader yields lo, which decodes to the plainest choice), in the
// order the bytes are read: begin() the set-up (profile, machine, settings,
// features, the groups and tasks at time 0), next() each timed op, then
// duration(). A caller may apply each op as it comes, and may keep one
// decoder and one Scenario for many inputs: nothing is allocated again once
// their buffers have grown.
template <class Reader> class OpsDecoder {
 public:
  static constexpr Nanos kMinSleep = 50'000;  // 50 us
  static constexpr Nanos kMinUnlimitedFork = 1'000'000;  // a churn without a limit: 1 ms

  explicit OpsDecoder(DecodeOptions o = {}) : o_(o) {}

  // Reads the set-up into s (its ops cleared, duration 0).
  void begin(Reader& r, Scenario& s) {
    static constexpr uint64_t kHz[] = {1000, 250, 100, 300};
    r_ = &r;
    ops_ = 0;
    const auto profiles = profiles_default_first();
    s.kernel = profiles[r.range(0, profiles.size() - 1)]->name;
    s.settings.clear();
    if (o_.balancing) {
      static constexpr uint64_t kNewidleCost[] = {200, 2'000, 20'000};  // ns per CPU of a domain's span
      s.topology = Topology{static_cast<unsigned>(r.range(1, 2)), static_cast<unsigned>(r.range(1, 2)),
                            static_cast<unsigned>(r.range(1, 2))};
      if (s.topology.nr_cpus() == 1) s.topology.cores = 2;
      if (s.topology.cores == 2 && r.range(0, 3) == 0) s.topology.nodes = 2 * s.topology.sockets;  // a node per core
      if (r.range(0, 3) == 0)
        for (unsigned c = 0; c < s.topology.nr_cpus(); ++c) s.topology.capacity.push_back(r.range(0, 1) ? 1024 : 446);
      if (r.range(0, 3) == 0)  // ITMT priorities 1..4: asym packing
        for (unsigned c = 0; c < s.topology.nr_cpus(); ++c) s.topology.priority.push_back(static_cast<unsigned>(r.range(1, 4)));
      s.settings.push_back({"newidle_cost", kNewidleCost[r.range(0, 2)]});
    } else {
      const auto cpus = static_cast<unsigned>(r.range(1, std::max(1u, o_.max_cpus)));
      s.topology = cpus % 2 == 0 && r.range(0, 1) ? Topology{1, cpus / 2, 2} : Topology{1, cpus, 1};
    }
    if (const uint64_t hz = r.range(0, 4)) s.settings.push_back({"hz", kHz[hz - 1]});
    s.feature_overrides.clear();
    for (const FeatureInfo& f : all_features())  // 0: profile default, 1: off, 2: on
      if (f.generators_vary)
        if (const uint64_t v = r.range(0, 2)) s.feature_overrides.emplace_back(f.feature, v == 2);
    if (o_.balancing)
      for (const Feature f : {Feature::load_balance, Feature::kernel_placement}) s.feature_overrides.emplace_back(f, true);
    // scope_ = OpScope::of(s), keeping its buffers
    scope_.nr_cpus = s.topology.nr_cpus();
    scope_.groups.resize(1);
    scope_.tasks.clear();
    scope_.next_task = scope_.next_group = 0;
    scope_.now = 0;
    s.groups.clear();
    for (uint64_t n = r.range(0, std::min(3u, o_.max_groups)); n > 0 && scope_.group_has_room(); --n) {
      s.groups.emplace_back();
      group(s.groups.back());
      scope_.note(op::CreateGroup{s.groups.back()});
    }
    s.tasks.clear();
    for (uint64_t n = r.range(0, std::min(4u, o_.max_tasks)); n > 0; --n) {
      s.tasks.emplace_back();
      task(s.tasks.back());
      scope_.note(op::Spawn{s.tasks.back()});
    }
    s.ops.clear();
    s.duration = 0;
  }
  // The next timed op into t; false after max_ops or once the input is used up.
  bool next(TimedOp& t) {
    if (ops_ == o_.max_ops || r_->exhausted()) return false;
    ++ops_;
    t.at = scope_.now;
    op(t.op);
    scope_.note(t.op);
    return true;
  }
  // The run's length, read after the last op: up to max_advance past it.
  Nanos duration() { return std::max<Nanos>(scope_.now + r_->range(0, o_.max_advance), 1); }

  // The whole scenario.
  Scenario scenario(Reader& r) {
    Scenario s;
    begin(r, s);
    s.ops.reserve(o_.max_ops);
    for (TimedOp t; next(t);) s.ops.push_back(std::move(t));
    s.duration = duration();
    return s;
  }

 private:
  // Durations of every magnitude in [lo, hi]: ns, us, whole ticks (ms), any.
  Nanos duration(Nanos lo, Nanos hi) {
    Nanos d;
    switch (r_->range(0, 3)) {
      case 0: d = r_->range(1, 1'000); break;
      case 1: d = r_->range(1'000, 1'000'000); break;
      case 2: d = r_->range(1, 4) * 1'000'000; break;
      default: d = r_->range(lo, hi); break;
    }
    return std::clamp(d, lo, hi);
  }
  CpuMask affinity() {  // 0 = every CPU
    const uint64_t bits = r_->range(0, (uint64_t{1} << scope_.nr_cpus) - 1);
    CpuMask m;
    for (unsigned c = 0; c < scope_.nr_cpus; ++c)
      if (bits >> c & 1) m.set(c);
    return m;
  }
  int nice() { return static_cast<int>(r_->range(0, 39)) - 20; }
  const std::string& task_name() { return scope_.tasks[r_->range(0, scope_.tasks.size() - 1)]; }
  const std::string& group_path(std::size_t first) {
    return scope_.groups[r_->range(first, scope_.groups.size() - 1)].first;
  }
  const std::string& task_group() { return o_.root_tasks_only ? scope_.groups.front().first : group_path(0); }

  void task(TaskSpec& t) {
    t.name = "t" + std::to_string(scope_.next_task);
    t.group = task_group();
    t.nice = nice();
    if (r_->range(0, 7) == 0) t.policy = static_cast<Policy>(r_->range(1, 2));  // SCHED_BATCH or SCHED_IDLE
    t.cpus = affinity();
    const uint64_t kind = o_.busy_only ? 0 : r_->range(0, 2);
    if (kind != 0) {
      // Sleeps of at least kMinSleep keep the number of events (and so one
      // execution's time) bounded; runs may be as short as 1 ns, but one that
      // waits to be woken (sleep=wait) runs kMinSleep at least: a waker
      // waking it as soon as it sleeps is then bounded by its runs.
      Nanos run = duration(1, 5'000'000);
      std::optional<Nanos> sleep;
      switch (r_->range(0, 7)) {
        case 7: break;  // one burst, then exit
        case 6: sleep = kSleepWait, run = std::max(run, kMinSleep); break;
        default: sleep = duration(kMinSleep, 20'000'000);
      }
      if (kind == 1) t.behaviour = RunPeriodic{run, sleep};
      else t.behaviour = RunWallclock{run, sleep};
      if (!scope_.tasks.empty() && r_->range(0, 3) == 0) {  // wakes another as its bursts end (a pipe's writer)
        t.wakes.push_back(task_name());
        t.wake_sync = r_->range(0, 1) != 0;
      }
    }
    if (o_.churn && r_->range(0, 7) == 0) {  // forks every kMinSleep at least, as sleeps bound the events
      const uint64_t children = r_->range(0, 16);  // 0: no limit, then a fork every 1ms at most
      t.churn = Churn{duration(children ? kMinSleep : kMinUnlimitedFork, 2'000'000), duration(1, 500'000), children};
    }
  }
  std::pair<uint64_t, std::optional<uint32_t>> shares() {
    switch (r_->range(0, 3)) {
      case 0: return {1024, std::nullopt};
      case 1: return {r_->range(kFairMinShares, kFairMaxShares), std::nullopt};
      case 2: {
        const auto w = static_cast<uint32_t>(r_->range(kMinCgroupWeight, kMaxCgroupWeight));
        return {sched_weight_from_cgroup(w), w};
      }
      default: return {r_->range(kFairMinShares, 100), std::nullopt};
    }
  }
  void group(GroupSpec& g) {  // scope_.group_has_room(): a fresh group under one with room
    const auto has_room = [](const auto& p) { return p.second < OpScope::kMaxGroupDepth; };
    auto pick = r_->range(0, std::count_if(scope_.groups.begin(), scope_.groups.end(), has_room) - 1);
    auto parent = scope_.groups.begin();
    for (;; ++parent)
      if (has_room(*parent) && pick-- == 0) break;
    g.path = scope_.new_group_path(parent->first);
    std::tie(g.shares, g.weight) = shares();
  }
  // An op of a kind picked by the table's weights; an advance when that kind
  // cannot be formed here (it needs a task, a non-root group, room for a
  // group, or hotplug for an op that names a CPU).
  void op(Op& o) {
    static constexpr unsigned kTotal = [] {
      unsigned t = 0;
      for (unsigned w : op_table::kWeights) t += w;
      return t;
    }();
    uint64_t pick = r_->range(0, kTotal - 1);
    std::size_t kind = 0;
    while (pick >= op_table::kWeights[kind]) pick -= op_table::kWeights[kind++];
    o = default_op(kind);
    if (!scope_.can_form(o) || !op_table::visit([&](const auto& row, auto& x) { return form(row, x); }, o))
      o = op::Advance{advance()};
  }
  // The op's arguments, read in their order.
  template <class R, class O> bool form(const R& row, O& x) {
    if constexpr (R::custom) {
      return custom(x);
    } else {
      bool ok = true;
      op_table::for_each_arg(row, [&](const auto& a) { ok = ok && (a.kind != op_table::Arg::cpu || o_.hotplug); });
      op_table::for_each_arg(row, [&](const auto& a) { ok = ok && value(a, x.*a.field); });
      return ok;
    }
  }
  // An argument of each kind (op_table.h); false when it cannot be formed.
  template <class A, class V> bool value(const A&, V& v) {
    if constexpr (A::kind == op_table::Arg::task) v = task_name();
    else if constexpr (A::kind == op_table::Arg::any_group) v = task_group();
    else if constexpr (A::kind == op_table::Arg::group) v = group_path(1);
    else if constexpr (A::kind == op_table::Arg::leaf_group) {
      v = group_path(1);  // a leaf: the last group under it, if it has any
      for (const auto& [p, depth] : scope_.groups)
        if (p.starts_with(v + "/")) v = p;
      return scope_.is_leaf_group(v);
    } else if constexpr (A::kind == op_table::Arg::nice) v = nice();
    else if constexpr (A::kind == op_table::Arg::cpus) v = affinity();
    else if constexpr (A::kind == op_table::Arg::cpu) v = static_cast<unsigned>(r_->range(0, scope_.nr_cpus - 1));
    else if constexpr (A::kind == op_table::Arg::span) v = advance();
    else if constexpr (A::kind == op_table::Arg::policy) v = static_cast<Policy>(r_->range(0, 2));
    else v = r_->range(0, 1) != 0;  // a word
    return true;
  }
  // The Custom rows, within the options' limits.
  bool custom(op::Spawn& s) { return scope_.tasks.size() < o_.max_tasks && (task(s.task), true); }
  bool custom(op::CreateGroup& g) { return scope_.groups.size() - 1 < o_.max_groups && (group(g.group), true); }
  bool custom(op::SetShares& sh) {
    sh.group = group_path(1);
    std::tie(sh.shares, sh.weight) = shares();
    return true;
  }
  Nanos advance() {
    const Nanos left = o_.max_time > scope_.now ? o_.max_time - scope_.now : 1;
    return duration(1, std::clamp<Nanos>(left, 1, o_.max_advance));
  }

  DecodeOptions o_;
  Reader* r_ = nullptr;
  OpScope scope_;
  unsigned ops_ = 0;
};

template <class Reader> Scenario decode_ops_scenario(Reader& r, DecodeOptions o = {}) {
  return OpsDecoder<Reader>(o).scenario(r);
}

}  // namespace cfsv
