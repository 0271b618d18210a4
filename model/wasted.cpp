#include "wasted.h"

#include <algorithm>

namespace cfsv {

unsigned WastedCores::level_between(const Sched& s, CpuId idle, CpuId busy) const {
  for (const SchedDomain& sd : s.topo.sd[idle])
    if (sd.span.test(busy.index())) return sd.level;
  return kUnshared;
}

void WastedCores::charge(unsigned lv, Nanos ns, std::vector<Nanos>& by_level, Nanos& unshared) const {
  if (lv == kUnshared) unshared += ns;
  else if (lv != kNoLevel) by_level[lv] += ns;
}

void WastedCores::step_end(const Sched& s) {
  const unsigned n = s.nr_cpus();
  if (wasted_.size() != n) wasted_.assign(n, kNoLevel);
  // Charge the time since the last step to the CPUs wasted over it.
  if (s.now > last_)
    for (const unsigned lv : wasted_) charge(lv, s.now - last_, by_level_, unshared_);
  last_ = s.now;

  // Which CPUs idle, which hold waiting tasks: the tasks are read only when both exist.
  std::fill(wasted_.begin(), wasted_.end(), kNoLevel);
  bool any_idle = false, any_waiting = false;
  for (const Rq& r : s.rq) {
    const uint32_t queued = s.cfs[r.cfs].h_nr_running;
    any_idle |= r.curr == kIdle && queued == 0;
    any_waiting |= queued > (r.curr.v >= 0 ? 1u : 0u);  // curr, when a task, is not waiting
  }
  if (!any_idle || !any_waiting) return;
  waiting_on_.assign(n, CpuMask{});
  for (const Task& t : s.tasks)
    if (t.state == TaskState::runnable) {
      if (t.allowed.none()) waiting_on_[t.cpu.index()].set();
      else waiting_on_[t.cpu.index()] |= t.allowed;
    }
  for (const Rq& r : s.rq) {
    if (r.curr != kIdle || s.cfs[r.cfs].h_nr_running || !cpu_active(s, r.cpu)) continue;
    unsigned best = kNoLevel;
    for (const CpuId j : s.rq.ids())
      if (j != r.cpu && waiting_on_[j.index()].test(r.cpu.index()))
        best = std::min(best, level_between(s, r.cpu, j));
    if (best == kNoLevel) continue;
    wasted_[r.cpu.index()] = best;
    if (best == kUnshared) continue;
    if (best >= by_level_.size()) by_level_.resize(best + 1, 0), names_.resize(best + 1);
    for (const SchedDomain& sd : s.topo.sd[r.cpu])
      if (sd.level == best) names_[best] = sd.name;
  }
}

Nanos WastedCores::total(Nanos at) const {
  Nanos sum = 0;
  for (const WastedLevel& l : levels(at)) sum += l.ns;
  return sum;
}

std::vector<WastedLevel> WastedCores::levels(Nanos at) const {
  std::vector<Nanos> ns = by_level_;
  Nanos unshared = unshared_;
  if (at > last_)
    for (const unsigned lv : wasted_) charge(lv, at - last_, ns, unshared);
  std::vector<WastedLevel> out;
  for (unsigned lv = 0; lv < ns.size(); ++lv)
    if (ns[lv]) out.push_back({static_cast<int>(lv), names_[lv], ns[lv]});
  if (unshared) out.push_back({-1, "no domain", unshared});
  return out;
}

}  // namespace cfsv
