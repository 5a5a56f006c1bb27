package probe

import (
	"context"
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// TryFunc tries one RV: one request (TryWatch or TryExactList in real
// use; a simulated server in the unit tests).
// It takes its token from the search's budget itself (the rule of
// apiclient.Budget) and says so by Try.Unanswered when the budget refused
// it (or the run was cut before its answer).
type TryFunc func(ctx context.Context, rv uint64) Try

// SearchOptions bound the search.
type SearchOptions struct {
	// Budget counts and paces the requests (nil = unbounded, unpaced): the
	// TryFunc takes each token; the search reads what remains, so that it
	// never waits to retry with no request left.
	Budget *apiclient.Budget
	// Retry is how one RV is tried again when the answer says nothing
	// about the window (a 429, a 5xx, a network error, a stream that ended
	// at once): the plugin's one policy (default: 3 tries, 200 ms doubling,
	// the server's Retry-After honoured, every wait capped at 30 s). The
	// current-RV read waits out a 429 by the same policy.
	Retry apiclient.Retry
	// Hint is where the bound probably is (the bound exact lists found on
	// another resource of the same storage in this run: its compaction
	// point is the storage's): when storage answers, the search probes it
	// and the RV below before it bisects. A wrong hint costs two probes and
	// moves no bound falsely: the search goes on from what they showed.
	Hint uint64
	// currentAgain reads the current RV again when every RV up to the one
	// the search has failed (the window moved past it: storage compacted,
	// or the watch cache evicted, above it while the search ran): Run's
	// settleCurrent, which sets r.Current to the RV read, or says why none
	// is (the RVs went back). Nil: the search stops there, the window
	// moved (WindowMovedError).
	currentAgain func(ctx context.Context, r *SearchResult) error
}

// SearchResult is where the window starts, and how that was found.
type SearchResult struct {
	// Current is the newest RV the search knows: the current RV a list
	// read, read again (settleCurrent) when the window moved past it.
	Current uint64
	// Oldest is the oldest RV a watch can start from; valid when Found.
	Oldest uint64
	Found  bool
	// Source is who answered 410 (Answer().Source, derived from the
	// probes when the search ends): watch-cache, storage, mixed, none
	// (no probe expired: the whole history since RV 1 is watchable) or
	// unknown.
	Source string
	// BoundBy is why the bound is where it is (BoundNothingExpired, ...),
	// set when Found. ListBound is the bound exact lists found before real
	// watches settled it (storage only: exact lists answer from
	// ListBound+1, storage's compaction point as they see it; 0 when no
	// list was used); LostAt the RV of the change a watch from below the
	// bound lost (BoundLostChange).
	BoundBy   string
	ListBound uint64
	LostAt    uint64
	// LastFailing is the highest RV known to fail (0 = none) and
	// FirstSucceeding the lowest known to succeed: the bracket.
	LastFailing, FirstSucceeding uint64
	// LowerBoundFromServer is true when LastFailing came from the watch
	// cache's own 410 message ("too old resource version: X (Y)" means every
	// RV below Y fails) rather than from a probe.
	LowerBoundFromServer bool
	Probes               []Try
	Err                  error
}

// Width is the window in RVs (Current - Oldest).
func (r *SearchResult) Width() uint64 {
	if !r.Found || r.Oldest > r.Current {
		return 0
	}
	return r.Current - r.Oldest
}

// Search finds the oldest RV from which a watch still starts, given the
// current RV. It probes RV 1 first: success means nothing was ever lost; a
// watch-cache 410 names the oldest RV, which one more probe confirms; an
// etcd 410 names nothing, so the search bisects between the last failing and
// the first succeeding RV. Answers other than success and Expired are
// retried and never move a bound.
//
// A bound is only ever one a request showed (fresh user try 22 #1: with
// storage compacted above the current RV while the search ran, every RV up
// to it failed and the current RV, never tried, was reported as the bound,
// which a watch refused with 410): the current RV bounds the bisection from
// above, but it is the answer only once a watch from it started; when the
// failures reach it, the current RV is read again (o.currentAgain) and the
// search goes on above it.
func Search(ctx context.Context, current uint64, probe TryFunc, o SearchOptions) *SearchResult {
	r := &SearchResult{Current: current}
	// Invariant: lo fails (0 = no exact RV below), hi succeeds or is the
	// current RV, which bounds the search but is no answer until it is
	// shown. Windows only move forward, so a failure stays true for ever,
	// but a success is true only when it was seen: hiSeq and loSeq (probe
	// counts; hiSeq -1 when no request showed hi) tell whether hi was shown
	// after the last failure, and else it is shown (again) before it is
	// the answer (a compaction or an eviction during the search).
	lo, hi, hiSeq, loSeq := uint64(0), current, -1, 0
	if current <= 1 {
		r.Oldest, r.Found, r.FirstSucceeding = current, true, current
		r.settle()
		return r
	}
	next := uint64(1)
	hint, hintBelow := o.Hint, false
	for {
		res, err := r.attempt(ctx, probe, next, o)
		if err != nil {
			r.Err = err
			break
		}
		switch res.Outcome {
		case OutcomeOK:
			if next <= hi {
				hi, hiSeq = next, len(r.Probes)
			}
		case OutcomeExpired:
			if next > lo {
				lo, r.LowerBoundFromServer, loSeq = next, false, len(r.Probes)
			}
			// The watch cache's own rule: every RV below the one it names fails.
			if y := res.OldestNamed; y > 1 && y-1 > lo {
				lo, r.LowerBoundFromServer, loSeq = y-1, true, len(r.Probes)
			}
		}
		if lo >= hi {
			// The window moved past hi while searching: search again up to
			// the newest RV known, read again when the window moved past
			// it too.
			if lo >= r.Current {
				if err := r.readCurrentAgain(ctx, lo, o); err != nil {
					r.Err = err
					break
				}
			}
			hi, hiSeq = r.Current, -1
		}
		if hi-lo <= 1 {
			if hiSeq > loSeq {
				r.Oldest, r.Found = hi, true
				break
			}
			next = hi // shown before the last failure, or never: show it
			continue
		}
		switch {
		case res.OldestNamed > 0:
			next = lo + 1 // confirm the RV the server named
		case !hintBelow && hint > lo+1 && hint <= hi:
			// The RV below the hint first, then the hint: a failure and
			// then a success, so that the success needs no second proof.
			next, hintBelow = hint-1, true
		case hintBelow && hint > lo && hint < hi:
			next, hint = hint, 0
		default:
			next = lo + (hi-lo)/2
		}
	}
	r.LastFailing, r.FirstSucceeding = lo, hi
	r.settle()
	return r
}

// readCurrentAgain reads the current RV again (o.currentAgain) once every
// RV up to failed, at or above it, has failed: the window moved past it.
// An RV read at or below failed is no RV a watch can start from: the
// window moved past it as well (or the RVs went back: settleCurrent says).
func (r *SearchResult) readCurrentAgain(ctx context.Context, failed uint64, o SearchOptions) error {
	if o.currentAgain != nil {
		if err := o.currentAgain(ctx, r); err != nil {
			return err
		}
	}
	if r.Current <= failed {
		return &WindowMovedError{Failed: failed, Current: r.Current, Again: o.currentAgain != nil}
	}
	return nil
}

// WindowMovedError: every RV up to the current RV failed, and no current
// RV above them was read: the window moved past every RV the probe knows.
type WindowMovedError struct {
	// Failed is the highest RV that failed, Current the current RV read
	// (Again: read once more after the failures).
	Failed, Current uint64
	Again           bool
}

func (e *WindowMovedError) Error() string {
	again := ", and it was not read again"
	if e.Again {
		again = ", read again after the failures"
	}
	return fmt.Sprintf("the window moved past the current RV during the probe: a watch from every RV up to %d failed, and the current RV is %d%s: no RV a watch starts from is known; probe again", e.Failed, e.Current, again)
}

// settle derives Source from the probes and, when the bound is found,
// BoundBy from how it was found (a storage bound is refined by
// settleStorageBound afterwards).
func (r *SearchResult) settle() {
	r.Source = r.Answer().Source
	switch {
	case !r.Found:
		r.BoundBy = ""
	case r.Oldest <= 1 && r.Source == SourceNone:
		r.BoundBy = BoundNothingExpired
	case r.LowerBoundFromServer && r.Source == SourceWatchCache:
		r.BoundBy = BoundWatchCacheNamed
	default:
		r.BoundBy = BoundProbes
	}
}

// attempt probes rv until it gets an answer about the window: OK or
// Expired. Any other answer is tried again by o.Retry (a throttled one after
// the server's Retry-After) until its tries run out; fatal answers stop.
func (r *SearchResult) attempt(ctx context.Context, probe TryFunc, rv uint64, o SearchOptions) (Try, error) {
	for failed := 1; ; failed++ {
		res := probe(ctx, rv)
		if err := res.Unanswered(); err != nil {
			return Try{}, err
		}
		r.Probes = append(r.Probes, res)
		switch res.Outcome {
		case OutcomeExpired:
			if res.Inconsistent != "" {
				// A 410 whose numbers contradict the watch that got it
				// is no API server's answer to it: no window is drawn
				// from it (adversary try 33 F3: an empty interval
				// "(400, 400]" and a watch-cache source from 410s all
				// marked inconsistent).
				return res, &diagnose.ContractError{Contract: "Watch", Breach: fmt.Sprintf("the watch from RV %d was answered with a 410 that cannot be its answer (%s), so no window is drawn from it", rv, res.Inconsistent)}
			}
			return res, nil
		case OutcomeOK:
			return res, nil
		case OutcomeFatal:
			return res, res.asError()
		}
		if o.Budget.Remaining() == 0 {
			// No request left to retry with: do not wait for nothing.
			return res, o.Budget.Exhausted()
		}
		if !o.Retry.More(failed) {
			return res, &NoAnswerError{RV: rv, Tries: failed, Last: res}
		}
		if err := o.Retry.Wait(ctx, o.Retry.Delay(failed, res.asError())); err != nil {
			return res, err
		}
	}
}

// NoAnswerError: one RV got no answer about the window in all its tries.
// A throttled last answer unwraps to its 429, and a last try that failed
// with an error of its own (no answer within a bound, no connection)
// unwraps to that error, so that the failure (and the exit code) is
// theirs: a watch whose headers never came is NoAnswer, exit 4, as in
// watch and streaming, not Other, exit 1 (adversary try 22 F2).
type NoAnswerError struct {
	RV    uint64
	Tries int
	Last  Try
}

func (e *NoAnswerError) Error() string {
	// "Told nothing", not "no answer": the last try may well have been
	// answered (a 503), just not about the window (try 16).
	return fmt.Sprintf("a watch from RV %d told nothing about the window in %s (last: %s%s): the bound was not moved", e.RV, text.Count(e.Tries, "attempt"), e.Last.Evidence, messageSuffix(e.Last.Message))
}

func (e *NoAnswerError) Unwrap() error {
	if e.Last.Outcome == OutcomeThrottled || e.Last.failed != nil {
		return e.Last.asError()
	}
	return nil
}

func messageSuffix(m string) string {
	if m == "" {
		return ""
	}
	return ": " + m
}
