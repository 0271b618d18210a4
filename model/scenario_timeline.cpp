// The whole-file checks of a scenario's timed ops (docs/scenario-format.md,
// "Validation rules" 2 and 6): names resolve in time order, and the ops and
// their advances fit in the run.
#include <algorithm>
#include <type_traits>
#include <variant>

#include "op_table.h"
#include "overloaded.h"
#include "scenario_parser.h"
#include "scenario_text.h"
#include "scenario_values.h"

namespace cfsv::scenario_text {

std::string parent_path(const std::string& path) { return path.substr(0, std::max<std::size_t>(path.rfind('/'), 1)); }

Declared resolve_names(std::vector<PendingOp>& ops, Declared tasks, Declared groups) {
  std::stable_sort(ops.begin(), ops.end(), [](const PendingOp& a, const PendingOp& b) { return a.op.at < b.op.at; });
  std::map<std::string, const PendingOp*> spawn_of, create_of;  // first spawn/create of each name in time order
  for (const PendingOp& p : ops) {
    if (const auto* sp = std::get_if<op::Spawn>(&p.op.op)) spawn_of.try_emplace(sp->task.name, &p);
    if (const auto* cg = std::get_if<op::CreateGroup>(&p.op.op)) create_of.try_emplace(cg->group.path, &p);
  }
  auto when = [](const PendingOp* p) { return format_duration(p->op.at) + ", line " + std::to_string(p->op.loc.line); };
  for (const PendingOp& p : ops) {
    const std::string at_text = " at " + format_duration(p.op.at);
    auto need_task = [&](const std::string& t, const SourceLoc& loc) {
      if (tasks.count(t)) return;
      const auto it = spawn_of.find(t);
      fail_at(loc, "task " + quote(t) + " does not exist" + at_text +
                          (it != spawn_of.end() ? " (spawned at " + when(it->second) + ")" : ""));
    };
    auto need_group = [&](const std::string& g, std::string_view what = "group ", std::string_view of = "") {
      if (g == "/" || groups.count(g)) return;
      const auto it = create_of.find(g);
      fail_at(p.group, std::string(what) + quote(g) + std::string(of) + " does not exist" + at_text +
                           (it != create_of.end() ? " (created at " + when(it->second) + ")" : ""));
    };
    // The Custom rows (op_table.h) declare or name; the others name by their arguments.
    auto check = Overloaded{
        [&](const op::Spawn& o) {
          if (const auto it = tasks.find(o.task.name); it != tasks.end())
            fail_at(p.task, "duplicate task name " + quote(o.task.name) + " (first at line " +
                                std::to_string(it->second.line) + ")");
          if (!o.task.group.empty()) need_group(o.task.group);  // empty: the parent's
          if (!o.task.parent.empty()) need_task(o.task.parent, p.parent);
          tasks[o.task.name] = p.task;
        },
        [&](const op::CreateGroup& o) {
          if (const auto it = groups.find(o.group.path); it != groups.end())
            fail_at(p.group, "group " + quote(o.group.path) + " already exists (line " +
                                 std::to_string(it->second.line) + ")");
          need_group(parent_path(o.group.path), "parent group ", " of " + quote(o.group.path));
          groups[o.group.path] = p.group;
        },
        [&](const op::SetShares& o) { need_group(o.group); },
    };
    op_table::visit(
        [&](const auto& row, const auto& o) {
          if constexpr (std::decay_t<decltype(row)>::custom) {
            check(o);
          } else {
            op_table::for_each_arg(row, [&](const auto& a) {
              constexpr op_table::Arg kind = std::decay_t<decltype(a)>::kind;
              const auto& v = o.*a.field;
              if constexpr (kind == op_table::Arg::task) {
                need_task(v, p.task);
              } else if constexpr (kind == op_table::Arg::any_group || kind == op_table::Arg::group) {
                need_group(v);
              } else if constexpr (kind == op_table::Arg::leaf_group) {
                // rmdir's EBUSY for child groups is known here; for live tasks
                // only when the model runs (a rejected op, docs/scenario-format.md).
                need_group(v);
                const std::string below = v + "/";
                if (const auto c = groups.lower_bound(below); c != groups.end() && c->first.starts_with(below))
                  fail_at(p.group, "group " + quote(v) + " has a child group " + quote(c->first) + at_text +
                                       " (line " + std::to_string(c->second.line) + "); destroy it first");
                groups.erase(v);
              }
            });
          }
        },
        p.op.op);
  }
  return tasks;
}

void check_times(const std::vector<PendingOp>& ops, Nanos duration, unsigned run_line) {
  const std::string run_text = " (run " + format_duration(duration) + ", line " + std::to_string(run_line) + ")";
  Nanos clock = 0;                 // where the ops so far leave the simulation
  const PendingOp* advance = nullptr;  // the advance that moved it there, if one did
  for (const PendingOp& p : ops) {
    if (p.op.at > duration)
      fail_at(p.time, "time " + format_duration(p.op.at) + " is after the end of the run" + run_text);
    if (p.op.at < clock)
      fail_at(p.time, "time " + format_duration(p.op.at) + " is before " + format_duration(clock) +
                          ", where the advance at line " + std::to_string(advance->op.loc.line) + " ends");
    clock = p.op.at;
    if (const auto* a = std::get_if<op::Advance>(&p.op.op)) {
      if (a->by > duration - clock)
        fail_at(p.value, "advance " + format_duration(a->by) + " from " + format_duration(clock) +
                             " ends after the end of the run" + run_text);
      clock += a->by;
      advance = &p;
    }
  }
}

}  // namespace cfsv::scenario_text
