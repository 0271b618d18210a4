// fuzz_slice_claims: the claim checker for every claim of model/claims.cpp,
// each decoded in the domain the proofs engine quantifies over for it
// (proofs/prove.cpp):
//  - slice-min-granularity/{hierarchical,flat,base_slice}: sched_slice >=
//    min_granularity on hierarchies a real runqueue can have (below).
//  - slice-min-granularity/flat-equal-weights-*: the task's cfs_rq holds n
//    tasks of one nice level, depth 1, seed 003's 4-CPU boot tunables
//    (latency 18 ms, min_granularity 2.25 ms, nr_latency 8), n <= 32 (the
//    proofs' ci bound; their smoke bound is 16), on_rq either way; the
//    claim's statement (model/equal_weights.h) evaluated as written.
//  - calc-delta/loop-equals-fls: both __calc_delta forms on 64-bit inputs,
//    load shift 10 (min 2) and 0, where the kernel's arithmetic is defined:
//    scale_load_down(weight) * inv_weight < 2^64 (past it the fls form's
//    shift underflows: UB in the kernel and in the model).
//
// CFSV_CLAIM=<claim id> checks that claim; unset, every claim expected to
// hold (so a campaign hunts real bugs). fuzz/slice_claims.h lists them. The claim's feature
// set picks the sched_slice variant; its load resolution is claim_resolution()
// (the era the claim pins, else v5.15's), the same one the proofs check.
//
// Hierarchy input: the machine's tunables (CPU count, scaling, optional sysctl writes),
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
#include "model/arith/calc_delta.h"
#include "model/claims.h"
#include "model/equal_weights.h"
#include "model/arith/slice.h"
#include "model/tunables.h"
#include "model/arith/weights.h"

