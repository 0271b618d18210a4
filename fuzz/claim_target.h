// What the claim targets (fuzz_slice_claims, fuzz_pelt_claims) share: the
// claims a run checks, from CFSV_CLAIM and CFSV_BUDGET, and one input checked
// against each. A violation writes the counterexample as cfsv-counterexample
// lines (claims/counterexample.h) on stderr, which the runner
// (fuzz/libfuzzer.h) reads back, then aborts.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "claims/check.h"
#include "fuzz/byte_reader.h"

namespace cfsv::fuzz {

struct ClaimSelection {
  std::vector<const Claim*> claims;
  Budget budget = Budget::ci;
};

// CFSV_CLAIM=<id or family> names the claims (each must be this target's);
// unset, every claim of this target expected to hold, so that a campaign
// hunts real bugs. CFSV_BUDGET=smoke|ci|long picks the domains'
// budget-dependent bounds (default ci). Exits 2 on a value it does not know.
inline ClaimSelection select_target_claims(std::string_view target) {
  ClaimSelection out;
  const char* id = std::getenv("CFSV_CLAIM");
  if (id && *id) {
    out.claims = select_claims(id);
    bool ours = !out.claims.empty();
    for (const Claim* c : out.claims) ours = ours && fuzz_target(c->kind) == target;
    if (!ours) {
      std::fprintf(stderr, "%.*s: CFSV_CLAIM='%s' names no claim or family of this target; its claims:\n",
                   int(target.size()), target.data(), id);
      for (const Claim& c : all_claims())
        if (fuzz_target(c.kind) == target) std::fprintf(stderr, "  %.*s\n", int(c.id.size()), c.id.data());
      std::exit(2);
    }
  } else {
    for (const Claim& c : all_claims())
      if (c.expect == Expect::holds && fuzz_target(c.kind) == target) out.claims.push_back(&c);
  }
  const std::string_view budget = std::getenv("CFSV_BUDGET") ? std::getenv("CFSV_BUDGET") : "ci";
  if (budget == "smoke") out.budget = Budget::smoke;
  else if (budget == "long") out.budget = Budget::long_;
  else if (budget != "ci") {
    std::fprintf(stderr, "%.*s: CFSV_BUDGET='%.*s' is not smoke, ci or long\n", int(target.size()), target.data(),
                 int(budget.size()), budget.data());
    std::exit(2);
  }
  return out;
}

// The selection of this process's target, made once.
inline const ClaimSelection& target_claims(std::string_view target) {
  static const ClaimSelection s = select_target_claims(target);
  return s;
}

// Each selected claim on the case the input decodes to, from its first byte.
inline void check_input(const ClaimSelection& s, const uint8_t* data, std::size_t size) {
  for (const Claim* claim : s.claims) {
    ByteReader in(data, size);
    if (const std::optional<Counterexample> cx = check_case(*claim, in, s.budget)) {
      std::fputs(serialize(*cx).c_str(), stderr);
      std::fflush(stderr);
      std::abort();
    }
  }
}

}  // namespace cfsv::fuzz

// A claim target's libFuzzer entry points (fuzz/fuzz_target.h).
#define CFSV_CLAIM_FUZZ_TARGET(name)                                              \
  extern "C" int LLVMFuzzerInitialize(int*, char***) {                            \
    cfsv::fuzz::target_claims(name);                                              \
    return 0;                                                                     \
  }                                                                               \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) { \
    cfsv::fuzz::check_input(cfsv::fuzz::target_claims(name), data, size);         \
    return 0;                                                                     \
  }
