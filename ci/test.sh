#!/usr/bin/env bash
# The test suite on a fresh machine: install packages, then build and run every
# test with ctest in two builds (warnings are errors in each):
#  1. `default`: g++ RelWithDebInfo, plus the clang-14 libFuzzer sub-build
#     (ASan + UBSan), whose targets run in this ctest;
#  2. `clang`: clang++-14 -O2 with assert() and _GLIBCXX_ASSERTIONS on; its
#     ctest also checks that its cfsv prints the same bytes as the g++ one
#     (ci.same_output_as_other_cfsv).
# Build 2 skips the libFuzzer sub-build: it is the same in each. docs/ci.md
# says why there is no third, -O0 build.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh
jobs=$(nproc)
build() {  # build PRESET [CMAKE ARGS...]: configure, build and ctest one preset
  local preset=$1 t0=$SECONDS
  shift
  echo "== ci/test.sh: preset $preset"
  cmake --preset "$preset" "$@"
  cmake --build --preset "$preset" -j"$jobs"
  local t1=$SECONDS
  ctest --preset "$preset" -j"$jobs"
  echo "== ci/test.sh: preset $preset: build $((t1 - t0)) s, ctest $((SECONDS - t1)) s"
}
build default
build clang -DCFSV_LIBFUZZER=OFF -DCFSV_OTHER_CFSV="$PWD/build/cli/cfsv"
