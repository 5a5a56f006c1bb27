#!/usr/bin/env bash
# Runs e2e packages as `go test -p 4` would, from test binaries kept in
# bin/e2e/tests: `go test -c -o` does not link a binary again while it is
# up to date, and `go test -count=1` links every package's test binary on
# every run (about 50 CPU-seconds of make test on 2 cores).
#
# Usage: hack/e2e-run.sh [-skip REGEXP] [-run REGEXP] PKG...
# The tests run in their package's directory, as go test runs them; a
# package prints "ok" with its time, or its whole output and FAIL.
set -euo pipefail
skip= run=
while [[ $# -gt 0 && $1 == -* ]]; do
  case $1 in
    -skip) skip=$2; shift 2 ;;
    -run) run=$2; shift 2 ;;
    *) echo "hack/e2e-run.sh: unknown flag $1" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/bin/e2e/tests
mkdir -p "$out"
cd "$root"
go test -tags e2e -vet=off -c -o "$out/" "$@"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
runone() {
  local pkg=$1 name bin start rc=0
  name=$(basename "$pkg")
  bin=$out/$name.test
  start=$(date +%s.%N)
  [[ -x $bin ]] || { echo "ok  	${pkg#./}	[no test files]"; return 0; }
  (cd "$root/$pkg" && "$bin" -test.count=1 -test.timeout=40m -test.parallel=4 \
      ${E2E_SKIP:+-test.skip="$E2E_SKIP"} ${E2E_RUN:+-test.run="$E2E_RUN"}) >"$E2E_LOGS/$name.log" 2>&1 || rc=$?
  local took
  took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3fs", e - s }')
  if [[ $rc -eq 0 ]]; then
    echo "ok  	github.com/watchrv/kubectl-watchrv/${pkg#./}	$took"
  else
    cat "$E2E_LOGS/$name.log"
    echo "FAIL	github.com/watchrv/kubectl-watchrv/${pkg#./}	$took"
    return 1
  fi
}
export -f runone
export out root E2E_LOGS=$logs E2E_SKIP=$skip E2E_RUN=$run
printf '%s\n' "$@" | xargs -P 4 -I{} bash -c 'runone "$1"' _ {}
