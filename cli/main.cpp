// TODO(owner): placeholder dispatcher.
#include <cstdio>
#include <string_view>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace cfsv::cli;
  if (argc < 2) return cmd_verify(argc, argv);
  const std::string_view c = argv[1];
  if (c == "verify") return cmd_verify(argc - 1, argv + 1);
  if (c == "claims") return cmd_claims(argc - 1, argv + 1);
  if (c == "prove") return cmd_prove(argc - 1, argv + 1);
  if (c == "fuzz") return cmd_fuzz(argc - 1, argv + 1);
  if (c == "run") return cmd_run(argc - 1, argv + 1);
  if (c == "replay") return cmd_replay(argc - 1, argv + 1);
  std::fprintf(stderr, "cfsv: unknown command '%s'\n", argv[1]);
  return 2;
}
