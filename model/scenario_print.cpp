// The canonical printer of scenario files (docs/scenario-format.md,
// "Canonical form"): print_scenario's output parses back to an equal Scenario.
#include <algorithm>
#include <type_traits>
#include <utility>

#include "overloaded.h"
#include "scenario_parser.h"
#include "scenario_text.h"
#include "scenario_values.h"

namespace cfsv {

using namespace scenario_text;

namespace {

std::string task_fields(const TaskSpec& t) {
  std::string s = t.group.empty() ? "" : "group=" + t.group + " ";
  if (!t.parent.empty()) s += "parent=" + t.parent + " ";
  s += "nice=" + std::to_string(t.nice);
  if (t.cpus.any()) s += " cpus=" + format_cpu_list(t.cpus);
  std::visit(
      [&](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, RunBusy>) {
          s += " run=busy";
        } else {
          s += (std::is_same_v<T, RunPeriodic> ? " run=" : " runtime=");
          if constexpr (std::is_same_v<T, RunPeriodic>) s += format_duration(b.run);
          else s += format_duration(b.runtime);
          if (b.sleep) s += " sleep=" + format_duration(*b.sleep);
        }
      },
      t.behaviour);
  if (t.churn.every) {
    s += " fork=" + format_duration(t.churn.every) + " child=" + format_duration(t.churn.child_run);
    if (t.churn.children) s += " children=" + std::to_string(t.churn.children);
  }
  return s;
}

std::string shares_text(const GroupSpec& g) {
  return g.weight ? "weight=" + std::to_string(*g.weight) : "shares=" + std::to_string(g.shares);
}

std::string cpu_op_text(const op::SetCpuOnline& o) {
  return std::string(o.online ? "cpu online " : "cpu offline ") + std::to_string(o.cpu);
}

std::string op_text(const Op& op) {
  return std::visit(
      [](const auto& o) -> std::string {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, op::Spawn>) return "spawn " + o.task.name + " " + task_fields(o.task);
        else if constexpr (std::is_same_v<T, op::Exit>) return "exit " + o.task;
        else if constexpr (std::is_same_v<T, op::Sleep>) return "sleep " + o.task;
        else if constexpr (std::is_same_v<T, op::Wake>) return "wake " + o.task;
        else if constexpr (std::is_same_v<T, op::SetNice>) return "nice " + o.task + " " + std::to_string(o.nice);
        else if constexpr (std::is_same_v<T, op::SetAffinity>) return "affinity " + o.task + " " + format_cpu_list(o.cpus);
        else if constexpr (std::is_same_v<T, op::CreateGroup>)
          return "group " + o.group.path + " " + shares_text(o.group);
        else if constexpr (std::is_same_v<T, op::SetShares>)
          return (o.weight ? "weight " + o.group + " " + std::to_string(*o.weight)
                           : "shares " + o.group + " " + std::to_string(o.shares));
        else if constexpr (std::is_same_v<T, op::MoveTask>) return "move " + o.task + " " + o.group;
        else if constexpr (std::is_same_v<T, op::Advance>) return "advance " + format_duration(o.by);
        else if constexpr (std::is_same_v<T, op::DestroyGroup>) return "cgroup destroy " + o.group;
        else if constexpr (std::is_same_v<T, op::Setsid>) return "setsid " + o.task;
        else if constexpr (std::is_same_v<T, op::AutogroupNice>)
          return "autogroup nice " + o.task + " " + std::to_string(o.nice);
        else if constexpr (std::is_same_v<T, op::SetCpuOnline>) return cpu_op_text(o);
        else static_assert(!sizeof(T), "print_scenario: a new Op needs a scenario-file form (model/scenario_print.cpp)");
      },
      op);
}

}  // namespace

std::string print_scenario(const Scenario& s) {
  std::string out;
  auto line = [&](const std::string& l) { out += l + "\n"; };
  line("kernel " + s.kernel);
  line("topology " + topology_text(s.topology));
  // One `set`/`feature` line, or more when a key repeats (a line names each key once).
  auto keyed_lines = [&](std::string_view kw, const std::vector<std::pair<std::string, std::string>>& kvs) {
    std::string l;
    std::vector<std::string_view> keys;
    for (const auto& [k, v] : kvs) {
      if (std::find(keys.begin(), keys.end(), k) != keys.end()) {
        line(l);
        l.clear();
        keys.clear();
      }
      if (l.empty()) l = kw;
      l += " " + k + "=" + v;
      keys.push_back(k);
    }
    if (!l.empty()) line(l);
  };
  std::vector<std::pair<std::string, std::string>> kvs;
  for (const Setting& st : s.settings) {
    const SettingKey* k = setting_key(st.key);
    std::string v = std::to_string(st.value);
    if (k && k->kind == ValueKind::duration) v = format_duration(st.value);
    if (k && k->kind == ValueKind::scaling && st.value < kScalingNames.size()) v = kScalingNames[st.value];
    kvs.emplace_back(st.key, v);
  }
  keyed_lines("set", kvs);
  kvs.clear();
  for (const auto& [f, on] : s.feature_overrides) kvs.emplace_back(std::string(to_string(f)), on ? "on" : "off");
  keyed_lines("feature", kvs);
  for (const GroupSpec& g : s.groups) line("group " + g.path + " " + shares_text(g));
  for (const TaskSpec& t : s.tasks) line("task " + t.name + " " + task_fields(t));
  for (const TimedOp& o : s.ops) line("at " + format_duration(o.at) + " " + op_text(o.op));
  line("run " + format_duration(s.duration));
  return out;
}

std::string describe(const Op& op) {
  return std::visit(Overloaded{
                        [](const op::Spawn& o) { return "spawn " + o.task.name; },
                        [](const op::Exit& o) { return "exit " + o.task; },
                        [](const op::Sleep& o) { return "sleep " + o.task; },
                        [](const op::Wake& o) { return "wake " + o.task; },
                        [](const op::SetNice& o) { return "nice " + o.task + " " + std::to_string(o.nice); },
                        [](const op::SetAffinity& o) { return "affinity " + o.task; },
                        [](const op::CreateGroup& o) { return "group " + o.group.path; },
                        [](const op::SetShares& o) { return "shares " + o.group + " " + std::to_string(o.shares); },
                        [](const op::MoveTask& o) { return "move " + o.task + " " + o.group; },
                        [](const op::Advance& o) { return "advance " + std::to_string(o.by) + "ns"; },
                        [](const op::DestroyGroup& o) { return "cgroup destroy " + o.group; },
                        [](const op::Setsid& o) { return "setsid " + o.task; },
                        [](const op::AutogroupNice& o) { return "autogroup nice " + o.task + " " + std::to_string(o.nice); },
                        [](const op::SetCpuOnline& o) { return cpu_op_text(o); },
                    },
                    op);
}

}  // namespace cfsv
