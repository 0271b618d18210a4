#include "proofs/table_entries.h"

#include <algorithm>

#include "model/arith/pelt_tables.h"
#include "proofs/bridge.h"
#include "proofs/product_lemmas.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

namespace {

// One query per combination of the values `terms` take in `domain`: `base`
// with each term of its query replaced by its value, the equalities pinning
// them conjoined (and added to its `pinned`), and the values appended to its
// member `values`. Enumerated by Z3 on `domain` less the combinations found so far.
std::optional<std::vector<EntryQuery>> split_on(const EntryQuery& base, std::vector<uint64_t> EntryQuery::*values,
                                                const z3::expr& domain, const std::vector<z3::expr>& terms,
                                                uint32_t timeout_ms, std::size_t max_queries) {
  z3::context& ctx = base.query.ctx();
  z3::expr_vector from(ctx);
  for (const z3::expr& y : terms) from.push_back(y);
  z3::expr rest = domain;
  std::vector<EntryQuery> out;
  for (;;) {
    const BridgeResult r = find(rest, timeout_ms);  // a fresh bit-blast each time: small, and fast unlike incremental
    if (r.outcome == Outcome::proved) return out;
    if (r.outcome != Outcome::refuted || out.size() == max_queries) return std::nullopt;
    EntryQuery q = base;
    z3::expr_vector to(ctx);
    z3::expr pin = ctx.bool_val(true);
    for (const z3::expr& y : terms) {
      const z3::expr v = r.model->eval(y, true);
      (q.*values).push_back(numeral(v));
      to.push_back(v);
      pin = pin && y == v;
    }
    q.query = z3::expr(base.query).substitute(from, to) && pin;
    q.pinned = base.pinned && pin;
    rest = rest && !pin;
    out.push_back(std::move(q));
  }
}

// The shift amounts of `formula`'s logical right shifts that are not constants
// (a product's `>> 32` is one, zero-extended).
std::vector<z3::expr> symbolic_shifts(const z3::expr& formula) {
  std::vector<z3::expr> out;
  for_each_subterm(formula, [&](const z3::expr& t) {
    if (t.decl().decl_kind() == Z3_OP_BLSHR && !t.arg(1).simplify().is_numeral() &&
        std::none_of(out.begin(), out.end(), [&](const z3::expr& s) { return z3::eq(s, t.arg(1)); }))
      out.push_back(t.arg(1));
  });
  return out;
}

}  // namespace

std::optional<std::vector<EntryQuery>> entry_queries(const z3::expr& formula, const z3::expr& domain,
                                                     uint32_t timeout_ms, std::size_t max_queries) {
  const EntryQuery whole{{}, formula, formula.ctx().bool_val(true)};
  const std::vector<z3::expr> ys = product_multipliers(formula);
  if (ys.empty()) return std::vector<EntryQuery>{whole};
  return split_on(whole, &EntryQuery::entries, domain, ys, timeout_ms, max_queries);
}

std::optional<std::vector<EntryQuery>> shift_queries(const EntryQuery& q, const z3::expr& domain,
                                                     uint32_t timeout_ms, std::size_t max_queries) {
  const std::vector<z3::expr> shifts = symbolic_shifts(q.query);
  if (shifts.empty()) return std::vector<EntryQuery>{q};
  return split_on(q, &EntryQuery::shifts, domain && q.pinned, shifts, timeout_ms, max_queries);
}

std::string entry_label(const EntryQuery& q) {
  const auto& inv = pelt_tables().yN_inv;
  std::string s;
  for (const uint64_t e : q.entries) {
    const auto at = std::find(inv.begin(), inv.end(), e);
    s += (s.empty() ? "" : ", ") +
         (at == inv.end() ? std::to_string(e) : "yN_inv[" + std::to_string(at - inv.begin()) + "]");
  }
  for (const uint64_t v : q.shifts) s += (s.empty() ? "" : ", ") + std::to_string(v) + " halvings";
  return s;
}

}  // namespace cfsv::proofs
