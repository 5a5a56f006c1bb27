package probe

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// cell is what one kind of server does with the requests of a search
// (the facts of shared/reference/rv-semantics.md): who serves the watch,
// how long its 410 takes against the probe's wait, and who answers the
// exact list.
type cell struct {
	name string
	// oldest is the oldest RV a watch starts from; compacted is storage's
	// compaction point (exact lists answer from there).
	oldest, compacted uint64
	// cache: the watch cache serves the watch (its 410 comes at once);
	// else storage does, its 410 after the probe's wait (slow).
	cache bool
	// noMetrics: /metrics cannot be read (forbidden to the user).
	noMetrics bool
	// metricsFirst: /metrics is asked before the exact list (--all).
	metricsFirst bool
	metricsRead  bool
	requests     int
	budget       *apiclient.Budget
}

func (c *cell) take(ctx context.Context, rv uint64) (Try, bool) {
	if err := c.budget.Take(ctx); err != nil {
		return Try{ResourceVersion: rv, notSent: err}, false
	}
	c.requests++
	return Try{ResourceVersion: rv}, true
}

// metrics is the read of /metrics: it shows a watch-cache series for
// the resource where the watch cache serves it.
func (c *cell) metrics(ctx context.Context) (bool, string) {
	if !c.metricsRead {
		c.metricsRead = true // read once, as cacheWitness does
		if _, ok := c.take(ctx, 0); !ok {
			return false, ""
		}
	}
	if c.noMetrics {
		return false, ""
	}
	return c.cache, "its /metrics has a watch_cache_capacity series for it"
}

// storage410 is how long storage takes to refuse a watch: more than the
// probe's default wait.
const storage410 = 400 * time.Millisecond

// watch is a watch from rv read for o.Wait (adaptiveProbe raises it above
// the slowest 410 seen): storage's 410 comes only after storage410.
func (c *cell) watch(slowest *time.Duration, wait time.Duration) TryFunc {
	return adaptiveProbe(func(ctx context.Context, rv uint64, o TryOptions) Try {
		wait := o.Wait
		r, ok := c.take(ctx, rv)
		if !ok {
			return r
		}
		switch {
		case rv >= c.oldest:
			r.Outcome, r.Silent, r.Evidence, r.Latency = OutcomeOK, true, "accepted: no error within "+wait.String(), wait
		case c.cache:
			r.Outcome, r.Source, r.OldestNamed, r.Code = OutcomeExpired, SourceWatchCache, c.oldest, 410
		case wait < storage410:
			r.Outcome, r.Silent, r.Evidence, r.Latency = OutcomeOK, true, "accepted: no error within "+wait.String(), wait
		default:
			r.Outcome, r.Source, r.Code, r.Latency = OutcomeExpired, SourceStorage, 410, storage410
		}
		return r
	}, TryOptions{Wait: wait}, 0, slowest)
}

// try is the search's probe as Run builds it: watches whose silent starts
// are confirmed, their wait raised by the 410s seen.
func (c *cell) try() TryFunc {
	slowest := new(time.Duration)
	return confirmStarts(c.watch(slowest, DefaultTryWait), c.list, c.watch(slowest, expectedEventWait), cacheAnswer{cached: c.metrics, first: c.metricsFirst}, 1000)
}

// list is an exact list at rv+1, as confirmedWatch sends it: it answers
// where storage holds the revision (the watch cache's snapshots, v1.35+,
// answer it too, but the cache drops those below storage's compaction).
func (c *cell) list(ctx context.Context, rv uint64) Try {
	r, ok := c.take(ctx, rv+1)
	if !ok {
		return r
	}
	if rv+1 >= c.compacted {
		r.Outcome, r.Evidence = OutcomeOK, "exact list answered"
		return r
	}
	r.Outcome, r.Source, r.Code, r.Evidence = OutcomeExpired, SourceStorage, 410, "exact list: HTTP 410 Expired"
	return r
}

