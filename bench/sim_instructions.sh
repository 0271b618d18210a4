#!/usr/bin/env bash
# Instructions per simulated second of a simulator benchmark: a cost that
# does not depend on the host's load (docs/engines-sim.md, "Instruction
# counts"). Runs one iteration of each cfsv_bench benchmark the filter
# selects under callgrind, counting only Sim::run_until (the set-up of the
# machine and its tasks is left out, as the benchmark leaves it out of its
# timing). Needs valgrind (apt-get install valgrind).
#
#   bench/sim_instructions.sh [CFSV_BENCH] [FILTER]
#
# Defaults: build/bench/cfsv_bench and issue 9's yardstick, the 64-CPU
# machine with 1,000 run/sleep tasks, PELT, balancing and the kernel's
# placement, unchecked and with checks every 1,000 events. Prints one line
# per benchmark:
#   BM_Sim64Cpu1000TasksBalancing/check:0: 292701960 instructions per simulated s
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=${1:-$root/build/bench/cfsv_bench}
filter=${2:-BM_Sim64Cpu1000TasksBalancing}
[ -x "$bench" ] || { echo "$0: $bench: not an executable" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "$0: valgrind not found (apt-get install valgrind)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
names=$("$bench" --benchmark_list_tests --benchmark_filter="$filter")
[ -n "$names" ] || { echo "$0: no benchmark matches $filter" >&2; exit 2; }
for name in $names; do
  # One iteration (min_time 0); every benchmark here simulates 1 s per iteration.
  valgrind --tool=callgrind --callgrind-out-file="$work/cg" --toggle-collect='cfsv::Sim::run_until*' \
    "$bench" --benchmark_filter="^${name}\$" --benchmark_min_time=0 >"$work/log" 2>&1 ||
    { cat "$work/log" >&2; echo "$0: $name failed under callgrind" >&2; exit 1; }
  echo "$name: $(sed -n 's/^summary: *//p' "$work/cg") instructions per simulated s"
done
