package clients

import (
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
)

// reachedRVs is the newest RV the server is known to have reached, by the
// second it was known: the stale-reconnect evidence compares a watch's RV
// with what the server had answered at before the watch came, never after
// and never from a request that was not answered at its RV (a watch from a
// future RV is held silently and ends with a 200; a 504 or a 410 says the
// RV was not served). A ring of the last reachedSeconds seconds that moved
// it: bounded whatever the log.
type reachedRVs struct {
	ring [reachedSeconds]reachedAt
	n    int // entries in use, the newest at ring[(n-1)%len]
}

const reachedSeconds = 256

type reachedAt struct {
	sec int64  // unix second
	rv  uint64 // the newest RV reached by the end of that second
}

func (r *reachedRVs) reached(n uint64, at time.Time) {
	sec := at.Unix()
	if r.n > 0 {
		last := &r.ring[(r.n-1)%reachedSeconds]
		if n <= last.rv {
			return
		}
		if sec <= last.sec {
			// The same second (or a late event): the newest so far.
			last.rv = n
			return
		}
	}
	r.ring[r.n%reachedSeconds] = reachedAt{sec: sec, rv: n}
	r.n++
}

// before is the newest RV reached in a second before the one of t; ok is
// false when none is known (or t is older than what the ring holds).
func (r *reachedRVs) before(t time.Time) (uint64, bool) {
	sec := t.Unix()
	for k := r.n - 1; k >= 0 && k >= r.n-reachedSeconds; k-- {
		if e := r.ring[k%reachedSeconds]; e.sec < sec {
			return e.rv, true
		}
	}
	return 0, false
}

// answered notes the RVs a 2xx answer shows the server had reached: the
// response object's resourceVersion (level RequestResponse), and the RV
// a get or a list was asked for (an exact one is answered at it, a
// NotOlderThan one at it or later); never a watch's.
func (a *Analyzer) answered(r *request, code int, responseRV string, at time.Time) {
	if code < 200 || code >= 300 {
		return
	}
	if n, ok := rv.Parse(responseRV); ok && n > 0 {
		a.rvs.reached(n, at)
	}
	q := r.query
	if (r.verb == "list" || r.verb == "get") && q.HasRV && !q.Continue {
		if n, ok := rv.Parse(q.ResourceVersion); ok && n > 0 {
			a.rvs.reached(n, at)
		}
	}
}
