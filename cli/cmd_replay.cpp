// TODO(owner): placeholder until `cfsv replay` lands.
#include <cstdio>

#include "cli/commands.h"

namespace cfsv::cli {

int cmd_replay(int, char**) {
  std::fprintf(stderr, "cfsv replay: not implemented yet\n");
  return 2;
}

}  // namespace cfsv::cli
