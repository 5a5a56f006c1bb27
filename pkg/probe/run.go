package probe

import (
	"context"
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// Options configure the probe of one resource.
type Options struct {
	Try    TryOptions
	Search SearchOptions
	// Verify adds two watches: from the oldest RV (must start) and from the
	// one below it (must expire).
	Verify bool
	// Future adds a list and a watch from FutureAhead RVs past the current
	// one, the watch held for FutureHold.
	Future      bool
	FutureAhead uint64
	FutureHold  time.Duration

	// slowest, when set, is the slowest 410 seen by every probe sharing it
	// (the resources of one --all run): a silent watch counts as started
	// only well after it. Nil: each Run keeps its own.
	slowest *time.Duration
	// first is the answer of a watch from RV 1 already sent for this
	// resource (--all's one watch per resource), which the search takes
	// as its first probe instead of sending it again.
	first *Try
	// witness is the /metrics read that tells whether a watch cache
	// serves a resource (confirmStarts), shared by the resources of one
	// --all run; nil: each Run reads its own when it needs it.
	witness *cacheWitness
}

// Verification is the proof of the bound: one watch on each side of it.
type Verification struct {
	AtOldest      Try    `json:"atOldest"`
	BelowOldest   *Try   `json:"belowOldest,omitempty"`
	Holds         bool   `json:"holds"`
	NothingBelow  bool   `json:"nothingBelow,omitempty"`
	FailureReason string `json:"failureReason,omitempty"`
}

// Result is everything found about one resource's watch window.
type Result struct {
	Target     apiclient.Target
	Current    uint64
	CurrentRaw string // the RV as the server sent it (set even when opaque)
	// CurrentFrom is where Current comes from in an --all run: CurrentOwn
	// (this resource's consistent list) or CurrentRun (the run's one read,
	// RunWide); "" outside --all (its own).
	CurrentFrom string
	Search      *SearchResult
	Verify      *Verification
	Future      *FutureCheck
	Requests    int
	Started     time.Time
	// Duration is the probe's time, less the client-side rate limiters'
	// waits (--qps): the server's answers and the probe's own waits for
	// them.
	Duration time.Duration
	// Paced is the time the probe waited for the client-side rate limits
	// (--qps): with Duration, the probe's wall time.
	Paced time.Duration
	// RetryWaited is the time the probe waited before sending a failed
	// request again (the plugin's backoff, or a Retry-After).
	RetryWaited time.Duration
	// Err is why the window is not (fully) known: a failed current-RV read,
	// an opaque RV, a search that ran out of budget or met a fatal error, or
	// a verification that did not hold.
	Err error
}

// Run reads the current RV, searches the oldest watchable RV, and
// optionally verifies it and shows what a future RV does. Every request
// goes through o.Search.Budget; every watch is closed before the next.
func Run(ctx context.Context, c *apiclient.Client, t apiclient.Target, o Options) *Result {
	w := &Result{Target: t, Started: time.Now()}
	b := o.Search.Budget
	used := b.Used()
	// The row's time is its requests' and its waits for answers, not the
	// --qps pacing between them (apiclient.Stopwatch); neither counts
	// what the signal cut (Kept).
	ctx, sw := apiclient.StartStopwatch(ctx)
	defer func() {
		w.Requests, w.Duration = sw.Kept(b.Used() - used)
		w.Paced, w.RetryWaited = sw.Paced(), sw.RetryWaited()
	}()
	defer w.leaveOutTheCut(ctx)
	var itemRV uint64
	w.Current, w.CurrentRaw, itemRV, w.Err = ReadCurrent(ctx, c, t, listing.CurrentOptions{Budget: b, Retry: o.Search.Retry})
	if w.Err != nil {
		return w
	}
	o.Try.Budget = b
	if o.slowest == nil {
		o.slowest = new(time.Duration)
	}
	watch := adaptiveProbe(func(ctx context.Context, rv uint64, po TryOptions) Try {
		return TryWatch(ctx, c, t, rv, po)
	}, o.Try, itemRV, o.slowest)
	if o.first != nil {
		watch = seeded(watch, *o.first)
	}
	watch = confirmedWatch(watch, c, t, o, w.Current)
	// Every RV up to the current RV failed (the window moved past it while
	// the search ran): the current RV is read again by the one rule that
	// rereads it (settleCurrent), and the search goes on above it.
	o.Search.currentAgain = func(ctx context.Context, s *SearchResult) error {
		w.Search = s
		_, err := settleCurrent(ctx, c, t, w, o.Search)
		return err
	}
	try, etcd := etcdListProbe(c, t, watch, func() uint64 { return w.Current }, b)
	w.Search = Search(ctx, w.Current, try, o.Search)
	if w.Err = w.Search.Err; w.Err != nil {
		return w
	}
	// A bound storage answered is proven by watches read through to the
	// current RV (reach.go); the watch cache's by the first event.
	atOldest := watch
	if *etcd {
		atOldest = adaptiveProbe(func(ctx context.Context, rv uint64, po TryOptions) Try {
			return TryWatchThrough(ctx, c, t, rv, w.Search.Current, po)
		}, o.Try, itemRV, o.slowest)
		if w.Err = settleStorageBound(ctx, w.Search, atOldest, o.Search); w.Err != nil {
			return w
		}
	}
	if o.Verify {
		w.Verify, w.Err = verify(ctx, w.Search.Oldest, atOldest, watch, o.Search)
		if w.Err != nil {
			return w
		}
		if *etcd && !w.Verify.Holds {
			// The bound came from exact lists and real watches disagree:
			// search again with watches only, and prove that bound. The
			// first search and its verification stay the first rows, as
			// what came (fresh user try 22 #1: the table dropped the
			// answers that disagreed with the bound).
			earlier := append(append([]Try{}, w.Search.Probes...), w.Verify.rows("verify, before the search again with watches only: ")...)
			w.Search = Search(ctx, w.Current, watch, o.Search)
			w.Search.Probes = append(earlier, w.Search.Probes...)
			w.Search.settle()
			if w.Err = w.Search.Err; w.Err != nil {
				return w
			}
			w.Verify, w.Err = verify(ctx, w.Search.Oldest, atOldest, watch, o.Search)
			if w.Err != nil {
				return w
			}
		}
	}
	if _, w.Err = settleCurrent(ctx, c, t, w, o.Search); w.Err != nil {
		return w
	}
	if o.Future {
		try := o.Try
		try.Wait, try.Budget = o.FutureHold, b
		w.Future, w.Err = Future(ctx, c, t, w.Search.Current, o.FutureAhead, try)
	}
	return w
}

// leaveOutTheCut drops from a run the signal cut (apiclient.Cut) the step
// it cut: a search that found no bound, a verification that neither held
// nor failed (its cut watch is unanswered: Try.Unanswered), and says the
// run was interrupted, never the cut's "context canceled" as a reason of
// its own ("Other"). What the signal cut is not printed (docs/exit-codes.md,
// 130; fresh user try 21 F2); the steps answered before it are.
func (w *Result) leaveOutTheCut(run context.Context) {
	if w.Err == nil || !apiclient.Cut(run) {
		return
	}
	w.Err = &InterruptedError{Resource: w.Target.Resource.Name()}
	if w.Search != nil && !w.Search.Found {
		w.Search = nil
	}
	if v := w.Verify; v != nil && !v.Holds && v.FailureReason == "" {
		w.Verify = nil
	}
}

// settleStorageBound proves with real watches, each read through every
// change up to the current RV (TryWatchThrough), a bound that exact lists
// found. The lists put it at R-1 when storage was compacted at R; a watch
// from there fails with PrevKv=nil at the first change whose object's
// previous value is compacted: at R on etcd, anywhere above it on kine.
// Every watch from below that change meets it, so the bound moves to it,
// and the next watch is read from there, until one reaches the current RV.
// A plain 410 moves the bound up by one, once (kine refuses a watch from
// its compaction revision). A bound moved past the current RV has the
// current RV read again (readCurrentAgain), and a watch from it settles it
// as any other: no bound is taken to start unwatched. Each watch and
// each read is one request of the budget.
func settleStorageBound(ctx context.Context, r *SearchResult, reach TryFunc, o SearchOptions) error {
	if !r.Found || r.Oldest >= r.Current {
		// At the current RV the search asked a watch itself
		// (etcdListProbe), and it started.
		return nil
	}
	r.ListBound = r.Oldest
	defer r.settleStorage()
	expired := 0
	for {
		res, err := r.attempt(ctx, reach, r.Oldest, o)
		if err != nil {
			r.Err = err
			return err
		}
		if res.Outcome == OutcomeOK {
			return nil
		}
		next := res.LostAt
		if next > r.Oldest {
			r.LostAt = next
		}
		if next <= r.Oldest {
			// A 410, not a lost change. kine answers it to a watch from
			// its compaction revision, where the exact list above works:
			// the bound is one higher. A second 410 means the compaction
			// moved since the lists found the bound.
			if expired++; expired > 1 {
				err := fmt.Errorf("the watches from RV %d and %d both failed after exact lists put the bound there (the last: %s): the window moved during the probe; probe again", r.Oldest-1, r.Oldest, res.Evidence)
				r.Err, r.Found = err, false
				return err
			}
			next = r.Oldest + 1
		}
		r.LastFailing, r.LowerBoundFromServer = next-1, false
		r.Oldest, r.FirstSucceeding = next, next
		if r.Oldest > r.Current {
			if err := r.readCurrentAgain(ctx, next-1, o); err != nil {
				r.Err, r.Found = err, false
				return err
			}
		}
	}
}

// settleStorage sets Source and BoundBy once settleStorageBound is done:
// the bound is a lost change's RV when a watch from below it lost that
// change, else storage's compaction (exact lists, then a watch read
// through from the bound).
func (r *SearchResult) settleStorage() {
	r.settle()
	switch {
	case !r.Found:
	case r.LostAt > 0 && r.Oldest == r.LostAt:
		r.BoundBy = BoundLostChange
	case r.Source == SourceStorage:
		r.BoundBy = BoundCompaction
	}
}

// rows are the verification's watches, the one at the bound first, each
// evidence said after prefix.
func (v *Verification) rows(prefix string) []Try {
	out := []Try{v.AtOldest}
	if v.BelowOldest != nil {
		out = append(out, *v.BelowOldest)
	}
	for i := range out {
		out[i].Evidence = prefix + out[i].Evidence
	}
	return out
}

// verify proves the bound with one watch on each side of it: the one at
// the bound by atProbe (read through to the current RV when storage
// answered), the one below by probe. Transient answers are retried as in
// the search.
func verify(ctx context.Context, oldest uint64, atProbe, probe TryFunc, o SearchOptions) (*Verification, error) {
	scratch := &SearchResult{}
	v := &Verification{}
	at, err := scratch.attempt(ctx, atProbe, oldest, o)
	v.AtOldest = at
	if err != nil {
		return v, err
	}
	if oldest <= 1 {
		// RV 0 means "any", not an exact RV: nothing below 1 to test.
		v.NothingBelow = true
		v.Holds = at.Outcome == OutcomeOK
	} else {
		below, err := scratch.attempt(ctx, probe, oldest-1, o)
		v.BelowOldest = &below
		if err != nil {
			return v, err
		}
		v.Holds = at.Outcome == OutcomeOK && below.Outcome == OutcomeExpired
	}
	switch {
	case at.Outcome != OutcomeOK:
		v.FailureReason = "the watch from the oldest RV did not start: the window moved since the search (" + whoMovedTheWindow(at) + ")"
	case v.BelowOldest != nil && v.BelowOldest.Outcome != OutcomeExpired:
		v.FailureReason = "the watch from one below the oldest RV started: the bound is not tight"
	case !v.Holds:
		v.FailureReason = fmt.Sprintf("unexpected answers: %s at the oldest RV, %s below it", at.Evidence, v.BelowOldest.Evidence)
	}
	return v, nil
}

// expectedEventWait is how long a probe waits when an event must come.
const expectedEventWait = 10 * time.Second

// adaptiveProbe makes a silent watch count as started only when silence
// proves it:
//   - The wait stays well above the slowest 410 seen so far: the watch
//     cache sends its 410 at once, but etcd serves a watch from an old
//     revision on its next sync of unsynced watchers (every 100 ms, etcd mvcc
//     watchable_store.go watchResyncPeriod), later when loaded.
//   - Below itemRV (an object of the scope last modified at itemRV, seen by
//     the current-RV read), a started watch must replay at least that
//     modification: the probe waits for an event (it comes at once in
//     practice), and silence there is not success but a transient answer.
func adaptiveProbe(p func(context.Context, uint64, TryOptions) Try, base TryOptions, itemRV uint64, slowest *time.Duration) TryFunc {
	return func(ctx context.Context, rv uint64) Try {
		o := base
		// Rounded to the millisecond: the wait is printed ("no error
		// within 285ms", not 284.580438ms).
		o.Wait = max(o.Wait, min((3**slowest).Round(time.Millisecond), expectedEventWait))
		expectEvent := rv < itemRV
		if expectEvent {
			o.Wait = max(o.Wait, expectedEventWait)
		}
		r := p(ctx, rv, o)
		if r.Outcome == OutcomeExpired {
			*slowest = max(*slowest, r.Latency)
		}
		if expectEvent && r.Silent {
			r.Outcome, r.Silent, r.MissedChangeRV = OutcomeTransient, false, itemRV
			r.Evidence = fmt.Sprintf("no event and no error within %s, although an object was modified at RV %d", o.Wait, itemRV)
		}
		return r
	}
}

// seeded answers the first probe of RV 1 with first, an answer already
// received (no request sent), and every other probe with p.
func seeded(p TryFunc, first Try) TryFunc {
	used := false
	return func(ctx context.Context, rv uint64) Try {
		if rv == first.ResourceVersion && !used {
			used = true
			return first
		}
		return p(ctx, rv)
	}
}
