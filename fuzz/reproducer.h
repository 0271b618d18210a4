// A crash input of an ops target (fuzz/ops_input.h) written back as a
// scenario file that `cfsv replay` re-runs: the scenario the target decoded
// from those bytes, under a first line that expects what the model shows.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cfsv::fuzz {

struct Reproducer {
  std::string text;    // the scenario file
  std::string expect;  // its verdict: "pass" or "violation <invariant>"
};

// The first scenario the target ran on `input` in which the model, checked
// after every op and event, violates an invariant, expecting that violation;
// otherwise the first one, expecting pass, with `crash` (what the target
// reported: a sanitizer's line, a failed check) in a comment. `input_name`
// names the crash file in a comment. nullopt when `target` decodes no ops.
std::optional<Reproducer> ops_reproducer(std::string_view target, std::span<const uint8_t> input,
                                         std::string_view input_name, std::string_view crash);

}  // namespace cfsv::fuzz
