package probe

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"
)

// When etcd answers (the watch cache is off for the resource), one watch
// probe costs about 100 ms: etcd serves a watch from an old revision only on
// its next sync of unsynced watchers. An exact list asks etcd for the same
// history and is answered at once, and the same compaction point decides
// both: a watch from N reads revisions from N+1 on, so it starts exactly
// when an exact list at N+1 does (compacted at R: the list works from R,
// the watch from R-1; both seen on v1.37.2). So once etcd is known to
// answer, the bisection asks exact lists, and the bound it finds is then
// proven with two real watches.

// ProbeExactList reads one item of metadata at exactly rv: OK when etcd
// still has revision rv, Expired when it is compacted. One request, no
// client-side retries.
func (c *Client) ProbeExactList(ctx context.Context, t Target, rv uint64) (res ProbeResult) {
	res = ProbeResult{ResourceVersion: rv}
	start := time.Now()
	defer func() {
		res.Latency = time.Since(start)
		res.LatencyMillis = float64(res.Latency.Microseconds()) / 1000
	}()
	q := PageOptions{Limit: 1, ResourceVersion: strconv.FormatUint(rv, 10), ResourceVersionMatch: "Exact"}.Query(t)
	body, err := getCollection(c.short, t, q, acceptMetadataList).MaxRetries(0).Stream(ctx)
	if err != nil {
		res.fromError(err, rv)
		if res.Outcome == OutcomeExpired {
			res.Source = SourceEtcd
		}
		res.Evidence = "exact list: " + res.Evidence
		return res
	}
	_, _ = io.Copy(io.Discard, body)
	body.Close()
	res.Outcome, res.Evidence = OutcomeOK, fmt.Sprintf("exact list at RV %d answered", rv)
	return res
}

// etcdListProbe answers "does a watch from rv start?" with an exact list at
// rv+1 once etcd is known to answer; until then, and for the current RV,
// it asks watch.
func (c *Client) etcdListProbe(t Target, watch ProbeFunc, current uint64) (ProbeFunc, *bool) {
	etcd := new(bool)
	return func(ctx context.Context, rv uint64) ProbeResult {
		if *etcd && rv+1 <= current {
			r := c.ProbeExactList(ctx, t, rv+1)
			r.ResourceVersion = rv
			r.Evidence = fmt.Sprintf("%s (a watch from %d needs revision %d)", r.Evidence, rv, rv+1)
			return r
		}
		r := watch(ctx, rv)
		if r.Outcome == OutcomeExpired && r.Source == SourceEtcd {
			*etcd = true
		}
		return r
	}, etcd
}
