// Values in scenario files: durations, CPU lists, numbers and quoting
// (docs/scenario-format.md, "Values").
#include <algorithm>
#include <cstdio>

#include "scenario_parser.h"
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
    if (d > max || v > (max - d) / 10) return false;  // d > max: max - d would wrap (max < 9)
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

std::vector<Token> split(std::string_view text, unsigned col, char sep) {
  std::vector<Token> out;
  for (std::size_t i = 0;;) {
    const std::size_t j = std::min(text.find(sep, i), text.size());
    out.push_back({text.substr(i, j - i), col + static_cast<unsigned>(i)});
    if (j == text.size()) return out;
    i = j + 1;
  }
}

std::vector<Token> tokenize(std::string_view line) {
  if (std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
  std::vector<Token> toks;
  for (std::size_t i = 0; i < line.size();) {
    if (is_space(line[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < line.size() && !is_space(line[j])) ++j;
    toks.push_back({line.substr(i, j - i), static_cast<unsigned>(i + 1)});
    i = j;
  }
  return toks;
}

KeyValue key_value(const Token& t, unsigned line) {
  const std::size_t eq = t.text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == t.text.size())
    fail_at({line, t.col}, "expected key=value, got " + quote(t.text));
  return {t.text.substr(0, eq), t.text.substr(eq + 1), t.col, t.col + static_cast<unsigned>(eq + 1)};
}

std::vector<KeyValue> key_values(const std::vector<Token>& toks, std::size_t first, unsigned line) {
  std::vector<KeyValue> kvs;
  for (std::size_t i = first; i < toks.size(); ++i) {
    KeyValue kv = key_value(toks[i], line);
    for (const KeyValue& o : kvs)
      if (o.key == kv.key) fail_at({line, kv.key_col}, "duplicate key " + quote(kv.key));
    kvs.push_back(kv);
  }
  return kvs;
}

namespace {
std::string range_msg(std::string_view what, std::string_view text, uint64_t lo, uint64_t hi) {
  return std::string(what) + " " + quote(text) + " is out of range [" + std::to_string(lo) + ", " +
         std::to_string(hi) + "]";
}
}  // namespace

uint64_t number_at(SourceLoc loc, std::string_view text, std::string_view what, uint64_t lo, uint64_t hi) {
  uint64_t v = 0;
  if (!all_digits(text)) fail_at(loc, "expected a number for " + std::string(what) + ", got " + quote(text));
  if (!to_uint(text, hi, v) || v < lo) fail_at(loc, range_msg(what, text, lo, hi));
  return v;
}

std::string group_path_at(SourceLoc loc, std::string_view text, bool allow_root) {
  if (text.empty() || text[0] != '/') fail_at(loc, "group path " + quote(text) + " must start with '/'");
  if (text == "/") {
    if (!allow_root) fail_at(loc, "the root group '/' cannot be created or given shares");
    return "/";
  }
  std::size_t i = 1;
  while (true) {
    const std::size_t j = std::min(text.find('/', i), text.size());
    const std::string_view c = text.substr(i, j - i);
    if (c.empty() || c == "." || c == ".." || !std::all_of(c.begin(), c.end(), is_name_char))
      fail_at({loc.line, loc.col + static_cast<unsigned>(i)},
              "bad group path " + quote(text) + " (components of letters, digits, '_', '.', '-'; no empty, . or ..)");
    if (j == text.size()) return std::string(text);
    i = j + 1;
  }
}

CpuMask cpu_list_at(SourceLoc loc, std::string_view text, unsigned* max_cpu, unsigned* max_col) {
  CpuMask m;
  *max_cpu = 0;
  *max_col = loc.col;
  std::size_t i = 0;
  while (true) {
    const std::size_t comma = std::min(text.find(',', i), text.size());
    const std::string_view item = text.substr(i, comma - i);
    const unsigned item_col = loc.col + static_cast<unsigned>(i);
    if (item.empty()) fail_at({loc.line, item_col}, "empty item in CPU list " + quote(text));
    const std::size_t dash = item.find('-');
    const std::string_view a = item.substr(0, dash);
    const std::string_view b = dash == std::string_view::npos ? a : item.substr(dash + 1);
    const unsigned b_col = dash == std::string_view::npos ? item_col : item_col + static_cast<unsigned>(dash + 1);
    uint64_t lo = 0, hi = 0;
    if (!all_digits(a) || !all_digits(b)) fail_at({loc.line, item_col}, "bad CPU list item " + quote(item) + " (N or N-M)");
    if (!to_uint(a, kMaxCpus - 1, lo)) fail_at({loc.line, item_col}, range_msg("CPU", a, 0, kMaxCpus - 1));
    if (!to_uint(b, kMaxCpus - 1, hi)) fail_at({loc.line, b_col}, range_msg("CPU", b, 0, kMaxCpus - 1));
    if (lo > hi) fail_at({loc.line, item_col}, "CPU range " + quote(item) + " goes backwards");
    for (uint64_t c = lo; c <= hi; ++c) m.set(c);
    if (hi >= *max_cpu) {
      *max_cpu = static_cast<unsigned>(hi);
      *max_col = b_col;
    }
    if (comma == text.size()) return m;
    i = comma + 1;
  }
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
