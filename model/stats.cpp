#include "stats.h"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdint>
#include <cstdio>

namespace cfsv {

namespace {
constexpr Nanos kNone = ~Nanos{0};
}  // namespace

Nanos cpu_time_at(const Sched& s, TaskId task, Nanos at) {
  const Task& t = s.tasks[task];
  const SchedEntity& e = s.se[t.se];
  Nanos v = e.sum_exec_runtime;
  if (t.state == TaskState::running && s.rq[t.cpu].curr == task && at > e.exec_start) v += at - e.exec_start;
  return v;
}

Nanos wait_at(const Sched& s, TaskId task, Nanos at) {
  const Task& t = s.tasks[task];
  return t.stats.wait_ns + (t.waiting ? at - t.wait_start : 0);
}

Nanos idle_at(const Sched& s, CpuId cpu, Nanos at) {
  const Rq& r = s.rq[cpu];
  return r.idle_ns + (r.curr == kIdle ? at - r.since : 0) - offline_at(s, cpu, at);
}

Nanos offline_at(const Sched& s, CpuId cpu, Nanos at) {
  const Rq& r = s.rq[cpu];
  return r.offline_ns + (cpu_active(s, cpu) ? 0 : at - r.offline_since);
}

Nanos busy_at(const Sched& s, CpuId cpu, Nanos at) {
  const Rq& r = s.rq[cpu];
  return r.busy_ns + (r.curr != kIdle ? at - r.since : 0);
}

// ---------------------------------------------------------------------------
// Histograms

void StretchHistogram::add(Nanos length) {
  const auto it = std::lower_bound(kept_.begin(), kept_.end(), length,
                                   [](const std::pair<Nanos, uint64_t>& e, Nanos l) { return e.first < l; });
  if (it != kept_.end() && it->first == length) ++it->second;
  else if (kept_.size() < kKept) kept_.insert(it, {length, 1});
  else ++other_;
}

uint64_t StretchHistogram::total() const {
  uint64_t n = other_;
  for (const auto& [len, c] : kept_) n += c;
  return n;
}

std::string format_histogram(std::span<const std::pair<Nanos, uint64_t>> by_length, uint64_t other, std::size_t top) {
  std::vector<std::pair<Nanos, uint64_t>> v(by_length.begin(), by_length.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < top; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%06" PRIu64 "ms x %" PRIu64, i ? ", " : "", v[i].first / 1000000,
                  v[i].first % 1000000, v[i].second);
    out += buf;
  }
  if (v.size() > top) out += ", ...";
  if (other) out += (out.empty() ? "" : ", ") + std::to_string(other) + " of other lengths";
  return out;
}

std::string format_histogram(const std::map<Nanos, uint64_t>& h, std::size_t top) {
  const std::vector<std::pair<Nanos, uint64_t>> v(h.begin(), h.end());
  return format_histogram(v, 0, top);
}

uint32_t LatencyHistogram::bucket_of(Nanos v) {
  constexpr Nanos kExact = Nanos{2} << kSubBits;
  if (v < kExact) return static_cast<uint32_t>(v);
  const unsigned shift = static_cast<unsigned>(std::bit_width(v)) - 1 - kSubBits;
  return static_cast<uint32_t>((shift << kSubBits) + (v >> shift));
}

Nanos LatencyHistogram::bucket_top(uint32_t bucket) {
  if (bucket < (2u << kSubBits)) return bucket;
  const unsigned shift = (bucket >> kSubBits) - 1;
  const Nanos top = bucket - (Nanos{shift} << kSubBits);
  return (top << shift) + ((Nanos{1} << shift) - 1);
}

void LatencyHistogram::add(Nanos v) {
  ++counts_[bucket_of(v)];
  ++count_;
  sum_ += v;
  max_ = std::max(max_, v);
}

Nanos LatencyHistogram::percentile(unsigned permille) const {
  if (!count_) return 0;
  const auto wanted = static_cast<uint64_t>((static_cast<unsigned __int128>(count_) * permille + 999) / 1000);
  const uint64_t rank = std::max<uint64_t>(wanted, 1);
  uint64_t seen = 0;
  for (const auto& [bucket, n] : counts_) {
    seen += n;
    if (seen >= rank) return std::min(bucket_top(bucket), max_);
  }
  return max_;
}

