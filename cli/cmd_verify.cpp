// TODO(owner): placeholder until `cfsv verify` lands.
#include <cstdio>

#include "cli/commands.h"

namespace cfsv::cli {

int cmd_verify(int, char**) {
  std::fprintf(stderr, "cfsv verify: not implemented yet\n");
  return 2;
}

}  // namespace cfsv::cli
