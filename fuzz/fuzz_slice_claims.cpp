// fuzz_slice_claims: the claim checker for slice-min-granularity/<variant>
// (model/claims.cpp): sched_slice >= min_granularity on hierarchies a real
// runqueue can have.
//
// CFSV_CLAIM=<claim id> checks that claim; unset, every such claim expected to
// hold (so a campaign hunts real bugs). fuzz/slice_claims.h lists them. The claim's feature
// set picks the sched_slice variant and the load resolution.
//
// Input: the machine's tunables (CPU count, scaling, optional sysctl writes),
// depth 1..3, then per level the entity (a task's nice level at level 0, a
// group entity's weight above) and up to three classes of sibling entities
// (count, weight, tasks under each). Loads, on_rq, nr_running and the rq's
// h_nr_running follow from those, as in the kernel. A violation prints
// `counterexample:` lines with every intermediate, then aborts.
#include <array>
#include <cstdarg>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/byte_reader.h"
#include "fuzz/fuzz_target.h"
#include "fuzz/slice_claims.h"
#include "model/claims.h"
#include "model/slice.h"
#include "model/tunables.h"
#include "model/weights.h"

namespace {

using namespace cfsv;
using cfsv::fuzz::ByteReader;
using cfsv::fuzz::fuzz_slice_claims_covers;
constexpr std::size_t kMaxDepth = 3;
constexpr uint64_t kMinShares = 2, kMaxShares = 1 << 18;  // MIN_SHARES, MAX_SHARES

std::vector<const Claim*>& selected_claims() {
  static std::vector<const Claim*> claims;
  return claims;
}

// The claims to check, from CFSV_CLAIM; exits 2 on an id this target does not cover.
void select_claims() {
  std::vector<const Claim*>& out = selected_claims();
  if (!out.empty()) return;
  const char* id = std::getenv("CFSV_CLAIM");
  if (id && *id) {
    const Claim* c = claim_by_id(id);
    if (!c || !fuzz_slice_claims_covers(id)) {
      std::fprintf(stderr, "fuzz_slice_claims: CFSV_CLAIM='%s' is not a claim this target checks; it checks:\n", id);
      for (std::string_view k : cfsv::fuzz::kSliceMinGranularityClaims)
        std::fprintf(stderr, "  %.*s\n", int(k.size()), k.data());
      std::exit(2);
    }
    out.push_back(c);
    return;
  }
  for (const Claim& k : all_claims())
    if (fuzz_slice_claims_covers(k.id) && k.expect == Expect::holds) out.push_back(&k);
}

struct Siblings {
  uint64_t count = 0;
  uint64_t weight = 0;         // each one's, in the era's resolution
  uint64_t tasks_each = 1;     // h_nr_running under each (1 for a task)
  int nice = 0;                // for the report, when a task
  bool task = true;
};

struct Level {
  uint64_t weight = 0;  // the chain entity's
  int nice = 0;         // level 0 only
  std::array<Siblings, 3> siblings{};
  std::size_t nr_classes = 0;
};

struct Case {
  unsigned cpus = 1;
  TunableScaling scaling = TunableScaling::log;
  bool sysctl = false;
  SliceTunables<uint64_t> tunables{};
  std::size_t depth = 1;
  std::array<Level, kMaxDepth> levels{};
  bool task_on_rq = true;
  std::array<SliceLevel<uint64_t>, kMaxDepth> chain{};
  uint64_t nr_running = 0, h_nr_running = 0;
};

uint64_t decode_group_weight(ByteReader& in) {
  static constexpr std::array<uint64_t, 6> kCommon = {1024, 2048, 512, 100, 10240, 2};
  return in.boolean() ? in.pick<uint64_t>(kCommon) : in.range(kMinShares, kMaxShares);
}

Case decode(ByteReader& in, LoadResolution r) {
  Case c;
  c.cpus = static_cast<unsigned>(in.range(1, 8));
  static constexpr std::array<TunableScaling, 3> kScalings = {TunableScaling::log, TunableScaling::none,
                                                             TunableScaling::linear};
  c.scaling = in.pick<TunableScaling>(kScalings);
  Tunables t;
  t.scaling = c.scaling;
  t = t.for_cpus(c.cpus);
  c.sysctl = in.range(0, 3) == 3;  // all-zero bytes decode to the defaults
  if (c.sysctl) {  // sysctl writes in the kernel's allowed range [100 us, 1 s]
    t.min_granularity_ns = in.range(100'000, 1'000'000'000);
    t.latency_ns = in.range(100'000, 1'000'000'000);
    t.recompute_nr_latency();
  }
  c.tunables = {t.latency_ns, t.min_granularity_ns, t.nr_latency};

  c.depth = in.range(1, kMaxDepth);
  c.task_on_rq = !in.boolean();
  for (std::size_t i = 0; i < c.depth; ++i) {
    Level& l = c.levels[i];
    if (i == 0) {
      l.nice = in.integer(kNiceMin, kNiceMax);
      l.weight = scale_load<uint64_t>(nice_to_weight(l.nice), r);
    } else {
      l.weight = scale_load<uint64_t>(decode_group_weight(in), r);
    }
    l.nr_classes = in.range(0, 3);
    for (std::size_t k = 0; k < l.nr_classes; ++k) {
      Siblings& s = l.siblings[k];
      s.count = in.range(0, 63);
      s.task = in.boolean();
      if (s.task) {
        s.nice = in.integer(kNiceMin, kNiceMax);
        s.weight = scale_load<uint64_t>(nice_to_weight(s.nice), r);
      } else {
        s.weight = scale_load<uint64_t>(decode_group_weight(in), r);
        s.tasks_each = in.range(1, 32);
      }
    }
  }

  // Loads and counts, bottom up: an entity is queued when its own cfs_rq
  // has anything queued (the task: as decoded).
  bool queued = c.task_on_rq;
  c.h_nr_running = c.task_on_rq ? 1 : 0;
  for (std::size_t i = 0; i < c.depth; ++i) {
    const Level& l = c.levels[i];
    uint64_t load = queued ? l.weight : 0, nr = queued ? 1 : 0;
    for (std::size_t k = 0; k < l.nr_classes; ++k) {
      load += l.siblings[k].count * l.siblings[k].weight;
      nr += l.siblings[k].count;
      c.h_nr_running += l.siblings[k].count * l.siblings[k].tasks_each;
    }
    c.chain[i] = {l.weight, load, queued ? 1u : 0u};
    if (i == 0) c.nr_running = nr;
    queued = nr > 0;
  }
  return c;
}

[[gnu::format(printf, 1, 2)]] void line(const char* fmt, ...) {
  std::fputs("counterexample: ", stderr);
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fputc('\n', stderr);
}

void report(const Claim& claim, const Case& c, LoadResolution r, uint64_t slice) {
  const SliceFeatures f = claim.features.slice();
  const SliceTunables<uint64_t>& t = c.tunables;
  const std::span<const SliceLevel<uint64_t>> chain(c.chain.data(), c.depth);
  line("%.*s: sched_slice %" PRIu64 " < min_granularity %" PRIu64 " (depth %zu, nr_running %" PRIu64 ")",
       int(claim.id.size()), claim.id.data(), slice, t.min_granularity, c.depth, c.nr_running);
  line("features: %s; load resolution: shift %" PRIu64 "%s", claim.features.to_string().c_str(), r.shift,
       r.down_min_2 ? ", scale_load_down min 2" : "");
  line("tunables: cpus=%u scaling=%.*s%s latency=%" PRIu64 " min_granularity=%" PRIu64 " nr_latency=%" PRIu64, c.cpus,
       int(to_string(c.scaling).size()), to_string(c.scaling).data(), c.sysctl ? " (sysctl write)" : "", t.latency,
       t.min_granularity, t.nr_latency);
  const uint64_t nr = (f.alt_period ? c.h_nr_running : c.nr_running) + (c.task_on_rq ? 0 : 1);
  line("period: __sched_period(%" PRIu64 ") = %" PRIu64 " (%s %" PRIu64 " + !on_rq %d)", nr, sched_period(nr, t),
       f.alt_period ? "rq h_nr_running" : "cfs_rq nr_running", f.alt_period ? c.h_nr_running : c.nr_running,
       c.task_on_rq ? 0 : 1);
  const std::size_t applied = f.flat_slice ? 1 : c.depth;
  for (std::size_t i = 0; i < c.depth; ++i) {
    const Level& l = c.levels[i];
    const SliceLevel<uint64_t>& s = c.chain[i];
    std::string sib;
    for (std::size_t k = 0; k < l.nr_classes; ++k) {
      const Siblings& x = l.siblings[k];
      char buf[96];
      if (x.task)
        std::snprintf(buf, sizeof buf, " %" PRIu64 "x task nice %d", x.count, x.nice);
      else
        std::snprintf(buf, sizeof buf, " %" PRIu64 "x group weight %" PRIu64 " (%" PRIu64 " tasks)", x.count,
                      x.weight, x.tasks_each);
      sib += buf;
    }
    char who[32];
    if (i == 0)
      std::snprintf(who, sizeof who, "task nice %d", l.nice);
    else
      std::snprintf(who, sizeof who, "group entity");
    const LoadWeight<uint64_t> lw{s.cfs_rq_weight + (s.on_rq ? 0 : s.weight), 0};
    if (i < applied) {
      // The slice after this level: the same sched_slice over the chain up to it.
      const SliceFeatures upto{f.alt_period, false, false};
      const uint64_t after = sched_slice(chain.first(i + 1), c.nr_running, c.h_nr_running, t, upto, r);
      line("level %zu %s: weight=%" PRIu64 " cfs_rq load=%" PRIu64 " on_rq=%" PRIu64 " inv_weight=%" PRIu64
           " -> slice %" PRIu64 "; siblings:%s",
           i, who, s.weight, s.cfs_rq_weight, s.on_rq, update_inv_weight(lw, r), after,
           sib.empty() ? " none" : sib.c_str());
    } else {
      line("level %zu %s: weight=%" PRIu64 " cfs_rq load=%" PRIu64 " on_rq=%" PRIu64 " (not followed); siblings:%s", i,
           who, s.weight, s.cfs_rq_weight, s.on_rq, sib.empty() ? " none" : sib.c_str());
    }
  }
  if (f.base_slice) line("base_slice: max(slice, min_granularity %" PRIu64 ") = %" PRIu64, t.min_granularity, slice);
  line("result: slice %" PRIu64 " < min_granularity %" PRIu64 " by %" PRIu64 " ns", slice, t.min_granularity,
       t.min_granularity - slice);
  std::fflush(stderr);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  select_claims();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  select_claims();
  for (const Claim* claim : selected_claims()) {
    const LoadResolution r = claim->features.load_resolution();
    ByteReader in(data, size);
    const Case c = decode(in, r);
    const std::span<const SliceLevel<uint64_t>> chain(c.chain.data(), c.depth);
    const uint64_t slice = sched_slice(chain, c.nr_running, c.h_nr_running, c.tunables, claim->features.slice(), r);
    if (slice < c.tunables.min_granularity) {
      report(*claim, c, r, slice);
      std::abort();
    }
  }
  return 0;
}
