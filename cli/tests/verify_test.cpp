// cfsv verify's core on fake engines: verdict cells, table, JSON, JUnit and
// the exit code.
#include "cli/verify.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <stdexcept>

#include "cli/tests/run.h"

namespace cfsv::cli {
namespace {

using test::validate;
using test::write_temp;

const Claim kHolds{"fake/holds", "test", "always true", ClaimKind::slice_at_least_min_gran, {}, FeatureSet{},
                   Shape::none, Expect::holds};
const Claim kRefuted{"fake/refuted", "test", "false", ClaimKind::slice_at_least_min_gran, {},
                     FeatureSet{Feature::flat_slice}, Shape::none, Expect::refuted};
const Claim kClaims[] = {kHolds, kRefuted};

// A fake engine answering from a table keyed by claim id.
EngineCheck fake(Engine e, std::map<std::string_view, EngineResult> answers) {
  return {e, [answers](const Claim& c, const CheckConfig&) { return answers.at(c.id); }};
}

EngineResult res(Verdict v, std::string detail = "", std::string reproducer = "", double seconds = 0.25) {
  return {Engine::properties, v, std::move(detail), std::move(reproducer), seconds, {}};
}

// All agree: proved/passed for the holding claim, refuted for the other.
std::vector<EngineCheck> agreeing() {
  return {
      fake(Engine::properties, {{"fake/holds", res(Verdict::passed, "1000 cases")},
                                {"fake/refuted", res(Verdict::refuted, "slice=2249996 < 2250000", "run 1ms")}}),
      fake(Engine::proofs, {{"fake/holds", res(Verdict::proved, "", "", 0.43)},
                            {"fake/refuted", res(Verdict::refuted, "nr=9")}}),
  };
}

std::string table(const VerifyReport& r) {
  std::ostringstream s;
  print_table(s, r);
  return s.str();
}
std::string json(const VerifyReport& r) {
  std::ostringstream s;
  print_json(s, r);
  return s.str();
}
std::string junit(const VerifyReport& r) {
  std::ostringstream s;
  print_junit(s, r);
  return s.str();
}

TEST(Verify, AgreeingEnginesExitZero) {
  const auto engines = agreeing();
  const VerifyReport r = run_verify(kClaims, engines, CheckConfig{});
  EXPECT_EQ(r.verdicts(), 4u);
  EXPECT_EQ(r.disagreements(), 0u);
  EXPECT_EQ(r.exit_code(), 0);
  const std::string t = table(r);
  EXPECT_NE(t.find("fake/holds    holds     passed (1000 cases)  proved (0.4 s)  ok\n"), std::string::npos) << t;
  EXPECT_NE(t.find("fake/refuted  refuted   refuted              refuted         ok\n"), std::string::npos) << t;
  EXPECT_TRUE(t.ends_with("\n2 claims, 4 engine verdicts, 0 disagree\n")) << t;
}

TEST(Verify, UnknownVerdictDisagrees) {
  auto engines = agreeing();
  engines.push_back(fake(Engine::fuzz, {{"fake/holds", res(Verdict::passed, "10 runs")},
                                        {"fake/refuted", res(Verdict::unknown, "no fuzz binary")}}));
  const VerifyReport r = run_verify(kClaims, engines, CheckConfig{});
  EXPECT_EQ(r.disagreements(), 1u);
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_TRUE(r.claims[0].ok());
  EXPECT_FALSE(r.claims[1].ok());
  const std::string t = table(r);
  EXPECT_NE(t.find("unknown: no fuzz binary  DISAGREE\n"), std::string::npos) << t;
  EXPECT_TRUE(t.ends_with("\n2 claims, 6 engine verdicts, 1 disagree\n")) << t;
}

TEST(Verify, WrongVerdictDisagrees) {
  // passed on a claim expected to be refuted, refuted on one expected to hold.
  const EngineCheck wrong = fake(Engine::properties, {{"fake/holds", res(Verdict::refuted, "x=1")},
                                                      {"fake/refuted", res(Verdict::passed, "100 cases")}});
  const VerifyReport r = run_verify(kClaims, std::span(&wrong, 1), CheckConfig{});
  EXPECT_EQ(r.disagreements(), 2u);
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_FALSE(r.ok());
}

TEST(Verify, NoRunNoVerdictAndEnginesRunInOrder) {
  std::vector<std::string> calls;
  const auto engines = agreeing();
  const VerifyReport r =
      run_verify(kClaims, engines, CheckConfig{}, [&](const Claim& c, Engine e, std::size_t done, std::size_t total) {
        calls.push_back(std::string(c.id) + ":" + std::string(to_string(e)) + ":" + std::to_string(done) + "/" +
                        std::to_string(total));
      });
  EXPECT_EQ(calls, (std::vector<std::string>{"fake/holds:properties:0/4", "fake/holds:proofs:1/4",
                                             "fake/refuted:properties:2/4", "fake/refuted:proofs:3/4"}));
  // Only the engines that ran have a column: no "fuzz" cell is invented.
  EXPECT_EQ(r.engines, (std::vector<Engine>{Engine::properties, Engine::proofs}));
  EXPECT_EQ(table(r).find("fuzz"), std::string::npos);
  EXPECT_EQ(r.claims[0].results[1].engine, Engine::proofs);  // stamped though the fake said properties
}

TEST(Verify, ThrowingEngineIsUnknownAndSecondsAreMeasured) {
  const EngineCheck throws{Engine::fuzz, [](const Claim&, const CheckConfig&) -> EngineResult {
                             throw std::runtime_error("boom");
                           }};
  const VerifyReport r = run_verify(std::span(&kHolds, 1), std::span(&throws, 1), CheckConfig{});
  ASSERT_EQ(r.claims.at(0).results.size(), 1u);
  EXPECT_EQ(r.claims[0].results[0].verdict, Verdict::unknown);
  EXPECT_EQ(r.claims[0].results[0].detail, "the engine threw: boom");
  EXPECT_GT(r.claims[0].results[0].seconds, 0);
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(Verify, ConfigReachesEngines) {
  CheckConfig seen;
  const EngineCheck spy{Engine::proofs, [&](const Claim&, const CheckConfig& c) {
                          seen = c;
                          return res(Verdict::proved);
                        }};
  CheckConfig config{42, Budget::smoke, 0, "/tmp/fz", 0};
  run_verify(std::span(&kHolds, 1), std::span(&spy, 1), config);
  EXPECT_EQ(seen.seed, 42u);
  EXPECT_EQ(seen.budget, Budget::smoke);
  EXPECT_EQ(seen.fuzz_bin_dir, "/tmp/fz");
}

TEST(Verify, Cells) {
  bool complete = false;
  EXPECT_EQ(verdict_cell(res(Verdict::refuted), &complete), "refuted");
  EXPECT_TRUE(complete);
  EXPECT_EQ(verdict_cell(res(Verdict::refuted, "x=1"), &complete), "refuted");
  EXPECT_FALSE(complete);
  EXPECT_EQ(verdict_cell(res(Verdict::proved, "", "", 12.34), &complete), "proved (12.3 s)");
  EXPECT_TRUE(complete);
  EXPECT_EQ(verdict_cell(res(Verdict::passed, "1000 cases"), &complete), "passed (1000 cases)");
  EXPECT_TRUE(complete);
  EXPECT_EQ(verdict_cell(res(Verdict::passed), &complete), "passed");
  EXPECT_EQ(verdict_cell(res(Verdict::unknown), &complete), "unknown: no reason given");
  EXPECT_EQ(verdict_cell(res(Verdict::unknown, "line one\nline two"), &complete), "unknown: line one");
  EXPECT_FALSE(complete);
  EXPECT_EQ(verdict_cell(res(Verdict::unknown, std::string(50, 'r')), &complete),
            "unknown: " + std::string(29, 'r') + "...");
  EXPECT_FALSE(complete);
}

TEST(Verify, DetailsBelowTheTable) {
  const auto engines = agreeing();
  const std::string t = table(run_verify(kClaims, engines, CheckConfig{}));
  EXPECT_NE(t.find("\nfake/refuted\n"
                   "  properties: refuted: slice=2249996 < 2250000\n"
                   "    reproducer:\n"
                   "      run 1ms\n"
                   "  proofs: refuted: nr=9\n"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("\nfake/holds\n"), std::string::npos) << t;  // all its cells were complete
}

// Details with characters both formats must escape.
const std::string kNasty = std::string("q\"uote\\ <tag> & 'apos' ]]> tab\tctl\x01 ") + "end\nline two";

std::vector<EngineCheck> mixed() {
  return {
      fake(Engine::properties, {{"fake/holds", res(Verdict::passed, "7 cases")},
                                {"fake/refuted", res(Verdict::refuted, kNasty, "run 1ms\n")}}),
      fake(Engine::fuzz, {{"fake/holds", res(Verdict::unknown, kNasty)},
                          {"fake/refuted", res(Verdict::passed, "9 runs")}}),
  };
}

TEST(Verify, JsonIsValidAndMatches) {
  const auto engines = mixed();
  const VerifyReport r = run_verify(kClaims, engines, CheckConfig{18446744073709551615u, Budget::long_, 0, "", 0});
  const std::string file = write_temp(".json", json(r));
  EXPECT_EQ(validate("verify", file), "fake/holds properties passed true\n"
                                      "fake/holds fuzz unknown false\n"
                                      "fake/refuted properties refuted true\n"
                                      "fake/refuted fuzz passed false\n");
  EXPECT_EQ(validate("value", file, {"seed"}), "18446744073709551615");
  EXPECT_EQ(validate("value", file, {"budget"}), "long");
  EXPECT_EQ(validate("value", file, {"ok"}), "false");
  EXPECT_EQ(validate("value", file, {"summary.disagree"}), "2");
  EXPECT_EQ(validate("value", file, {"claims.1.engines.properties.detail"}), kNasty);
  EXPECT_EQ(validate("value", file, {"claims.1.engines.properties.reproducer"}), "run 1ms\n");
  EXPECT_EQ(validate("value", file, {"claims.0.engines.fuzz.seconds"}), "0.25");
}

TEST(Verify, JsonCarriesACounterexampleAsDataAndNullWithoutOne) {
  EngineResult refuted = res(Verdict::refuted, "sched_slice 4922 ns < min_granularity 2250000 ns");
  refuted.counterexample = {"fake/refuted", refuted.detail, "how", {{"depth", "2"}, {"era", "v5.7"}},
                            {{{"weight", "1048576"}}, {{"weight", "-3"}}}, ""};
  const std::vector<EngineCheck> engines = {
      fake(Engine::proofs, {{"fake/holds", res(Verdict::proved)}, {"fake/refuted", refuted}})};
  const std::string file = write_temp(".json", json(run_verify(kClaims, engines, CheckConfig{})));
  validate("verify", file);
  EXPECT_EQ(validate("value", file, {"claims.0.engines.proofs.counterexample"}), "null");
  const std::string at = "claims.1.engines.proofs.counterexample.";
  EXPECT_EQ(validate("value", file, {at + "summary"}), refuted.detail);
  EXPECT_EQ(validate("value", file, {at + "depth"}), "2");  // a number
  EXPECT_EQ(validate("value", file, {at + "era"}), "v5.7");
  EXPECT_EQ(validate("value", file, {at + "levels.0.weight"}), "1048576");
  EXPECT_EQ(validate("value", file, {at + "levels.1.weight"}), "-3");
}

TEST(Verify, JunitIsValidWithOneTestcasePerVerdict) {
  const auto engines = mixed();
  const VerifyReport r = run_verify(kClaims, engines, CheckConfig{});
  const std::string file = write_temp(".xml", junit(r));
  EXPECT_EQ(validate("junit", file), "fake/holds properties pass\n"
                                     "fake/holds fuzz fail\n"
                                     "fake/refuted properties pass\n"
                                     "fake/refuted fuzz fail\n");
  // XML 1.0 cannot hold \x01: it becomes '?'; everything else round-trips.
  std::string in_xml = kNasty;
  in_xml[in_xml.find('\x01')] = '?';
  EXPECT_EQ(validate("xml", file, {"./testsuite/testcase[@name='fuzz']/failure", "message"}),
            "expected holds, got unknown: " + in_xml);
  EXPECT_EQ(validate("xml", file, {"./testsuite/testcase[@name='fuzz']/failure"}), in_xml);
  EXPECT_EQ(validate("xml", file, {"./testsuite/testcase[@classname='fake/refuted'][@name='properties']/system-out"}),
            in_xml + "\nrun 1ms\n");
  EXPECT_EQ(validate("xml", file, {"./testsuite/properties/property[@name='seed']", "value"}), "1");
}

TEST(Verify, JunitOfAnEmptyRunIsValid) {
  const std::string file = write_temp(".xml", junit(run_verify({}, {}, CheckConfig{})));
  EXPECT_EQ(validate("junit", file), "");
}

}  // namespace
}  // namespace cfsv::cli
