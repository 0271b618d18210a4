// The simulator's event queue (model/event_queue.h) against a plain model of
// it: one pending event per (kind, id) slot, the latest armed, coming out in
// (t, kind, id) order.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "model/deterministic_random.h"
#include "model/event_queue.h"

namespace cfsv {
namespace {

using Slot = std::pair<EvKind, int32_t>;

// The model: the pending event of each slot; the next is the least (t, kind, id).
Event least(const std::map<Slot, Event>& pending) {
  const auto key = [](const Event& e) { return std::tuple(e.t, e.kind, e.id); };
  Event best = pending.begin()->second;
  for (const auto& [slot, e] : pending)
    if (key(e) < key(best)) best = e;
  return best;
}

TEST(EventQueue, MatchesOnePendingEventPerSlotInTimeKindIdOrder) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    DeterministicRandom r{seed};
    EventQueue q;
    std::map<Slot, Event> pending;
    std::map<Slot, uint32_t> gen;
    Nanos now = 0;
    for (int step = 0; step < 3000; ++step) {
      if (r.below(3) != 0) {
        // Ticks on a coarse grid (several CPUs share a time), the rest anywhere
        // at or after now, one in four on the grid (a tick's time); a slot's
        // new event has a newer generation.
        const auto kind = static_cast<EvKind>(r.below(5));  // every kind, newidle too
        const auto id = static_cast<int32_t>(r.below(kind == EvKind::tick || kind == EvKind::stop ? 8 : 40));
        if (kind == EvKind::tick && pending.contains({kind, id})) continue;  // one tick per CPU, as the Sim arms them
        const Nanos grid = (now / 1000 + 1 + r.below(2)) * 1000;
        const Nanos t = kind == EvKind::tick || r.below(4) == 0 ? grid : now + r.below(3000);
        const Event e{t, kind, id, kind == EvKind::tick ? 0u : ++gen[{kind, id}]};
        q.push(e);
        pending[{kind, id}] = e;
      } else if (!pending.empty()) {
        ASSERT_FALSE(q.empty());
        const Event want = least(pending), got = q.top();
        ASSERT_EQ(std::tuple(got.t, got.kind, got.id, got.gen), std::tuple(want.t, want.kind, want.id, want.gen))
            << "seed " << seed << " step " << step;
        q.pop();
        pending.erase({want.kind, want.id});
        now = want.t;
      }
      ASSERT_EQ(q.empty(), pending.empty());
    }
  }
}

TEST(EventQueue, AnEventArmedTwiceInOneGenerationIsABug) {
  EventQueue q;
  q.push({5, EvKind::stop, 1, 7});
  EXPECT_THROW(q.push({9, EvKind::stop, 1, 7}), std::logic_error);
  q.push({9, EvKind::stop, 1, 8});  // a newer generation replaces it
  EXPECT_EQ(q.top().t, 9u);
  q.pop();
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace cfsv
