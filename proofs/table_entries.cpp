#include "proofs/table_entries.h"

#include <algorithm>

#include "model/arith/pelt_tables.h"
#include "proofs/bridge.h"
#include "proofs/product_lemmas.h"
#include "proofs/symbolic.h"

namespace cfsv::proofs {

std::optional<std::vector<EntryQuery>> entry_queries(const z3::expr& formula, const z3::expr& domain,
                                                     uint32_t timeout_ms, std::size_t max_queries) {
  z3::context& ctx = formula.ctx();
  const std::vector<z3::expr> ys = product_multipliers(formula);
  if (ys.empty()) return std::vector<EntryQuery>{{{}, formula}};
  z3::expr_vector from(ctx);
  for (const z3::expr& y : ys) from.push_back(y);
  z3::expr rest = domain;  // the domain less the combinations found so far
  std::vector<EntryQuery> out;
  for (;;) {
    const BridgeResult r = find(rest, timeout_ms);  // a fresh bit-blast each time: small, and fast unlike incremental
    if (r.outcome == Outcome::proved) return out;
    if (r.outcome != Outcome::refuted || out.size() == max_queries) return std::nullopt;
    EntryQuery q{{}, formula};
    z3::expr_vector to(ctx);
    z3::expr pinned = ctx.bool_val(true);
    for (const z3::expr& y : ys) {
      const z3::expr v = r.model->eval(y, true);
      q.entries.push_back(numeral(v));
      to.push_back(v);
      pinned = pinned && y == v;
    }
    q.query = z3::expr(formula).substitute(from, to) && pinned;
    rest = rest && !pinned;
    out.push_back(std::move(q));
  }
}

std::string entry_label(const std::vector<uint64_t>& entries) {
  const auto& inv = pelt_tables().yN_inv;
  std::string s;
  for (const uint64_t e : entries) {
    const auto at = std::find(inv.begin(), inv.end(), e);
    s += (s.empty() ? "" : ", ") +
         (at == inv.end() ? std::to_string(e) : "yN_inv[" + std::to_string(at - inv.begin()) + "]");
  }
  return s;
}

}  // namespace cfsv::proofs
