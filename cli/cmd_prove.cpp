// cfsv prove [CLAIM...]: the Z3 engine on the claims it supports; a verdict
// per claim with its conjecture, and for a refutation every intermediate.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "proofs/prove.h"

namespace cfsv::cli {

namespace {

constexpr const char* kUsage =
    "usage: cfsv prove [CLAIM...] [--timeout MS] [--budget smoke|ci|long] [--json]\n"
    "Proves or refutes claims with Z3 over the model's own arithmetic; with no\n"
    "CLAIM, every claim the prover supports.\n"
    "  --timeout MS   solver timeout per query (default: the budget's)\n"
    "  --budget B     smoke, ci (default) or long: the default timeout\n"
    "  --json         one JSON array of {claim, verdict, expected, detail, seconds,\n"
    "                 conjecture, queries, counterexample}\n"
    "Exit 0 when every verdict is the expected one, 1 otherwise, 2 on bad input.\n";

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "cfsv prove: %s\n%s", msg.c_str(), kUsage);
  return 2;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string json_values(const std::vector<proofs::Value>& vs) {
  std::string s;
  for (const proofs::Value& v : vs) s += (s.empty() ? "" : ",") + json_string(v.name) + ":" + v.text;
  return s;
}

std::string json_counterexample(const proofs::Counterexample& c) {
  std::string s = "{\"note\":" + json_string(c.note);
  if (!c.values.empty()) s += "," + json_values(c.values);
  if (!c.levels.empty()) {
    s += ",\"levels\":[";
    for (std::size_t i = 0; i < c.levels.size(); ++i) s += (i ? ",{" : "{") + json_values(c.levels[i]) + "}";
    s += "]";
  }
  return s + "}";
}

std::string json_result(const proofs::ProofResult& r, const Claim& c) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", r.seconds);
  std::string s = "{\"claim\":" + json_string(r.claim) + ",\"verdict\":" + json_string(to_string(to_verdict(r.outcome))) +
                  ",\"expected\":" + json_string(to_string(c.expect)) +
                  ",\"agrees\":" + (agrees(c.expect, to_verdict(r.outcome)) ? "true" : "false") +
                  ",\"detail\":" + json_string(r.detail) + ",\"seconds\":" + secs +
                  ",\"conjecture\":" + json_string(r.conjecture) + ",\"queries\":[";
  for (std::size_t i = 0; i < r.queries.size(); ++i) {
    std::snprintf(secs, sizeof secs, "%.3f", r.queries[i].seconds);
    s += std::string(i ? "," : "") + "{\"query\":" + json_string(r.queries[i].label) +
         ",\"outcome\":" + json_string(to_string(r.queries[i].outcome)) + ",\"seconds\":" + secs + "}";
  }
  s += "],\"counterexample\":";
  s += r.outcome == proofs::Outcome::refuted ? json_counterexample(r.counterexample) : "null";
  return s + "}";
}

void print_text(const proofs::ProofResult& r, const Claim& c) {
  const Verdict v = to_verdict(r.outcome);
  std::printf("%-8s %s  (expected %s%s)  %.2f s\n", std::string(to_string(v)).c_str(), r.claim.c_str(),
              std::string(to_string(c.expect)).c_str(), agrees(c.expect, v) ? "" : ": MISMATCH", r.seconds);
  std::printf("  conjecture: %s\n  %s\n", r.conjecture.c_str(), r.detail.c_str());
  if (r.outcome == proofs::Outcome::refuted) std::fputs(proofs::format_counterexample(r.counterexample).c_str(), stdout);
}

}  // namespace

int cmd_prove(int argc, char** argv) {
  std::vector<const Claim*> claims;
  bool json = false;
  CheckConfig config;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&](std::string_view flag, std::string& out) {
      if (a.size() > flag.size() && a.substr(0, flag.size()) == flag && a[flag.size()] == '=') {
        out = std::string(a.substr(flag.size() + 1));
        return true;
      }
      if (a != flag) return false;
      if (i + 1 >= argc) throw std::string(flag) + " needs a value";
      out = argv[++i];
      return true;
    };
    std::string v;
    try {
      if (a == "--help" || a == "-h") {
        std::fputs(kUsage, stdout);
        return 0;
      } else if (a == "--json") {
        json = true;
      } else if (value("--timeout", v)) {
        char* end = nullptr;
        const unsigned long ms = std::strtoul(v.c_str(), &end, 10);
        if (v.empty() || *end || v[0] == '-' || ms == 0 || ms > 86'400'000)
          return usage_error("--timeout wants milliseconds in 1..86400000, got '" + v + "'");
        config.timeout_ms = static_cast<uint32_t>(ms);
      } else if (value("--budget", v)) {
        if (v == "smoke") config.budget = Budget::smoke;
        else if (v == "ci") config.budget = Budget::ci;
        else if (v == "long") config.budget = Budget::long_;
        else return usage_error("--budget wants smoke, ci or long, got '" + v + "'");
      } else if (a.starts_with("-")) {
        return usage_error("unknown flag '" + std::string(a) + "'");
      } else if (const Claim* c = claim_by_id(a)) {
        claims.push_back(c);
      } else {
        std::string known;
        for (std::string_view id : proofs::supported_claims()) known += "\n  " + std::string(id);
        std::fprintf(stderr, "cfsv prove: unknown claim '%s'; the prover supports:%s\n", argv[i], known.c_str());
        return 2;
      }
    } catch (const std::string& msg) {
      return usage_error(msg);
    }
  }
  if (claims.empty())
    for (std::string_view id : proofs::supported_claims()) claims.push_back(claim_by_id(id));

  int exit_code = 0;
  std::string out = "[";
  for (const Claim* c : claims) {
    const proofs::ProofResult r = proofs::prove_claim(*c, config);
    if (!agrees(c->expect, to_verdict(r.outcome))) exit_code = 1;
    if (json) {
      out += (out.size() > 1 ? ",\n" : "") + json_result(r, *c);
    } else {
      print_text(r, *c);
      std::fflush(stdout);
    }
  }
  if (json) std::printf("%s]\n", out.c_str());
  return exit_code;
}

}  // namespace cfsv::cli
