// Values in scenario files: durations, CPU lists, numbers and quoting
// (docs/scenario-format.md, "Values").
#include <algorithm>
#include <cstdio>

#include "scenario_text.h"
#include "scenario_values.h"

namespace cfsv {

namespace scenario_text {

const SettingKey* setting_key(std::string_view name) {
  for (const SettingKey& k : kSettingKeys)
    if (k.name == name) return &k;
  return nullptr;
}

bool all_digits(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_digit); }

bool to_uint(std::string_view s, uint64_t max, uint64_t& out) {
  if (!all_digits(s)) return false;
  uint64_t v = 0;
  for (char c : s) {
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (max - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

std::string quote(std::string_view s) {
  std::string q = "'";
  for (std::size_t i = 0; i < s.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      q += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      q += buf;
    }
  }
  if (s.size() > 40) q += "...";
  return q + "'";
}

}  // namespace scenario_text

using namespace scenario_text;

namespace {
struct Unit {
  std::string_view suffix;
  Nanos scale;
  unsigned digits;  // log10(scale)
};
constexpr std::array<Unit, 4> kUnits = {{{"s", kSec, 9}, {"ms", 1'000'000, 6}, {"us", 1'000, 3}, {"ns", 1, 0}}};
}  // namespace

std::string format_duration(Nanos ns) {
  for (const Unit& u : kUnits) {
    if (ns < u.scale && u.scale != 1) continue;
    std::string s = std::to_string(ns / u.scale);
    if (const Nanos frac = ns % u.scale) {
      std::string f = std::to_string(frac);
      f.insert(0, u.digits - f.size(), '0');
      while (f.back() == '0') f.pop_back();
      s += "." + f;
    }
    return s + std::string(u.suffix);
  }
  return {};  // unreachable: ns has scale 1
}

std::optional<Nanos> parse_duration(std::string_view text, std::string* why) {
  auto bad = [&](std::string msg) -> std::optional<Nanos> {
    if (why) *why = std::move(msg);
    return std::nullopt;
  };
  if (text == "0") return 0;
  std::size_t i = 0;
  while (i < text.size() && (is_digit(text[i]) || text[i] == '.')) ++i;
  const std::string_view num = text.substr(0, i), suffix = text.substr(i);
  const Unit* unit = nullptr;
  for (const Unit& u : kUnits)
    if (u.suffix == suffix) unit = &u;
  if (num.empty()) return bad("expected a number with a unit (ns, us, ms, s)");
  if (!unit) return bad(suffix.empty() ? "missing unit (ns, us, ms, s)" : "unknown unit " + quote(suffix) + " (ns, us, ms, s)");
  const std::size_t dot = num.find('.');
  const std::string_view whole = num.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view{} : num.substr(dot + 1);
  if (!all_digits(whole) || (dot != std::string_view::npos && !all_digits(frac)))
    return bad("expected digits[.digits] before the unit");
  uint64_t w = 0;
  if (!to_uint(whole, UINT64_MAX / unit->scale, w)) return bad("too large");
  Nanos v = w * unit->scale, place = unit->scale;
  for (char c : frac) {
    place /= 10;
    if (place == 0) {
      if (c != '0') return bad("finer than a nanosecond");
      continue;
    }
    const Nanos add = static_cast<Nanos>(c - '0') * place;
    if (v > UINT64_MAX - add) return bad("too large");
    v += add;
  }
  return v;
}

std::string format_cpu_list(const CpuMask& cpus) {
  if (cpus.none()) return "all";
  std::string s;
  for (unsigned c = 0; c < kMaxCpus;) {
    if (!cpus[c]) {
      ++c;
      continue;
    }
    unsigned e = c;
    while (e + 1 < kMaxCpus && cpus[e + 1]) ++e;
    if (!s.empty()) s += ',';
    s += std::to_string(c);
    if (e > c) s += "-" + std::to_string(e);
    c = e + 1;
  }
  return s;
}

}  // namespace cfsv
