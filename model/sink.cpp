#include "sink.h"

#include "arith/fair_math.h"

namespace cfsv {

namespace {
// A vruntime as its distance from the cfs_rq's min_vruntime (readable, and
// comparable across the two runs of a diff).
int64_t above_min(const Sched& s, CfsRqId cq, EntityId se) {
  return se ? static_cast<int64_t>(s.se[se].vruntime - s.cfs[cq].min_vruntime) : 0;
}
}  // namespace

int prio_of(const Sched& s, TaskId who) {
  if (who) return 120 + s.tasks[who].nice;
  return who == kIdle ? 120 : 0;
}

void note_pick(const Sched& s, CfsRqId cq, EntityId picked, EntityId left, EntityId curr) {
  const CfsRq& c = s.cfs[cq];
  Decision::Why why = Decision::pick_leftmost;
  if (picked == left && left == curr) why = Decision::pick_curr;
  else if (picked != left && picked == c.next) why = Decision::pick_next_buddy;
  else if (picked != left && picked == c.last) why = Decision::pick_last_buddy;
  const EntityId versus = why == Decision::pick_leftmost ? curr : c.first();
  s.sink->decision(s, {why, cq, picked, c.first(), above_min(s, cq, picked), above_min(s, cq, versus)});
}

void note_wakeup(const Sched& s, EntityId se, EntityId pse, bool preempt) {
  const int64_t vdiff = static_cast<int64_t>(s.se[se].vruntime - s.se[pse].vruntime);
  const uint64_t gran = wakeup_gran<uint64_t>(s.tun.wakeup_granularity_ns, s.se[pse].load, s.res);
  s.sink->decision(s, {preempt ? Decision::wakeup_preempt : Decision::wakeup_no_preempt, s.se[pse].cfs_rq, pse, se,
                       vdiff, static_cast<int64_t>(gran)});
}

namespace {
std::string name_of(const Sched& s, EntityId se) {
  if (!se) return "(none)";
  const SchedEntity& e = s.se[se];
  return e.is_task() ? s.tasks[e.task].name : "group " + s.tg[s.cfs[e.my_q].tg].path;
}
std::string vruntime(int64_t above_min) {
  return "min_vruntime" + std::string(above_min < 0 ? "" : "+") + std::to_string(above_min);
}
}  // namespace

std::string to_string(const Sched& s, const Decision& d) {
  using D = Decision;
  const std::string where = " on " + s.tg[s.cfs[d.cq].tg].path + ": ";
  const std::string se = name_of(s, d.se), other = name_of(s, d.other);
  const std::string a = std::to_string(d.a), b = std::to_string(d.b);
  switch (d.why) {
    case D::tick_slice_used:
      return "tick" + where + se + " resched: delta_exec " + a + " > ideal_runtime " + b + " (its slice)";
    case D::tick_min_granularity:
      return "tick" + where + se + " kept: delta_exec " + a + " < min_granularity " + b;
    case D::tick_vruntime_ahead:
      return "tick" + where + se + " resched: its vruntime is " + a + " ahead of the leftmost's (" + other +
             ") > ideal_runtime " + b;
    case D::tick_kept:
      return "tick" + where + se + " kept: delta_exec " + a + " <= ideal_runtime " + b + " (its slice)";
    case D::wakeup_preempt:
      return "wakeup" + where + se + " preempts " + other + ": vdiff " + a + " > wakeup_gran " + b;
    case D::wakeup_no_preempt:
      return "wakeup" + where + se + " does not preempt " + other + ": vdiff " + a + " <= wakeup_gran " + b;
    case D::wakeup_feature_off:
      return "wakeup" + where + se + " does not preempt " + other + ": wakeup_preemption off";
    case D::wakeup_idle_curr:
      return "wakeup" + where + se + " preempts " + other + ": " + other + " is SCHED_IDLE";
    case D::wakeup_not_normal:
      return "wakeup" + where + se + " does not preempt " + other + ": " + se + " is SCHED_" +
             (static_cast<Policy>(d.a) == Policy::batch ? "BATCH" : "IDLE");
    case D::wakeup_idle_group:
      return "wakeup" + where + se + " preempts " + other + ": " + other + " is idle (cpu.idle 1) and " + se +
             " is not";
    case D::wakeup_into_idle_group:
      return "wakeup" + where + se + " does not preempt " + other + ": " + se + " is idle (cpu.idle 1) and " + other +
             " is not";
    case D::pick_leftmost: return "pick" + where + se + ", the leftmost (vruntime " + vruntime(d.a) + ")";
    case D::pick_curr:
      if (!d.other) return "pick" + where + se + " (curr) kept: nothing else is queued";
      return "pick" + where + se + " (curr) kept: vruntime " + vruntime(d.a) + " not after the leftmost's " +
             vruntime(d.b);
    case D::pick_next_buddy:
    case D::pick_last_buddy:
      return "pick" + where + se + ", the " + (d.why == D::pick_next_buddy ? "next" : "last") + " buddy (vruntime " +
             vruntime(d.a) + ", within wakeup_gran of the leftmost's " + vruntime(d.b) + ")";
  }
  return "?";
}

SinkTee::SinkTee(std::initializer_list<SchedSink*> sinks) {
  for (SchedSink* k : sinks) add(k);
}

void SinkTee::add(SchedSink* sink) {
  if (sink) sinks_.push_back(sink);
}

SchedSink* SinkTee::single_or_this() {
  if (sinks_.empty()) return nullptr;
  return sinks_.size() == 1 ? sinks_.front() : this;
}

void SinkTee::sched_switch(const Sched& s, const SwitchEvent& e) {
  for (SchedSink* k : sinks_) k->sched_switch(s, e);
}
void SinkTee::sched_wakeup(const Sched& s, TaskId t, bool new_task) {
  for (SchedSink* k : sinks_) k->sched_wakeup(s, t, new_task);
}
void SinkTee::sched_migrate_task(const Sched& s, TaskId t, CpuId orig, CpuId dest) {
  for (SchedSink* k : sinks_) k->sched_migrate_task(s, t, orig, dest);
}
void SinkTee::step_end(const Sched& s) {
  for (SchedSink* k : sinks_) k->step_end(s);
}

void SinkTee::nr_running(const Sched& s, CpuId cpu) {
  for (SchedSink* k : sinks_) k->nr_running(s, cpu);
}
void SinkTee::group_move(const Sched& s, TaskId t, GroupId to) {
  for (SchedSink* k : sinks_) k->group_move(s, t, to);
}
void SinkTee::op(const Sched& s, const Op& o, unsigned line, std::string_view why) {
  for (SchedSink* k : sinks_) k->op(s, o, line, why);
}
void SinkTee::decision(const Sched& s, const Decision& d) {
  for (SchedSink* k : sinks_) k->decision(s, d);
}
void SinkTee::lb_pass(const Sched& s, const LbPass& p) {
  for (SchedSink* k : sinks_) k->lb_pass(s, p);
}

}  // namespace cfsv
