// Sched::touched_cpus, what the checker's touched-only checks look at
// (SimOptions::full_check_every): whatever changes on a CPU (its runqueue,
// its cfs_rqs, the entities queued or parked on them, its tasks) was marked
// touched by the kernel function that changed it. Random decoded scenarios
// (every profile, groups, all the ops) are run in steps of 50 us, and after
// each step every CPU whose fingerprint changed must be marked. And the sums
// the checker keeps across its touched-only checks stay exact.
#include <gtest/gtest.h>

#include <cstring>
#include <type_traits>

#include "fuzz/byte_reader.h"
#include "model/deterministic_random.h"
#include "model/ops_decoder.h"
#include "model/sim.h"

namespace cfsv {
namespace {

struct Fingerprint {
  uint64_t h = 1469598103934665603u;  // FNV-1a
  template <class T> void add(const T& v) {
    static_assert(std::has_unique_object_representations_v<T>);
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    for (const unsigned char c : b) h = (h ^ c) * 1099511628211u;
  }
};

// Everything the per-cfs_rq, per-task and per-CPU invariants read of one CPU.
uint64_t fingerprint(const Sched& s, CpuId cpu) {
  Fingerprint f;
  const Rq& r = s.rq[cpu];
  f.add(r.curr.v);
  for (const CfsRqId q : s.cfs.ids()) {
    const CfsRq& c = s.cfs[q];
    if (c.cpu != cpu) continue;
    f.add(c.load_weight), f.add(c.nr_running), f.add(c.h_nr_running), f.add(c.min_vruntime);
    f.add(c.curr.v), f.add(c.next.v), f.add(c.last.v), f.add(c.skip.v), f.add(c.load_down);
    f.add(c.pelt.avg.load_avg), f.add(c.pelt.avg.util_avg), f.add(c.pelt.avg.runnable_avg);
    f.add(c.pelt.nr_attached), f.add(c.pelt.removed.nr), f.add(c.pelt.removed.load_avg);
    f.add(c.pelt.removals_queued), f.add(c.pelt.removals_applied), f.add(c.pelt.tg_load_avg_contrib);
    for (const TimelineKey& k : c.timeline) f.add(k.vruntime), f.add(k.se.v);
  }
  for (const SchedEntity& e : s.se) {
    if (!e.cfs_rq || s.cfs[e.cfs_rq].cpu != cpu) continue;
    f.add(e.load.weight), f.add(e.vruntime), f.add(e.on_rq), f.add(e.in_timeline), f.add(e.cfs_rq.v);
    f.add(e.parent.v), f.add(e.pelt.attached.v), f.add(e.pelt.avg.load_avg), f.add(e.pelt.avg.util_avg);
    f.add(e.pelt.avg.runnable_avg);
  }
  for (const Task& t : s.tasks) {
    if (t.cpu != cpu) continue;
    f.add(t.state), f.add(t.nice), f.add(t.group.v), f.add(t.se.v);
    for (std::size_t i = 0; i < s.nr_cpus(); ++i) f.add(t.allowed.test(i));
  }
  return f.h;
}

TEST(TouchedCpus, EveryChangeOfACpuIsMarked) {
  DeterministicRandom rng(23);
  int changes = 0;
  for (int n = 0; n < 150; ++n) {
    std::vector<uint8_t> bytes(1024);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.below(256));
    fuzz::ByteReader r(bytes.data(), bytes.size());
    const Scenario sc = decode_ops_scenario(r);
    Sim sim(sc, SimOptions{.check_every = 0});
    std::vector<uint64_t> before;
    for (const CpuId c : sim.rqs().ids()) before.push_back(fingerprint(sim.sched(), c));
    ASSERT_TRUE(sim.check_now());  // clears touched_cpus
    for (Nanos t = 0; !sim.run_to(t); t += 50'000) {
      for (const CpuId c : sim.rqs().ids()) {
        const uint64_t now = fingerprint(sim.sched(), c);
        if (now == before[c.index()]) continue;
        ++changes;
        ASSERT_TRUE(sim.sched().touched_cpus.test(c.index()))
            << "cpu" << c.v << " changed at " << sim.now() << " ns, unmarked; scenario " << n;
        before[c.index()] = now;
      }
      ASSERT_TRUE(sim.check_now());
    }
  }
  EXPECT_GT(changes, 2000);
}

// The checker's whole-state sums (tg-load-avg-sum) are kept from the cfs_rqs
// each touched-only check looks at: over random decoded scenarios checked
// after every step, all but the last check touched-only, they never drift
// from tg->load_avg (a drift is a violation), while the groups' load_avg
// changes thousands of times.
TEST(TouchedCpus, IncrementalSumsEqualARecount) {
  DeterministicRandom rng(29);
  uint64_t updates = 0, checks = 0;
  for (int n = 0; n < 150; ++n) {
    std::vector<uint8_t> bytes(1024);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.below(256));
    fuzz::ByteReader r(bytes.data(), bytes.size());
    Sim sim(decode_ops_scenario(r), SimOptions{.check_every = 1, .full_check_every = 1'000'000});
    sim.run();
    ASSERT_TRUE(sim.checker()->ok()) << "scenario " << n << ": " << sim.checker()->violations().front().to_string();
    updates += sim.counters().tg_load_avg_updates;
    checks += sim.checker()->checks();
  }
  EXPECT_GT(updates, 2000u);
  EXPECT_GT(checks, 10000u);
}

}  // namespace
}  // namespace cfsv
