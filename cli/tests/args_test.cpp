#include "cli/args.h"

#include <gtest/gtest.h>

#include "claims/claim.h"

namespace cfsv::cli {
namespace {

// Parses `args` (after a "test" argv[0]); returns parse()'s result, with
// stdout and stderr captured.
struct Parsed {
  std::optional<int> rc;
  std::string out, err;
};

struct Fixture : ::testing::Test {
  bool json = false;
  std::string name;
  std::vector<std::string> many, pos;
  uint64_t n = 7;
  double x = 0;
  Budget budget = Budget::ci;
  std::vector<Engine> engines;
  ArgParser p{"test", "A test command."};

  Fixture() {
    p.flag("json", &json, "json")
        .option("name", &name, "S", "a string")
        .option("many", &many, "S", "repeatable")
        .option("n", &n, "N", "a count")
        .option("x", &x, "X", "a number")
        .option("budget", one_of(&budget, {Budget::smoke, Budget::ci, Budget::long_}), "B", "budget")
        .option("engine", any_of(&engines, {Engine::properties, Engine::fuzz, Engine::proofs}), "E", "engines")
        .positionals("FILE", &pos, "files", 0, 2);
  }
  Parsed parse(std::vector<std::string> args) {
    args.insert(args.begin(), "test");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    Parsed r;
    r.rc = p.parse(static_cast<int>(argv.size()), argv.data());
    r.out = ::testing::internal::GetCapturedStdout();
    r.err = ::testing::internal::GetCapturedStderr();
    return r;
  }
};

TEST_F(Fixture, ParsesBothValueFormsFlagsAndPositionals) {
  const Parsed r = parse({"a", "--name", "v1", "--n=42", "--json", "--many", "m1", "--many=m2", "--x", "-1.5",
                          "--budget=smoke", "--engine", "fuzz", "--engine", "proofs", "--engine", "fuzz", "b"});
  EXPECT_EQ(r.rc, std::nullopt) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(json);
  EXPECT_EQ(name, "v1");
  EXPECT_EQ(n, 42u);
  EXPECT_EQ(x, -1.5);
  EXPECT_EQ(budget, Budget::smoke);
  EXPECT_EQ(many, (std::vector<std::string>{"m1", "m2"}));
  EXPECT_EQ(engines, (std::vector<Engine>{Engine::fuzz, Engine::proofs}));
  EXPECT_EQ(pos, (std::vector<std::string>{"a", "b"}));
}

TEST_F(Fixture, DoubleDashEndsFlagsAndEmptyValueIsAValue) {
  EXPECT_EQ(parse({"--name=", "--", "--json"}).rc, std::nullopt);
  EXPECT_EQ(name, "");
  EXPECT_FALSE(json);
  EXPECT_EQ(pos, (std::vector<std::string>{"--json"}));
}

TEST_F(Fixture, DefaultsStayWhenAbsent) {
  EXPECT_EQ(parse({}).rc, std::nullopt);
  EXPECT_EQ(n, 7u);
  EXPECT_EQ(budget, Budget::ci);
  EXPECT_FALSE(json);
}

struct Bad {
  std::vector<std::string> args;
  std::string message;
};

TEST_F(Fixture, ErrorsExitTwoWithMessage) {
  const Bad cases[] = {
      {{"--nope"}, "cfsv test: unknown flag '--nope' (see cfsv test --help)\n"},
      {{"--nope=1"}, "cfsv test: unknown flag '--nope' (see cfsv test --help)\n"},
      {{"-q"}, "cfsv test: unknown flag '-q' (see cfsv test --help)\n"},
      {{"--name"}, "cfsv test: --name needs a value (S)\n"},
      {{"--name", "--json"}, "cfsv test: --name needs a value (S)\n"},
      {{"--n", "12x"}, "cfsv test: --n: '12x' is not a non-negative integer\n"},
      {{"--n=-1"}, "cfsv test: --n: '-1' is not a non-negative integer\n"},
      {{"--n="}, "cfsv test: --n: '' is not a non-negative integer\n"},
      {{"--n", "18446744073709551616"}, "cfsv test: --n: '18446744073709551616' is out of range\n"},
      {{"--x", "nan"}, "cfsv test: --x: 'nan' is not a number\n"},
      {{"--json=1"}, "cfsv test: --json takes no value\n"},
      {{"--budget", "huge"}, "cfsv test: --budget: 'huge' is not one of smoke, ci, long\n"},
      {{"--engine=z3"}, "cfsv test: --engine: 'z3' is not one of properties, fuzz, proofs\n"},
      {{"a", "b", "c"}, "cfsv test: unexpected argument 'c'\n"},
  };
  for (const Bad& c : cases) {
    const Parsed r = parse(c.args);
    EXPECT_EQ(r.rc, 2) << c.message;
    EXPECT_EQ(r.err, c.message);
    EXPECT_EQ(r.out, "");
  }
}

TEST_F(Fixture, MissingPositional) {
  std::vector<std::string> files;
  ArgParser q("prove", "Proves.");
  q.positionals("CLAIM", &files, "claims", 1);
  char a0[] = "prove";
  char* argv[] = {a0};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(q.parse(1, argv), 2);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "cfsv prove: missing CLAIM\n");
}

TEST_F(Fixture, HelpListsEveryFlagAndExitsZero) {
  for (const char* h : {"--help", "-h"}) {
    const Parsed r = parse({"--n=1", h, "--nope"});
    EXPECT_EQ(r.rc, 0);
    EXPECT_EQ(r.err, "");
    EXPECT_TRUE(r.out.starts_with("usage: cfsv test [flags] [FILE]...\n\nA test command.\n")) << r.out;
    for (const char* f : {"--json ", "--name S", "--many S", "--n N", "--x X", "--budget B", "--engine E",
                          "FILE ", "--help "})
      EXPECT_NE(r.out.find(f), std::string::npos) << f;
  }
}

TEST_F(Fixture, ErrorHelperFormats) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(p.error("bad thing"), 2);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "cfsv test: bad thing\n");
}

}  // namespace
}  // namespace cfsv::cli
