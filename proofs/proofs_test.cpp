// The proofs engine: verdicts that could be otherwise, counterexamples
// re-checked with the uint64_t model, mutants caught, Sym == uint64_t.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "claims/check.h"
#include "claims/pelt_case.h"
#include "claims/slice_trace.h"
#include "claims/test_claims.h"
#include "model/arith/pelt_tables.h"
#include "model/arith/weights.h"
#include "model/deterministic_random.h"
#include "proofs/bridge.h"
#include "proofs/calc_delta_proofs.h"
#include "proofs/claim_checks.h"
#include "proofs/pelt_paths_test_util.h"
#include "proofs/product_lemmas.h"
#include "proofs/sym_reader.h"
#include "proofs/table_entries.h"
#include "proofs/proofs_test_util.h"
#include "proofs/slice_proofs.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {
namespace {

// The case a counterexample reports, read back from its values.
SliceCase<uint64_t> case_of(const Counterexample& c) {
  SliceCase<uint64_t> k;
  for (const EraInfo& e : kEras)
    if (value_of(c.values, "era") == e.name) k.era = e.era;
  k.cpus = static_cast<unsigned>(value(c.values, "cpus"));
  k.tunables = {value(c.values, "latency"), value(c.values, "min_granularity"), value(c.values, "nr_latency"),
                value_of(c.values, "idle_min_granularity") ? value(c.values, "idle_min_granularity") : 750'000};
  if (value_of(c.values, "task_idle"))
    k.idle = value(c.values, "task_idle"), k.others_idle = value(c.values, "others_idle");
  k.nice_rank = rank_of_nice(std::stoi(*value_of(c.values, "nice")));
  for (const auto& l : c.levels)
    k.levels.push_back({value(l, "weight"), value(l, "on_rq"), value(l, "nr_running") - value(l, "on_rq"),
                        value(l, "others_weight"), value(l, "others_tasks")});
  return k;
}

// The claim's query of this depth (the first one, following the paths).
std::unique_ptr<SliceQuery> query_of_depth(const Claim& c, std::size_t depth) {
  for (std::optional<std::vector<uint64_t>> path = std::vector<uint64_t>{}; path;) {
    std::unique_ptr<SliceQuery> q = build_slice_query(c, Budget::ci, model_slice(c.features.slice()), *path);
    if (q->c->levels.size() == depth) return q;
    path = q->next;
  }
  throw std::runtime_error("no query of depth " + std::to_string(depth));
}

TEST(SliceClaims, HierarchicalIsRefutedByUpperLevelsCuttingATaskBelowMinGranularity) {
  const ProofResult r = prove_smoke("slice-min-granularity/hierarchical");
  ASSERT_EQ(r.outcome, Outcome::refuted) << r.detail;
  const Counterexample& c = r.counterexample;
  ASSERT_GE(c.levels.size(), 2u) << "the preferred shape has a group above the task";
  const SliceCase<uint64_t> k = case_of(c);
  const uint64_t slice = run_slice(k, {});
  EXPECT_EQ(slice, value(c.values, "slice"));
  EXPECT_LT(slice, value(c.values, "min_granularity"));
  EXPECT_LE(2 * slice, value(c.levels[0], "slice")) << "the levels above the task at least halve its slice";
  EXPECT_EQ(value_of(c.values, "nice"), "0");
  for (const auto& l : c.levels) {
    EXPECT_EQ(value(l, "on_rq"), 1u);
    EXPECT_GE(value(l, "nr_running"), 2u) << "siblings at every level";
    EXPECT_EQ(value(l, "cfs_rq_weight"), value(l, "nr_running") * value(l, "weight")) << "equal siblings";
  }
  EXPECT_EQ(r.detail, c.summary);
}

TEST(SliceClaims, FlatIsRefutedByRoundingEvenWithEqualWeightsOnOneCfsRq) {
  const ProofResult r = prove_smoke("slice-min-granularity/flat");
  ASSERT_EQ(r.outcome, Outcome::refuted) << r.detail;
  const SliceCase<uint64_t> k = case_of(r.counterexample);
  const SliceLevel<uint64_t> task = k.chain()[0];
  EXPECT_EQ(task.cfs_rq_weight, k.nr_running() * task.weight) << "equal weights";
  const uint64_t slice = run_slice(k, {.flat_slice = true});
  EXPECT_EQ(slice, value(r.counterexample.values, "slice"));
  EXPECT_LT(slice, k.tunables.min_granularity);
  EXPECT_GE(k.n(), k.tunables.nr_latency) << "below sched_nr_latency the period leaves room for rounding";
  EXPECT_LE(k.tunables.min_granularity - slice, rounding_allowance(k)) << "only rounding";
}

TEST(SliceClaims, BaseSliceIsProvedForEveryDepthWithTheLastCalcDeltaGeneralised) {
  const ProofResult r = prove_smoke("slice-min-granularity/base_slice");
  EXPECT_EQ(r.outcome, Outcome::proved) << r.detail;
  ASSERT_EQ(r.queries.size(), 3u);
  for (const QueryStat& q : r.queries) EXPECT_NE(q.label.find("generalised"), std::string::npos) << q.label;
}

TEST(SliceClaims, TheEqualWeightClaimsAreDecidedPointByPoint) {
  for (const char* id : {"slice-min-granularity/flat-equal-weights-exact-set",
                         "slice-min-granularity/flat-equal-weights-rounding",
                         "slice-min-granularity/flat-equal-weights-rounding-v3.10"}) {
    const ProofResult r = prove_smoke(id);
    EXPECT_EQ(r.outcome, Outcome::proved) << id << ": " << r.detail;
    EXPECT_NE(r.detail.find("each of the 1280 points"), std::string::npos) << r.detail;  // 40 x 2 x 16
  }
}

TEST(SliceClaims, FlatWithEqualWeightsUnderV310RoundingReachesMinGranularityForSomeNAtOrAboveNrLatency) {
  const ProofResult r = prove_smoke("slice-min-granularity/flat-equal-weights-exact-set-v3.10");
  ASSERT_EQ(r.outcome, Outcome::refuted) << r.detail;
  const SliceCase<uint64_t> k = case_of(r.counterexample);
  EXPECT_EQ(k.chain()[0].cfs_rq_weight + (k.levels[0].on_rq ? 0 : k.levels[0].weight), k.n() * k.levels[0].weight)
      << "equal weights";
  EXPECT_GE(k.n(), 8u);
  EXPECT_GE(run_slice(k, {.flat_slice = true}), k.tunables.min_granularity);
}

TEST(SliceClaims, NineNice0TasksAreACounterexampleOfTheFlatClaimAt2249996Ns) {
  const auto q = query_of_depth(claim("slice-min-granularity/flat"), 1);
  ContextScope scope(*q->ctx);
  const SlicePathLevel<Sym>& task = q->c->levels[0];
  const z3::expr nine_nice0 = (q->c->nice_rank == Sym(0) && task.others == Sym(8) && task.on_rq == Sym(1) &&
                               task.others_weight == task.others * task.weight)
                                  .expr();
  const z3::expr short_of = (*q->slice < Sym(q->c->tunables.min_granularity)).expr();
  const BridgeResult br = find(q->reader->domain() && nine_nice0 && short_of, kTimeoutMs);
  ASSERT_EQ(br.outcome, Outcome::refuted);
  EXPECT_EQ(numeral(br.model->eval(q->slice->expr(), true)), 2'249'996u);
}

TEST(SliceClaims, SeedThreesFourGroupsOfTwentyLieInTheDomainAndGiveAQuarterOfMinGranularity) {
  const auto q = query_of_depth(claim("slice-min-granularity/hierarchical"), 2);
  ContextScope scope(*q->ctx);
  const SlicePathLevel<Sym>&task = q->c->levels[0], &group = q->c->levels[1];
  const z3::expr seed = (q->c->nice_rank == Sym(0) && task.on_rq == Sym(1) && task.others == Sym(19) &&
                         task.others_tasks == Sym(19) && task.others_weight == Sym(19) * task.weight &&
                         group.weight == Sym(1024 << 10) && group.others == Sym(3) && group.others_tasks == Sym(60) &&
                         group.others_weight == Sym(3) * group.weight)
                            .expr();
  const BridgeResult br = find(q->reader->domain() && seed, kTimeoutMs);
  ASSERT_EQ(br.outcome, Outcome::refuted) << "the seed's shape must satisfy the domain";
  const SliceCase<uint64_t> k = evaluate(*q->c, *br.model);
  EXPECT_EQ(k.rq_h_nr_running(), 80u);
  const uint64_t got = numeral(br.model->eval(q->slice->expr(), true));
  EXPECT_EQ(got, run_slice(k, {}));
  EXPECT_LT(got, k.tunables.min_granularity / 4 + 1);
  EXPECT_GT(got, k.tunables.min_granularity / 4 - 10);
}

TEST(CalcDeltaClaims, LoopFormEqualsFlsFormOnTheWholeDomainWithTwoQueriesForEveryEra) {
  const ProofResult r = prove_smoke("calc-delta/loop-equals-fls");
  EXPECT_EQ(r.outcome, Outcome::proved) << r.detail;
  EXPECT_EQ(r.queries.size(), 2u);
}

TEST(CalcDeltaClaims, TheNormalisationQueryCatchesALoopOneRoundShort) {
  z3::context c;
  ContextScope scope(c);
  Sym fact = Sym::var("fact"), shift = Sym::var("shift"), fact_fls = fact, shift_fls = shift;
  for (int i = 0; i < 31; ++i) {  // detail::normalise_loop, one round short
    const SymBool high = (fact >> Sym(32)) != Sym(0);
    fact = select(high, fact >> Sym(1), fact);
    shift = shift - select(high, Sym(1), Sym(0));
  }
  detail::normalise_fls(fact_fls, shift_fls);
  const BridgeResult br = prove(c.bool_val(true), (fact == fact_fls && shift == shift_fls).expr(), kTimeoutMs);
  EXPECT_EQ(br.outcome, Outcome::refuted);
}

TEST(CalcDeltaClaims, MulU64U32ShrAlwaysReceivesAFactThatFitsIn32Bits) {
  for (Era e : {Era::v5_7, Era::v4_7, Era::v3_13})
    EXPECT_EQ(prove_fact_fits_u32(e, kTimeoutMs).outcome, Outcome::proved) << era_name(e);
}

// Mutants: a wrong sched_slice the real one is proved against.

TEST(Mutants, ASliceWithoutTheBaseSliceFloorIsRefutedWhereTheModelsIsProved) {
  Claim real = claim("slice-min-granularity/base_slice");
  real.domain.max_depth = 1;
  EXPECT_EQ(prove_claim(real, smoke()).outcome, Outcome::proved);
  Claim no_floor = real;
  no_floor.features.set(Feature::base_slice, false);
  const ProofResult mutant = prove_claim(no_floor, smoke());
  ASSERT_EQ(mutant.outcome, Outcome::refuted) << mutant.detail;
  EXPECT_LT(value(mutant.counterexample.values, "slice"), value(mutant.counterexample.values, "min_granularity"));
}

TEST(Mutants, AnInverseOf2To32OverWInsteadOfWmultConstOverWBreaksTheExactSet) {
  // The cfs_rq's inverse cached as floor(2^32 / w): exact for power-of-two loads.
  auto exact_inverse = [](const auto& c) {
    using V = std::decay_t<decltype(c.nice_rank)>;
    using cfsv::select;
    const LoadResolution r = resolution_of(c.era);
    const SliceLevel<V> l = c.chain()[0];
    const V load = l.cfs_rq_weight + select(l.on_rq != V(0), V(0), l.weight);
    const LoadWeight<V> lw{load, (V(1) << V(32)) / scale_load_down(load, r)};
    return calc_delta(sched_period(c.n(), tunables_as<V>(c.tunables)), l.weight, lw, r);
  };
  const Claim& exact = claim("slice-min-granularity/flat-equal-weights-exact-set");
  EXPECT_EQ(prove_slice(exact, smoke(), model_slice({.flat_slice = true})).outcome, Outcome::proved);
  const ProofResult mutant = prove_slice(exact, smoke(), make_slice_fn(exact_inverse));
  ASSERT_EQ(mutant.outcome, Outcome::refuted) << mutant.detail;
  EXPECT_GE(value(mutant.counterexample.values, "n"), 8u);
  EXPECT_GE(value(mutant.counterexample.values, "slice"), value(mutant.counterexample.values, "min_granularity"))
      << "with an exact inverse some n >= sched_nr_latency reaches min_granularity";
}

TEST(Counterexamples, ACrossCheckMismatchBetweenZ3AndTheUint64ModelIsReportedAsABug) {
  SliceFn off_by_one = model_slice({.flat_slice = true});
  off_by_one.concrete = [](const SliceCase<uint64_t>& c) { return run_slice(c, {.flat_slice = true}) + 1; };
  for (const char* id : {"slice-min-granularity/flat", "slice-min-granularity/flat-equal-weights-exact-set-v3.10"}) {
    const ProofResult r = prove_slice(claim(id), smoke(), off_by_one);  // by SAT, then point by point
    EXPECT_EQ(r.outcome, Outcome::unknown) << id;
    EXPECT_NE(r.detail.find("BUG"), std::string::npos) << r.detail;
  }
}

// Sym against uint64_t: the same templates, folded by z3 simplify.

TEST(Sym, ComputesWhatUint64ComputesForCalcDeltaAndCalcDeltaLoop) {
  z3::context c;
  ContextScope scope(c);
  DeterministicRandom rng{1};
  for (int i = 0; i < 300; ++i) {
    const LoadResolution r = i % 2 ? kLoadResolutionV5_7 : kLoadResolutionV3_13;
    // In the kernel's domain: scale_load_down(weight) < 2^32, so shift >= 0.
    const uint64_t delta = rng.next() >> rng.below(64);
    const uint64_t weight = (rng.next() >> (rng.below(64) | 32)) << r.shift;
    const uint64_t lw_weight = rng.next() >> rng.below(64);
    const uint64_t inv = i % 3 ? 0 : rng.next() >> 32;
    const LoadWeight<uint64_t> lw{lw_weight, inv};
    const LoadWeight<Sym> slw{lw_weight, inv};
    EXPECT_EQ(fold(calc_delta<Sym>(delta, weight, slw, r)), calc_delta<uint64_t>(delta, weight, lw, r))
        << delta << " " << weight << " " << lw_weight << " " << inv;
    EXPECT_EQ(fold(calc_delta_loop<Sym>(delta, weight, slw, r)), calc_delta_loop<uint64_t>(delta, weight, lw, r))
        << delta << " " << weight << " " << lw_weight << " " << inv;
  }
}

TEST(Sym, ComputesWhatUint64ComputesForEverySchedSliceVariant) {
  z3::context c;
  ContextScope scope(c);
  DeterministicRandom rng{2};
  const std::array<SliceFeatures, 3> variants = {{{}, {.flat_slice = true}, {.alt_period = true, .base_slice = true}}};
  for (int i = 0; i < 150; ++i) {
    SliceCase<uint64_t> k{i % 2 ? Era::v5_7 : Era::v3_13, 4, boot_tunables(4), rng.below(kNiceLevels), {}};
    SliceCase<Sym> s{k.era, k.cpus, k.tunables, k.nice_rank, {}};
    const LoadResolution r = resolution_of(k.era);
    const std::size_t depth = 1 + rng.below(3);
    for (std::size_t d = 0; d < depth; ++d) {
      const uint64_t w = d ? kFairMinShares + rng.below(scale_load<uint64_t>(kFairMaxShares, r))
                           : scale_load<uint64_t>(nice_weight_of_rank(k.nice_rank), r);
      const uint64_t others = rng.below(1000);
      const SlicePathLevel<uint64_t> l{w, d == 0 ? rng.below(2) : 1, others,
                                       others * scale_load<uint64_t>(1 + rng.below(kFairMaxShares), r),
                                       others + rng.below(100)};
      k.levels.push_back(l);
      s.levels.push_back({l.weight, l.on_rq, l.others, l.others_weight, l.others_tasks});
    }
    for (SliceFeatures f : variants) EXPECT_EQ(fold(run_slice(s, f)), run_slice(k, f)) << "case " << i;
  }
}

// PELT: decay_load's products abstracted, the lemmas proved over the integers.

TEST(ProductLemmas, EachIsProvedOverTheIntegers) {
  const LemmaProof p = prove_product_lemmas(kTimeoutMs);
  EXPECT_EQ(p.outcome, Outcome::proved) << p.reason;
  EXPECT_EQ(p.queries.size(), 5u);  // le, half, mono in three steps
}

TEST(ProductLemmas, TheAbstractionProvesWhatTheLemmasImplyAndOnlyThat) {
  z3::context ctx;
  ContextScope scope(ctx);
  const Sym a = Sym::var("a"), c = Sym::var("c", 32), x = Sym::var("x", 32);
  const Sym m = mul_u64_u32_shr(a, c, Sym(32));
  unsigned products = 0;
  // le, on Sym's 96-bit product and on v3.10's 64-bit one (of a 32-bit value).
  EXPECT_EQ(find_abstracted((m > a).expr(), kTimeoutMs, products).outcome, Outcome::proved);
  EXPECT_EQ(find_abstracted((((x * c) >> Sym(32)) > x).expr(), kTimeoutMs, products).outcome, Outcome::proved);
  EXPECT_EQ(products, 2u);
  // Without the lemmas the abstraction is satisfiable: they are what proves it.
  const Abstracted plain = abstract_products((m > a).expr());
  EXPECT_EQ(find(plain.formula, kTimeoutMs).outcome, Outcome::refuted);
  // A model of the abstraction that is one of the formula refutes it...
  const BridgeResult real = find_abstracted((m < a).expr(), kTimeoutMs, products);
  ASSERT_EQ(real.outcome, Outcome::refuted);
  EXPECT_LT(numeral(real.model->eval(m.expr(), true)), numeral(real.model->eval(a.expr(), true)));
  // ...one that is not (the lemmas bound a product by 2^31 only between a / 2 and a) is unknown.
  const BridgeResult weak =
      find_abstracted((mul_u64_u32_shr(a, Sym(uint64_t{1} << 31), Sym(32)) != (a >> Sym(1))).expr(), kTimeoutMs,
                      products);
  EXPECT_EQ(weak.outcome, Outcome::unknown);
  EXPECT_NE(weak.reason.find("do not decide"), std::string::npos) << weak.reason;
}

TEST(PeltProofs, DecayClaimsAreProvedWithTheLemmasAndTheUpdateClaimsSampledBelowTheLongBudget) {
  for (const char* id : {"pelt-decay/bounded", "pelt-decay/monotone"}) {
    const ProofResult r = prove_smoke(id);
    EXPECT_EQ(r.outcome, Outcome::proved) << id << ": " << r.detail;
    EXPECT_NE(r.detail.find("assuming the lemmas le, half, mono"), std::string::npos) << r.detail;
    EXPECT_EQ(r.queries.size(), 8u) << id;  // 5 lemma queries, one query per era
  }
  const ProofResult u = prove_smoke("pelt-util/bounded-1025");
  EXPECT_EQ(u.outcome, Outcome::passed) << u.detail;
  EXPECT_NE(u.detail.find("sampled, not proved"), std::string::npos) << u.detail;
  EXPECT_NE(u.detail.find("tried only at --budget long"), std::string::npos) << u.detail;
}

TEST(PeltProofs, AV515UpdatePathSplitsIntoOneQueryPerTableEntryAndAnEntryIsProvedExactly) {
  z3::context ctx;
  ContextScope scope(ctx);
  const PeltPath p = path_of(claim("pelt-util/bounded-1025"));
  EXPECT_EQ(product_multipliers(p.negated).size(), 1u);  // every decay_load of the update crosses the same periods
  const std::optional<std::vector<EntryQuery>> split = entry_queries(p.negated, p.domain, kTimeoutMs, 100);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->size(), 32u);  // each entry once: the enumeration finds them all and no other value
  for (std::size_t k = 0; k < 32; ++k) EXPECT_NO_THROW(entry(*split, k)) << k;
  const std::vector<z3::expr> by = product_multipliers(entry(*split, 12).query);
  ASSERT_EQ(by.size(), 1u);
  EXPECT_EQ(numeral(by[0]), pelt_tables().yN_inv[12]);  // every product is by that constant
  const BridgeResult r = find(entry(*split, 12).query, kTimeoutMs);
  EXPECT_EQ(r.outcome, Outcome::proved) << r.reason;
  EXPECT_EQ(entry_label(entry(*split, 12)), "yN_inv[12]");
}

TEST(PeltProofs, AnEntryQuerySplitsOnItsHalvingsIntoOneQueryPerShiftEachWithoutASymbolicShift) {
  z3::context ctx;
  ContextScope scope(ctx);
  const PeltPath p = path_of(claim("pelt-util/bounded-1025"));
  const std::optional<std::vector<EntryQuery>> split = entry_queries(p.negated, p.domain, kTimeoutMs, 100);
  ASSERT_TRUE(split.has_value());
  // yN_inv[0]: n = 0, 32, ..., 2016 (0 to 63 halvings), or beyond 2016 (m = 0: none).
  const std::optional<std::vector<EntryQuery>> by_shift = shift_queries(entry(*split, 0), p.domain, kTimeoutMs, 100);
  ASSERT_TRUE(by_shift.has_value());
  ASSERT_EQ(by_shift->size(), 64u);
  std::vector<uint64_t> halvings;
  for (const EntryQuery& q : *by_shift) {
    ASSERT_EQ(q.shifts.size(), 1u);
    EXPECT_EQ(q.entries, std::vector<uint64_t>{pelt_tables().yN_inv[0]});  // the entry stays pinned
    halvings.push_back(q.shifts[0]);
  }
  std::sort(halvings.begin(), halvings.end());
  for (uint64_t k = 0; k < 64; ++k) EXPECT_EQ(halvings[k], k);
  const EntryQuery& five = *std::find_if(by_shift->begin(), by_shift->end(),
                                         [](const EntryQuery& q) { return q.shifts[0] == 5; });
  EXPECT_EQ(entry_label(five), "yN_inv[0], 5 halvings");
  const BridgeResult r = find(five.query, kTimeoutMs);
  EXPECT_EQ(r.outcome, Outcome::proved) << r.reason;
  // An entry query with no symbolic shift left is its own split.
  const std::optional<std::vector<EntryQuery>> again = shift_queries(five, p.domain, kTimeoutMs, 100);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->size(), 1u);
}

