#!/usr/bin/env bash
# Usage: ci/same_output_test.sh CFSV
# Checks that ci/same_output.sh can fail: it compares CFSV with itself (exit
# 0), then with wrappers around CFSV that change one line of one output mode,
# only the exit code, or exit 2 (bad input), and expects 1, 1, 1, 1 and 2.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cfsv=${1:?usage: $0 CFSV}
scn=$here/../examples/seed003.scn
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cfsv-same-output-test-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

# wrapper NAME BODY: an executable $tmp/NAME running BODY, with $real the real cfsv.
wrapper() {
  printf '#!/usr/bin/env bash\nreal=%q\n%s\n' "$cfsv" "$2" >"$tmp/$1"
  chmod +x "$tmp/$1"
}
# If the arguments include FLAG (or none of the mode flags, for "table"),
# pipe the output through sed EXPR; keep the exit code.
edit_mode() {
  wrapper "$1" "mode=$2
case \" \$* \" in *' --perf '*) m=--perf ;; *' --json '*) m=--json ;; *) m=table ;; esac
if [ \"\$m\" = \"\$mode\" ]; then \"\$real\" \"\$@\" | sed '$3'; exit \${PIPESTATUS[0]}; fi
exec \"\$real\" \"\$@\""
}
edit_mode perf_differs --perf '0,/prev_prio=120/s//prev_prio=121/'
edit_mode json_differs --json 's/"switches": 13,/"switches": 14,/'
edit_mode table_differs table '$s/$/ /'
wrapper exit_differs '"$real" "$@"; rc=$?; [ "$rc" = 0 ] && exit 1; exit $rc'
wrapper bad_input 'echo "bad input" >&2; exit 2'

# expect RC NAME OTHER [PATTERN]: same_output.sh CFSV OTHER on seed003 exits RC
# and prints PATTERN.
expect() {
  out=$("$here/same_output.sh" "$cfsv" "$3" "$scn" 2>&1)
  rc=$?
  if [ "$rc" != "$1" ] || { [ -n "${4:-}" ] && ! grep -q -- "$4" <<<"$out"; }; then
    echo "FAIL: $2: exit $rc (expected $1${4:+, output matching '$4'}):"
    echo "$out"
    fail=1
  else
    echo "ok: $2: exit $rc"
  fi
}
expect 0 "itself" "$cfsv" "0 differ"
expect 1 "--perf line changed" "$tmp/perf_differs" "DIFFERS: cfsv run .* --perf"
expect 1 "--json value changed" "$tmp/json_differs" "DIFFERS: cfsv run .* --json"
expect 1 "table line changed" "$tmp/table_differs" "DIFFERS: cfsv run"
expect 1 "exit code changed" "$tmp/exit_differs" "exit 0 vs 1"
expect 2 "bad input" "$tmp/bad_input" "exit 2"
expect 2 "missing binary" "$tmp/no_such_cfsv" "not an executable"
exit $fail
