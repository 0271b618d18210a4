// Memory does not grow with simulated time: the heap bytes in use (every
// operator new of this test binary, counted) are the same after 1000 s of
// simulation as after 10 s, for a run with the statistics and both trace
// writers attached, and they do grow when the whole trace is recorded.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <ostream>
#include <streambuf>

#include "model/sim.h"
#include "model/stats.h"
#include "model/trace.h"
#include "properties/sim_test_util.h"

namespace {
std::size_t g_live_bytes = 0;  // this test is single-threaded

// Each block carries its size in front of it.
constexpr std::size_t kHead = alignof(std::max_align_t);
void* counted_new(std::size_t n) {
  void* p = std::malloc(n + kHead);
  if (!p) throw std::bad_alloc();
  *static_cast<std::size_t*>(p) = n;
  g_live_bytes += n;
  return static_cast<char*>(p) + kHead;
}
void counted_delete(void* q) noexcept {
  if (!q) return;
  void* p = static_cast<char*>(q) - kHead;
  g_live_bytes -= *static_cast<std::size_t*>(p);
  std::free(p);
}
}  // namespace

void* operator new(std::size_t n) { return counted_new(n); }
void* operator new[](std::size_t n) { return counted_new(n); }
void operator delete(void* p) noexcept { counted_delete(p); }
void operator delete[](void* p) noexcept { counted_delete(p); }
void operator delete(void* p, std::size_t) noexcept { counted_delete(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_delete(p); }

namespace cfsv {
namespace {

constexpr Nanos kSecond = 1'000'000'000;

// Accepts and drops everything (a /dev/null).
class NullBuf final : public std::streambuf {
 protected:
  int_type overflow(int_type c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

// Every sink `cfsv run` can attach (the statistics and both trace writers),
// the writers writing to a /dev/null.
struct NullSinks {
  NullBuf buf;
  std::ostream null{&buf};
  Stats stats;
  PerfScriptWriter perf{null, "null"};
  PerfettoWriter perfetto{null, "null"};
  SinkTee tee{&stats, &perf, &perfetto};
};

// Heap bytes in use after 10 s and after 1000 s of a two-task run.
std::pair<std::size_t, std::size_t> live_bytes(bool record_trace) {
  Scenario sc = simtest::basic("v5.15", 1);
  sc.tasks = {simtest::task("a"), simtest::task("b")};
  sc.duration = 1000 * kSecond;
  NullSinks sinks;
  Sim sim(sc, SimOptions{.check_every = 64, .record_trace = record_trace, .sink = &sinks.tee});
  sim.run_to(10 * kSecond);
  const std::size_t at10 = g_live_bytes;
  sim.run_to(1000 * kSecond);
  return {at10, g_live_bytes};
}

// Fork/exit churn: a shell forking a 30us child every 100us next to a busy
// task; the heap after 20 s (200,000 children) is within 64 KiB of the heap
// after 2 s (20,000): reaped children's slots are reused and their figures
// folded (docs/model.md, "Fork/exit churn"). A Task row and its entity
// alone are ~1 KiB: 180,000 more children kept would be ~180 MiB.
TEST(SimMemory, ChurnStaysFlatOverSimulatedTime) {
  Scenario sc = simtest::basic("v6.4", 2);
  sc.tasks = {simtest::task("hog"), simtest::task("sh")};
  sc.tasks[1].churn = {.every = 100'000, .child_run = 30'000};
  sc.duration = 20 * kSecond;
  NullSinks sinks;
  Sim sim(sc, SimOptions{.check_every = 64, .sink = &sinks.tee});
  sim.run_to(2 * kSecond);
  const std::size_t at2 = g_live_bytes, slots = sim.tasks().size();
  sim.run_to(20 * kSecond);
  EXPECT_GE(sim.tasks()[TaskId(1)].children.forked, 199'000u);
  EXPECT_EQ(sim.tasks().size(), slots);
  EXPECT_LE(g_live_bytes, at2 + 65536);
}

TEST(SimMemory, StaysFlatOverSimulatedTime) {
  const auto [at10, at1000] = live_bytes(false);
  EXPECT_GT(at10, 0u);
  EXPECT_EQ(at1000, at10);
}

TEST(SimMemory, GrowsWhenTheTraceIsRecorded) {
  const auto [at10, at1000] = live_bytes(true);
  EXPECT_GT(at1000, at10 + 10'000'000);  // ~250,000 stretches and switches
}

}  // namespace
}  // namespace cfsv
