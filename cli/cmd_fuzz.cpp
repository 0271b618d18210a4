// TODO(owner): placeholder until `cfsv fuzz` lands.
#include <cstdio>

#include "cli/commands.h"

namespace cfsv::cli {

int cmd_fuzz(int, char**) {
  std::fprintf(stderr, "cfsv fuzz: not implemented yet\n");
  return 2;
}

}  // namespace cfsv::cli
