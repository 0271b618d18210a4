// cfsv: the command line of cfs-verify (docs/cli.md). `cfsv` alone, or with
// only flags, is `cfsv verify`.
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "cli/commands.h"

namespace {
using namespace cfsv::cli;

struct Command {
  std::string_view name;
  int (*run)(int, char**);
  std::string_view summary;
};
constexpr Command kCommands[] = {
    {"verify", cmd_verify, "every claim through every engine; a table of verdicts (the default)"},
    {"run", cmd_run, "simulate a scenario file"},
    {"diff", cmd_diff, "run a scenario before and after a feature change; where the schedules part"},
    {"prove", cmd_prove, "prove or refute claims with Z3"},
    {"fuzz", cmd_fuzz, "run a libFuzzer campaign"},
    {"replay", cmd_replay, "re-run a reproducer and say what it shows"},
    {"topology", cmd_topology, "the sched domains and groups a kernel era builds for a topology"},
    {"claims", cmd_claims, "list the claims"},
    {"features", cmd_features, "list the named features and the profiles that turn them on"},
};

const Command* find(std::string_view name) {
  for (const Command& c : kCommands)
    if (c.name == name) return &c;
  return nullptr;
}

void usage() {
  std::printf("usage: cfsv [COMMAND] [flags]   (no command: verify)\n\ncommands:\n");
  for (const Command& c : kCommands)
    std::printf("  %-8.*s  %.*s\n", int(c.name.size()), c.name.data(), int(c.summary.size()), c.summary.data());
  std::printf("\n`cfsv COMMAND --help` or `cfsv help COMMAND` describes a command's flags.\n"
              "Exit codes: 0 ok, 1 a verdict or check differs from the expected one, 2 bad input.\n");
}

int dispatch(int argc, char** argv) {
  const std::string_view first = argc > 1 ? argv[1] : "";
  if (first == "--help" || first == "-h" || (first == "help" && argc == 2)) return usage(), 0;
  if (first == "--version") return std::printf("cfsv %s\n", CFSV_VERSION), 0;
  if (first == "help") {
    const Command* c = find(argv[2]);
    if (!c) return std::fprintf(stderr, "cfsv: unknown command '%s' (see cfsv --help)\n", argv[2]), 2;
    char help[] = "--help";
    char* args[] = {argv[2], help, nullptr};
    return c->run(2, args);
  }
  if (argc < 2 || first.starts_with("-")) return cmd_verify(argc, argv);  // argv[0] stands for "verify"
  if (const Command* c = find(first)) return c->run(argc - 1, argv + 1);
  std::fprintf(stderr, "cfsv: unknown command '%s' (see cfsv --help)\n", argv[1]);
  return 2;
}
}  // namespace

// A model's internal check that fails (std::logic_error) is a finding, as a
// violated invariant is: reported, exit 1, never an abort.
int main(int argc, char** argv) {
  try {
    return dispatch(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cfsv: internal error in the model: %s\n", e.what());
    return 1;
  }
}
