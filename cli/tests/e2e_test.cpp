// The built cfsv, end to end: dispatch, exit codes, messages, JSON, JUnit.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "cli/tests/run.h"
#include "claims/claim.h"
#include "model/invariants.h"

namespace cfsv::cli {
namespace {

using test::cfsv;
using test::Output;
using test::temp_path;
using test::validate;

std::string all_ids() {
  std::string s;
  for (const Claim& c : all_claims()) s += std::string(c.id) + "\n";
  return s;
}

// Bad input exits 2 with `message` on stderr, before any engine runs.
void expect_bad_input(const std::vector<std::string>& args, const std::string& message) {
  const Output r = cfsv(args);
  EXPECT_EQ(r.code, 2) << args[0];
  EXPECT_EQ(r.err, message + "\n");
  EXPECT_EQ(r.out, "");
}

TEST(CliE2e, BadFlags) {
  expect_bad_input({"verify", "--bogus"}, "cfsv verify: unknown flag '--bogus' (see cfsv verify --help)");
  expect_bad_input({"claims", "--bogus=1"}, "cfsv claims: unknown flag '--bogus' (see cfsv claims --help)");
  expect_bad_input({"verify", "--seed"}, "cfsv verify: --seed needs a value (N)");
  expect_bad_input({"verify", "--seed", "x1"}, "cfsv verify: --seed: 'x1' is not a non-negative integer");
  expect_bad_input({"verify", "--budget=huge"}, "cfsv verify: --budget: 'huge' is not one of smoke, ci, long");
  expect_bad_input({"verify", "--engine", "z3"},
                   "cfsv verify: --engine: 'z3' is not one of properties, fuzz, proofs");
  expect_bad_input({"verify", "--fuzz-bin", "/nonexistent/dir"},
                   "cfsv verify: --fuzz-bin: no such directory '/nonexistent/dir'");
  expect_bad_input({"verify", "extra"}, "cfsv verify: unexpected argument 'extra'");
}

TEST(CliE2e, UnknownCommand) {
  expect_bad_input({"frobnicate"}, "cfsv: unknown command 'frobnicate' (see cfsv --help)");
  expect_bad_input({"help", "frobnicate"}, "cfsv: unknown command 'frobnicate' (see cfsv --help)");
}

TEST(CliE2e, UnknownClaim) {
  expect_bad_input({"verify", "--claim", all_claims()[0].id.data(), "--claim", "no-such-claim"},
                   "cfsv verify: unknown claim or family 'no-such-claim' (see cfsv claims)");
  // Flags without a command are verify's.
  expect_bad_input({"--claim=no-such-claim"},
                   "cfsv verify: unknown claim or family 'no-such-claim' (see cfsv claims)");
  // A family is a whole id's first part, not any prefix of it.
  expect_bad_input({"verify", "--claim", "slice-min"},
                   "cfsv verify: unknown claim or family 'slice-min' (see cfsv claims)");
  expect_bad_input({"claims", "calc-delta/nope"}, "cfsv claims: unknown claim or family 'calc-delta/nope'");
}

TEST(CliE2e, AFamilySelectsEveryClaimOfItInRegistryOrder) {
  std::string family;
  for (const Claim& c : all_claims())
    if (c.family() == "slice-min-granularity") family += std::string(c.id) + "\n";
  ASSERT_GE(std::count(family.begin(), family.end(), '\n'), 2);
  for (const char* selector : {"slice-min-granularity", "slice-min-granularity/"}) {
    const Output r = cfsv({"claims", selector, "--json"});
    EXPECT_EQ(r.code, 0) << r.err;
    std::string ids;
    constexpr std::string_view kId = "\"id\": \"";
    for (std::size_t at = r.out.find(kId); at != std::string::npos; at = r.out.find(kId, at + 1)) {
      const std::size_t from = at + kId.size();
      ids += r.out.substr(from, r.out.find('"', from) - from) + "\n";
    }
    EXPECT_EQ(ids, family) << selector;
  }
  // verify --claim takes a family too; an id and its family together check it once.
  const Output r = cfsv({"verify", "--engine=properties", "--budget=smoke", "--claim", "calc-delta", "--claim",
                         "calc-delta/loop-equals-fls"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(r.out.ends_with("\n1 claims, 1 engine verdicts, 0 disagree\n")) << r.out;
}

TEST(CliE2e, HelpAndVersion) {
  for (const char* h : {"--help", "help"}) {
    const Output r = cfsv({h});
    EXPECT_EQ(r.code, 0);
    for (const char* c : {"verify", "run", "prove", "fuzz", "replay", "claims"})
      EXPECT_NE(r.out.find("\n  " + std::string(c) + " "), std::string::npos) << c << "\n" << r.out;
  }
  for (const auto& args : {std::vector<std::string>{"verify", "--help"}, {"help", "verify"}}) {
    const Output r = cfsv(args);
    EXPECT_EQ(r.code, 0);
    EXPECT_TRUE(r.out.starts_with("usage: cfsv verify [flags]\n")) << r.out;
    for (const char* f : {"--budget smoke|ci|long", "--seed N", "--json", "--junit FILE", "--engine NAME",
                          "--claim ID", "--fuzz-bin DIR"})
      EXPECT_NE(r.out.find(f), std::string::npos) << f;
  }
  const Output v = cfsv({"--version"});
  EXPECT_EQ(v.code, 0);
  EXPECT_TRUE(v.out.starts_with("cfsv 0.")) << v.out;
}

TEST(CliE2e, ClaimsTable) {
  const Output r = cfsv({"claims"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("id ")) << r.out;
  for (const Claim& c : all_claims()) {
    const std::size_t at = r.out.find("\n" + std::string(c.id) + " ");
    ASSERT_NE(at, std::string::npos) << c.id;
    const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
    const std::string features = c.features.to_string();
    EXPECT_NE(line.find(features.empty() ? "(none)" : features), std::string::npos) << line;
    EXPECT_NE(line.find(to_string(c.kind)), std::string::npos) << line;
    EXPECT_NE(line.find(era_names(c).front()), std::string::npos) << line;
    EXPECT_NE(line.find(c.statement), std::string::npos) << line;
  }
}

// docs/claims.md's family table names every claim's family.
TEST(CliE2e, DocsClaimsNamesEveryFamily) {
  const std::string doc = test::read_file(std::string(CFSV_SOURCE_DIR) + "/docs/claims.md");
  for (const Claim& c : all_claims())
    EXPECT_NE(doc.find("`" + std::string(c.family()) + "`"), std::string::npos) << c.family();
}

TEST(CliE2e, ClaimsJson) {
  const Output r = cfsv({"claims", "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string file = test::write_temp(".json", r.out);
  EXPECT_EQ(test::run({CFSV_PYTHON, "-m", "json.tool", file}).code, 0);
  for (std::size_t i = 0; i < all_claims().size(); ++i) {
    const Claim& c = all_claims()[i];
    const std::string at = "claims." + std::to_string(i) + ".";
    const std::string want = std::string(c.id) + "\n" + std::string(to_string(c.expect)) + "\n" +
                             std::string(c.statement) + "\n" + std::string(to_string(c.kind)) + "\n" +
                             std::to_string(c.domain.max_tasks.ci) + "\n" + (c.domain.idle ? "true" : "false") +
                             "\n" + std::to_string(c.domain.min_granularity) + "\n" +
                             std::string(era_names(c).front()) + "\n";
    EXPECT_EQ(validate("value", file,
                       {at + "id", at + "expect", at + "statement", at + "kind", at + "domain.max_tasks.ci",
                        at + "domain.idle", at + "domain.min_granularity", at + "domain.eras.0"}),
              want);
  }
  const std::string past_end = "claims." + std::to_string(all_claims().size());  // no claim more
  EXPECT_NE(test::run({CFSV_PYTHON, CFSV_VALIDATE, "value", file, past_end}).code, 0);
}

// One real run (properties engine, smoke budget) gives the table, JSON and
// JUnit checks below; their exit code must match their own "ok".
TEST(CliE2e, VerifyJsonAndJunit) {
  const std::string xml = temp_path(".xml");
  const Output r = cfsv({"verify", "--engine", "properties", "--budget", "smoke", "--seed", "7", "--json",
                      "--junit", xml});
  ASSERT_TRUE(r.code == 0 || r.code == 1) << r.code << r.err;
  const std::string json = test::write_temp(".json", r.out);
  EXPECT_EQ(test::run({CFSV_PYTHON, "-m", "json.tool", json}).code, 0);
  std::string verdicts = validate("verify", json), claim_ids;
  for (std::size_t at = 0; at < verdicts.size(); at = verdicts.find('\n', at) + 1) {
    const std::string line = verdicts.substr(at, verdicts.find('\n', at) - at);
    claim_ids += line.substr(0, line.find(' ')) + "\n";
    EXPECT_NE(line.find(" properties "), std::string::npos) << line;  // the only engine that ran
  }
  EXPECT_EQ(claim_ids, all_ids());
  EXPECT_EQ(validate("value", json, {"seed"}), "7");
  EXPECT_EQ(validate("value", json, {"budget"}), "smoke");
  EXPECT_EQ(validate("value", json, {"ok"}), r.code == 0 ? "true" : "false");

  const std::string cases = validate("junit", xml);
  EXPECT_EQ(std::count(cases.begin(), cases.end(), '\n'), static_cast<long>(all_claims().size()));
  EXPECT_EQ(cases.find(" fail\n") == std::string::npos, r.code == 0) << cases;
}

TEST(CliE2e, VerifyTable) {
  const Claim& c = all_claims().back();
  const Output r = cfsv({"verify", "--engine=properties", "--budget=smoke", "--claim", std::string(c.id)});
  ASSERT_TRUE(r.code == 0 || r.code == 1) << r.code << r.err;
  EXPECT_TRUE(r.out.starts_with("seed 1, budget smoke\n\nclaim ")) << r.out;
  EXPECT_NE(r.out.find("\n" + std::string(c.id) + " "), std::string::npos) << r.out;
  // Columns only for the engines that ran.
  std::istringstream header(r.out.substr(r.out.find("claim ")));
  std::vector<std::string> columns;
  for (std::string w; columns.size() < 4 && header >> w;) columns.push_back(w);
  EXPECT_EQ(columns, (std::vector<std::string>{"claim", "expected", "properties", "ok"}));
  const std::string last = r.code == 0 ? "\n1 claims, 1 engine verdicts, 0 disagree\n"
                                       : "\n1 claims, 1 engine verdicts, 1 disagree\n";
  EXPECT_TRUE(r.out.ends_with(last)) << r.out;
  EXPECT_EQ(r.err, "");  // no progress when stderr is not a terminal
}

TEST(CliE2e, FeaturesJsonListsEveryFeatureWithTheProfilesThatTurnItOn) {
  const Output r = cfsv({"features", "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string file = test::write_temp(".json", r.out);
  for (std::size_t i = 0; i < all_features().size(); ++i) {
    const std::string at = "features." + std::to_string(i) + ".";
    EXPECT_EQ(validate("value", file, {at + "name"}), all_features()[i].name);
  }
  EXPECT_NE(r.out.find("\"calc_delta_mine\""), std::string::npos);
}

// The seed-003 experiment before and after its patch, from one file: the
// stretches on CPU 3 go from every tick (1 ms) to every third tick.
TEST(CliE2e, RunFeatureFlagTurnsSeed003sPatchOnWithoutEditingTheFile) {
  const std::string scn = std::string(CFSV_SOURCE_DIR) + "/examples/seed003.scn";
  const Output before = cfsv({"run", scn});
  const Output after = cfsv({"run", "--feature", "flat_slice=on", scn});
  ASSERT_EQ(before.code, 0) << before.err;
  ASSERT_EQ(after.code, 0) << after.err;
  EXPECT_NE(before.out.find("1.000000ms x 1000"), std::string::npos) << before.out;
  EXPECT_NE(after.out.find("3.000000ms x 333"), std::string::npos) << after.out;
  EXPECT_NE(after.out.find("flat_slice"), std::string::npos);
  const Output bad = cfsv({"run", "--feature", "flat_slice=maybe", scn});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "cfsv run: --feature: 'flat_slice=maybe' is not NAME=on or NAME=off\n");
  EXPECT_EQ(cfsv({"run", "--feature", "no_such=on", scn}).code, 2);
}

// --check-every N: the invariants are checked after every Nth op or event
// (and once at the end of the run), so N = 3 checks a third as often as N = 1;
// N = 0 runs without checks; replay refuses 0, which would show nothing.
TEST(CliE2e, RunAndReplayCheckEveryNthStep) {
  const std::string scn = std::string(CFSV_SOURCE_DIR) + "/examples/wakeups.scn";
  const auto checks = [&](const std::string& n) {
    const Output r = cfsv({"run", "--json", "--check-every", n, scn});
    EXPECT_EQ(r.code, 0) << r.err;
    const std::size_t at = r.out.find("\"invariant_checks\": ");
    return at == std::string::npos ? uint64_t{0} : std::stoull(r.out.substr(at + 20));
  };
  const uint64_t every = checks("1"), third = checks("3");
  EXPECT_GT(every, 100u);
  EXPECT_EQ(third, every / 3 + (every % 3 != 0));
  EXPECT_EQ(checks("0"), 0u);
  const Output table = cfsv({"run", "--check-every", "3", scn});
  EXPECT_NE(table.out.find("invariants: all " + std::to_string(all_invariants().size()) + " hold at each of " +
                           std::to_string(third) + " checks (after every 3 of " + std::to_string(every) + " steps"),
            std::string::npos)
      << table.out;
  EXPECT_NE(cfsv({"run", "--check-every", "0", scn}).out.find("invariants: not checked (--check-every 0)\n"),
            std::string::npos);
  const Output replay = cfsv({"replay", "--check-every", "3", scn});
  EXPECT_EQ(replay.code, 0) << replay.out;
  EXPECT_NE(replay.out.find(std::to_string(third) + " checks): MATCH"), std::string::npos) << replay.out;
  expect_bad_input({"replay", "--check-every", "0", scn}, "cfsv replay: --check-every 0 would check nothing; give N >= 1");
  expect_bad_input({"run", "--check-every", "x", scn}, "cfsv run: --check-every: 'x' is not a non-negative integer");
}

}  // namespace
}  // namespace cfsv::cli
