#!/usr/bin/env bash
# Peak RSS of `kubectl watchrv clients` on the two memory attacks of issue 25
# item 5, under an address-space limit (an unbounded read must fail, not
# take the machine): 10 RequestResponse lines of 250 MiB, and 500,000
# one-request clients (rotating user agents). Both are built from the real
# recorded lines (bench/clients-attack-gen.py) and piped in, never written
# to disk. One run each; /usr/bin/time -v gives the peak RSS.
#
#   bench/clients-memory.sh                       # the plugin of this tree
#   BIN=/path/to/other/kubectl-watchrv bench/clients-memory.sh
#   LINES=2 MIB=50 CLIENTS=50000 bench/clients-memory.sh   # smaller
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/kubectl-watchrv}
AS=${AS:-3000000000}
LINES=${LINES:-10} MIB=${MIB:-250} CLIENTS=${CLIENTS:-500000}
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time is needed: apt-get install -y time" >&2; exit 2; }
[[ -n ${BIN_GIVEN:-} || $BIN != bin/kubectl-watchrv ]] || make -s build >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

run() { # name, generator args...
  local name=$1; shift
  python3 bench/clients-attack-gen.py "$@" |
    prlimit --as="$AS" /usr/bin/time -v -o "$work/time.$name" "$BIN" clients -f - >"$work/out.$name" 2>"$work/err.$name" || true
  local rss code
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$work/time.$name")
  code=$(awk -F': ' '/Exit status/ {print $2}' "$work/time.$name")
  echo "| $name | $((rss / 1024)) MiB | $code | $(head -c 160 "$work/out.$name" | head -1)$(head -c 200 "$work/err.$name" | head -1) |"
}
echo "| input (prlimit --as=$AS) | peak RSS | exit | first line |"
echo "| --- | --- | --- | --- |"
run "$LINES RequestResponse lines of $MIB MiB" long "$LINES" "$MIB"
run "$CLIENTS one-request clients" minted "$CLIENTS"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
