// The simulator's pending events (sim.h): a CPU's tick and end of burst, a
// task's wall-clock deadline and wake timer. Each (kind, id) pair is a slot
// with at most one pending event: a new event for a slot replaces the one
// there, which the simulator would have found stale anyway (its `gen` is
// older: the CPU switched, or the task slept or woke, since it was armed).
// So the queue holds only live slots (ticks and bursts of busy CPUs, sleepers'
// timers), not the stale events a plain priority queue accumulates. The
// events come out in (t, kind, id) order: an indexed binary min-heap, and the
// ticks in buckets of one time.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "scenario.h"

namespace cfsv {

enum class EvKind : uint8_t { stop = 0, deadline = 1, wake = 2, tick = 3, newidle = 4 };

struct Event {
  Nanos t;
  EvKind kind;
  int32_t id;  // the CPU (stop, tick) or the task (deadline, wake)
  uint32_t gen;
};

class EventQueue {
 public:
  bool empty() const { return heap_.empty() && ticks_.empty(); }
  Event top() const {
    if (tick_first()) return {ticks_.front().t, EvKind::tick, static_cast<int32_t>(ticks_.front().cpus._Find_first()), 0};
    const Node& n = heap_.front();
    return {n.t, static_cast<EvKind>(n.key >> 32), static_cast<int32_t>(n.key & 0xffffffffu), n.gen};
  }

  // Nothing pending, the storage kept.
  void clear() {
    heap_.clear();
    ticks_.clear();
    std::fill(pos_.begin(), pos_.end(), kNone);
  }

  // Arms e in its slot, replacing the slot's pending event.
  void push(const Event& e) {
    if (e.kind == EvKind::tick) return push_tick(e.t, static_cast<std::size_t>(e.id));
    const Node n{e.t, uint64_t{static_cast<uint8_t>(e.kind)} << 32 | static_cast<uint32_t>(e.id), e.gen};
    const std::size_t slot = slot_of(n.key);
    if (slot >= pos_.size()) pos_.resize(slot + 1 + slot / 2, kNone);
    if (const uint32_t i = pos_[slot]; i != kNone) {
      if (heap_[i].gen == e.gen) throw std::logic_error("EventQueue: an event armed twice in one generation");
      heap_[i] = n;
      sift_down(sift_up(i));
      return;
    }
    heap_.push_back(n);
    pos_[slot] = static_cast<uint32_t>(heap_.size() - 1);
    sift_up(static_cast<uint32_t>(heap_.size() - 1));
  }

  void pop() {
    if (tick_first()) {
      TickBucket& b = ticks_.front();
      b.cpus.reset(b.cpus._Find_first());
      if (b.cpus.none()) ticks_.erase(ticks_.begin());
      return;
    }
    pos_[slot_of(heap_.front().key)] = kNone;
    const Node last = heap_.back();
    heap_.pop_back();
    if (heap_.empty()) return;
    // Floyd's pop: the root's hole sinks to a leaf along the earlier child (one
    // comparison a level), then the last node rises from there. The keys are
    // distinct (one event a slot), so the order out is the same as a sift-down's.
    const auto size = static_cast<uint32_t>(heap_.size());
    uint32_t i = 0;
    for (uint32_t child = 1; child < size; i = child, child = 2 * i + 1) {
      if (child + 1 < size && heap_[child + 1] < heap_[child]) ++child;
      place(i, heap_[child]);
    }
    place(i, last);
    sift_up(i);
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Node {
    Nanos t;
    uint64_t key;  // kind << 32 | id: the order among events of one time
    uint32_t gen;
    bool operator<(const Node& o) const { return t != o.t ? t < o.t : key < o.key; }
  };
  static constexpr std::size_t kKinds = 5;  // EvKind values
  static std::size_t slot_of(uint64_t key) { return (key & 0xffffffffu) * kKinds + (key >> 32); }
  void place(uint32_t i, const Node& n) {
    heap_[i] = n;
    pos_[slot_of(n.key)] = i;
  }
  uint32_t sift_up(uint32_t i) {
    const Node n = heap_[i];
    while (i > 0) {
      const uint32_t parent = (i - 1) / 2;
      if (!(n < heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, n);
    return i;
  }
  void sift_down(uint32_t i) {
    const Node n = heap_[i];
    const auto size = static_cast<uint32_t>(heap_.size());
    for (;;) {
      uint32_t child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && heap_[child + 1] < heap_[child]) ++child;
      if (!(heap_[child] < n)) break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, n);
  }

  // Ticks apart: they fall on jiffy boundaries, so the armed ones share one
  // or two times; a bucket per time, its CPUs in id order. At one time they
  // come after stops, deadlines and wakes, before newidle ends.
  struct TickBucket {
    Nanos t;
    CpuMask cpus;
  };
  bool tick_first() const {
    if (ticks_.empty()) return false;
    if (heap_.empty()) return true;
    const Node& n = heap_.front();
    const auto kind = static_cast<EvKind>(n.key >> 32);
    return ticks_.front().t < n.t || (ticks_.front().t == n.t && kind > EvKind::tick);
  }
  void push_tick(Nanos t, std::size_t cpu) {
    auto b = ticks_.begin();
    while (b != ticks_.end() && b->t < t) ++b;
    if (b == ticks_.end() || b->t != t) b = ticks_.insert(b, {t, {}});
    b->cpus.set(cpu);
  }

  std::vector<TickBucket> ticks_;  // by time
  std::vector<Node> heap_;
  std::vector<uint32_t> pos_;  // per slot: its index in heap_, kNone when nothing is pending
};

}  // namespace cfsv
