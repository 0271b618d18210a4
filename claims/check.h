// A claim checked on one concrete case of its domain, for the engines that
// test (properties/, fuzz/): decode the case from the reader by the claim's
// kind, run the model, evaluate the statement. The proofs engine states the
// same decoders and conjectures over Sym (proofs/).
#pragma once
#include <cstdlib>
#include <optional>

#include "claims/balance_case.h"
#include "claims/balance_v3_case.h"
#include "claims/balance_v4_case.h"
#include "claims/calc_delta_case.h"
#include "claims/counterexample.h"
#include "claims/pelt_case.h"
#include "claims/sim_diff.h"
#include "claims/slice_trace.h"

namespace cfsv {

// calc-delta/loop-equals-fls on one call: both forms' results and the inputs.
Counterexample calc_delta_counterexample(const Claim& claim, const CalcDeltaCase<uint64_t>& c);

// nullopt when the slice claim holds on the case, else its counterexample.
std::optional<Counterexample> check_slice_case(const Claim& claim, const SliceCase<uint64_t>& c);

// A PELT claim's failing case: every input and what the model computed.
Counterexample pelt_counterexample(const Claim& claim, const PeltCase<uint64_t>& c);
// nullopt when the PELT claim holds on the case, else its counterexample.
std::optional<Counterexample> check_pelt_case(const Claim& claim, const PeltCase<uint64_t>& c);

// A balancing claim's case: every group's figures, the verdict and the move.
Counterexample balance_counterexample(const Claim& claim, const BalanceCase<uint64_t>& c);
// nullopt when the balancing claim holds on the case, else its counterexample.
std::optional<Counterexample> check_balance_case(const Claim& claim, const BalanceCase<uint64_t>& c);
// The same for an era-1 balancing claim (claims/balance_v4_case.h).
Counterexample balance_v4_counterexample(const Claim& claim, const BalanceCaseV4<uint64_t>& c);
std::optional<Counterexample> check_balance_v4_case(const Claim& claim, const BalanceCaseV4<uint64_t>& c);
// ... and a v3.10 one (claims/balance_v3_case.h).
Counterexample balance_v3_counterexample(const Claim& claim, const BalanceCaseV3<uint64_t>& c);
std::optional<Counterexample> check_balance_v3_case(const Claim& claim, const BalanceCaseV3<uint64_t>& c);

// nullopt when the claim holds on the case `r` decodes, else its counterexample.
template <Reader R>
  requires std::same_as<typename R::value_type, uint64_t>
std::optional<Counterexample> check_case(const Claim& claim, R& r, Budget b) {
  switch (family_of(claim.kind)) {
    case ClaimFamily::slice: return check_slice_case(claim, decode_slice_case(r, claim.domain, b));
    case ClaimFamily::calc_delta: {
      const CalcDeltaCase<uint64_t> c = decode_calc_delta_case(r, claim.domain);
      const LoadResolution res = resolution_of(c.era);
      if (calc_delta_loop(c.delta, c.weight, c.lw, res) == calc_delta(c.delta, c.weight, c.lw, res)) return std::nullopt;
      return calc_delta_counterexample(claim, c);
    }
    case ClaimFamily::pelt: return check_pelt_case(claim, decode_pelt_case(r, claim));
    case ClaimFamily::sim: return check_sim_case(claim, decode_sim_case(r, claim));
    case ClaimFamily::balance: return check_balance_case(claim, decode_balance_case(r, claim.domain));
    case ClaimFamily::balance_v4: return check_balance_v4_case(claim, decode_balance_case_v4(r, claim.domain));
    case ClaimFamily::balance_v3: return check_balance_v3_case(claim, decode_balance_case_v3(r, claim.domain));
  }
  std::abort();  // family_of gives one of the above
}

}  // namespace cfsv
