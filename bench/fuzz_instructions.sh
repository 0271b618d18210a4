#!/usr/bin/env bash
# Instructions per execution of a libFuzzer target on a fixed corpus: a cost
# that does not depend on the host's load (docs/fuzz-throughput.md, "Measured a
# seventh time"). Runs the target under callgrind twice over the same inputs,
# -runs=1 and -runs=RUNS (each input RUNS times in a row), and divides the
# difference of the two instruction counts by the executions it adds: the
# start-up, the reading of the inputs and each input's first execution (which
# sizes the reused buffers) cancel out.
#
#   bench/fuzz_instructions.sh [-r RUNS] [-k DIR] FUZZER [INPUT...]
#
# Without INPUTs: the 20 inputs of docs/fuzzing.md, random.Random(1).randbytes(1024)
# twenty times (64 ops each for fuzz_ops), written to a temporary directory.
# -k DIR keeps the -runs=RUNS profile as DIR/callgrind.out (for
# callgrind_annotate). Prints one line:
#   instructions per execution: 412345 (FUZZER, 20 inputs x 10 more runs)
set -euo pipefail

runs=11
keep=""
while getopts "r:k:" opt; do
  case $opt in
    r) runs=$OPTARG ;;
    k) keep=$OPTARG ;;
    *) echo "usage: $0 [-r RUNS] [-k DIR] FUZZER [INPUT...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ] || [ "$runs" -lt 2 ]; then
  echo "usage: $0 [-r RUNS >= 2] [-k DIR] FUZZER [INPUT...]" >&2
  exit 2
fi
fuzzer=$(realpath "$1")
shift
command -v valgrind >/dev/null || { echo "$0: valgrind not found" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -eq 0 ]; then
  mkdir "$work/in"
  python3 - "$work/in" <<'EOF'
import random, sys
r = random.Random(1)
for i in range(20):
    open(f"{sys.argv[1]}/{i:02d}", "wb").write(r.randbytes(1024))
EOF
  set -- "$work"/in/*
fi

# instructions RUNS OUT: the total instruction count (Ir) of one run.
instructions() {
  valgrind --tool=callgrind --callgrind-out-file="$2" "$fuzzer" -use_counters=0 -runs="$1" "${@:3}" \
    >"$work/log" 2>&1 || { cat "$work/log" >&2; echo "$0: $fuzzer failed under callgrind" >&2; exit 1; }
  sed -n 's/^summary: *//p' "$2"
}
one=$(instructions 1 "$work/one.out" "$@")
many=$(instructions "$runs" "$work/many.out" "$@")
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  cp "$work/many.out" "$keep/callgrind.out"
fi
execs=$(($# * (runs - 1)))
echo "instructions per execution: $(((many - one) / execs)) ($(basename "$fuzzer"), $# inputs x $((runs - 1)) more runs)"
