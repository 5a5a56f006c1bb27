#!/usr/bin/env python3
"""Write one of the two memory attacks on `clients` of issue 25 (item 5) to
stdout, built from the real lines recorded from kube-apiserver v1.37.2
(pkg/audit/testdata/e2e-audit.log), without holding them:

    long N MIB     N RequestResponse list lines of MIB MiB each: a recorded
                   list of one configmap, its item repeated
    minted N       N one-request clients: a recorded get, each with its own
                   user agent (anyone can send one) and auditID

    bench/clients-attack-gen.py long 10 250 | kubectl watchrv clients -f -
"""
import datetime, json, re, sys

SEED = "pkg/audit/testdata/e2e-audit.log"
lines = open(SEED).read().splitlines()
out = sys.stdout
t0 = datetime.datetime(2026, 12, 1, 10, 44, 35)

def stamp(line, i):
    """The i-th request: its own auditID and times (i ms after t0)."""
    t = (t0 + datetime.timedelta(milliseconds=i)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    line = re.sub(r'"(requestReceivedTimestamp|stageTimestamp)":"[^"]+"', lambda m: '"%s":"%s"' % (m.group(1), t), line)
    return re.sub(r'"auditID":"[^"]+"', '"auditID":"attack-%09d"' % i, line, count=1)

mode = sys.argv[1]
if mode == "long":
    n, mib = int(sys.argv[2]), int(sys.argv[3])
    for l in lines:
        e = json.loads(l)
        items = (e.get("responseObject") or {}).get("items")
        if e["stage"] == "ResponseComplete" and items is not None and len(items) == 1 and '"kind":"ConfigMapList"' in l:
            item = json.dumps(items[0], separators=(",", ":"))
            at = l.index(item)
            head, tail = l[:at], l[at + len(item):]
            break
    block = ",".join([item] * 1000)
    count = (mib << 20) // (len(block) + 1)
    for i in range(n):
        # The auditID is in the head, the times in the tail.
        out.write(stamp(head, i))
        for k in range(count):
            if k:
                out.write(",")
            out.write(block)
        out.write(stamp(tail, i) + "\n")
elif mode == "minted":
    n = int(sys.argv[2])
    get = next(l for l in lines if '"verb":"get"' in l and '"stage":"ResponseComplete"' in l)
    ua = re.search(r'"userAgent":"[^"]*"', get).group(0)
    head, tail = get.split(ua)
    for i in range(n):
        out.write(stamp(head + '"userAgent":"minted/%d"' % i + tail, i) + "\n")
else:
    sys.exit(__doc__)
