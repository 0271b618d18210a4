#!/usr/bin/env bash
# Usage: ci/same_output.sh CFSV_A CFSV_B [FILE.scn...]
# Runs two cfsv builds (e.g. g++'s and clang++'s) on each scenario, default
# examples/*.scn and regressions/*.scn, as `cfsv run FILE` (the table), with
# --perf and with --json, at the scenario's own seed and at --seed 1, and
# checks both print the same bytes and exit with the same code.
# Exit 0: identical; 1: some output differs (a diff is printed); 2: usage, or
# a run exited 2 (bad input) or died of a signal.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if (($# < 2)); then
  echo "usage: $0 CFSV_A CFSV_B [FILE.scn...]" >&2
  exit 2
fi
a=$1 b=$2
shift 2
for bin in "$a" "$b"; do
  [ -x "$bin" ] || { echo "same_output: $bin: not an executable" >&2; exit 2; }
done
if (($#)); then
  files=("$@")
else
  files=("$root"/examples/*.scn "$root"/regressions/*.scn)
fi
seeds=("")
if "$a" run --help 2>&1 | grep -q -- '--seed'; then
  seeds+=("--seed 1")
else
  echo "same_output: $a run has no --seed: each scenario at its own seed only"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cfsv-same-output-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
runs=0 differ=0
for f in "${files[@]}"; do
  for mode in "" --perf --json; do
    for seed in "${seeds[@]}"; do
      # shellcheck disable=SC2086  # $mode and $seed are zero or more flags
      args=(run "$f" $mode $seed)
      rcs=()
      for side in a b; do
        bin=${!side}
        "$bin" "${args[@]}" >"$tmp/$side.out" 2>"$tmp/$side.err"
        rc=$?
        rcs+=("$rc")
        if ((rc != 0 && rc != 1)); then
          echo "same_output: $bin ${args[*]}: exit $rc" >&2
          cat "$tmp/$side.err" >&2
          exit 2
        fi
        printf 'exit %s\n' "$rc" >>"$tmp/$side.out"
        cat "$tmp/$side.err" >>"$tmp/$side.out"
      done
      runs=$((runs + 1))
      if ! cmp -s "$tmp/a.out" "$tmp/b.out"; then
        differ=$((differ + 1))
        echo "DIFFERS: cfsv ${args[*]} (exit ${rcs[0]} vs ${rcs[1]})"
        diff "$tmp/a.out" "$tmp/b.out" | head -20
      fi
    done
  done
done
echo "same_output: ${#files[@]} scenarios, $runs runs per binary, $differ differ ($a vs $b)"
((differ == 0))
