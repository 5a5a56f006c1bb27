#!/usr/bin/env bash
# bench/watch.sh: how fast "kubectl watchrv watch" reads and prints a real
# watch stream, against kubectl on the same replay, in one run.
#
# The fixture (test/e2e/watch/replayserver) is the real kube-apiserver
# v1.37.2 with the watch cache off for configmaps, holding a history of
# EVENTS configmap creations; a watch from START_RV replays exactly those
# events from etcd, as often as wanted. Three readers, each given RUNS tries
# (the best one counts, the machine is shared):
#   watchrv   kubectl-watchrv watch cm --rv START_RV -o json --max-events EVENTS
#   raw       kubectl get --raw '/api/v1/.../configmaps?watch=1&resourceVersion=START_RV'
#   get -w    kubectl get cm -w --output-watch-events -o json  (lists the same
#             20,000 objects, then watches: kubectl has no way to start at an RV)
# and the peak memory (max RSS) of watchrv for EVENTS/10 and EVENTS events,
# whose ratio shows whether memory stays flat as a watch goes on.
#
#   bash bench/watch.sh            # EVENTS=20000 RUNS=3
#   REPLAY_ENV=/tmp/replay.env bash bench/watch.sh   # reuse a running replayserver
set -euo pipefail
cd "$(dirname "$0")/.."
EVENTS=${EVENTS:-20000}
RUNS=${RUNS:-3}
work=$(mktemp -d)
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

command -v kubectl >/dev/null || { echo "bench/watch.sh needs kubectl on PATH" >&2; exit 2; }
echo "building the plugin and the replay server..." >&2
go build -o "$work/kubectl-watchrv" ./cmd/kubectl-watchrv
if [[ -n "${REPLAY_ENV:-}" ]]; then
  cp "$REPLAY_ENV" "$work/replay.env"
  echo "replay server: reusing $REPLAY_ENV" >"$work/server.log"
else
  go build -o "$work/replayserver" ./test/e2e/watch/replayserver
  WATCHRV_CLUSTER_BIN=$(bash test/cluster/build.sh) "$work/replayserver" --events "$EVENTS" --info "$work/replay.env" >/dev/null 2>"$work/server.log" &
  server_pid=$!
  for _ in $(seq 1 600); do
    [[ -s "$work/replay.env" ]] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
    sleep 1
  done
  [[ -s "$work/replay.env" ]] || { echo "the replay server was not ready in 10 minutes" >&2; exit 1; }
fi
# shellcheck disable=SC1091
source "$work/replay.env"
export KUBECONFIG
echo "replay: $EVENTS events after RV $START_RV in namespace $NAMESPACE ($(tail -n 1 "$work/server.log"))" >&2

now() { date +%s.%N; }
# best_of CMD...: the fastest of RUNS runs, in seconds.
best_of() {
  local best="" t0 t1 d
  for _ in $(seq 1 "$RUNS"); do
    t0=$(now); "$@"; t1=$(now)
    d=$(echo "$t1 - $t0" | bc -l)
    if [[ -z "$best" ]] || (( $(echo "$d < $best" | bc -l) )); then best=$d; fi
  done
  echo "$best"
}
run_watchrv() {
  "$work/kubectl-watchrv" watch configmaps -n "$NAMESPACE" --rv "$START_RV" -o json --max-events "$EVENTS" >"$work/watchrv.out"
}
# until_objects N OUT CMD...: run CMD until its output holds N configmaps,
# then stop it (a watch never ends by itself when the replay is over: the
# stream just goes quiet). kubectl get -w prints its initial list as one
# line per page of 500 items, the raw stream one line per event: count
# objects, not lines.
until_objects() {
  local n=$1 out=$2; shift 2
  local fifo="$work/fifo" pid
  rm -f "$fifo"; mkfifo "$fifo"
  "$@" >"$fifo" 2>/dev/null &
  pid=$!
  $AWK -v n="$n" '{ c += gsub(/"kind":"ConfigMap"/, "&"); print; if (c >= n) exit }' <"$fifo" >"$out" || true
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
# mawk reads a pipe in blocks and would wait for input that never comes:
# make it read line by line.
AWK=awk
if awk -W version 2>/dev/null | grep -q mawk; then AWK="awk -W interactive"; fi
count_objects() { grep -o '"kind":"ConfigMap"' "$1" | wc -l; }
run_raw() {
  until_objects "$EVENTS" "$work/raw.out" kubectl get --raw "/api/v1/namespaces/$NAMESPACE/configmaps?watch=1&resourceVersion=$START_RV"
}
run_get_w() {
  until_objects "$EVENTS" "$work/getw.out" kubectl get configmaps -n "$NAMESPACE" -w --output-watch-events -o json
}

t_watchrv=$(best_of run_watchrv)
t_raw=$(best_of run_raw)
t_getw=$(best_of run_get_w)
n_watchrv=$(grep -c '"record":"event"' "$work/watchrv.out")
n_raw=$(count_objects "$work/raw.out")
n_getw=$(count_objects "$work/getw.out")

rss() { /usr/bin/time -f %M "$work/kubectl-watchrv" watch configmaps -n "$NAMESPACE" --rv "$START_RV" -o json --max-events "$1" 2>&1 >/dev/null | tail -n 1; }
rss_small=$(rss $((EVENTS / 10)))
rss_big=$(rss "$EVENTS")

ratio() { echo "scale=2; $1 / $2" | bc -l; }
printf '%-9s %8s %8s %12s %s\n' READER EVENTS SECONDS EVENTS/S "TIME vs watchrv"
printf '%-9s %8d %8.2f %12.0f %s\n' watchrv "$n_watchrv" "$t_watchrv" "$(echo "$n_watchrv / $t_watchrv" | bc -l)" 1.00
printf '%-9s %8d %8.2f %12.0f %s\n' raw "$n_raw" "$t_raw" "$(echo "$n_raw / $t_raw" | bc -l)" "$(ratio "$t_raw" "$t_watchrv")"
printf '%-9s %8d %8.2f %12.0f %s\n' "get -w" "$n_getw" "$t_getw" "$(echo "$n_getw / $t_getw" | bc -l)" "$(ratio "$t_getw" "$t_watchrv")"
echo "watchrv max RSS: $rss_small KiB for $((EVENTS / 10)) events, $rss_big KiB for $EVENTS events (ratio $(ratio "$rss_big" "$rss_small"))"
