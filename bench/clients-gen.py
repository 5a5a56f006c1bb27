#!/usr/bin/env python3
"""Write an audit log of about SIZE bytes to stdout by repeating the real
recorded lines of bench/testdata/clients-seed.log.gz (one e2e run on a real
kube-apiserver v1.37.2): each repetition shifts every timestamp by the
seed's span (so the log goes forward in time, in order) and gives every
request a new auditID (so each repetition is new requests, not duplicates).

    bench/clients-gen.py SIZE_BYTES > big.log
"""
import datetime, gzip, json, re, sys

size = int(sys.argv[1])
seed = gzip.open(sys.argv[2] if len(sys.argv) > 2 else "bench/testdata/clients-seed.log.gz", "rt").read().splitlines()
ts = re.compile(r'"(requestReceivedTimestamp|stageTimestamp)":"([^"]+)"')
aid = re.compile(r'"auditID":"([0-9a-f]{8})')
parse = lambda s: datetime.datetime.strptime(s.rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f")
times = [parse(m.group(2)) for l in seed for m in ts.finditer(l)]
t0, span = min(times), max(times) - min(times) + datetime.timedelta(seconds=1)
# Templates: each line with its timestamps as offsets from t0 (microseconds).
tmpl = []
for l in seed:
    parts, offs, last = [], [], 0
    for m in ts.finditer(l):
        parts.append(l[last:m.start(2)])
        offs.append(int((parse(m.group(2)) - t0).total_seconds() * 1e6))
        last = m.end(2)
    parts.append(l[last:])
    tmpl.append((parts, offs))
out = sys.stdout
written, rep = 0, 0
while written < size:
    base = t0 + rep * span
    prefix = "%08x" % rep
    for parts, offs in tmpl:
        s = [parts[0]]
        for i, off in enumerate(offs):
            s.append((base + datetime.timedelta(microseconds=off)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
            s.append(parts[i + 1])
        line = aid.sub('"auditID":"' + prefix, "".join(s), count=1) + "\n"
        out.write(line)
        written += len(line)
    rep += 1
