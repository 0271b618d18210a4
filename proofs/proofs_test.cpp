// The proofs engine: verdicts that could be otherwise, counterexamples
// re-checked with the uint64_t model, mutants caught, Sym == uint64_t.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <span>
#include <string>

#include "model/deterministic_random.h"
#include "model/arith/weights.h"
#include "proofs/bridge.h"
#include "proofs/calc_delta_proofs.h"
#include "proofs/claim_checks.h"
#include "proofs/prove.h"
#include "proofs/slice_proofs.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {
namespace {

constexpr uint32_t kTimeoutMs = 120'000;

const Claim& claim(std::string_view id) {
  const Claim* c = claim_by_id(id);
  if (!c) throw std::runtime_error("no claim " + std::string(id));
  return *c;
}

CheckConfig smoke() {
  CheckConfig c;
  c.budget = Budget::smoke;
  c.timeout_ms = kTimeoutMs;
  return c;
}

ProofResult prove_smoke(std::string_view id) { return prove_claim(claim(id), smoke()); }

uint64_t value(const std::vector<Value>& vs, std::string_view name) {
  for (const Value& v : vs)
    if (v.name == name) return std::stoull(v.text);
  throw std::runtime_error("no value " + std::string(name));
}

int nice_of(const Counterexample& c) {
  for (const Value& v : c.values)
    if (v.name == "nice") return std::stoi(v.text);
  throw std::runtime_error("no nice");
}

// The sched_slice inputs a counterexample reports, read back from its text.
SliceInputs<uint64_t> inputs_of(const Counterexample& c) {
  SliceInputs<uint64_t> in{static_cast<uint64_t>(nice_of(c) - kNiceMin),
                           value(c.values, "nr_running"), value(c.values, "rq_h_nr_running"), {}};
  for (const auto& l : c.levels) in.chain.push_back({value(l, "weight"), value(l, "cfs_rq_weight"), value(l, "on_rq")});
  return in;
}

uint64_t concrete_slice(const SliceInputs<uint64_t>& in, SliceFeatures f, LoadResolution r = kLoadResolutionV5) {
  return sched_slice<uint64_t>(std::span<const SliceLevel<uint64_t>>(in.chain), in.nr_running, in.rq_h_nr_running,
                               default_slice_setup().tunables, f, r);
}


TEST(SliceClaims, HierarchicalIsRefutedByUpperLevelsCuttingATaskBelowMinGranularity) {
  const ProofResult r = prove_smoke("slice-min-granularity/hierarchical");
  ASSERT_EQ(r.outcome, Outcome::refuted) << r.detail;
  const Counterexample& c = r.counterexample;
  ASSERT_GE(c.levels.size(), 2u) << "the preferred shape has a group above the task";
  const SliceInputs<uint64_t> in = inputs_of(c);
  const uint64_t slice = concrete_slice(in, {});
  EXPECT_EQ(slice, value(c.values, "slice"));
  EXPECT_LT(slice, value(c.values, "min_granularity"));
  EXPECT_LE(2 * slice, value(c.levels[0], "slice")) << "the levels above the task at least halve its slice";
  for (const auto& l : c.levels) {
    EXPECT_EQ(value(l, "on_rq"), 1u);
    EXPECT_GE(value(l, "nr_running"), 2u) << "siblings at every level";
    EXPECT_EQ(value(l, "cfs_rq_weight"), value(l, "nr_running") * value(l, "weight")) << "equal siblings";
  }
}

TEST(SliceClaims, FlatIsRefutedByRoundingEvenWithEqualWeightsOnOneCfsRq) {
  const ProofResult r = prove_smoke("slice-min-granularity/flat");
  ASSERT_EQ(r.outcome, Outcome::refuted) << r.detail;
  const Counterexample& c = r.counterexample;
  const SliceInputs<uint64_t> in = inputs_of(c);
  const SliceLevel<uint64_t>& task = in.chain[0];
  EXPECT_EQ(task.cfs_rq_weight, in.nr_running * task.weight) << "equal weights";
  const uint64_t slice = concrete_slice(in, {.flat_slice = true});
  const uint64_t min_gran = value(c.values, "min_granularity");
  EXPECT_EQ(slice, value(c.values, "slice"));
  EXPECT_LT(slice, min_gran);
  EXPECT_GE(in.nr_running, 8u) << "below sched_nr_latency the period leaves room for rounding";
  // Only rounding: within the proven bound ceil(n * w * min_gran / 2^32).
  const uint64_t bound = (in.nr_running * (task.weight >> 10) * min_gran + 0xffffffffu) >> 32;
  EXPECT_LE(min_gran - slice, bound);
}

TEST(SliceClaims, BaseSliceIsProvedForEveryDepth) {
  const ProofResult r = prove_smoke("slice-min-granularity/base_slice");
  EXPECT_EQ(r.outcome, Outcome::proved) << r.detail;
  EXPECT_EQ(r.queries.size(), 3u);
}

TEST(SliceClaims, FlatWithEqualWeightsHoldsExactlyBelowSchedNrLatency) {
  const ProofResult r = prove_smoke("slice-min-granularity/flat-equal-weights-exact-set");
  EXPECT_EQ(r.outcome, Outcome::proved) << r.detail;
}

TEST(SliceClaims, FlatWithEqualWeightsFallsShortByAtMostTheRoundingBound) {
  const ProofResult r = prove_smoke("slice-min-granularity/flat-equal-weights-rounding");
  EXPECT_EQ(r.outcome, Outcome::proved) << r.detail;
}

TEST(SliceClaims, FlatWithEqualWeightsUnderV310RoundingReachesMinGranularityForSomeNAtOrAboveNrLatency) {
  const ProofResult r = prove_smoke("slice-min-granularity/flat-equal-weights-exact-set-v3.10");
  ASSERT_EQ(r.outcome, Outcome::refuted) << r.detail;
  const SliceInputs<uint64_t> in = inputs_of(r.counterexample);
  const SliceLevel<uint64_t>& task = in.chain[0];
  const uint64_t n = in.nr_running + (task.on_rq ? 0 : 1);
  EXPECT_EQ(task.cfs_rq_weight + (task.on_rq ? 0 : task.weight), n * task.weight) << "equal weights";
  EXPECT_GE(n, 8u);
  EXPECT_GE(concrete_slice(in, {.flat_slice = true}, kLoadResolutionV3_10),
            default_slice_setup().tunables.min_granularity);
}

TEST(SliceClaims, FlatWithEqualWeightsUnderV310FallsShortByAtMostItsWiderRoundingBound) {
  const ProofResult r = prove_smoke("slice-min-granularity/flat-equal-weights-rounding-v3.10");
  EXPECT_EQ(r.outcome, Outcome::proved) << r.detail;
  // The extra ceil(2^15 / (n * w)) is needed: 9 nice-0 tasks fall 6 ns short, past ceil(9 * 1024 * 2.25e6 / 2^32) = 5.
  const std::array<SliceLevel<uint64_t>, 1> nine = {{{1024, 9 * 1024, 1}}};
  const SliceInputs<uint64_t> in{20, 9, 9, {nine.begin(), nine.end()}};
  EXPECT_EQ(concrete_slice(in, {.flat_slice = true}, kLoadResolutionV3_10), 2'249'994u);
}

TEST(SliceClaims, NineNice0TasksAreACounterexampleOfTheFlatClaimAt2249996Ns) {
  const SliceSetup setup = default_slice_setup();
  z3::context c;
  ContextScope scope(c);
  const SliceSpace s = make_slice_space(c, 1, setup);
  const SliceTunables<Sym> t = tunables_as<Sym>(setup.tunables);
  const Sym slice = model_slice({.flat_slice = true}).sym(s.in, t, setup.resolution);
  const z3::expr nine_nice0 = (s.in.nice_index == Sym(20) && s.in.nr_running == Sym(9) &&
                               s.in.chain[0].on_rq == Sym(1)).expr() && s.equal_on_task_rq;
  const BridgeResult br = find(s.domain && nine_nice0 && z3::ult(slice.expr(), t.min_granularity.expr()), kTimeoutMs);
  ASSERT_EQ(br.outcome, Outcome::refuted);
  EXPECT_EQ(numeral(br.model->eval(slice.expr(), true)), 2'249'996u);
}

TEST(SliceClaims, SeedThreesFourGroupsOfTwentyLieInTheDomainAndGiveAQuarterOfMinGranularity) {
  const SliceSetup setup = default_slice_setup();
  z3::context c;
  ContextScope scope(c);
  const SliceSpace s = make_slice_space(c, 2, setup);
  const SliceTunables<Sym> t = tunables_as<Sym>(setup.tunables);
  const Sym slice = model_slice({}).sym(s.in, t, setup.resolution);
  const z3::expr seed = (s.in.nice_index == Sym(20) && s.in.nr_running == Sym(20) && s.others[1] == Sym(3) &&
                         s.in.chain[1].weight == Sym(1024 << 10) && s.in.rq_h_nr_running == Sym(80))
                            .expr() &&
                        s.equal_siblings && s.all_queued;
  const BridgeResult br = find(s.domain && seed, kTimeoutMs);
  ASSERT_EQ(br.outcome, Outcome::refuted) << "the seed's shape must satisfy the domain";
  const SliceInputs<uint64_t> in = evaluate(s, *br.model);
  const uint64_t got = numeral(br.model->eval(slice.expr(), true));
  EXPECT_EQ(got, concrete_slice(in, {}));
  EXPECT_LT(got, setup.tunables.min_granularity / 4 + 1);
  EXPECT_GT(got, setup.tunables.min_granularity / 4 - 10);
}

TEST(CalcDeltaClaims, LoopFormEqualsFlsFormForAll64BitInputs) {
  const ProofResult r = prove_smoke("calc-delta/loop-equals-fls");
  EXPECT_EQ(r.outcome, Outcome::proved) << r.detail;
  EXPECT_EQ(r.queries.size(), 4u);
}

TEST(CalcDeltaClaims, MulU64U32ShrAlwaysReceivesAFactThatFitsIn32Bits) {
  for (LoadResolution r : {kLoadResolutionV5, kLoadResolutionV3})
    EXPECT_EQ(prove_fact_fits_u32(r, kTimeoutMs).outcome, Outcome::proved) << "load shift " << r.shift;
}

// Mutants: hand-made slices the real one is proved against.

TEST(Mutants, ASliceWithoutTheBaseSliceFloorIsRefutedWhereTheModelsIsProved) {
  const SliceSetup setup = default_slice_setup();
  SliceProofSpec spec;
  spec.conjecture = "sched_slice >= min_granularity";
  spec.depths = {1};
  const ProofResult real =
      run_slice_proof(spec, model_slice({.alt_period = true, .base_slice = true}), setup, kTimeoutMs);
  EXPECT_EQ(real.outcome, Outcome::proved) << real.detail;
  auto no_floor = [](const auto& in, const auto& t, LoadResolution r) {
    using V = std::decay_t<decltype(in.nr_running)>;
    return sched_slice<V>(std::span<const SliceLevel<V>>(in.chain), in.nr_running, in.rq_h_nr_running, t,
                          {.alt_period = true}, r);
  };
  const ProofResult mutant = run_slice_proof(spec, make_slice_fn(no_floor, {.alt_period = true}), setup, kTimeoutMs);
  ASSERT_EQ(mutant.outcome, Outcome::refuted) << mutant.detail;
  EXPECT_LT(value(mutant.counterexample.values, "slice"), setup.tunables.min_granularity);
}

TEST(Mutants, AnInverseOf2To32OverWInsteadOfWmultConstOverWBreaksTheExactSet) {
  SliceSetup setup = default_slice_setup();
  setup.max_nr_running = 16;
  SliceProofSpec spec;
  spec.conjecture = "(flat sched_slice >= min_granularity) == (n < sched_nr_latency), equal weights";
  spec.kind = SliceConjecture::equal_weights_exact_set;
  spec.domain = SliceDomain::equal_weights_on_task_rq;
  spec.depths = {1};
  const ProofResult real = run_slice_proof(spec, model_slice({.flat_slice = true}), setup, kTimeoutMs);
  EXPECT_EQ(real.outcome, Outcome::proved) << real.detail;
  // The cfs_rq's inverse cached as floor(2^32 / w): exact for power-of-two loads.
  auto exact_inverse = [](const auto& in, const auto& t, LoadResolution r) {
    using V = std::decay_t<decltype(in.nr_running)>;
    using cfsv::select;
    const SliceLevel<V>& l = in.chain[0];
    const V load = l.cfs_rq_weight + select(l.on_rq != V(0), V(0), l.weight);
    const LoadWeight<V> lw{load, (V(1) << V(32)) / scale_load_down(load, r)};
    return calc_delta(sched_period(in.nr_running + select(l.on_rq != V(0), V(0), V(1)), t), l.weight, lw, r);
  };
  const ProofResult mutant =
      run_slice_proof(spec, make_slice_fn(exact_inverse, {.flat_slice = true}), setup, kTimeoutMs);
  ASSERT_EQ(mutant.outcome, Outcome::refuted) << mutant.detail;
  const SliceInputs<uint64_t> in = inputs_of(mutant.counterexample);
  EXPECT_GE(in.nr_running + (in.chain[0].on_rq ? 0 : 1), 8u);
  EXPECT_GE(value(mutant.counterexample.values, "slice"), setup.tunables.min_granularity)
      << "with an exact inverse some n >= sched_nr_latency reaches min_granularity";
}

TEST(Counterexamples, ACrossCheckMismatchBetweenZ3AndTheUint64ModelIsReportedAsABug) {
  SliceProofSpec spec;
  spec.conjecture = "sched_slice >= min_granularity";
  spec.depths = {1};
  SliceFn off_by_one = model_slice({});
  off_by_one.concrete = [](const SliceInputs<uint64_t>& in, const SliceTunables<uint64_t>& t, LoadResolution r) {
    return concrete_slice(in, {}) + 1;
  };
  const ProofResult r = run_slice_proof(spec, off_by_one, default_slice_setup(), kTimeoutMs);
  EXPECT_EQ(r.outcome, Outcome::unknown);
  EXPECT_NE(r.detail.find("BUG"), std::string::npos) << r.detail;
}

// Sym against uint64_t: the same templates, folded by z3 simplify.

TEST(Sym, ComputesWhatUint64ComputesForCalcDeltaAndCalcDeltaLoop) {
  z3::context c;
  ContextScope scope(c);
  DeterministicRandom rng{1};
  for (int i = 0; i < 300; ++i) {
    const LoadResolution r = i % 2 ? kLoadResolutionV5 : kLoadResolutionV3;
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
  const SliceSetup setup = default_slice_setup();
  const SliceTunables<Sym> st = tunables_as<Sym>(setup.tunables);
  const std::array<SliceFeatures, 3> variants = {
      {{}, {.flat_slice = true}, {.alt_period = true, .base_slice = true}}};
  for (int i = 0; i < 150; ++i) {
    SliceInputs<uint64_t> in{0, 1 + rng.below(1000), 1 + rng.below(1000), {}};
    SliceInputs<Sym> sin{0, in.nr_running, in.rq_h_nr_running, {}};
    const std::size_t depth = 1 + rng.below(3);
    for (std::size_t d = 0; d < depth; ++d) {
      const uint64_t w = scale_load<uint64_t>(d ? 2 + rng.below(262143) : sched_prio_to_weight[rng.below(40)],
                                              setup.resolution);
      const uint64_t on_rq = rng.below(4) != 0;
      const uint64_t others = rng.below(1000) * scale_load<uint64_t>(1 + rng.below(262144), setup.resolution);
      const uint64_t load = (on_rq ? w : 0) + others;
      in.chain.push_back({w, load, on_rq});
      sin.chain.push_back({w, load, on_rq});
    }
    for (SliceFeatures f : variants) {
      const uint64_t want = concrete_slice(in, f);
      EXPECT_EQ(fold(model_slice(f).sym(sin, st, setup.resolution)), want) << "case " << i;
    }
  }
}

// The bridge and the engine's edges.

TEST(Bridge, ReportsUnknownWithTheReasonWhenTheSolverTimesOut) {
  SliceSetup setup = default_slice_setup();
  SliceProofSpec spec;
  spec.conjecture = "equal weights exact set, n <= 1000";
  spec.kind = SliceConjecture::equal_weights_exact_set;
  spec.domain = SliceDomain::equal_weights_on_task_rq;
  spec.depths = {1};
  const ProofResult r = run_slice_proof(spec, model_slice({.flat_slice = true}), setup, 50);
  EXPECT_EQ(r.outcome, Outcome::unknown);
  EXPECT_NE(r.detail.find("timeout"), std::string::npos) << r.detail;
}

TEST(Engine, AClaimWithoutAZ3QueryIsUnknownWithAReason) {
  const Claim made_up{"no-such/claim", "test", FeatureSet{}, "invariant holds", "nothing", Expect::holds};
  EXPECT_FALSE(supports(made_up.id));
  const EngineResult r = check_claim(made_up, CheckConfig{});
  EXPECT_EQ(r.engine, Engine::proofs);
  EXPECT_EQ(r.verdict, Verdict::unknown);
  EXPECT_FALSE(r.detail.empty());
}

TEST(Engine, EveryRegisteredSliceAndCalcDeltaClaimHasAQuery) {
  for (const Claim& c : all_claims())
    if (c.id.starts_with("slice-min-granularity/") || c.id.starts_with("calc-delta/")) {
      EXPECT_TRUE(supports(c.id)) << c.id;
    }
}

TEST(Engine, CheckClaimCarriesTheCounterexampleInTheReproducer) {
  const EngineResult r = check_claim(claim("slice-min-granularity/flat"), smoke());
  EXPECT_EQ(r.verdict, Verdict::refuted);
  EXPECT_NE(r.reproducer.find("level 0 (task):"), std::string::npos) << r.reproducer;
  EXPECT_NE(r.reproducer.find("inv_weight="), std::string::npos);
  EXPECT_NE(r.reproducer.find("fact="), std::string::npos);
  EXPECT_NE(r.reproducer.find("shift="), std::string::npos);
  EXPECT_NE(r.reproducer.find("period="), std::string::npos);
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
  const CliRun r = cfsv("prove no-such-claim");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("unknown claim 'no-such-claim'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("slice-min-granularity/flat"), std::string::npos) << "lists what it supports";
}

TEST(CfsvProve, RejectsAnUnknownFlagAndABadTimeoutWithExit2) {
  EXPECT_EQ(cfsv("prove --frobnicate").code, 2);
  EXPECT_EQ(cfsv("prove --timeout soon").code, 2);
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
                           "\"seconds\":", "\"detail\":", "\"counterexample\": {", "\"levels\": ["})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << " in\n" << r.out;
  EXPECT_EQ(r.out.front(), '[');
}

TEST(CfsvProve, ExitsOneWhenAVerdictIsNotTheExpectedOne) {
  const CliRun r = cfsv("prove slice-min-granularity/base_slice --timeout 1");  // unknown: timed out
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("unknown"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace cfsv::proofs
