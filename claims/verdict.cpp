#include "claims/verdict.h"

namespace cfsv {

std::string_view to_string(Expect e) { return e == Expect::holds ? "holds" : "refuted"; }

std::string_view to_string(Engine e) {
  switch (e) {
    case Engine::properties: return "properties";
    case Engine::fuzz: return "fuzz";
    case Engine::proofs: return "proofs";
  }
  return "?";
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::proved: return "proved";
    case Verdict::passed: return "passed";
    case Verdict::refuted: return "refuted";
    case Verdict::unknown: return "unknown";
  }
  return "?";
}

bool agrees(Expect e, Verdict v) {
  if (e == Expect::holds) return v == Verdict::proved || v == Verdict::passed;
  return v == Verdict::refuted;
}

std::string_view to_string(Budget b) {
  switch (b) {
    case Budget::smoke: return "smoke";
    case Budget::ci: return "ci";
    case Budget::long_: return "long";
  }
  return "?";
}

}  // namespace cfsv
