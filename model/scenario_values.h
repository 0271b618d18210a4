// The lexical side of scenario files, shared by the parser
// (scenario_parse.cpp) and the printer (scenario_print.cpp): the `set` keys
// and their ranges, duration units, name characters, quoting for messages.
// Private to those files; the public API is scenario_text.h.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "scenario.h"

namespace cfsv::scenario_text {

constexpr uint64_t kSec = 1'000'000'000;

// Setting keys and the values they take: the kernel's sysctl bounds
// (kernel/sysctl.c, v3.10) where it has them, generous ones elsewhere.
enum class ValueKind { duration, count, scaling };
struct SettingKey {
  std::string_view name;
  ValueKind kind;
  uint64_t lo, hi;
};
constexpr auto kSettingKeys = std::to_array<SettingKey>({
    {"hz", ValueKind::count, 1, 10000},
    {"latency", ValueKind::duration, 100'000, kSec},
    {"min_granularity", ValueKind::duration, 100'000, kSec},
    {"wakeup_granularity", ValueKind::duration, 0, kSec},
    {"idle_min_granularity", ValueKind::duration, 0, kSec},
    {"migration_cost", ValueKind::duration, 0, kSec},
    {"nr_latency", ValueKind::count, 1, 1u << 20},
    {"nr_migrate", ValueKind::count, 0, 1u << 20},
    {"newidle_cost", ValueKind::duration, 0, 1'000'000},  // the model's, per CPU of a domain (model/balance.h)
    {"scaling", ValueKind::scaling, 0, 2},
    {"autogroup", ValueKind::count, 0, 1},  // kernel.sched_autogroup_enabled
});
const SettingKey* setting_key(std::string_view name);  // nullptr when unknown

constexpr std::array<std::string_view, 3> kScalingNames = {"none", "log", "linear"};  // = TunableScaling

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
inline bool is_name_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '-';
}
bool all_digits(std::string_view s);

// Decimal digits to a value <= max; false on overflow or a non-digit.
bool to_uint(std::string_view s, uint64_t max, uint64_t& out);

// 'text' for messages: printable ASCII (other bytes as \xNN), at most 40 bytes.
std::string quote(std::string_view s);

}  // namespace cfsv::scenario_text