TEST(PeltProofs, AnEntryQueryRefutesABoundBelowTheTruthWithACaseTheUint64ModelFails) {
  z3::context ctx;
  ContextScope scope(ctx);
  Claim weaker = claim("pelt-util/bounded-1025");
  weaker.domain.pelt.util_limit = 1000;  // a task's util_avg decays from ~1024 by 2% a period
  const PeltPath p = path_of(weaker);
  const std::optional<std::vector<EntryQuery>> split = entry_queries(p.negated, p.domain, kTimeoutMs, 100);
  ASSERT_TRUE(split.has_value());
  const BridgeResult r = find(entry(*split, 1).query, kTimeoutMs);
  ASSERT_EQ(r.outcome, Outcome::refuted) << r.reason;
  PeltCase<uint64_t> concrete{p.c.era, {}};
  for (const PeltValue<Sym>& x : p.c.in) concrete.in.push_back({x.name, numeral(r.model->eval(x.v.expr(), true))});
  const std::optional<Counterexample> cx = check_pelt_case(weaker, concrete);
  ASSERT_TRUE(cx.has_value());
  EXPECT_NE(cx->summary.find("> 1000"), std::string::npos) << cx->summary;
}

// The bridge and the engine's edges.

TEST(Bridge, ReportsUnknownWithTheReasonWhenTheSolverTimesOut) {
  CheckConfig tiny = smoke();
  tiny.timeout_ms = 1;
  const ProofResult r = prove_claim(claim("slice-min-granularity/hierarchical"), tiny);
  EXPECT_EQ(r.outcome, Outcome::unknown);
  EXPECT_NE(r.detail.find("timeout"), std::string::npos) << r.detail;
}

