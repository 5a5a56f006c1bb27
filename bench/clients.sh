#!/usr/bin/env bash
# kubectl watchrv clients on a 1 GiB audit log, beside the pipeline people
# run today (jq .userAgent | sort | uniq -c): one run each, wall and CPU
# time and peak RSS from /usr/bin/time -v. The log repeats the real lines
# recorded from kube-apiserver v1.37.2 by test/e2e/clients
# (bench/testdata/clients-seed.log.gz), each repetition shifted forward in
# time with new auditIDs (bench/clients-gen.py).
#
#   bench/clients.sh              # 1 GiB
#   SIZE=$((256<<20)) bench/clients.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${SIZE:-$((1<<30))}
work=${WORK:-$(mktemp -d)}
trap 'rm -rf "$work"' EXIT INT TERM
command -v jq >/dev/null || { echo "jq is needed: apt-get install -y jq" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time is needed: apt-get install -y time" >&2; exit 2; }

make -s build >&2
echo "generating a $((SIZE>>20)) MiB audit log from the recorded lines..." >&2
python3 bench/clients-gen.py "$SIZE" > "$work/audit.log"
bytes=$(stat -c %s "$work/audit.log")
lines=$(wc -l < "$work/audit.log")
cat "$work/audit.log" > /dev/null # both runs start with the file in the page cache

measure() { # name, command...: prints "name wall_s cpu_s rss_kib"
  local name=$1; shift
  /usr/bin/time -v -o "$work/time.$name" "$@" > "$work/out.$name"
  awk -v n="$name" -F': ' '
    /Elapsed \(wall clock\)/ { split($2, p, ":"); wall = (length(p) == 3) ? p[1]*3600 + p[2]*60 + p[3] : p[1]*60 + p[2] }
    /User time/ { cpu += $2 } /System time/ { cpu += $2 }
    /Maximum resident/ { rss = $2 }
    END { printf "%s %.2f %.2f %d\n", n, wall, cpu, rss }' "$work/time.$name"
}
plugin=$(measure plugin bin/kubectl-watchrv clients -f "$work/audit.log")
jqp=$(measure jq bash -c "jq .userAgent '$work/audit.log' | sort | uniq -c")
read -r _ pw pc pr <<<"$plugin"
read -r _ jw jc jr <<<"$jqp"
echo
echo "| $((bytes>>20)) MiB, $lines lines | wall | CPU (user+sys) | peak RSS |"
echo "| --- | --- | --- | --- |"
echo "| \`kubectl watchrv clients -f\` | ${pw} s | ${pc} s | $((pr/1024)) MiB |"
echo "| \`jq .userAgent \| sort \| uniq -c\` | ${jw} s | ${jc} s | $((jr/1024)) MiB |"
awk -v pw="$pw" -v jw="$jw" -v pc="$pc" -v jc="$jc" 'BEGIN { printf "\nratio (jq pipeline / plugin): %.1fx wall, %.1fx CPU\n", jw/pw, jc/pc }'
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
echo "plugin's first lines:"; head -3 "$work/out.plugin"
