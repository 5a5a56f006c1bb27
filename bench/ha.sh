#!/usr/bin/env bash
# Measures, in one run on the HA harness (three kube-apiservers v1.37.2 on
# one etcd behind a balancer, reached through a CONNECT proxy; see
# bench/hacluster), the per-server probe of three servers against three
# single probes (one per server, each through its direct kubeconfig).
# Prints a markdown table: requests and median wall time of REPS runs.
#
#   bench/ha.sh            REPS=9 bench/ha.sh       QPS=100 bench/ha.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}
QPS=${QPS:-5}
work=$(mktemp -d)
cleanup() { [[ -n ${pid:-} ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT INT TERM
export WATCHRV_CLUSTER_BIN=$(bash test/cluster/build.sh)
go build -o "$work/hacluster" ./bench/hacluster
go build -o "$work/plugin" ./cmd/kubectl-watchrv
"$work/hacluster" -kubeconfig-out "$work/kc" >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 300); do grep -q READY "$work/out" 2>/dev/null && break; kill -0 "$pid" || { cat "$work/err" >&2; exit 1; }; sleep 1; done
kc=$(cat "$work/kc")
mapfile -t direct < <(sed -n 's/^direct-kubeconfig [0-9]* //p' "$work/out")
ms() { local s=$(date +%s%N); "$@" >"$work/last.json"; echo $(( ($(date +%s%N) - s) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
reqs() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests"])' "$work/last.json"; }
per=() singles=()
for _ in $(seq 1 "$REPS"); do
  per+=("$(ms "$work/plugin" --kubeconfig "$kc" probe configmaps -n ha-demo --servers --qps "$QPS" -o json)"); per_reqs=$(reqs)
  t=0 r=0
  for d in "${direct[@]}"; do
    t=$(( t + $(ms "$work/plugin" --kubeconfig "$d" probe configmaps -n ha-demo --qps "$QPS" -o json) )); r=$(( r + $(reqs) ))
  done
  singles+=("$t"); single_reqs=$r
done
echo "| Run (configmaps, 3 servers, --qps $QPS, $REPS runs) | Requests | Median time |"
echo "|---|---|---|"
echo "| probe --servers (one run, servers in parallel, discovery included) | $per_reqs | $(printf '%s\n' "${per[@]}" | median) ms |"
echo "| 3 x probe, one per server (direct kubeconfigs, one after the other) | $single_reqs | $(printf '%s\n' "${singles[@]}" | median) ms |"