LatencySummary LatencySummary::of(const LatencyHistogram& h) {
  LatencySummary l;
  l.count = h.count();
  l.avg_ns = h.count() ? double(h.sum()) / double(h.count()) : 0.0;
  l.p50_ns = h.percentile(500);
  l.p99_ns = h.percentile(990);
  l.max_ns = h.max();
  return l;
}

// ---------------------------------------------------------------------------
// Stats

void Stats::fit(const Sched& s) {
  if (stretch_.size() != s.nr_cpus()) {
    stretch_.resize(s.nr_cpus());
    charged_to_.resize(s.nr_cpus(), 0);
  }
  if (woken_at_.size() != s.tasks.size()) {
    woken_at_.resize(s.tasks.size(), kNone);
    latency_.resize(s.tasks.size());
    phase_latency_.resize(s.tasks.size());
    children_latency_.resize(s.tasks.size());
    phase_children_latency_.resize(s.tasks.size());
  }
  if (group_cpu_.size() != s.tg.size()) group_cpu_.resize(s.tg.size(), 0);
}

void Stats::charge(const Sched& s, TaskId task, Nanos ns) {
  for (GroupId g = s.tasks[task].group; g; g = s.tg[g].parent) group_cpu_[g.index()] += ns;
}

void Stats::sched_switch(const Sched& s, const SwitchEvent& e) {
  fit(s);
  const std::size_t c = e.cpu.index();
  if (e.prev) {
    const Nanos since = s.rq[e.cpu].since;
    if (e.t > since) stretch_[c].add(e.t - since);
    charge(s, e.prev, e.t - charged_to_[c]);
  }
  charged_to_[c] = e.t;
  if (e.next && woken_at_[e.next.index()] != kNone) {
    const Nanos lat = e.t - woken_at_[e.next.index()];
    latency_[e.next.index()].add(lat);
    phase_latency_[e.next.index()].add(lat);
    if (const TaskId p = s.tasks[e.next].churn_parent) {
      children_latency_[p.index()].add(lat);
      phase_children_latency_[p.index()].add(lat);
    }
    woken_at_[e.next.index()] = kNone;
  }
}

void Stats::sched_wakeup(const Sched& s, TaskId task, bool new_task) {
  fit(s);
  woken_at_[task.index()] = s.now;
  if (new_task) latency_[task.index()] = {}, phase_latency_[task.index()] = {};  // a reused slot's former task's
}

void Stats::group_move(const Sched& s, TaskId task, GroupId) {
  fit(s);
  const CpuId cpu = s.tasks[task].cpu;
  if (s.rq[cpu].curr != task) return;
  charge(s, task, s.now - charged_to_[cpu.index()]);
  charged_to_[cpu.index()] = s.now;
}

Interval Stats::cumulative(const Sched& s, Nanos at) const {
  Interval r;
  r.end = at;
  std::vector<std::size_t> churning(s.tasks.size(), SIZE_MAX);  // a churning task's entry in r.children
  for (const TaskId t : s.tasks.ids()) {
    const Task& k = s.tasks[t];
    if (!k.spec.churn.every) continue;
    const ChurnChildren& c = k.children;  // the exited ones, reaped
    churning[t.index()] = r.children.size();
    r.children.push_back({t, c.forked, c.exited, c.cpu_ns, c.wait_ns, c.switches, c.migrations, {}});
  }
  for (const TaskId t : s.tasks.ids()) {
    const Task& k = s.tasks[t];
    if (churn_slot_free(k)) continue;
    const TaskFigures f{t, cpu_time_at(s, t, at), wait_at(s, t, at), k.stats.switches, k.stats.migrations, {}, k.pid};
    r.tasks.push_back(f);
    if (!k.churn_parent) continue;
    ChildrenFigures& c = r.children[churning[k.churn_parent.index()]];  // a live child: its figures so far
    c.cpu_ns += f.cpu_ns, c.wait_ns += f.wait_ns, c.switches += f.switches, c.migrations += f.migrations;
  }
  std::vector<Nanos> g = group_cpu_;
  g.resize(s.tg.size(), 0);
  for (const CpuId c : s.rq.ids()) {
    const TaskId curr = s.rq[c].curr;
    if (!curr || c.index() >= charged_to_.size()) continue;
    for (GroupId x = s.tasks[curr].group; x; x = s.tg[x].parent) g[x.index()] += at - charged_to_[c.index()];
  }
  for (const GroupId x : s.tg.ids()) r.groups.push_back({x, g[x.index()]});
  return r;
}