namespace {

using namespace cfsv;
using cfsv::fuzz::ByteReader;
using cfsv::fuzz::fuzz_slice_claims_covers;
using cfsv::fuzz::SliceClaimCheck;
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
      for (const cfsv::fuzz::FuzzClaim& k : cfsv::fuzz::kFuzzSliceClaims)
        std::fprintf(stderr, "  %.*s\n", int(k.id.size()), k.id.data());
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

// ---- flat-equal-weights-*: the proofs' domain (proofs/prove.cpp slice_claim
// with equal_weights_on_task_rq; default_slice_setup()).
constexpr uint64_t kMaxEqualWeightTasks = 32;

struct EqualCase {
  int nice = 0;
  bool on_rq = true;
  uint64_t n = 1;  // nr_running + !on_rq
  SliceTunables<uint64_t> tunables{};
};

EqualCase decode_equal(ByteReader& in) {
  EqualCase c;
  const Tunables t = Tunables{}.for_cpus(4);
  c.tunables = {t.latency_ns, t.min_granularity_ns, t.nr_latency};
  c.nice = in.integer(kNiceMin, kNiceMax);
  c.on_rq = !in.boolean();
  c.n = in.range(1, kMaxEqualWeightTasks);
  return c;
}

void check_equal(const Claim& claim, SliceClaimCheck kind, const EqualCase& c, LoadResolution r) {
  const uint64_t w = scale_load<uint64_t>(nice_to_weight(c.nice), r);
  const uint64_t nr_running = c.n - (c.on_rq ? 0 : 1);
  const uint64_t load = (c.on_rq ? c.n : c.n - 1) * w;  // the task's cfs_rq: the others, and the task if queued
  const std::array<SliceLevel<uint64_t>, 1> chain = {{{w, load, c.on_rq ? 1u : 0u}}};
  const SliceTunables<uint64_t>& t = c.tunables;
  const uint64_t slice = sched_slice<uint64_t>(chain, nr_running, nr_running, t, claim.features.slice(), r);
  const uint64_t w_down = scale_load_down(w, r);
  const bool exact = kind == SliceClaimCheck::equal_weights_exact_set;
  const bool holds = exact ? equal_weights_exact_set_holds(slice, c.n, t.min_granularity, t.nr_latency)
                           : equal_weights_rounding_holds(slice, c.n, w_down, t.min_granularity, r.calc_delta_mine);
  if (holds) return;
  if (exact)
    line("%.*s: n %" PRIu64 " equal-weight tasks (nr_latency %" PRIu64 "): sched_slice %" PRIu64
         " %s min_granularity %" PRIu64,
         int(claim.id.size()), claim.id.data(), c.n, t.nr_latency, slice, slice >= t.min_granularity ? ">=" : "<",
         t.min_granularity);
  else
    line("%.*s: n %" PRIu64 " equal-weight tasks: sched_slice %" PRIu64 " + allowance %" PRIu64
         " < min_granularity %" PRIu64,
         int(claim.id.size()), claim.id.data(), c.n, slice,
         equal_weights_rounding_allowance(c.n, w_down, t.min_granularity, r.calc_delta_mine), t.min_granularity);
  line("features: %s; load resolution: shift %" PRIu64 "%s%s", claim.features.to_string().c_str(), r.shift,
       r.down_min_2 ? ", scale_load_down min 2" : "", r.calc_delta_mine ? ", calc_delta_mine" : "");
  line("tunables: cpus=4 latency=%" PRIu64 " min_granularity=%" PRIu64 " nr_latency=%" PRIu64, t.latency,
       t.min_granularity, t.nr_latency);
  line("level 0 task nice %d: weight=%" PRIu64 " cfs_rq load=%" PRIu64 " on_rq=%d nr_running=%" PRIu64
       " period=%" PRIu64 " -> slice %" PRIu64,
       c.nice, w, load, c.on_rq ? 1 : 0, nr_running, sched_period(c.n, t), slice);
  std::fflush(stderr);
  std::abort();
}

// ---- calc-delta/loop-equals-fls: the eras the proof covers, inputs where
// scale_load_down(weight) * inv_weight < 2^64 (outside, the shift goes
// negative: undefined in the kernel and the model, so not a claim about them).
constexpr std::array<LoadResolution, 2> kLoopEras = {kLoadResolutionV5, kLoadResolutionV3};

void check_loop_equals_fls(const Claim& claim, ByteReader& in) {
  const LoadResolution r = in.pick<LoadResolution>(kLoopEras);
  LoadWeight<uint64_t> lw{in.u64(), 0};
  // A nice level's cached inverse, none (computed lazily), or any 32-bit one.
  switch (in.range(0, 2)) {
    case 0: lw.inv_weight = nice_to_wmult(in.integer(kNiceMin, kNiceMax)); break;
    case 1: break;
    default: lw.inv_weight = in.u32(); break;
  }
  const uint64_t inv = update_inv_weight(lw, r);
  const uint64_t max_down = inv ? UINT64_MAX / inv : UINT64_MAX;
  const uint64_t weight = in.range(0, max_down > (UINT64_MAX >> r.shift) ? UINT64_MAX : (max_down << r.shift) |
                                                                                     ((uint64_t{1} << r.shift) - 1));
  const uint64_t delta = in.u64();
  uint64_t product;
  if (__builtin_mul_overflow(scale_load_down(weight, r), inv, &product)) return;  // outside the domain
  const uint64_t fls = calc_delta(delta, weight, lw, r), loop = calc_delta_loop(delta, weight, lw, r);
  if (fls == loop) return;
  line("%.*s: calc_delta_loop %" PRIu64 " != calc_delta %" PRIu64, int(claim.id.size()), claim.id.data(), loop, fls);
  line("delta=%" PRIu64 " weight=%" PRIu64 " lw.weight=%" PRIu64 " lw.inv_weight=%" PRIu64 " (used %" PRIu64
       "); load shift %" PRIu64 "%s",
       delta, weight, lw.weight, lw.inv_weight, inv, r.shift, r.down_min_2 ? ", scale_load_down min 2" : "");
  std::fflush(stderr);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  select_claims();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  select_claims();
  for (const Claim* claim : selected_claims()) {
    const LoadResolution r = claim_resolution(*claim);  // the era the proofs check too
    ByteReader in(data, size);
    const SliceClaimCheck kind = *cfsv::fuzz::fuzz_slice_claim_check(claim->id);
    if (kind == SliceClaimCheck::loop_equals_fls) {
      check_loop_equals_fls(*claim, in);
      continue;
    }
    if (kind != SliceClaimCheck::at_least_min_gran) {
      check_equal(*claim, kind, decode_equal(in), r);
      continue;
    }
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
