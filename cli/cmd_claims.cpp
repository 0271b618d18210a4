// TODO(owner): placeholder until `cfsv claims` lands.
#include <cstdio>

#include "cli/commands.h"

namespace cfsv::cli {

int cmd_claims(int, char**) {
  std::fprintf(stderr, "cfsv claims: not implemented yet\n");
  return 2;
}

}  // namespace cfsv::cli