Interval Stats::whole(const Sched& s, Nanos at) const {
  Interval r = cumulative(s, at);
  for (TaskFigures& f : r.tasks)
    if (f.task.index() < latency_.size()) f.latency = LatencySummary::of(latency_[f.task.index()]);
  for (ChildrenFigures& c : r.children)
    if (c.parent.index() < children_latency_.size()) c.latency = LatencySummary::of(children_latency_[c.parent.index()]);
  return r;
}

void Stats::close_phase(const Sched& s, Nanos at) {
  if (at <= last_.end) return;
  fit(s);
  Interval now = cumulative(s, at);
  Interval p = now;
  p.start = last_.end;
  // Both lists are by id; a slot's figures count from the phase's start only
  // when it held the same task (pid) then.
  auto b = last_.tasks.begin();
  for (TaskFigures& f : p.tasks) {
    const std::size_t i = f.task.index();
    while (b != last_.tasks.end() && b->task.index() < i) ++b;
    if (b != last_.tasks.end() && b->task.index() == i && b->pid == f.pid) {
      f.cpu_ns -= b->cpu_ns;
      f.wait_ns -= b->wait_ns;
      f.switches -= b->switches;
      f.migrations -= b->migrations;
    }
    f.latency = LatencySummary::of(phase_latency_[i]);
    phase_latency_[i] = {};
  }
  auto bc = last_.children.begin();
  for (ChildrenFigures& c : p.children) {
    while (bc != last_.children.end() && bc->parent.index() < c.parent.index()) ++bc;
    if (bc != last_.children.end() && bc->parent == c.parent) {
      c.forked -= bc->forked, c.exited -= bc->exited, c.cpu_ns -= bc->cpu_ns, c.wait_ns -= bc->wait_ns;
      c.switches -= bc->switches, c.migrations -= bc->migrations;
    }
    c.latency = LatencySummary::of(phase_children_latency_[c.parent.index()]);
    phase_children_latency_[c.parent.index()] = {};
  }
  for (GroupFigures& g : p.groups)
    if (g.group.index() < last_.groups.size()) g.cpu_ns -= last_.groups[g.group.index()].cpu_ns;
  phases_.push_back(std::move(p));
  last_ = std::move(now);
}

StretchHistogram Stats::stretches(const Sched& s, CpuId cpu, Nanos at) const {
  StretchHistogram h = cpu.index() < stretch_.size() ? stretch_[cpu.index()] : StretchHistogram{};
  const Rq& r = s.rq[cpu];
  if (r.curr && at > r.since) h.add(at - r.since);
  return h;
}

std::size_t Stats::retained() const {
  std::size_t n = charged_to_.size() + group_cpu_.size() + woken_at_.size();
  for (const StretchHistogram& h : stretch_) n += 1 + h.kept().size();
  for (const LatencyHistogram& h : latency_) n += 1 + h.buckets();
  for (const LatencyHistogram& h : phase_latency_) n += 1 + h.buckets();
  for (const LatencyHistogram& h : children_latency_) n += 1 + h.buckets();
  for (const LatencyHistogram& h : phase_children_latency_) n += 1 + h.buckets();
  n += last_.tasks.size() + last_.groups.size();
  for (const Interval& p : phases_) n += 1 + p.tasks.size() + p.groups.size();
  return n;
}

}  // namespace cfsv
