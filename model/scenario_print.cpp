// The canonical printer of scenario files (docs/scenario-format.md,
// "Canonical form"): print_scenario's output parses back to an equal Scenario.
#include <algorithm>
#include <type_traits>
#include <utility>

#include "op_table.h"
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
  if (t.policy != Policy::normal) s += std::string(" policy=") + policy_name(t.policy);
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
          if (b.sleep) s += " sleep=" + (*b.sleep == kSleepWait ? std::string("wait") : format_duration(*b.sleep));
        }
      },
      t.behaviour);
  if (t.churn.every) {
    s += " fork=" + format_duration(t.churn.every) + " child=" + format_duration(t.churn.child_run);
    if (t.churn.children) s += " children=" + std::to_string(t.churn.children);
  }
  for (std::size_t i = 0; i < t.wakes.size(); ++i) s += (i ? "," : " wakes=") + t.wakes[i];
  if (t.wake_sync) s += " sync=on";
  return s;
}

std::string shares_text(const GroupSpec& g) {
  return g.weight ? "weight=" + std::to_string(*g.weight) : "shares=" + std::to_string(g.shares);
}

// One argument of each kind (op_table.h) as written.
template <class O> std::string arg_text(const O& o, const op_table::Task<O>& a) { return o.*a.field; }
template <class O> std::string arg_text(const O& o, const op_table::AnyGroup<O>& a) { return o.*a.field; }
template <class O> std::string arg_text(const O& o, const op_table::Group<O>& a) { return o.*a.field; }
template <class O> std::string arg_text(const O& o, const op_table::LeafGroup<O>& a) { return o.*a.field; }
template <class O> std::string arg_text(const O& o, const op_table::Nice<O>& a) { return std::to_string(o.*a.field); }
template <class O> std::string arg_text(const O& o, const op_table::Cpus<O>& a) { return format_cpu_list(o.*a.field); }
template <class O> std::string arg_text(const O& o, const op_table::Cpu<O>& a) { return std::to_string(o.*a.field); }
template <class O> std::string arg_text(const O& o, const op_table::Span<O>& a) { return format_duration(o.*a.field); }
template <class O> std::string arg_text(const O& o, const op_table::PolicyName<O>& a) {
  return policy_name(o.*a.field);
}
template <class O> std::string arg_text(const O& o, const op_table::Word<O>& a) {
  return std::string(o.*a.field ? a.on : a.off);
}

// The Custom rows; `brief`: a task's or group's name only.
std::string custom_text(const op::Spawn& o, bool brief) {
  return "spawn " + o.task.name + (brief ? "" : " " + task_fields(o.task));
}
std::string custom_text(const op::CreateGroup& o, bool brief) {
  return "group " + o.group.path + (brief ? "" : " " + shares_text(o.group));
}
std::string custom_text(const op::SetShares& o, bool) {
  return o.weight ? "weight " + o.group + " " + std::to_string(*o.weight)
                  : "shares " + o.group + " " + std::to_string(o.shares);
}

// An op after `at <time>`, from its row: the words, then the arguments.
std::string op_text(const Op& op, bool brief = false) {
  return op_table::visit(
      [&](const auto& row, const auto& o) -> std::string {
        if constexpr (std::decay_t<decltype(row)>::custom) {
          return custom_text(o, brief);
        } else {
          std::string s(row.words);
          op_table::for_each_arg(row, [&](const auto& a) {
            if (std::string t = arg_text(o, a); !t.empty()) s += " " + t;  // an optional word left out
          });
          return s;
        }
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

std::string describe(const Op& op) { return op_text(op, true); }

}  // namespace cfsv
