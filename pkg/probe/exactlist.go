package probe

import (
	"context"
	"fmt"
	"strconv"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// When etcd answers (the watch cache is off for the resource), one watch
// probe costs about 100 ms: etcd serves a watch from an old revision only on
// its next sync of unsynced watchers. An exact list asks etcd for the same
// history and is answered at once, and the same compaction point almost
// decides both: a watch from N reads revisions from N+1 on, so it starts
// when an exact list at N+1 does (compacted at R: the list works from R).
// Almost: a watch from R-1 also needs the previous value of the change at
// R, which the compaction removed, so when R is a change of the collection
// that watch fails with 500 "PrevKv=nil" (seen on v1.37.2). So once etcd is
// known to answer, the bisection asks exact lists, and the bound it finds
// is then settled by real watches (settleStorageBound).

// TryExactList reads one item of metadata at exactly rv: OK when etcd
// still has revision rv, Expired when it is compacted. One request, its
// token taken from b.
func TryExactList(ctx context.Context, c *apiclient.Client, t apiclient.Target, rv uint64, b *apiclient.Budget) (res Try) {
	res = Try{ResourceVersion: rv}
	defer res.cutUnanswered(ctx) // run last: after timeFrom
	// Timed from before the token: the stopwatch leaves its wait out.
	ctx, sw := apiclient.StartStopwatch(ctx)
	defer res.timeFrom(sw)
	_, err := listing.List(ctx, c, t, listing.PageOptions{Limit: 1, ResourceVersion: strconv.FormatUint(rv, 10), ResourceVersionMatch: "Exact", Budget: b})
	if apiclient.NotSent(err) {
		res.notSent = err
		return res
	}
	if err != nil {
		res.fromError(err, rv)
		if res.Outcome == OutcomeExpired {
			res.Source = SourceStorage
		}
		res.Evidence = "exact list: " + res.Evidence
		return res
	}
	res.Outcome, res.Evidence = OutcomeOK, fmt.Sprintf("exact list at RV %d answered", rv)
	return res
}

// etcdListProbe answers "does a watch from rv start?" with an exact list at
// rv+1 once etcd is known to answer; until then, and for the current RV
// (current: the newest read, which the search may read again), it asks
// watch: a bound at the current RV is one a watch started from.
func etcdListProbe(c *apiclient.Client, t apiclient.Target, watch TryFunc, current func() uint64, b *apiclient.Budget) (TryFunc, *bool) {
	etcd := new(bool)
	return func(ctx context.Context, rv uint64) Try {
		if *etcd && rv+1 <= current() {
			r := TryExactList(ctx, c, t, rv+1, b)
			if r.notSent != nil {
				return r
			}
			r.ResourceVersion = rv
			r.Evidence = fmt.Sprintf("%s (a watch from %d needs revision %d)", r.Evidence, rv, rv+1)
			return r
		}
		r := watch(ctx, rv)
		if r.Outcome == OutcomeExpired && r.Source == SourceStorage {
			*etcd = true
		}
		return r
	}, etcd
}
