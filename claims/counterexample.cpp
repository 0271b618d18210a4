#include "claims/counterexample.h"

namespace cfsv {

namespace {
std::string pairs(const std::vector<Value>& vs) {
  std::string s;
  for (const Value& v : vs) s += (s.empty() ? "" : " ") + v.name + "=" + v.text;
  return s;
}

std::vector<Value> parse_pairs(std::string_view s) {
  std::vector<Value> out;
  while (!s.empty()) {
    const std::size_t sp = s.find(' ');
    const std::string_view word = s.substr(0, sp);
    s = sp == s.npos ? std::string_view{} : s.substr(sp + 1);
    const std::size_t eq = word.find('=');
    if (eq != word.npos) out.push_back({std::string(word.substr(0, eq)), std::string(word.substr(eq + 1))});
  }
  return out;
}
template <class F> void for_each_line(std::string_view text, F f) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    f(text.substr(0, nl));
    text = nl == text.npos ? std::string_view{} : text.substr(nl + 1);
  }
}
}  // namespace

std::optional<std::string> value_of(const std::vector<Value>& values, std::string_view name) {
  for (const Value& v : values)
    if (v.name == name) return v.text;
  return std::nullopt;
}

std::string format_counterexample(const Counterexample& c) {
  std::string out = "counterexample" + (c.note.empty() ? std::string() : " (" + c.note + ")") + ":\n";
  if (!c.values.empty()) out += "  " + pairs(c.values) + "\n";
  for (std::size_t i = 0; i < c.levels.size(); ++i)
    out += "  level " + std::to_string(i) + (i == 0 ? " (task): " : " (group): ") + pairs(c.levels[i]) + "\n";
  if (!c.scenario.empty()) out += "  scenario (save it as a .scn file; `cfsv run` replays it):\n";
  for_each_line(c.scenario, [&](std::string_view l) { out += "    " + std::string(l) + "\n"; });
  return out;
}

std::string serialize(const Counterexample& c) {
  const std::string p(kCounterexampleLine);
  std::string out = p + "claim " + c.claim + "\n" + p + "summary " + c.summary + "\n";
  if (!c.note.empty()) out += p + "note " + c.note + "\n";
  if (!c.values.empty()) out += p + "values " + pairs(c.values) + "\n";
  for (const std::vector<Value>& l : c.levels) out += p + "level " + pairs(l) + "\n";
  for_each_line(c.scenario, [&](std::string_view l) { out += p + "scenario " + std::string(l) + "\n"; });
  return out;
}

bool parse_counterexample_line(std::string_view line, Counterexample& into) {
  const std::size_t at = line.find(kCounterexampleLine);
  if (at == line.npos) return false;
  line.remove_prefix(at + kCounterexampleLine.size());
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  const std::size_t sp = line.find(' ');
  const std::string_view part = line.substr(0, sp), rest = sp == line.npos ? std::string_view{} : line.substr(sp + 1);
  if (part == "claim") into.claim = rest;
  else if (part == "summary") into.summary = rest;
  else if (part == "note") into.note = rest;
  else if (part == "values") into.values = parse_pairs(rest);
  else if (part == "level") into.levels.push_back(parse_pairs(rest));
  else if (part == "scenario") into.scenario += std::string(rest) + "\n";
  else return false;
  return true;
}

}  // namespace cfsv
