// Sim::reset: one Sim reused for scenario after scenario (the examples, the
// regressions and random decoded ones, mixed, small after big and big after
// small) ends each exactly as a new Sim does: the same `cfsv run --json`
// report (tasks, groups, CPUs, PELT, violations, rejected ops), counters,
// steps, end and checks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

#include "cli/json.h"
#include "cli/report.h"
#include "fuzz/byte_reader.h"
#include "model/deterministic_random.h"
#include "model/ops_decoder.h"
#include "model/scenario_text.h"
#include "model/sim.h"
#include "model/stats.h"

namespace cfsv::cli {
namespace {

std::vector<Scenario> scenarios() {
  std::vector<Scenario> v;
  for (const char* dir : {"examples", "regressions"})
    for (const auto& e : std::filesystem::directory_iterator(std::string(CFSV_SOURCE_DIR) + "/" + dir)) {
      if (e.path().extension() != ".scn") continue;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      ParseResult r = parse_scenario(text.str(), e.path().string());
      if (auto* sc = std::get_if<Scenario>(&r)) v.push_back(std::move(*sc));
      else ADD_FAILURE() << std::get<ParseError>(r).to_string();
    }
  DeterministicRandom rng(17);
  for (int i = 0; i < 60; ++i) {
    std::vector<uint8_t> bytes(rng.range(16, 1500));
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.below(256));
    fuzz::ByteReader r(bytes.data(), bytes.size());
    v.push_back(decode_ops_scenario(r));
  }
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);  // mixed sizes and eras
  return v;
}

// What `cfsv run --json` reports of a finished run, and the counters.
std::string report(const Sim& sim, const Stats& st) {
  std::ostringstream out;
  JsonWriter j(out, 0);
  const Sched& s = sim.sched();
  const Counters& c = s.counters;
  j.begin_object().field("end", to_string(sim.end())).field("now", sim.now()).field("steps", sim.steps());
  j.field("checks", sim.checker()->checks()).field("violations", sim.checker()->total_violations());
  j.field("error", sim.last_error()).field("cpus", sim.nr_cpus()).field("seq", s.seq);
  for (const uint64_t n : {c.events, c.ops, c.ops_rejected, c.ticks, c.schedules, c.context_switches, c.resched_tick,
                           c.resched_wakeup, c.wakeups, c.sleeps, c.forks, c.exits, c.migrations, c.enqueues,
                           c.dequeues, c.reweights, c.tg_load_avg_updates, c.root_tg_load_avg_updates,
                           c.root_tg_load_avg_skips, c.move_task_calls, c.move_task_requeues,
                           c.move_task_same_group, c.move_task_skips})
    j.field("counter", n);
  const Interval whole = st.whole(s, sim.now());
  j.key("tasks");
  tasks_json(j, s, whole, true);
  j.key("groups");
  groups_json(j, s, whole);
  j.key("cpus");
  cpus_json(j, s, st, sim.now());
  j.key("root_pelt").begin_array();
  for (const Rq& r : s.rq) {
    j.begin_object();
    pelt_json(j, s.era, s.cfs[r.cfs].pelt.avg);
    j.end_object();
  }
  j.end_array().key("violations").begin_array();
  for (const Violation& v : sim.checker()->violations()) j.value(v.to_string());
  j.end_array().key("rejected").begin_array();
  for (const RejectedOp& r : sim.rejected_ops()) j.value(r.op + ": " + r.reason);
  j.end_array().end_object();
  return out.str();
}

TEST(SimReset, AResetSimRunsEachScenarioAsANewOneDoes) {
  Stats reused_stats;  // the reused Sim's sink: emptied before each reset
  const SimOptions opt{.check_every = 3, .record_trace = false, .sink = &reused_stats, .max_events = 200'000};
  std::unique_ptr<Sim> reused;
  int compared = 0;
  for (const Scenario& sc : scenarios()) {
    Stats fresh_stats;
    SimOptions fresh_opt = opt;
    fresh_opt.sink = &fresh_stats;
    Sim fresh(sc, fresh_opt);
    fresh.run();
    reused_stats = Stats{};
    if (reused) reused->reset(sc);
    else reused = std::make_unique<Sim>(sc, opt);
    reused->run();
    ASSERT_EQ(report(*reused, reused_stats), report(fresh, fresh_stats)) << "scenario " << compared << ":\n"
                                                                         << print_scenario(sc);
    ++compared;
  }
  EXPECT_GT(compared, 70);
}

}  // namespace
}  // namespace cfsv::cli
