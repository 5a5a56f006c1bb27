#!/usr/bin/env bash
# The scale bench (issue 23; make bench-scale): what each command costs the
# cluster and the user as the cluster grows, beside what a user runs
# instead. A real kube-apiserver v1.37.2 over etcd on loopback grown to 200
# CRDs (two objects each) and to 1,000 / 10,000 / 100,000 configmaps of 1 KB
# in one namespace (one server, grown between sizes), the HA harness's three
# servers grown in step, then clients on audit logs of 1 and 10 GiB (written
# to disk, one at a time, removed after). See bench/scale/main.go.
#
#   bench/scale.sh                       # every size; report and checks on stdout
#   bench/scale.sh -w                    # also write docs/performance.md, docs/img/scale-*.png, bench/results/scale.json
#   SIZES=1000,10000 LOG_SIZES=256MiB,1GiB bench/scale.sh    # a quick run (make bench-scale-small)
#   REPS=5 REPS_LARGE=3 PAIRED=11 CRDS=200 PLUGIN=/path/to/kubectl-watchrv STRICT=1 bench/scale.sh
#
# STRICT=1: exit 1 when a check fails (else the checks are printed, and the
# exit code says only whether the bench ran). OUT=DIR: also keep the JSON,
# the markdown block and the PNGs of a run without -w in DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-1000,10000,100000}
LOG_SIZES=${LOG_SIZES:-1GiB,10GiB}
REPS=${REPS:-5}
REPS_LARGE=${REPS_LARGE:-3}
PAIRED=${PAIRED:-11}
CRDS=${CRDS:-200}
WRITE=false
[[ ${1:-} == -w ]] && WRITE=true

command -v kubectl >/dev/null || { echo "bench/scale.sh needs kubectl on PATH" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench/scale.sh needs jq (the pipeline it measures): apt-get install -y jq" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench/scale.sh needs python3 (bench/clients-gen.py)" >&2; exit 2; }

# The audit logs go to WORK (default: a new directory under /tmp); its
# free space is checked before each log is written.
work=$(mktemp -d "${WORK_PARENT:-/tmp}/watchrv-scale.XXXXXX")
pid=""
cleanup() {
  if [[ -n $pid ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "machine: $(nproc) cores; $(uptime)" >&2
df -h /tmp /work "$work" >&2 || true

mkdir -p "$work/bin"
if [[ -n ${PLUGIN:-} ]]; then
  cp "$PLUGIN" "$work/bin/kubectl-watchrv"
else
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$(cat VERSION)-$(git rev-parse --short HEAD)" -o "$work/bin/kubectl-watchrv" ./cmd/kubectl-watchrv
fi
go build -o "$work/scale" ./bench/scale
export WATCHRV_CLUSTER_BIN
WATCHRV_CLUSTER_BIN=$(bash test/cluster/build.sh)
# Users run the plugin through kubectl: kubectl finds kubectl-watchrv on PATH.
export PATH=$work/bin:$PATH
kubectl watchrv version --client >/dev/null || { echo "kubectl does not find the plugin on PATH as kubectl-watchrv" >&2; exit 1; }

"$work/scale" -sizes "$SIZES" -log-sizes "$LOG_SIZES" -crds "$CRDS" -reps "$REPS" -reps-large "$REPS_LARGE" -paired "$PAIRED" \
  -plugin-dir "$work/bin" -work "$work" -out "$work/scale.json" -md "$work/scale.md" ${JQ_MAX:+-jq-max "$JQ_MAX"} >"$work/checks" &
pid=$!
wait "$pid"
pid=""

imgdir=$work/img
$WRITE && imgdir=$PWD/docs/img
(cd bench/plot && go run . -in "$work/scale.json" -dir "$imgdir")
echo
cat "$work/scale.md"
echo
cat "$work/checks"
if [[ -n ${OUT:-} ]]; then
  mkdir -p "$OUT" && cp -r "$work/scale.json" "$work/scale.md" "$work/checks" "$OUT"/ && { [[ -d $work/img ]] && cp -r "$work/img" "$OUT"/ || true; }
  echo "kept the run's JSON, markdown, checks and PNGs in $OUT" >&2
fi
if $WRITE; then
  mkdir -p bench/results
  cp "$work/scale.json" bench/results/scale.json
  python3 - "$work/scale.md" <<'PY'
import re, sys
path = "docs/performance.md"
doc = open(path).read()
block = "<!-- bench:scale -->\n%s\n<!-- /bench:scale -->" % open(sys.argv[1]).read().rstrip("\n")
if "<!-- bench:scale -->" in doc:
    doc = re.sub(r"<!-- bench:scale -->.*?<!-- /bench:scale -->", lambda _: block, doc, flags=re.S)
else:
    doc += "\n" + block + "\n"
open(path, "w").write(doc)
PY
  echo "wrote docs/performance.md, docs/img/scale-*.png and bench/results/scale.json" >&2
fi
if [[ ${STRICT:-} == 1 ]] && grep -q '^CHECK FAIL' "$work/checks"; then exit 1; fi
