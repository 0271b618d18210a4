// Parsing scenario text in tests: the scenario, or the error, of a text
// named t.scn; a failure is a test failure.
#pragma once
#include <gtest/gtest.h>

#include <string_view>

#include "model/scenario_text.h"

namespace cfsv::scenario_test {

inline Scenario parse_ok(std::string_view text) {
  ParseResult r = parse_scenario(text, "t.scn");
  if (const auto* e = std::get_if<ParseError>(&r)) {
    ADD_FAILURE() << e->to_string() << "\n--- input:\n" << text;
    return {};
  }
  return std::get<Scenario>(std::move(r));
}

inline ParseError parse_err(std::string_view text) {
  ParseResult r = parse_scenario(text, "t.scn");
  if (const auto* e = std::get_if<ParseError>(&r)) return *e;
  ADD_FAILURE() << "parsed, expected an error:\n" << text;
  return {};
}

}  // namespace cfsv::scenario_test
