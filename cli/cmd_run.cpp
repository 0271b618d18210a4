// TODO(owner): placeholder until `cfsv run` lands.
#include <cstdio>

#include "cli/commands.h"

namespace cfsv::cli {

int cmd_run(int, char**) {
  std::fprintf(stderr, "cfsv run: not implemented yet\n");
  return 2;
}

}  // namespace cfsv::cli
