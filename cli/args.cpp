#include "cli/args.h"

#include <charconv>
#include <cmath>
#include <iostream>
#include <string>
#include <type_traits>

namespace cfsv::cli {

namespace {
std::string quoted(std::string_view v) { return "'" + std::string(v) + "'"; }

// Whole-string std::from_chars into T; "" when it parses.
template <class T> std::string parse_number(std::string_view v, T* out, std::string_view kind) {
  T x{};
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec == std::errc::result_out_of_range) return quoted(v) + " is out of range";
  if (ec != std::errc{} || end != v.data() + v.size() || v.empty()) return quoted(v) + " is not " + std::string(kind);
  if constexpr (std::is_floating_point_v<T>)
    if (!std::isfinite(x)) return quoted(v) + " is not " + std::string(kind);
  *out = x;
  return "";
}
}  // namespace

std::string not_one_of(std::string_view value, const std::vector<std::string_view>& names) {
  std::string s = quoted(value) + " is not one of ";
  for (std::size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + std::string(names[i]);
  return s;
}

ArgParser::Handler output_path(std::string* out) {
  return [out](std::string_view v) { return v.empty() ? std::string("an empty path") : (*out = v, std::string{}); };
}

ArgParser::ArgParser(std::string_view command, std::string_view summary) : command_(command), summary_(summary) {}

ArgParser& ArgParser::flag(std::string_view name, bool* out, std::string_view help) {
  specs_.push_back({std::string(name), "", std::string(help), out, {}});
  return *this;
}

ArgParser& ArgParser::option(std::string_view name, Handler handler, std::string_view metavar,
                             std::string_view help) {
  specs_.push_back({std::string(name), std::string(metavar), std::string(help), nullptr, std::move(handler)});
  return *this;
}

ArgParser& ArgParser::option(std::string_view name, std::string* out, std::string_view metavar,
                             std::string_view help) {
  return option(name, [out](std::string_view v) { return *out = v, std::string{}; }, metavar, help);
}

ArgParser& ArgParser::option(std::string_view name, std::vector<std::string>* out, std::string_view metavar,
                             std::string_view help) {
  return option(name, [out](std::string_view v) { return out->emplace_back(v), std::string{}; }, metavar, help);
}

ArgParser& ArgParser::option(std::string_view name, uint64_t* out, std::string_view metavar,
                             std::string_view help) {
  return option(name, [out](std::string_view v) { return parse_number(v, out, "a non-negative integer"); },
                metavar, help);
}

ArgParser& ArgParser::option(std::string_view name, std::optional<uint64_t>* out, std::string_view metavar,
                             std::string_view help) {
  return option(name, [out](std::string_view v) {
    uint64_t x = 0;
    std::string err = parse_number(v, &x, "a non-negative integer");
    if (err.empty()) *out = x;
    return err;
  }, metavar, help);
}

ArgParser& ArgParser::option(std::string_view name, double* out, std::string_view metavar, std::string_view help) {
  return option(name, [out](std::string_view v) { return parse_number(v, out, "a number"); }, metavar, help);
}

ArgParser& ArgParser::positionals(std::string_view metavar, std::vector<std::string>* out, std::string_view help,
                                  std::size_t min, std::size_t max) {
  pos_metavar_ = metavar;
  pos_help_ = help;
  pos_out_ = out;
  pos_min_ = min;
  pos_max_ = max;
  return *this;
}

const ArgParser::Spec* ArgParser::find(std::string_view name) const {
  for (const Spec& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

int ArgParser::error(std::string_view what) const {
  std::cerr << "cfsv " << command_ << ": " << what << "\n";
  return 2;
}

std::optional<int> ArgParser::parse(int argc, char** argv) {
  std::vector<std::string> pos;
  bool only_positionals = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (only_positionals || arg.size() < 2 || arg[0] != '-') {
      pos.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positionals = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      print_help(std::cout);
      return 0;
    }
    if (!arg.starts_with("--")) return error("unknown flag " + quoted(arg) + " (see cfsv " + command_ + " --help)");
    const std::size_t eq = arg.find('=');
    const std::string_view name = arg.substr(2, eq == arg.npos ? arg.npos : eq - 2);
    const Spec* s = find(name);
    if (!s) return error("unknown flag '--" + std::string(name) + "' (see cfsv " + command_ + " --help)");
    if (s->boolean) {
      if (eq != arg.npos) return error("--" + s->name + " takes no value");
      *s->boolean = true;
      continue;
    }
    std::string_view value;
    if (eq != arg.npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc && !std::string_view(argv[i + 1]).starts_with("--")) {
      value = argv[++i];
    } else {
      return error("--" + s->name + " needs a value (" + s->metavar + ")");
    }
    if (std::string what = s->handler(value); !what.empty()) return error("--" + s->name + ": " + what);
  }
  if (pos.size() > pos_max_) return error("unexpected argument " + quoted(pos[pos_max_]));
  if (pos.size() < pos_min_) return error("missing " + pos_metavar_);
  if (pos_out_) *pos_out_ = std::move(pos);
  return std::nullopt;
}

void ArgParser::print_help(std::ostream& out) const {
  out << "usage: cfsv " << command_ << (specs_.empty() ? "" : " [flags]");
  if (pos_out_) out << " " << (pos_min_ ? pos_metavar_ : "[" + pos_metavar_ + "]") << (pos_max_ > 1 ? "..." : "");
  out << "\n\n" << summary_ << "\n";
  std::vector<std::pair<std::string, std::string>> rows;
  if (pos_out_) rows.emplace_back(pos_metavar_, pos_help_);
  for (const Spec& s : specs_) rows.emplace_back("--" + s.name + (s.metavar.empty() ? "" : " " + s.metavar), s.help);
  rows.emplace_back("--help", "this help");
  std::size_t w = 0;
  for (const auto& r : rows) w = std::max(w, r.first.size());
  out << "\n";
  for (const auto& [left, help] : rows) out << "  " << left << std::string(w - left.size() + 2, ' ') << help << "\n";
}

}  // namespace cfsv::cli
