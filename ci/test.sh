#!/usr/bin/env bash
# The test suite on a fresh machine: install packages, build (g++ plus the
# clang-14 libFuzzer sub-build), run every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh
cmake --preset default
cmake --build --preset default -j"$(nproc)"
ctest --preset default -j"$(nproc)"
