// The argument parser every cfsv subcommand uses: `--name value`,
// `--name=value`, boolean flags, positional arguments, `--help`/`-h`, `--`.
// Any error prints `cfsv <cmd>: <what is wrong>` on stderr; parse() then
// returns 2 (after --help it returns 0, having printed the help on stdout).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cfsv::cli {

class ArgParser {
 public:
  // Takes an option's value; returns "" when it is good, else what is wrong
  // with it (printed as `cfsv <cmd>: --name: <that>`).
  using Handler = std::function<std::string(std::string_view value)>;

  ArgParser(std::string_view command, std::string_view summary);

  ArgParser& flag(std::string_view name, bool* out, std::string_view help);
  ArgParser& option(std::string_view name, Handler handler, std::string_view metavar, std::string_view help);
  ArgParser& option(std::string_view name, std::string* out, std::string_view metavar, std::string_view help);
  // Repeatable: each occurrence appends.
  ArgParser& option(std::string_view name, std::vector<std::string>* out, std::string_view metavar,
                    std::string_view help);
  ArgParser& option(std::string_view name, uint64_t* out, std::string_view metavar, std::string_view help);
  ArgParser& option(std::string_view name, std::optional<uint64_t>* out, std::string_view metavar,
                    std::string_view help);
  ArgParser& option(std::string_view name, double* out, std::string_view metavar, std::string_view help);
  // Positional arguments, between min and max of them (default: none allowed).
  ArgParser& positionals(std::string_view metavar, std::vector<std::string>* out, std::string_view help,
                         std::size_t min = 0, std::size_t max = SIZE_MAX);

  // argv[0] is the subcommand's name and is skipped. nullopt: parsed, go on;
  // otherwise the exit code to return (0 after --help, 2 after an error).
  std::optional<int> parse(int argc, char** argv);

  // For the command's own checks after parse(): prints `cfsv <cmd>: what`
  // on stderr and returns 2.
  int error(std::string_view what) const;
  void print_help(std::ostream& out) const;
  const std::string& command() const { return command_; }

 private:
  struct Spec {
    std::string name, metavar, help;
    bool* boolean = nullptr;  // a flag when set, else an option taking `handler`
    Handler handler;
  };
  const Spec* find(std::string_view name) const;

  std::string command_, summary_;
  std::vector<Spec> specs_;
  std::string pos_metavar_, pos_help_;
  std::vector<std::string>* pos_out_ = nullptr;
  std::size_t pos_min_ = 0, pos_max_ = 0;
};

// A handler for an option naming a file to write: an empty value is an error.
ArgParser::Handler output_path(std::string* out);

// Handlers for options whose value is one of an enum's names (its
// to_string(E), found by ADL): `one_of` keeps the last occurrence, `any_of`
// collects every occurrence (repeatable; duplicates are dropped).
std::string not_one_of(std::string_view value, const std::vector<std::string_view>& names);

template <class E> std::string parse_enum(std::string_view v, const std::vector<E>& values, E* out) {
  std::vector<std::string_view> names;
  for (E e : values) {
    if (to_string(e) == v) return *out = e, std::string{};
    names.push_back(to_string(e));
  }
  return not_one_of(v, names);
}

template <class E> ArgParser::Handler one_of(E* out, std::initializer_list<E> values) {
  return [out, vals = std::vector<E>(values)](std::string_view v) { return parse_enum(v, vals, out); };
}

template <class E> ArgParser::Handler any_of(std::vector<E>* out, std::initializer_list<E> values) {
  return [out, vals = std::vector<E>(values)](std::string_view v) {
    E e{};
    std::string err = parse_enum(v, vals, &e);
    if (err.empty() && std::find(out->begin(), out->end(), e) == out->end()) out->push_back(e);
    return err;
  };
}

}  // namespace cfsv::cli
