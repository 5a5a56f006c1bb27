#!/usr/bin/env bash
# Issue 23 item 1, measured: `kubectl watchrv list` against `kubectl get
# --raw` of the same small collection, paired (the two alternate in one
# loop, so that both see the same load), as users run them (through
# kubectl, discovery cache warm), and the bytes each took from the server
# as they crossed the wire (bench/wirecount forwards the connections and
# counts; TLS and gzip included). Prints a markdown section.
#
#   bench/listcost.sh NAMESPACE [PLUGIN_DIR] [OLD_PLUGIN_DIR]
#
# KUBECONFIG must point at the server (its first cluster's server is the
# one measured); PLUGIN_DIR holds kubectl-watchrv (default bin/);
# OLD_PLUGIN_DIR, when given, holds an older build measured beside it
# ("before"). PAIRS sets the number of pairs (default 21).
set -euo pipefail
cd "$(dirname "$0")/.."
ns=${1:?give the namespace of a small collection}
new_dir=$(cd "${2:-bin}" && pwd)
old_dir=${3:-}
PAIRS=${PAIRS:-21}

work=$(mktemp -d)
cleanup() { [[ -n ${wc_pid:-} ]] && kill "$wc_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT INT TERM

go build -o "$work/wirecount" ./bench/wirecount
server=$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')
hostport=${server#https://}
"$work/wirecount" -target "$hostport" -addr-file "$work/addr" -count-file "$work/count" &
wc_pid=$!
for _ in $(seq 1 50); do [[ -s $work/addr ]] && break; sleep 0.1; done
kubectl config view --minify --flatten | sed "s#$server#https://$(cat "$work/addr")#" >"$work/kubeconfig"
export KUBECONFIG=$work/kubeconfig HOME=$work/home
mkdir -p "$HOME"

# wire CMD...: the bytes the server sent for one run of CMD.
wire() {
  local before after
  before=$(cut -d' ' -f1 "$work/count")
  "$@" >/dev/null 2>&1
  sleep 0.3 # the proxy counts a connection when it closes
  after=$(cut -d' ' -f1 "$work/count")
  echo $((after - before))
}
with() { local dir=$1; shift; PATH="$dir:$PATH" "$@"; }

raw=(kubectl get --raw "/api/v1/namespaces/$ns/configmaps")
list=(kubectl watchrv list configmaps -n "$ns")
# Warm what a user's second run finds warm: kubectl's discovery cache.
"${raw[@]}" >/dev/null; with "$new_dir" "${list[@]}" --rv-only >/dev/null
rm -rf "$HOME/.kube/cache/watchrv"
raw_bytes=$(wire "${raw[@]}")
cold_bytes=$(wire with "$new_dir" "${list[@]}")   # facts read from /metrics
warm_bytes=$(wire with "$new_dir" "${list[@]}")   # facts from the 10-minute cache
rvonly_bytes=$(wire with "$new_dir" "${list[@]}" --rv-only)
old_bytes=-
[[ -n $old_dir ]] && old_bytes=$(wire with "$old_dir" "${list[@]}")

timing=$(PAIRS=$PAIRS NEW="$new_dir" OLD="$old_dir" NS="$ns" python3 - <<'PY'
import os, statistics, subprocess, time
ns, new, old = os.environ["NS"], os.environ["NEW"], os.environ["OLD"]
env = lambda d: dict(os.environ, PATH=d + ":" + os.environ["PATH"])
cmds = [("raw", ["kubectl", "get", "--raw", f"/api/v1/namespaces/{ns}/configmaps"], os.environ),
        ("list", ["kubectl", "watchrv", "list", "configmaps", "-n", ns], env(new))]
if old:
    cmds.append(("old", ["kubectl", "watchrv", "list", "configmaps", "-n", ns], env(old)))
ms = {k: [] for k, _, _ in cmds}
for _ in range(int(os.environ["PAIRS"])):
    for k, c, e in cmds:
        t = time.perf_counter()
        subprocess.run(c, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        ms[k].append((time.perf_counter() - t) * 1000)
med = {k: statistics.median(v) for k, v in ms.items()}
ratio = {k: statistics.median([a / b for a, b in zip(ms[k], ms["raw"])]) for k in ms}
print(" ".join(f"{k}={med[k]:.1f}/{ratio[k]:.2f}" for k in ms))
PY
)
val() { tr ' ' '\n' <<<"$timing" | awk -F'[=/]' -v k="$1" -v i="$2" '$1==k {print $(i+1)}'; }
load=$(cut -d' ' -f1 /proc/loadavg)

cat <<MD
## list costs what the list costs ($(date -u +%Y-%m-%d), load average ${load} on $(nproc) cores)

\`bench/listcost.sh\`: ${PAIRS} pairs run in turn, as users run them (through kubectl, its discovery cache warm), against one kube-apiserver on loopback; namespace \`${ns}\`. The ratio is the median of each pair's ratio to \`kubectl get --raw\` of the same collection; bytes are what the server sent, on the wire (TLS and gzip included), counted by \`bench/wirecount\`.

| command | median | / kubectl get --raw | bytes from the server |
| --- | --- | --- | --- |
| \`kubectl get --raw /api/v1/namespaces/${ns}/configmaps\` | $(val raw 1) ms | 1.00 | ${raw_bytes} |
| \`kubectl watchrv list configmaps -n ${ns}\` | $(val list 1) ms | $(val list 2) | ${warm_bytes} (facts kept from an earlier run); ${cold_bytes} when it reads them (/version and two families of /metrics) |
| \`kubectl watchrv list configmaps -n ${ns} --rv-only\` | - | - | ${rvonly_bytes} |
$( [[ -n $old_dir ]] && echo "| the same list, before (the whole /metrics on every run) | $(val old 1) ms | $(val old 2) | ${old_bytes} |" )
MD