// With a resource limit, a query stops after the same work however fast the
// host: a limit of 1 stops every query at once, on every run; a limit past
// what the claim needs gives its verdict as without one.
TEST(Bridge, AResourceLimitStopsQueriesAtTheSameWorkOnEveryRun) {
  CheckConfig limited = smoke();
  limited.rlimit = 1;
  const ProofResult a = prove_claim(claim("slice-min-granularity/hierarchical"), limited);
  const ProofResult b = prove_claim(claim("slice-min-granularity/hierarchical"), limited);
  EXPECT_EQ(a.outcome, Outcome::unknown);
  EXPECT_NE(a.detail.find("resource limit 1 reached"), std::string::npos) << a.detail;
  EXPECT_EQ(a.detail, b.detail);
  limited.rlimit = UINT32_MAX;
  const ProofResult c = prove_claim(claim("slice-min-granularity/hierarchical"), limited);
  EXPECT_EQ(c.outcome, prove_claim(claim("slice-min-granularity/hierarchical"), smoke()).outcome) << c.detail;
  EXPECT_NE(c.outcome, Outcome::unknown) << c.detail;
  z3::context ctx;
  const z3::expr x = ctx.bv_const("x", 32), y = ctx.bv_const("y", 32);
  const z3::expr factors = x * y == ctx.bv_val(1000003, 32) && ugt(x, ctx.bv_val(1, 32)) && ugt(y, ctx.bv_val(1, 32)) &&
                           ult(x, ctx.bv_val(100000, 32)) && ult(y, ctx.bv_val(100000, 32));  // 1000003 is prime
  {
    const QueryRlimitScope scope(1);
    const BridgeResult r = find(factors, 10'000);
    EXPECT_EQ(r.outcome, Outcome::unknown);
    EXPECT_EQ(r.reason, "resource limit 1 reached");
  }
  EXPECT_EQ(find(x == ctx.bv_val(7, 32), 10'000).outcome, Outcome::refuted) << "the scope ends with its object";
}

TEST(Bridge, FindGroundDecidesOnlyFormulasWithoutUnknowns) {
  z3::context c;
  ContextScope scope(c);
  EXPECT_EQ(find_ground((Sym(3) * Sym(5) == Sym(15)).expr()).outcome, Outcome::refuted);
  EXPECT_EQ(find_ground((Sym(3) * Sym(5) == Sym(16)).expr()).outcome, Outcome::proved);
  const BridgeResult open = find_ground((Sym::var("x") == Sym(1)).expr());
  EXPECT_EQ(open.outcome, Outcome::unknown);
  EXPECT_NE(open.reason.find("not a ground formula"), std::string::npos);
}

TEST(Engine, TestOnlyRecordsOfExistingKindsAreProvedByTheirKindAndDomain) {
  for (const Claim& c : test_only_claims()) {
    const ProofResult r = prove_claim(c, smoke());
    EXPECT_TRUE(agrees(c.expect, to_verdict(r.outcome))) << c.id << ": " << r.detail;
    EXPECT_NE(r.conjecture.find(std::string(era_name(c.domain.eras.front()))), std::string::npos) << r.conjecture;
  }
  const ProofResult two = prove_claim(test_only_claims()[0], smoke());
  EXPECT_NE(two.detail.find("each of the 2560 points"), std::string::npos) << two.detail;  // two machines
  EXPECT_NE(two.conjecture.find("1..2 CPUs"), std::string::npos) << two.conjecture;
}

// Seed 000's claim: two unsat queries over update_tg_load_avg, reported as
// passed (the simulator is only tested), and the lemma as the conjecture.
TEST(SimProofs, RootSkipLemmaIsUnsatButTheClaimIsOnlyPassed) {
  const ProofResult r = prove_smoke("root-tg-load-avg-skip/unobservable");
  EXPECT_EQ(r.outcome, Outcome::passed) << r.detail;
  ASSERT_EQ(r.queries.size(), 2u);
  for (const QueryStat& q : r.queries) EXPECT_EQ(q.outcome, Outcome::proved) << q.label;
  EXPECT_NE(r.detail.find("not proved for the simulator"), std::string::npos) << r.detail;
  EXPECT_NE(r.conjecture.find("update_tg_load_avg"), std::string::npos) << r.conjecture;
}

// One test per registered claim (ctest runs them side by side and names the
// slow ones): the proofs engine's verdict at the smoke budget is the one the
// registry expects.
class EveryRegisteredClaim : public ::testing::TestWithParam<std::string_view> {};

TEST_P(EveryRegisteredClaim, GetsTheVerdictItExpects) {
  const Claim& c = claim(GetParam());
  const EngineResult r = check_claim(c, smoke());
  EXPECT_TRUE(agrees(c.expect, r.verdict)) << c.id << ": " << to_string(r.verdict) << ": " << r.detail;
}

std::vector<std::string_view> registered_claim_ids() {
  std::vector<std::string_view> ids;
  for (const Claim& c : all_claims()) ids.push_back(c.id);
  return ids;
}

INSTANTIATE_TEST_SUITE_P(Engine, EveryRegisteredClaim, ::testing::ValuesIn(registered_claim_ids()),
                         [](const ::testing::TestParamInfo<std::string_view>& info) {
                           std::string name(info.param);  // the claim id, as a test name: [A-Za-z0-9_]
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(Engine, CheckClaimCarriesTheCounterexampleInTheReproducer) {
  const EngineResult r = check_claim(claim("slice-min-granularity/flat"), smoke());
  EXPECT_EQ(r.verdict, Verdict::refuted);
  for (const char* want : {"level 0 (task):", "inv_weight=", "fact=", "shift=", "period=", "# conjecture: forall"})
    EXPECT_NE(r.reproducer.find(want), std::string::npos) << want << " in\n" << r.reproducer;
  EXPECT_EQ(r.counterexample.claim, "slice-min-granularity/flat");
}

// cfsv prove, end to end (the built binary).

struct CliRun {
  int code;
  std::string out;
};

CliRun cfsv(const std::string& args) {
  const std::string cmd = std::string(CFSV_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed");
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(CfsvProve, NamesTheUnknownClaimAndExits2) {
  for (const char* bad : {"no-such-claim", "slice-min", "calc-delta/no-such-variant"}) {
    const CliRun r = cfsv(std::string("prove ") + bad);
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.out.find("unknown claim or family '" + std::string(bad) + "'"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("slice-min-granularity/flat"), std::string::npos) << "lists the claims";
  }
}

TEST(CfsvProve, AFamilySelectsEveryClaimOfIt) {
  const CliRun r = cfsv("prove calc-delta --json");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\"claim\": \"calc-delta/loop-equals-fls\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("slice-min-granularity"), std::string::npos) << r.out;
}

TEST(CfsvProve, RejectsAnUnknownFlagAndABadTimeoutWithExit2) {
  EXPECT_EQ(cfsv("prove --frobnicate").code, 2);
  EXPECT_EQ(cfsv("prove --timeout soon").code, 2);
  EXPECT_EQ(cfsv("prove --rlimit lots").code, 2);
  const CliRun big = cfsv("prove --rlimit 4294967296");
  EXPECT_EQ(big.code, 2);
  EXPECT_NE(big.out.find("--rlimit: at most 4294967295"), std::string::npos) << big.out;
  EXPECT_EQ(cfsv("prove --budget huge").code, 2);
  EXPECT_EQ(cfsv("prove --help").code, 0);
}

TEST(CfsvProve, PrintsVerdictsConjecturesAndEveryIntermediateOfACounterexample) {
  const CliRun r = cfsv("prove slice-min-granularity/flat slice-min-granularity/base_slice --budget smoke");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* want : {"refuted  slice-min-granularity/flat", "proved   slice-min-granularity/base_slice",
                           "conjecture: forall", "period=", "level 0 (task): weight=", "cfs_rq_weight=", "on_rq=",
                           "inv_weight=", "fact=", "shift=", "slice="})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << " in\n" << r.out;
}

TEST(CfsvProve, JsonIsAnArrayOfVerdictsWithTheCounterexampleAsAnObject) {
  const CliRun r = cfsv("prove slice-min-granularity/hierarchical --json");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* want : {"\"claim\": \"slice-min-granularity/hierarchical\"", "\"verdict\": \"refuted\"",
                           "\"seconds\":", "\"detail\":", "\"counterexample\": {", "\"levels\": [",
                           "\"era\": \"v5.7\"", "\"depth\": 2"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << " in\n" << r.out;
  EXPECT_EQ(r.out.front(), '[');
}

TEST(CfsvProve, ExitsOneWhenAVerdictIsNotTheExpectedOne) {
  const CliRun r = cfsv("prove slice-min-granularity/hierarchical --timeout 1");  // unknown: timed out
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("unknown"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace cfsv::proofs
