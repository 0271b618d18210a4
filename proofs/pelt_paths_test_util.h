// What the PELT proof tests share: one path of an update claim as prove_pelt
// states it, and the entry query of a path's split by table entry.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "claims/pelt_case.h"
#include "model/arith/pelt_tables.h"
#include "proofs/sym_reader.h"
#include "proofs/symbolic.h"
#include "proofs/table_entries.h"

namespace cfsv::proofs {

// The update claim's path number `k` (SymReader's order, as prove_pelt
// follows it: era, then each two-valued range) and its negated statement.
// Needs a ContextScope.
struct PeltPath {
  PeltCase<Sym> c;
  z3::expr domain, negated;
};
inline PeltPath path_of(const Claim& claim, int k = 0) {
  std::vector<uint64_t> path;
  for (;; --k) {
    SymReader reader(path, 2);
    PeltCase<Sym> c = decode_pelt_case(reader, claim);
    const std::optional<std::vector<uint64_t>> next = reader.next();
    if (k == 0 || !next) return {c, reader.domain(), reader.domain() && !pelt_holds(claim, c).expr()};
    path = *next;
  }
}

// The query of `split` whose only multiplier is runnable_avg_yN_inv[k].
inline const EntryQuery& entry(const std::vector<EntryQuery>& split, std::size_t k) {
  for (const EntryQuery& q : split)
    if (q.entries == std::vector<uint64_t>{pelt_tables().yN_inv[k]}) return q;
  throw std::runtime_error("no query for yN_inv[" + std::to_string(k) + "]");
}

}  // namespace cfsv::proofs
