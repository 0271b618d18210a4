#!/bin/bash
# Runs .clusterfuzzlite/build.sh by hand, as OSS-Fuzz would (clang-14,
# ASan, libFuzzer; SRC/OUT/WORK in a temporary directory), then checks every
# fuzz target is in $OUT with its seed corpus zip and runs -runs=100 cleanly.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cfsv-cflite-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export SRC=$tmp/src OUT=$tmp/out WORK=$tmp/work
mkdir -p "$SRC" "$OUT" "$WORK"
ln -s "$root" "$SRC/cfs-verify"
export CC=clang-14 CXX=clang++-14
export CFLAGS="-O1 -gline-tables-only -fsanitize=address,fuzzer-no-link"
export CXXFLAGS="$CFLAGS"
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
export CFSV_BUILD_JOBS=${CFSV_BUILD_JOBS:-2}
(cd "$SRC/cfs-verify" && bash .clusterfuzzlite/build.sh)

unset CFSV_CLAIM
fail=0
for src in "$root"/fuzz/fuzz_*.cpp; do
  target=$(basename "$src" .cpp)
  if [ ! -x "$OUT/$target" ]; then
    echo "FAIL: $OUT/$target missing"; fail=1; continue
  fi
  if [ ! -s "$OUT/${target}_seed_corpus.zip" ]; then
    echo "FAIL: $OUT/${target}_seed_corpus.zip missing"; fail=1
  fi
  if [ -f "$root/fuzz/$target.options" ] && ! cmp -s "$root/fuzz/$target.options" "$OUT/$target.options"; then
    echo "FAIL: $OUT/$target.options missing"; fail=1
  fi
  mkdir -p "$WORK/runs/$target"
  if (cd "$WORK/runs/$target" && "$OUT/$target" -seed=1 -runs=100 >log 2>&1); then
    echo "ok: $target -runs=100"
  else
    echo "FAIL: $target -runs=100:"; tail -30 "$WORK/runs/$target/log"; fail=1
  fi
done
exit $fail
