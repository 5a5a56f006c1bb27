package probe

import (
	"context"
	"fmt"
	"time"
)

// WindowOptions configure the probe of one resource.
type WindowOptions struct {
	Probe  ProbeOptions
	Search SearchOptions
	// Verify adds two watches: from the oldest RV (must start) and from the
	// one below it (must expire).
	Verify bool
	// Future adds a list and a watch from FutureAhead RVs past the current
	// one, the watch held for FutureHold.
	Future      bool
	FutureAhead uint64
	FutureHold  time.Duration
}

// Verification is the proof of the bound: one watch on each side of it.
type Verification struct {
	AtOldest      ProbeResult  `json:"atOldest"`
	BelowOldest   *ProbeResult `json:"belowOldest,omitempty"`
	Holds         bool         `json:"holds"`
	NothingBelow  bool         `json:"nothingBelow,omitempty"`
	FailureReason string       `json:"failureReason,omitempty"`
}

// Window is everything found about one resource's watch window.
type Window struct {
	Target     Target
	Current    uint64
	CurrentRaw string // the RV as the server sent it (set even when opaque)
	Search     *SearchResult
	Verify     *Verification
	Future     *FutureCheck
	Requests   int
	Started    time.Time
	Duration   time.Duration
	// Err is why the window is not (fully) known: a failed current-RV read,
	// an opaque RV, a search that ran out of budget or met a fatal error, or
	// a verification that did not hold.
	Err error
}

// ProbeWindow reads the current RV, searches the oldest watchable RV, and
// optionally verifies it and shows what a future RV does. Every request
// goes through o.Search.Budget; every watch is closed before the next.
func (c *Client) ProbeWindow(ctx context.Context, t Target, o WindowOptions) *Window {
	w := &Window{Target: t, Started: time.Now()}
	b := o.Search.Budget
	used := b.Used()
	defer func() {
		w.Requests = b.Used() - used
		w.Duration = time.Since(w.Started)
	}()
	var itemRV uint64
	w.Current, w.CurrentRaw, itemRV, w.Err = c.CurrentRV(ctx, t, b, o.Search.MaxRetryAfter)
	if w.Err != nil {
		return w
	}
	watch := adaptiveProbe(func(ctx context.Context, rv uint64, po ProbeOptions) ProbeResult {
		return c.ProbeWatch(ctx, t, rv, po)
	}, o.Probe, itemRV)
	probe, etcd := c.etcdListProbe(t, watch, w.Current)
	w.Search = Search(ctx, w.Current, probe, o.Search)
	if w.Err = w.Search.Err; w.Err != nil {
		return w
	}
	if o.Verify {
		w.Verify, w.Err = verify(ctx, w.Search.Oldest, watch, o.Search)
		if w.Err != nil {
			return w
		}
		if *etcd && !w.Verify.Holds {
			// The bound came from exact lists and real watches disagree:
			// search again with watches only, and prove that bound.
			w.Search = Search(ctx, w.Current, watch, o.Search)
			if w.Err = w.Search.Err; w.Err != nil {
				return w
			}
			w.Verify, w.Err = verify(ctx, w.Search.Oldest, watch, o.Search)
			if w.Err != nil {
				return w
			}
		}
	}
	if o.Future {
		w.Future, w.Err = c.Future(ctx, t, w.Search.Current, o.FutureAhead, o.FutureHold, b)
	}
	return w
}

// verify proves the bound with one watch on each side of it. Transient
// answers are retried as in the search.
func verify(ctx context.Context, oldest uint64, probe ProbeFunc, o SearchOptions) (*Verification, error) {
	scratch := &SearchResult{}
	v := &Verification{}
	at, err := scratch.attempt(ctx, probe, oldest, o)
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
		v.FailureReason = "the watch from the oldest RV did not start: the window moved since the search (new writes evicted it)"
	case v.BelowOldest != nil && v.BelowOldest.Outcome != OutcomeExpired:
		v.FailureReason = "the watch from one below the oldest RV started: the bound is not tight"
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
func adaptiveProbe(p func(context.Context, uint64, ProbeOptions) ProbeResult, base ProbeOptions, itemRV uint64) ProbeFunc {
	var slowest time.Duration
	return func(ctx context.Context, rv uint64) ProbeResult {
		o := base
		o.Wait = max(o.Wait, min(3*slowest, expectedEventWait))
		expectEvent := rv < itemRV
		if expectEvent {
			o.Wait = max(o.Wait, expectedEventWait)
		}
		r := p(ctx, rv, o)
		if r.Outcome == OutcomeExpired {
			slowest = max(slowest, r.Latency)
		}
		if expectEvent && r.Silent {
			r.Outcome, r.Silent = OutcomeTransient, false
			r.Evidence = fmt.Sprintf("no event and no error within %s, although an object was modified at RV %d", o.Wait, itemRV)
		}
		return r
	}
}
