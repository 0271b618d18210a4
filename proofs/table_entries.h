// Splitting a query on decay_load's table entries: its product terms
// `bvlshr(bvmul(X, Y), 32)` (proofs/product_lemmas.h) multiply by
// runnable_avg_yN_inv[n % 32], a select chain on the periods crossed. Each
// feasible combination of the multipliers' values is one query, with every
// multiplier replaced by its constant and the equalities that pin it
// conjoined: formula && Y == e is equisatisfiable with formula[Y := e] &&
// Y == e, and the combinations cover every value Y takes, so the formula is
// unsat iff every query is. A product by a constant bit-blasts into shifts
// and adds: each query is decided exactly, without lemmas. Internal to proofs/.
#pragma once
#include <z3++.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cfsv::proofs {

struct EntryQuery {
  std::vector<uint64_t> entries;  // each multiplier's value, in the order of product_multipliers()
  z3::expr query;
  z3::expr pinned;              // the equalities conjoined (terms == values)
  std::vector<uint64_t> shifts = {};  // after shift_queries: each symbolic shift's value
};

// One query per combination of the multipliers' values (product_multipliers)
// that `domain` allows, `domain` being implied by `formula`: enumerated by
// Z3 on the multipliers' terms and `domain` alone (each step a small query).
// One query, `formula` itself, when it has no product; nullopt when the
// enumeration does not finish in `timeout_ms` a step or passes `max_queries`.
std::optional<std::vector<EntryQuery>> entry_queries(const z3::expr& formula, const z3::expr& domain,
                                                     uint32_t timeout_ms, std::size_t max_queries);

// An entry query split further on decay_load's halving `val >> (n / 32)`:
// one query per value its shift amounts (the non-constant second operands of
// bvlshr) take where `domain` and the query's pinned entries allow them,
// each shift replaced by its constant and pinned, as entry_queries does for
// the entries. For yN_inv[0] (n = 0, 32, ..., 2016, or beyond) that is up to
// 64 queries, each without the barrel shifter. The query itself when it has
// no symbolic shift; nullopt as for entry_queries.
std::optional<std::vector<EntryQuery>> shift_queries(const EntryQuery& q, const z3::expr& domain,
                                                     uint32_t timeout_ms, std::size_t max_queries);

// "yN_inv[12]", "yN_inv[12], yN_inv[11]" or "yN_inv[0], 5 halvings": the
// table indices of q's entries, and its shifts' values.
std::string entry_label(const EntryQuery& q);

}  // namespace cfsv::proofs
