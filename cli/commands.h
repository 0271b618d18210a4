// The cfsv subcommands. Each takes its own arguments (argv[0] is the
// subcommand name) and returns the process exit code: 0 ok, 1 a verdict or
// check differs from what was expected, 2 bad input (flags, files).
#pragma once

namespace cfsv::cli {

int cmd_verify(int argc, char** argv);
int cmd_claims(int argc, char** argv);
int cmd_features(int argc, char** argv);
int cmd_prove(int argc, char** argv);
int cmd_fuzz(int argc, char** argv);
int cmd_run(int argc, char** argv);
int cmd_diff(int argc, char** argv);
int cmd_replay(int argc, char** argv);
int cmd_topology(int argc, char** argv);

}  // namespace cfsv::cli
