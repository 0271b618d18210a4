#include "cli/series.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <ostream>

#include "model/trace.h"

namespace cfsv::cli {

namespace {

using Object = SeriesColumn::Object;

bool has_task(const Scenario& sc, std::string_view name) {
  if (std::any_of(sc.tasks.begin(), sc.tasks.end(), [&](const TaskSpec& t) { return t.name == name; })) return true;
  return std::any_of(sc.ops.begin(), sc.ops.end(), [&](const TimedOp& o) {
    const auto* s = std::get_if<op::Spawn>(&o.op);
    return s && s->task.name == name;
  });
}

bool has_group(const Scenario& sc, std::string_view path) {
  if (path == "/") return true;
  if (std::any_of(sc.groups.begin(), sc.groups.end(), [&](const GroupSpec& g) { return g.path == path; })) return true;
  return std::any_of(sc.ops.begin(), sc.ops.end(), [&](const TimedOp& o) {
    const auto* c = std::get_if<op::CreateGroup>(&o.op);
    return c && c->group.path == path;
  });
}

// "cpu3" -> 3; nullopt when it is not of that form.
std::optional<unsigned> cpu_number(std::string_view s) {
  if (!s.starts_with("cpu") || s.size() == 3 || s.size() > 6) return std::nullopt;
  unsigned n = 0;
  const auto r = std::from_chars(s.data() + 3, s.data() + s.size(), n);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return n;
}

std::string names_of(unsigned on) {
  std::string r;
  for (const Signal& g : all_signals())
    for (const SignalOn kind : kSignalKinds)
      if (g.on & on & kind) r += (r.empty() ? "" : ", ") + full_name(g, kind);
  return r;
}

// One item of --series: what it names and the kinds of object it reaches.
struct Item {
  Object object;
  std::string name;  // the task, or the group ("/" for a CPU)
  std::optional<unsigned> only_cpu;
  unsigned on;  // SignalOn bits
  std::optional<SignalRef> only;  // :SIGNAL
};

std::variant<Item, std::string> parse_item(std::string_view item, const Scenario& sc) {
  const std::string quoted = "'" + std::string(item) + "'";
  const unsigned nr_cpus = sc.topology.nr_cpus();
  const std::size_t colon = item.find(':');
  std::string_view entity = item.substr(0, colon);
  Item it{Object::task, "", std::nullopt, 0, std::nullopt};
  if (const std::size_t at = entity.find('@'); at != entity.npos) {
    it.only_cpu = cpu_number(entity.substr(at + 1));
    if (!it.only_cpu) return quoted + ": '" + std::string(entity.substr(at + 1)) + "' is not cpuN";
    entity = entity.substr(0, at);
  }
  if (entity.empty()) return "empty entity in " + quoted + " (a task, a group path or cpuN)";
  it.name = entity;
  if (entity.starts_with('/')) {
    if (!has_group(sc, entity)) return quoted + ": no group '" + it.name + "' in the scenario";
    it.object = Object::group;
  } else if (const std::optional<unsigned> cpu = cpu_number(entity)) {
    if (has_task(sc, entity)) return quoted + ": '" + it.name + "' names both a task and a CPU";
    if (it.only_cpu) return quoted + ": @cpuN is for a group, not for a CPU";
    it.object = Object::group_cfs_rq, it.name = "/", it.only_cpu = cpu;
  } else if (!has_task(sc, entity)) {
    return quoted + ": no task, group or CPU '" + it.name + "' in the scenario";
  } else if (it.only_cpu) {
    return quoted + ": @cpuN is for a group, not for a task";
  }
  if (it.only_cpu && *it.only_cpu >= nr_cpus)
    return quoted + ": the scenario has " + std::to_string(nr_cpus) + " CPUs (cpu0..cpu" +
           std::to_string(nr_cpus - 1) + ")";
  it.on = on_cfs_rq;
  if (it.object == Object::task) it.on = on_task | on_entity;
  if (it.object == Object::group && !it.only_cpu) it.on |= on_group;
  if (it.object == Object::group && it.name != "/") it.on |= on_entity;
  if (colon != item.npos) {
    const std::string_view signal = item.substr(colon + 1);
    it.only = signal_by_name(signal);
    if (!it.only || !(it.only->kind & it.on))
      return quoted + ": '" + std::string(signal) + "' is not one of its signals: " + names_of(it.on);
  }
  return it;
}

}  // namespace

std::variant<std::vector<SeriesColumn>, std::string> parse_series(std::string_view spec, const Scenario& sc) {
  std::vector<SeriesColumn> cols;
  auto add = [&](SeriesColumn c) {
    if (std::none_of(cols.begin(), cols.end(), [&](const SeriesColumn& o) { return o.label == c.label; }))
      cols.push_back(std::move(c));
  };
  while (true) {
    const std::size_t comma = spec.find(',');
    auto parsed = parse_item(spec.substr(0, comma), sc);
    if (auto* why = std::get_if<std::string>(&parsed)) return *why;
    const Item& it = std::get<Item>(parsed);
    for (const Signal& g : all_signals()) {
      for (const SignalOn kind : kSignalKinds) {
        if (!(g.on & it.on & kind) || (it.only && (it.only->signal != &g || it.only->kind != kind))) continue;
        const std::string sig = ":" + full_name(g, kind);
        if (it.object == Object::task || kind == on_group) {
          add({it.name + sig, &g, kind, it.object, it.name, {}});
          continue;
        }
        for (unsigned c = 0; c < sc.topology.nr_cpus(); ++c) {
          if (it.only_cpu && c != *it.only_cpu) continue;
          const std::string cpu = "cpu" + std::to_string(c);
          add({(it.name == "/" ? cpu : it.name + "@" + cpu) + sig, &g, kind,
               kind == on_entity ? Object::group_entity : Object::group_cfs_rq, it.name, CpuId(c)});
        }
      }
    }
    if (cols.size() > kMaxSeriesColumns)
      return "more than " + std::to_string(kMaxSeriesColumns) + " columns; name fewer entities, CPUs (@cpuN) or "
             "signals (:SIGNAL)";
    if (comma == spec.npos) break;
    spec.remove_prefix(comma + 1);
  }
  return cols;
}

std::optional<SignalTarget> target_of(const Sim& sim, const SeriesColumn& c) {
  const Sched& s = sim.sched();
  SignalTarget t;
  if (c.object == Object::task) {
    t.task = sim.task_index(c.name);
    if (!t.task) return std::nullopt;
    t.se = s.tasks[t.task].se;
    return t;
  }
  const GroupId g = sim.group_index(c.name);
  if (!g) return std::nullopt;
  if (c.object == Object::group) t.group = g;
  if (c.object == Object::group_entity) t.se = s.tg[g].se[c.cpu];
  if (c.object == Object::group_cfs_rq) t.cfs_rq = s.tg[g].cfs_rq[c.cpu];
  return t;
}

SeriesSampler::SeriesSampler(std::vector<SeriesColumn> columns, Nanos step, std::ostream* csv, std::string csv_name,
                             LineChart* chart)
    : columns_(std::move(columns)), step_(std::max<Nanos>(step, 1)), csv_(csv), csv_name_(std::move(csv_name)),
      chart_(chart), targets_(columns_.size()) {}

std::vector<LineChart::Line> SeriesSampler::chart_lines(const std::vector<SeriesColumn>& columns) {
  std::vector<LineChart::Line> v;
  for (const SeriesColumn& c : columns) v.push_back({c.label, std::string(c.signal->unit)});
  return v;
}

void SeriesSampler::take(const Sim& sim) {
  const Nanos now = sim.now();
  if (last_ == now) return;
  std::string row;
  if (!last_) {  // the first sample: the header first
    row = "t_ns";
    for (const SeriesColumn& c : columns_) row += "," + c.label;
    row += '\n';
  }
  last_ = now;
  row += std::to_string(now);
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    row += ',';
    if (!targets_[i]) targets_[i] = target_of(sim, columns_[i]);  // names are never reused: found is found
    const std::optional<int64_t> v = targets_[i] ? columns_[i].signal->get(sim.sched(), *targets_[i]) : std::nullopt;
    if (!v) continue;
    char b[24];
    row.append(b, std::to_chars(b, b + sizeof b, *v).ptr);
    if (chart_) chart_->add(i, now, *v);
  }
  if (!csv_) return;
  row += '\n';
  errno = 0;
  if (!csv_->write(row.data(), static_cast<std::streamsize>(row.size()))) write_failed(csv_name_);
}

bool SeriesSampler::at_end(const Sim& sim) {
  take(sim);
  return true;
}

bool SeriesSampler::run_to(Sim& sim, Nanos t) {
  for (; next_ <= t; next_ += step_) {
    if (sim.run_to(next_)) return at_end(sim);
    take(sim);
    if (next_ > UINT64_MAX - step_) break;
  }
  return sim.run_to(t) ? at_end(sim) : false;
}

void SeriesSampler::finish() {
  errno = 0;
  if (csv_ && !csv_->flush()) write_failed(csv_name_);
}

}  // namespace cfsv::cli
