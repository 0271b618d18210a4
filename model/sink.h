// What the model tells an observer as it happens: the kernel's sched
// tracepoints (sched_switch, sched_wakeup, sched_wakeup_new,
// sched_migrate_task), each runqueue's length, group moves, every op with
// its outcome, and a small record of each scheduling decision (why a tick or a
// wakeup did or did not reschedule, why pick_next_entity chose what it chose).
//
// A Sim calls its sink (SimOptions::sink) from inside the kernel functions,
// at time s.now; each callback gets the whole state to read (names, weights,
// clocks). No sink: one predictable branch per event site. Statistics
// (model/stats.h), the trace writers and the in-memory recorder
// (model/trace.h) are sinks; SinkTee feeds several. A sink may throw to stop a
// run (the writers do when their file fails); the Sim is then unusable.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "lb_pass.h"
#include "sched.h"

namespace cfsv {

// sched:sched_switch. At the call, rq.curr is still prev and rq.since the
// start of prev's stretch.
struct SwitchEvent {
  Nanos t;
  CpuId cpu;
  TaskId prev, next;     // a task, kIdle or kStopper
  TaskState prev_state;  // runnable (perf's R) when preempted
  int prev_prio, next_prio;  // prio_of each, at the switch
};

// One decision of check_preempt_tick, check_preempt_wakeup or
// pick_next_entity, with the two quantities it compared.
struct Decision {
  enum Why : uint8_t {
    tick_slice_used,       // resched: delta_exec a > ideal_runtime b
    tick_min_granularity,  // kept: delta_exec a < min_granularity b
    tick_vruntime_ahead,   // resched: curr's vruntime - leftmost's a > ideal_runtime b
    tick_kept,             // kept: delta_exec a <= ideal_runtime b, and curr not that far ahead
    wakeup_preempt,        // resched: vdiff a > wakeup_gran b
    wakeup_no_preempt,     // kept: vdiff a <= wakeup_gran b
    wakeup_feature_off,    // kept: WAKEUP_PREEMPTION off
    wakeup_idle_curr,      // resched: curr is SCHED_IDLE and the woken task is not
    wakeup_not_normal,     // kept: the woken task is SCHED_BATCH or SCHED_IDLE (a: its Policy)
    wakeup_idle_group,     // resched: curr's side is an idle group (v5.15+), the woken side is not idle
    wakeup_into_idle_group,  // kept: the woken side is an idle group (v5.15+), curr's side is not idle
    pick_leftmost,         // the leftmost entity, vruntime a (curr's b, or 0)
    pick_curr,             // curr kept: vruntime a not after the leftmost's b
    pick_next_buddy,       // the next buddy, vruntime a, within wakeup_gran of the leftmost's b
    pick_last_buddy,       // the last buddy, vruntime a, within wakeup_gran of the leftmost's b
  };
  Why why;
  CfsRqId cq;          // where: its CPU and its task group
  EntityId se;         // tick: curr; wakeup: the woken side; pick: the entity picked
  EntityId other;      // tick: the leftmost; wakeup: curr's side; pick: the leftmost
  int64_t a = 0, b = 0;
  bool resched() const {
    return why == tick_slice_used || why == tick_vruntime_ahead || why == wakeup_preempt || why == wakeup_idle_curr ||
           why == wakeup_idle_group;
  }
};
// One line: "tick on /g0: g0t3 resched: delta_exec 1000000 > ideal_runtime
// 562499 (its slice)", "pick on /: group /g1, the leftmost (vruntime
// min_vruntime+0)", ... Names and paths never change, so a decision can be
// described after the run.
std::string to_string(const Sched& s, const Decision& d);

// The priority perf shows: 120 + nice for a task, 120 for idle, 0 for the stopper.
int prio_of(const Sched& s, TaskId who);

class SchedSink {
 public:
  virtual ~SchedSink() = default;
  virtual void sched_switch(const Sched&, const SwitchEvent&) {}
  // try_to_wake_up (new_task: wake_up_new_task) queued the task on its CPU.
  virtual void sched_wakeup(const Sched&, TaskId, bool new_task) { (void)new_task; }
  // set_task_cpu: the task leaves orig for dest (called before it moves).
  virtual void sched_migrate_task(const Sched&, TaskId, CpuId orig, CpuId dest) { (void)orig, (void)dest; }
  // The CPU's rq->nr_running (its root cfs_rq's h_nr_running) may have changed.
  virtual void nr_running(const Sched&, CpuId) {}
  // sched_move_task is about to move the task to `to` (it is still in its old group).
  virtual void group_move(const Sched&, TaskId, GroupId to) { (void)to; }
  // An op was applied (why empty) or rejected (why says why); line 0: not from a file line.
  virtual void op(const Sched&, const Op&, unsigned line, std::string_view why) { (void)line, (void)why; }
  virtual void decision(const Sched&, const Decision&) {}
  // A load_balance pass moved tasks (model/lb_pass.h); called once per such
  // pass, after attach_tasks and before any active balance it asks for.
  virtual void lb_pass(const Sched&, const LbPass&) {}
  // A step (the set-up, an op, an event) is over, its rescheduling done: the
  // state is consistent, and stays so until the next step.
  virtual void step_end(const Sched&) {}
};

// Feeds every event to each of its sinks, in order.
class SinkTee : public SchedSink {
 public:
  SinkTee(std::initializer_list<SchedSink*> sinks = {});
  void add(SchedSink* sink);  // null: ignored
  bool empty() const { return sinks_.empty(); }
  // The one sink when there is one, this tee when more, null when none.
  SchedSink* single_or_this();

  void sched_switch(const Sched&, const SwitchEvent&) override;
  void sched_wakeup(const Sched&, TaskId, bool new_task) override;
  void sched_migrate_task(const Sched&, TaskId, CpuId orig, CpuId dest) override;
  void nr_running(const Sched&, CpuId) override;
  void group_move(const Sched&, TaskId, GroupId to) override;
  void op(const Sched&, const Op&, unsigned line, std::string_view why) override;
  void decision(const Sched&, const Decision&) override;
  void lb_pass(const Sched&, const LbPass&) override;
  void step_end(const Sched&) override;

 private:
  std::vector<SchedSink*> sinks_;
};

// The hooks the kernel functions call: nothing happens without a sink.
inline void note_decision(const Sched& s, const Decision& d) {
  if (s.sink) s.sink->decision(s, d);
}
inline void note_nr_running(const Sched& s, CpuId cpu) {
  if (s.sink) s.sink->nr_running(s, cpu);
}
// pick_next_entity chose `picked` on cq; `left` is what it weighed the buddies
// against (the leftmost, or curr when curr is before it). Call only with a sink.
void note_pick(const Sched& s, CfsRqId cq, EntityId picked, EntityId left, EntityId curr);
// check_preempt_wakeup compared curr's side `se` with the woken side `pse`
// (wakeup_preempt_entity said `preempt`). Call only with a sink.
void note_wakeup(const Sched& s, EntityId se, EntityId pse, bool preempt);

}  // namespace cfsv