// A silent watch from RV 1 is claimed as "nothing has expired" only when
// it is true, on every cell: the watch cache on (exact lists from the
// cache or from storage), or off with storage answering later than the
// probe's wait; and what it costs: nothing more where the watch cache
// answered with a 410, one exact list where the watch is silent, a longer
// watch only where the list cannot confirm it.
func TestConfirmStartsOnEveryCell(t *testing.T) {
	for _, tc := range []struct {
		c      cell
		found  uint64
		source string
		// requests is what the answer for RV 1 took, its confirmation
		// included; confirmation how many of them it names.
		requests, confirmation int
	}{
		// storage compacted at 300, its 410 slower than the wait: the list
		// refuses RV 2, /metrics shows no watch cache, the longer watch
		// gets the 410 (try 19 #1).
		{cell{name: "storage, slow 410", oldest: 299, compacted: 300}, 299, SourceStorage, 4, 2},
		// nothing compacted, storage serves: the list confirms.
		{cell{name: "storage, nothing compacted", oldest: 1, compacted: 1}, 1, SourceNone, 2, 1},
		// the cache's snapshot answers the list at RV 2 (v1.35+, storage
		// not compacted past it).
		{cell{name: "watch cache reaching RV 1, list from its snapshot", oldest: 1, compacted: 1, cache: true}, 1, SourceNone, 2, 1},
		// storage compacted: the list is storage's (the cache dropped its
		// snapshots below the compaction); /metrics shows the cache.
		{cell{name: "watch cache reaching RV 1, storage compacted", oldest: 1, compacted: 300, cache: true}, 1, SourceNone, 3, 1},
		// the same, /metrics forbidden: the longer watch stays silent.
		{cell{name: "watch cache reaching RV 1, storage compacted, no /metrics", oldest: 1, compacted: 300, cache: true, noMetrics: true}, 1, SourceNone, 4, 2},
		// --all asks /metrics first: it shows the cache, no list.
		{cell{name: "--all: watch cache reaching RV 1, /metrics first", oldest: 1, compacted: 300, cache: true, metricsFirst: true}, 1, SourceNone, 2, 0},
		// --all, storage: /metrics shows no cache, the list refuses RV 2,
		// the longer watch gets the 410.
		{cell{name: "--all: storage, slow 410, /metrics first", oldest: 299, compacted: 300, metricsFirst: true}, 299, SourceStorage, 4, 2},
		// the watch cache's 410: nothing added.
		{cell{name: "watch cache window", oldest: 257, compacted: 1, cache: true}, 257, SourceWatchCache, 1, 0},
	} {
		t.Run(tc.c.name, func(t *testing.T) {
			c := tc.c
			c.budget = apiclient.NewBudget(64, 0)
			try := c.try()
			first := try(context.Background(), 1)
			if c.requests != tc.requests {
				t.Fatalf("the answer for RV 1 took %d requests, want %d: %+v", c.requests, tc.requests, first)
			}
			if len(first.Confirmation) != tc.confirmation {
				t.Fatalf("every request sent to confirm the answer is in its Confirmation: %+v", first)
			}
			r := Search(context.Background(), 1000, func(ctx context.Context, rv uint64) Try {
				if rv == 1 {
					return first
				}
				return try(ctx, rv)
			}, SearchOptions{Budget: c.budget})
			if r.Err != nil || !r.Found || r.Oldest != tc.found || r.Source != tc.source {
				t.Fatalf("want oldest %d from %s, got %d from %s (%v): %+v", tc.found, tc.source, r.Oldest, r.Source, r.Err, r.Probes)
			}
			if tc.found == 1 && r.BoundBy != BoundNothingExpired || tc.found > 1 && r.BoundBy == BoundNothingExpired {
				t.Fatalf("bound by %s for oldest %d", r.BoundBy, r.Oldest)
			}
			if ev := r.Probes[0].Evidence; tc.requests > 1 && !strings.Contains(ev, "exact list at RV 2") && !strings.Contains(ev, "watch_cache_capacity") {
				t.Fatalf("the evidence must say how the start was confirmed: %q", ev)
			}
		})
	}
}

// With no request left for the confirmation, no start is claimed.
func TestConfirmStartsClaimsNothingWithoutItsRequests(t *testing.T) {
	c := cell{oldest: 299, compacted: 300, budget: apiclient.NewBudget(1, 0)}
	r := Search(context.Background(), 1000, c.try(), SearchOptions{Budget: c.budget})
	if r.Found || !errors.Is(r.Err, apiclient.ErrBudgetExhausted) || r.Source == SourceNone {
		t.Fatalf("a silent start that could not be confirmed must not be claimed: %+v", r)
	}
}

// A confirming exact list that got no answer it could use is said in its
// own words (fresh user try 32 F2: "that would have confirmed it got
// request failed" of an answer at another RV, a List contract break).
func TestListWordsSaysAFailedListsOwnWords(t *testing.T) {
	var l Try
	l.fromError(errors.New("this API server broke the List contract: an exact list at RV 2 was answered at RV 100"), 2)
	if got := listWords(l); got != "failed: this API server broke the List contract: an exact list at RV 2 was answered at RV 100" {
		t.Errorf("got %q", got)
	}
}
