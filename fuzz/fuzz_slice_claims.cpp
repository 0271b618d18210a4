// fuzz_slice_claims: every claim of claims/registry.cpp, each on exactly the
// domain the claim states: the input's bytes feed the same decoders the
// other engines use (claims/check.h), and the claim's kind picks the check.
//
// CFSV_CLAIM=<id or family> checks those claims; unset, every claim expected
// to hold (so a campaign hunts real bugs). CFSV_BUDGET=smoke|ci|long picks the
// domain's budget-dependent bounds (default ci). A violation writes the
// counterexample as cfsv-counterexample lines (claims/counterexample.h) on
// stderr, which the runner (fuzz/libfuzzer.h) reads back, then aborts.
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "claims/check.h"
#include "fuzz/byte_reader.h"
#include "fuzz/fuzz_target.h"

namespace {

using namespace cfsv;

struct Selection {
  std::vector<const Claim*> claims;
  Budget budget = Budget::ci;
};

// From CFSV_CLAIM and CFSV_BUDGET; exits 2 on a value it does not know.
const Selection& selection() {
  static const Selection s = [] {
    Selection out;
    const char* id = std::getenv("CFSV_CLAIM");
    if (id && *id) {
      out.claims = select_claims(id);
      if (out.claims.empty()) {
        std::fprintf(stderr, "fuzz_slice_claims: CFSV_CLAIM='%s' names no claim or family; the claims:\n", id);
        for (const Claim& c : all_claims()) std::fprintf(stderr, "  %.*s\n", int(c.id.size()), c.id.data());
        std::exit(2);
      }
    } else {
      for (const Claim& c : all_claims())
        if (c.expect == Expect::holds) out.claims.push_back(&c);
    }
    const std::string_view budget = std::getenv("CFSV_BUDGET") ? std::getenv("CFSV_BUDGET") : "ci";
    if (budget == "smoke") out.budget = Budget::smoke;
    else if (budget == "long") out.budget = Budget::long_;
    else if (budget != "ci") {
      std::fprintf(stderr, "fuzz_slice_claims: CFSV_BUDGET='%.*s' is not smoke, ci or long\n", int(budget.size()),
                   budget.data());
      std::exit(2);
    }
    return out;
  }();
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  selection();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const Selection& s = selection();
  for (const Claim* claim : s.claims) {
    cfsv::fuzz::ByteReader in(data, size);
    if (const std::optional<Counterexample> cx = check_case(*claim, in, s.budget)) {
      std::fputs(serialize(*cx).c_str(), stderr);
      std::fflush(stderr);
      std::abort();
    }
  }
  return 0;
}
