// What the proofs engine's tests share: a claim by id, the smoke budget with
// a generous timeout, a counterexample's value as a number.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "claims/claim.h"
#include "claims/counterexample.h"
#include "proofs/prove.h"

namespace cfsv::proofs {

inline constexpr uint32_t kTimeoutMs = 120'000;

inline const Claim& claim(std::string_view id) {
  const Claim* c = claim_by_id(id);
  if (!c) throw std::runtime_error("no claim " + std::string(id));
  return *c;
}

inline CheckConfig smoke() {
  CheckConfig c;
  c.budget = Budget::smoke;
  c.timeout_ms = kTimeoutMs;
  return c;
}

inline ProofResult prove_smoke(std::string_view id) { return prove_claim(claim(id), smoke()); }

inline uint64_t value(const std::vector<Value>& vs, std::string_view name) {
  const std::optional<std::string> v = value_of(vs, name);
  if (!v) throw std::runtime_error("no value " + std::string(name));
  return std::stoull(*v);
}

}  // namespace cfsv::proofs
