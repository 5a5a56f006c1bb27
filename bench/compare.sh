#!/usr/bin/env bash
# Measures probe (watch cache on, and off over a compacted etcd) and the
# watch replay (bench/watch.sh), in one run on one machine, against the real
# local API server (etcd + kube-apiserver v1.37.2 on loopback). Prints a
# markdown report; with -w writes it into docs/performance.md. The list
# figures (list --rv-only, list, against kubectl get --raw and get -o json,
# at 1,000 to 100,000 objects) are bench/scale.sh's (make bench-scale).
#
#   bench/compare.sh            # report to stdout
#   bench/compare.sh -w         # also write docs/performance.md
#   REPS=9 BIG=5000 bench/compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=${REPS:-7}
BIG=${BIG:-5000}
WRITE=false
[[ ${1:-} == -w ]] && WRITE=true

work=$(mktemp -d)
cleanup() {
  [[ -n ${cluster_pid:-} ]] && kill "$cluster_pid" 2>/dev/null && wait "$cluster_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "building the plugin, the measuring tool and the local API server..." >&2
make -s build >&2
go build -o "$work/measure" ./bench/measure
go build -o "$work/cluster" ./bench/cluster
bash test/cluster/build.sh >/dev/null
export WATCHRV_CLUSTER_BIN=$(bash test/cluster/build.sh)
plugin=$PWD/bin/kubectl-watchrv
# start_cluster NAME ARGS...: start a bench cluster, wait until it has
# loaded its data, and point KUBECONFIG at it.
start_cluster() {
  local name=$1; shift
  "$work/cluster" -kubeconfig-out "$work/$name.path" "$@" >"$work/$name.out" 2>"$work/$name.err" &
  cluster_pid=$!
  for _ in $(seq 1 600); do
    grep -q READY "$work/$name.out" 2>/dev/null && break
    kill -0 "$cluster_pid" 2>/dev/null || { cat "$work/$name.err" >&2; exit 1; }
    sleep 1
  done
  grep -q READY "$work/$name.out" || { echo "the bench cluster $name did not become ready" >&2; exit 1; }
  export KUBECONFIG=$(cat "$work/$name.path")
  grep -E "loaded|compacted" "$work/$name.err" >&2 || true
}
stop_cluster() { kill "$cluster_pid" 2>/dev/null; wait "$cluster_pid" 2>/dev/null || true; cluster_pid=""; }

start_cluster main -big "$BIG" -many 0

m() { "$work/measure" -n "$REPS" -name "$1" -- "${@:2}"; }
field() { python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d[sys.argv[2]])' "$1" "$2"; }

echo "measuring (${REPS} repetitions each)..." >&2
# Warm the plugin's discovery cache first: a user's second run.
"$plugin" list cm -n bench-big --rv-only >/dev/null
# probe: requests and wall time, watch cache on (this cluster, after its
# burst of writes) and off (a second cluster, etcd compacted half way).
probeon=$(m "watchrv probe --verify (watch cache on)" "$plugin" probe configmaps -n bench-big --verify -o json)
probeonreq=$("$plugin" probe configmaps -n bench-big --verify -o json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["requests"], d["source"], d["oldestResourceVersion"], d["currentResourceVersion"])')
# list against kubectl get --raw of the same 6 objects, paired, with the
# bytes each took from the server (issue 23 item 1; bench/listcost.sh).
kubectl create namespace bench-six >/dev/null
for i in 1 2 3 4 5 6; do kubectl -n bench-six create configmap "six-$i" --from-literal=k=v >/dev/null; done
listcost_report=$(bash bench/listcost.sh bench-six "$(dirname "$plugin")")
stop_cluster
start_cluster nocache -watch-cache=false -big 2000 -many 0 -compact-half
probeoff=$(m "watchrv probe --verify (watch cache off, etcd compacted)" "$plugin" probe configmaps -n bench-big --verify -o json)
probeoffreq=$("$plugin" probe configmaps -n bench-big --verify -o json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["requests"], d["source"], d["oldestResourceVersion"], d["currentResourceVersion"])')
probefast=$(m "watchrv probe --verify --qps 100 (watch cache off, etcd compacted)" "$plugin" probe configmaps -n bench-big --verify --qps 100 -o json)
stop_cluster

# watch: the 20,000-event replay of bench/watch.sh (its own real server).
echo "measuring the watch replay (bench/watch.sh)..." >&2
watch_table=$(bash bench/watch.sh 2>/dev/null)
watch_report=$(printf '## Watch replay, %s\n\n`bench/watch.sh`: watchrv against kubectl on the same real replay of 20,000 events (best of 3).\n\n```text\n%s\n```\n' "$(date -u +%Y-%m-%d)" "$watch_table")

row() { printf '| %s | %s ms | %s ms | %s MiB | %s |\n' "$(field "$1" name)" "$(field "$1" medianMs)" "$(field "$1" minMs)" "$(python3 -c "print(f'{$(field "$1" peakRSSKiB)/1024:.1f}')")" "$2"; }

probe_report=$(cat <<MD
## Probe, $(date -u +%Y-%m-%d), medians of ${REPS} runs

| case | median | min | peak RSS | requests, source, oldest RV, current RV |
| --- | --- | --- | --- | --- |
$(row "$probeon" "$probeonreq")
$(row "$probeoff" "$probeoffreq")
$(row "$probefast" "$probeoffreq")

With the watch cache on, the server's own 410 names the oldest RV, so probe
needs one watch to read it and \`--verify\` two more. With the watch cache
off, etcd's 410 names nothing: probe binary-searches with exact lists
(answered at once) and proves the bound with two watches (about 100 ms each:
etcd's watch sync). At the default \`--qps 5\` the pacing itself, not the
search, takes most of the time; \`--qps 100\` shows the cost of the search.
MD
)
echo "$probe_report"
echo
echo "$watch_report"
echo
echo "$listcost_report"
if $WRITE; then
  python3 - "$report" "$probe_report" "$watch_report" "$listcost_report" <<'PY'
import sys, re
path = "docs/performance.md"
try:
    doc = open(path).read()
except FileNotFoundError:
    doc = "# Performance\n\n<!-- bench:list -->\n<!-- /bench:list -->\n"
for name, text in (("list", sys.argv[1]), ("probe", sys.argv[2]), ("watch", sys.argv[3]), ("listcost", sys.argv[4])):
    block = "<!-- bench:%s -->\n%s\n<!-- /bench:%s -->" % (name, text, name)
    if ("<!-- bench:%s -->" % name) not in doc:
        doc += "\n" + block + "\n"
    doc = re.sub(r"<!-- bench:%s -->.*?<!-- /bench:%s -->" % (name, name), lambda _: block, doc, flags=re.S)
open(path, "w").write(doc)
PY
  echo "wrote docs/performance.md" >&2
fi
