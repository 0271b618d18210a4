// cfsv prove [CLAIM...]: the Z3 engine on claims (ids or families); a verdict
// per claim with its one-line conjecture, and for a refutation the
// counterexample with every intermediate.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/progress.h"
#include "cli/table.h"
#include "cli/verify.h"
#include "proofs/prove.h"

namespace cfsv::cli {

namespace {

constexpr uint64_t kMaxTimeoutMs = 86'400'000;

void json_result(JsonWriter& j, const proofs::ProofResult& r, const Claim& c) {
  const Verdict v = to_verdict(r.outcome);
  j.begin_object()
      .field("claim", r.claim)
      .field("verdict", to_string(v))
      .field("expected", to_string(c.expect))
      .field("agrees", agrees(c.expect, v))
      .field("detail", r.detail)
      .field("seconds", r.seconds)
      .field("conjecture", r.conjecture)
      .key("queries")
      .begin_array();
  for (const proofs::QueryStat& q : r.queries)
    j.begin_object()
        .field("query", q.label)
        .field("outcome", to_string(q.outcome))
        .field("seconds", q.seconds)
        .end_object();
  j.end_array();
  json_counterexample(j.key("counterexample"), r.outcome == proofs::Outcome::refuted ? r.counterexample
                                                                                    : Counterexample{});
  j.end_object();
}

void print_text(const proofs::ProofResult& r, const Claim& c) {
  const Verdict v = to_verdict(r.outcome);
  std::printf("%-8s %s  (expected %s%s)  %.2f s\n", std::string(to_string(v)).c_str(), r.claim.c_str(),
              std::string(to_string(c.expect)).c_str(), agrees(c.expect, v) ? "" : ": MISMATCH", r.seconds);
  std::printf("  conjecture: %s\n  %s\n", r.conjecture.c_str(), r.detail.c_str());
  if (r.outcome == proofs::Outcome::refuted)
    std::fputs(indented(format_counterexample(r.counterexample), "  ").c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace

int cmd_prove(int argc, char** argv) {
  CheckConfig config;
  uint64_t timeout_ms = 0, rlimit = 0;
  bool json = false;
  std::vector<std::string> ids;
  ProgressLine progress;
  ArgParser p("prove",
              "Proves or refutes claims with Z3 over the model's own arithmetic (every claim when\n"
              "none is named; a family, e.g. slice-min-granularity, names all of its claims); a\n"
              "refutation shows its counterexample with every intermediate. Exits 1 when a\n"
              "verdict differs from the claim's expected one. With progress (a terminal, or\n"
              "--progress), the PELT proofs show the query they ask on stderr, and a line for\n"
              "each path they decide.");
  p.positionals("CLAIM", &ids, "a claim id or family (see cfsv claims)")
      .option("timeout", &timeout_ms, "MS", "solver timeout per query (default: the budget's, 10000/60000/600000)")
      .option("rlimit", &rlimit, "N",
              "Z3's resource limit per query (its rlimit; default 0: none): a query then stops after the same "
              "work on any host, so what is decided does not depend on the host's speed or load; give a "
              "--timeout past it")
      .option("budget", one_of(&config.budget, {Budget::smoke, Budget::ci, Budget::long_}), "smoke|ci|long",
              "default timeout, and the domains' bounds that grow with it (default ci)")
      .flag("json", &json, "print a JSON array of {claim, verdict, expected, agrees, detail, seconds, "
                           "conjecture, queries, counterexample}");
  progress.add_flags(p);
  if (auto rc = p.parse(argc, argv)) return *rc;
  if (timeout_ms > kMaxTimeoutMs) return p.error("--timeout: at most " + std::to_string(kMaxTimeoutMs) + " ms");
  config.timeout_ms = static_cast<uint32_t>(timeout_ms);
  if (rlimit > UINT32_MAX) return p.error("--rlimit: at most " + std::to_string(UINT32_MAX));
  config.rlimit = static_cast<uint32_t>(rlimit);

  std::string unknown;
  const std::vector<const Claim*> claims = select_claims(ids, &unknown);
  if (!unknown.empty()) {
    std::string known;
    for (const Claim& c : all_claims()) known += "\n  " + std::string(c.id);
    return p.error("unknown claim or family '" + unknown + "'; the claims:" + known);
  }

  int exit_code = 0;
  JsonWriter j(std::cout);
  if (json) j.begin_array();
  for (const Claim* c : claims) {
    if (progress.enabled())
      config.on_query = [&](std::string_view text, bool decided) {
        const std::string line = std::string(c->id) + ": " + std::string(text);
        if (!decided) return progress.show(line);  // the query now asked, redrawn
        progress.clear();
        std::fprintf(stderr, "%s\n", line.c_str());
      };
    const proofs::ProofResult r = proofs::prove_claim(*c, config);
    progress.clear();
    if (!agrees(c->expect, to_verdict(r.outcome))) exit_code = 1;
    if (json) json_result(j, r, *c);
    else print_text(r, *c);
  }
  if (json) {
    j.end_array();
    std::cout << '\n';
  }
  return exit_code;
}

}  // namespace cfsv::cli
