// The Z3 bridge (Z3's prove() pattern): assert the domain and the negation of
// a conjecture; unsat = proved, sat = refuted with a model, unknown = the
// solver's reason (timeout, ...). Internal to proofs/.
#pragma once
#include <z3++.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "proofs/prove.h"

namespace cfsv::proofs {

struct BridgeResult {
  Outcome outcome = Outcome::unknown;
  std::optional<z3::model> model;  // when refuted (or when a search finds one)
  std::string reason;              // when unknown
  double seconds = 0;
};

// Is `conjecture` true for every assignment satisfying `domain`?
BridgeResult prove(const z3::expr& domain, const z3::expr& conjecture, uint32_t timeout_ms);

// The verdict of a claim no query refuted: unknown with the reasons of its
// unknown queries ("; " between them) if there are any, else `outcome` with
// `detail`, by default "N queries unsat" (N = res.queries.size()).
void conclude(ProofResult& res, const std::vector<std::string>& unknown, Outcome outcome = Outcome::proved,
              std::string detail = {});

// A model Z3 found for a claim's negated query, re-checked on the uint64_t
// model: `cx` is what that check gives. Refuted with it (noted as the first
// model found, `where`), or, when the uint64_t side holds there, unknown as a
// BUG showing `as_found()` (the case's every value).
void refute_with(ProofResult& res, const std::optional<Counterexample>& cx,
                 const std::function<Counterexample()>& as_found, const std::string& where);

// Z3's resource limit on each query this thread makes while the scope lives
// (its `rlimit`; 0, the default, none): prove_claim holds one for
// CheckConfig::rlimit (`cfsv prove --rlimit`). A query then stops after the
// same work on any host, so what it decides does not move with the host's
// speed or load as it does under the (wall-clock) timeout alone.
class QueryRlimitScope {
 public:
  explicit QueryRlimitScope(uint32_t rlimit);
  ~QueryRlimitScope();
  QueryRlimitScope(const QueryRlimitScope&) = delete;
  QueryRlimitScope& operator=(const QueryRlimitScope&) = delete;

 private:
  uint32_t saved_;
};

// One query's solver parameters: the timeout, the resource limit in scope,
// and Z3's random_seed when `seed` is not 0.
z3::params query_params(z3::context& c, uint32_t timeout_ms, unsigned seed = 0);

// Why a query that took `seconds` came back unknown: "resource limit N
// reached", "timeout after N ms", or Z3's own reason.
std::string unknown_reason(const z3::solver& s, uint32_t timeout_ms, double seconds);

// Is `formula` satisfiable? refuted + model when it is, proved when it is not
// (there is nothing to find), unknown otherwise. `seed`: Z3's random_seed.
BridgeResult find(const z3::expr& formula, uint32_t timeout_ms, unsigned seed = 0);

// A query asked again under other seeds when undecided: Z3's time on one
// query is heavy-tailed (a PELT entry query over the integers: 0.2 to 1.4 s
// under three seeds, past 20 s under a fourth). attempt(timeout, seed) under
// seeds 0, 1, 2, 3 with 1/30, 1/30, 2/30 and 4/30 of `timeout_ms`, then seed
// 0 again with the 22/30 left: a query seed 0 decides within 22/30 of the
// budget is still decided, and one another seed decides quickly is too.
// The first decision is the result; undecided, the last attempt's reason.
// Its seconds: every attempt's.
BridgeResult with_restarts(uint32_t timeout_ms, const std::function<BridgeResult(uint32_t, unsigned)>& attempt);

// solve(query) with the query translated into a Z3 context of its own, and a
// model it finds translated back into the query's. Z3 is slower on a query in
// a context that has held an hour of others (a PELT part undecided there in
// 8 attempts was proved in 2.2 s in a fresh one).
BridgeResult in_own_context(const z3::expr& query, const std::function<BridgeResult(const z3::expr&)>& solve);

// The same for a formula without unknowns (one point of a domain), folded to
// true or false by Z3's simplifier: refuted (with an empty model) when true.
BridgeResult find_ground(const z3::expr& formula);

}  // namespace cfsv::proofs
