// A scenario: the data behind a scenario file (docs/scenario-format.md) and
// the one operation vocabulary (Op) that scenario files, RapidCheck commands
// and the fuzz decoders all produce.
#pragma once
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cpumask.h"
#include "features.h"

namespace cfsv {

using Nanos = uint64_t;

// Where a statement came from, for error messages and violation reports.
struct SourceLoc {
  unsigned line = 0;
  unsigned col = 0;
};

// CPU n = (socket * cores + core) * threads + thread. NUMA node k holds CPUs
// [k * n / nodes, (k + 1) * n / nodes): a run of whole sockets, or (more
// nodes than sockets: sub-NUMA clustering, AMD's multi-die packages) an equal
// part of one socket's cores. docs/scenario-format.md, "Topology";
// model/topology.h builds the sched domains from it.
struct Topology {
  unsigned sockets = 1;
  unsigned cores = 1;    // per socket
  unsigned threads = 1;  // per core
  unsigned nodes = 0;    // NUMA nodes, dividing sockets or their multiple; 0: not given, one per socket
  // node_distance(a, b) at [a * nr_nodes() + b]; empty: not given, 10 local and 20 remote.
  std::vector<unsigned> distance = {};
  // arch_scale_cpu_capacity per CPU, 0 where not given (the era's default);
  // empty when none is given.
  std::vector<unsigned> capacity = {};
  // arch_asym_cpu_priority per CPU (x86 ITMT: SD_ASYM_PACKING on the SMT and
  // MC levels, v5.15), 0 where not given; empty when none is given.
  std::vector<unsigned> priority = {};
  unsigned nr_cpus() const { return sockets * cores * threads; }
  unsigned nr_nodes() const { return nodes ? nodes : sockets; }
  unsigned cpu_node(unsigned cpu) const { return cpu / (nr_cpus() / nr_nodes()); }
  // Some socket holds more than one node (x86's x86_has_numa_in_package).
  bool numa_in_package() const { return nr_nodes() > sockets; }
  // LOCAL_DISTANCE and REMOTE_DISTANCE (include/linux/topology.h) when no table is given.
  unsigned node_distance(unsigned a, unsigned b) const {
    return distance.empty() ? (a == b ? 10 : 20) : distance[a * nr_nodes() + b];
  }
  bool operator==(const Topology&) const = default;
};

// sleep=wait: no timer; the task sleeps until a `wake` or `ttwu` op, or
// another task's wakes=, wakes it. Beyond every duration a file can give.
constexpr uint64_t kSleepWait = ~uint64_t{0};

// Its scheduling policy (sched_setscheduler; include/uapi/linux/sched.h):
// SCHED_NORMAL, SCHED_BATCH (never preempts on wakeup; a yield does not
// account its runtime) or SCHED_IDLE (weight 3 whatever its nice; preempted
// by any other woken task; never cache hot; v5.4+ places wakeups on a CPU
// running only such tasks as on an idle one). docs/policies.md.
enum class Policy : uint8_t { normal, batch, idle };
constexpr const char* kPolicyNames[] = {"normal", "batch", "idle"};
inline const char* policy_name(Policy p) { return kPolicyNames[static_cast<unsigned>(p)]; }

// What a task does when it runs.
struct RunBusy {  // run=busy
  bool operator==(const RunBusy&) const = default;
};
struct RunPeriodic {  // run=<cpu time> sleep=<dur>|wait; no sleep: exit after run
  Nanos run = 0;
  std::optional<Nanos> sleep;
  bool operator==(const RunPeriodic&) const = default;
};
struct RunWallclock {  // runtime=<wall time> sleep=<dur>: busy-waits until t0 + runtime
  Nanos runtime = 0;
  std::optional<Nanos> sleep;
  bool operator==(const RunWallclock&) const = default;
};
using Behaviour = std::variant<RunBusy, RunPeriodic, RunWallclock>;
// The sleep after each burst: none (run=busy never ends one; otherwise the
// task exits), a duration, or kSleepWait.
inline std::optional<Nanos> sleep_of(const Behaviour& b) {
  if (const auto* p = std::get_if<RunPeriodic>(&b)) return p->sleep;
  if (const auto* w = std::get_if<RunWallclock>(&b)) return w->sleep;
  return std::nullopt;
}

// Fork/exit churn (`fork=<interval> child=<cpu time> [children=N]`): a task
// that forks a short-lived child every interval of wall-clock time from its
// own fork, as a shell loop or a spawn benchmark does; each child runs
// child= of CPU time, then exits (docs/model.md, "Fork/exit churn").
struct Churn {
  Nanos every = 0;        // fork=; 0: the task forks no children
  Nanos child_run = 0;    // child=
  uint64_t children = 0;  // children=; 0: no limit
  bool operator==(const Churn&) const = default;
};

struct TaskSpec {
  std::string name;
  // Its cgroup. Empty only with a parent: the parent's group at the spawn.
  std::string group = "/";
  int nice = 0;
  CpuMask cpus;  // empty = all
  Behaviour behaviour = RunBusy{};
  // The task that forks it (`parent=`); empty: none, as docs/model.md "Fork" says.
  std::string parent;
  Churn churn{};
  // wakes=NAME[,NAME...] [sync=on]: at the end of each burst, before it
  // sleeps or exits, the task wakes the next of these tasks in turn from its
  // own CPU, as a pipe write or a futex wake does (try_to_wake_up with the
  // task current there; WF_SYNC with sync=on, as pipes and sockets pass).
  std::vector<std::string> wakes = {};
  bool wake_sync = false;
  Policy policy = {};  // policy=; {}: normal
  // A child a churning task forked (never in a scenario file): it has no name
  // ops can use, and its Task slot is reused once it has exited (model/sim.h).
  bool churn_child = false;
  bool operator==(const TaskSpec&) const = default;
};

// sched_weight_from_cgroup (kernel/sched/sched.h, v6.8; the same arithmetic as
// cpu_weight_write_u64 in kernel/sched/core.c since v4.15): cgroup v2
// cpu.weight (1..10000, default 100) to shares, DIV_ROUND_CLOSEST(w * 1024, 100).
constexpr uint64_t sched_weight_from_cgroup(uint64_t cgrp_weight) { return (cgrp_weight * 1024 + 50) / 100; }

struct GroupSpec {
  std::string path;        // "/g0", "/a/b"
  uint64_t shares = 1024;  // cgroup v1 cpu.shares (weight=W means W * 1024 / 100)
  // Set when written as cgroup v2 `weight=W`: then shares == sched_weight_from_cgroup(W).
  // Kept so that a printed scenario says what its author wrote.
  std::optional<uint32_t> weight = std::nullopt;
  bool operator==(const GroupSpec&) const = default;
};

// The operation vocabulary: every state change is one of these.
namespace op {
struct Spawn { TaskSpec task; bool operator==(const Spawn&) const = default; };
struct Exit { std::string task; bool operator==(const Exit&) const = default; };
struct Sleep { std::string task; bool operator==(const Sleep&) const = default; };
struct Wake { std::string task; bool operator==(const Wake&) const = default; };
struct SetNice { std::string task; int nice = 0; bool operator==(const SetNice&) const = default; };
struct SetAffinity { std::string task; CpuMask cpus; bool operator==(const SetAffinity&) const = default; };
struct CreateGroup { GroupSpec group; bool operator==(const CreateGroup&) const = default; };
struct SetShares {  // `shares /g N`, or `weight /g W` (then weight is set, as in GroupSpec)
  std::string group;
  uint64_t shares = 1024;
  std::optional<uint32_t> weight = std::nullopt;
  bool operator==(const SetShares&) const = default;
};
struct MoveTask { std::string task; std::string group; bool operator==(const MoveTask&) const = default; };
struct Advance { Nanos by = 0; bool operator==(const Advance&) const = default; };
// `cgroup destroy /path`: rmdir of an empty cgroup (model/cgroup.h).
struct DestroyGroup { std::string group; bool operator==(const DestroyGroup&) const = default; };
// `setsid TASK`: ksys_setsid's sched_autogroup_create_attach.
struct Setsid { std::string task; bool operator==(const Setsid&) const = default; };
// `autogroup nice TASK N`: a write to /proc/PID/autogroup (proc_sched_autogroup_set_nice).
struct AutogroupNice { std::string task; int nice = 0; bool operator==(const AutogroupNice&) const = default; };
// `cpu offline N` / `cpu online N`: a write to /sys/devices/system/cpu/cpuN/online (model/hotplug.h).
struct SetCpuOnline { unsigned cpu = 0; bool online = true; bool operator==(const SetCpuOnline&) const = default; };
// `yield TASK`: the task calls sched_yield(2) (do_sched_yield).
struct Yield { std::string task; bool operator==(const Yield&) const = default; };
// try_to_wake_up(task) run on CPU cpu (an interrupt or a task there wakes it),
// not on its own; sync: WF_SYNC, from the task running there, about to sleep.
struct Ttwu {
  std::string task;
  unsigned cpu = 0;
  bool sync = false;
  bool operator==(const Ttwu&) const = default;
};
// `policy TASK normal|batch|idle`: sched_setscheduler(2) between the fair
// policies (as `chrt -o|-b|-i -p 0 PID`), the nice kept.
struct SetPolicy { std::string task; Policy policy = {}; bool operator==(const SetPolicy&) const = default; };
// `idle /path 0|1`: a write to the group's cpu.idle (sched_group_set_idle, v5.15+).
struct SetGroupIdle { std::string group; bool idle = false; bool operator==(const SetGroupIdle&) const = default; };
}  // namespace op
// New kinds go at the end: the fuzz decoders pick a kind by its index.
using Op = std::variant<op::Spawn, op::Exit, op::Sleep, op::Wake, op::SetNice, op::SetAffinity, op::CreateGroup,
                        op::SetShares, op::MoveTask, op::Advance, op::DestroyGroup, op::Setsid, op::AutogroupNice, op::SetCpuOnline,
                        op::Yield, op::Ttwu, op::SetPolicy, op::SetGroupIdle>;

struct TimedOp {
  Nanos at = 0;
  Op op;
  SourceLoc loc;
  bool operator==(const TimedOp& o) const { return at == o.at && op == o.op; }
};

// `set key=value`: sysctl-style writes applied after the profile's defaults
// and CPU scaling, in file order.
struct Setting {
  std::string key;  // hz, latency, min_granularity, wakeup_granularity, ...
  uint64_t value = 0;  // ns for durations; for `scaling`, the TunableScaling value (0 none, 1 log, 2 linear)
  bool operator==(const Setting&) const = default;
};

struct Scenario {
  std::string kernel{kDefaultProfile};  // profile name
  Topology topology;
  std::vector<Setting> settings;
  std::vector<std::pair<Feature, bool>> feature_overrides;
  std::vector<GroupSpec> groups;
  std::vector<TaskSpec> tasks;  // spawned at time 0, in order
  std::vector<TimedOp> ops;     // `at <time> <op>`, in time order
  Nanos duration = 0;           // `run <duration>`
  bool operator==(const Scenario&) const = default;
};

}  // namespace cfsv
