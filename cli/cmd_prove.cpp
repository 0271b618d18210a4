// TODO(owner): placeholder until `cfsv prove` lands.
#include <cstdio>

#include "cli/commands.h"

namespace cfsv::cli {

int cmd_prove(int, char**) {
  std::fprintf(stderr, "cfsv prove: not implemented yet\n");
  return 2;
}

}  // namespace cfsv::cli
