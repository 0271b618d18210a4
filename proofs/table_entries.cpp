#include "proofs/table_entries.h"

#include <algorithm>
#include <functional>
#include <unordered_set>
#include <utility>

#include "model/arith/pelt_tables.h"
#include "proofs/bridge.h"
#include "proofs/product_lemmas.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

namespace {

// One query per combination of the values `terms` take in `domain`: the
// formula with each term replaced by its value, and the equalities pinning
// them conjoined (to `pinned`). Enumerated by Z3 on `domain` less the
// combinations found so far.
std::optional<std::vector<EntryQuery>> split_on(const z3::expr& formula, const z3::expr& pinned,
                                                const z3::expr& domain, const std::vector<z3::expr>& terms,
                                                uint32_t timeout_ms, std::size_t max_queries) {
  z3::context& ctx = formula.ctx();
  z3::expr_vector from(ctx);
  for (const z3::expr& y : terms) from.push_back(y);
  z3::expr rest = domain;
  std::vector<EntryQuery> out;
  for (;;) {
    const BridgeResult r = find(rest, timeout_ms);  // a fresh bit-blast each time: small, and fast unlike incremental
    if (r.outcome == Outcome::proved) return out;
    if (r.outcome != Outcome::refuted || out.size() == max_queries) return std::nullopt;
    EntryQuery q{{}, formula, pinned};
    z3::expr_vector to(ctx);
    z3::expr pin = ctx.bool_val(true);
    for (const z3::expr& y : terms) {
      const z3::expr v = r.model->eval(y, true);
      q.entries.push_back(numeral(v));
      to.push_back(v);
      pin = pin && y == v;
    }
    q.query = z3::expr(formula).substitute(from, to) && pin;
    q.pinned = pinned && pin;
    rest = rest && !pin;
    out.push_back(std::move(q));
  }
}

// The shift amounts of `formula`'s logical right shifts that are not constants
// (a product's `>> 32` is one, zero-extended).
std::vector<z3::expr> symbolic_shifts(const z3::expr& formula) {
  std::vector<z3::expr> out;
  std::unordered_set<unsigned> seen;
  std::function<void(const z3::expr&)> walk = [&](const z3::expr& t) {
    if (!t.is_app() || !seen.insert(t.id()).second) return;
    for (unsigned i = 0; i < t.num_args(); ++i) walk(t.arg(i));
    if (t.decl().decl_kind() == Z3_OP_BLSHR && !t.arg(1).simplify().is_numeral() &&
        std::none_of(out.begin(), out.end(), [&](const z3::expr& s) { return z3::eq(s, t.arg(1)); }))
      out.push_back(t.arg(1));
  };
  walk(formula);
  return out;
}

}  // namespace

std::optional<std::vector<EntryQuery>> entry_queries(const z3::expr& formula, const z3::expr& domain,
                                                     uint32_t timeout_ms, std::size_t max_queries) {
  const std::vector<z3::expr> ys = product_multipliers(formula);
  if (ys.empty()) return std::vector<EntryQuery>{{{}, formula, formula.ctx().bool_val(true)}};
  return split_on(formula, formula.ctx().bool_val(true), domain, ys, timeout_ms, max_queries);
}

std::optional<std::vector<EntryQuery>> shift_queries(const EntryQuery& q, const z3::expr& domain,
                                                     uint32_t timeout_ms, std::size_t max_queries) {
  const std::vector<z3::expr> shifts = symbolic_shifts(q.query);
  if (shifts.empty()) return std::vector<EntryQuery>{q};
  auto split = split_on(q.query, q.pinned, domain && q.pinned, shifts, timeout_ms, max_queries);
  if (split)
    for (EntryQuery& s : *split) s.shifts = std::exchange(s.entries, q.entries);
  return split;
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
