package probe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"testing"
	"time"

	"k8s.io/utils/clock"

	"github.com/watchrv/kubectl-watchrv/internal/clocktest"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// simServer is a simulated API server for the search: a function from RV to
// outcome that follows the two real rules read in apiserver v0.37.2 — the
// watch cache fails RVs below the oldest and names it
// (watch_cache_history.go GetIntervalLocked), etcd fails them without a
// number (etcd3/errors.go interpretWatchError) — plus injected noise.
type simServer struct {
	oldest   uint64
	cache    bool
	requests int
	// noise returns a non-window outcome for the n-th request (1-based), or "".
	noise func(n int, rv uint64) Outcome
	// after runs after every request (for a window that moves).
	after func(s *simServer)
	// budget gives each request its token, as the real senders do.
	budget *apiclient.Budget
}

func (s *simServer) probe(ctx context.Context, rv uint64) Try {
	if err := s.budget.Take(ctx); err != nil {
		return Try{ResourceVersion: rv, notSent: err}
	}
	s.requests++
	defer func() {
		if s.after != nil {
			s.after(s)
		}
	}()
	if s.noise != nil {
		switch o := s.noise(s.requests, rv); o {
		case OutcomeTransient:
			return Try{ResourceVersion: rv, Outcome: o, Code: 500, Message: "Internal error occurred: etcdserver: leader changed"}
		case OutcomeThrottled:
			return Try{ResourceVersion: rv, Outcome: o, Code: 429, RetryAfter: 2 * time.Second}
		case OutcomeFatal:
			return Try{ResourceVersion: rv, Outcome: o, Code: 403, Message: `configmaps is forbidden: User "nobody" cannot watch resource "configmaps"`}
		}
	}
	if rv >= s.oldest {
		return Try{ResourceVersion: rv, Outcome: OutcomeOK}
	}
	if s.cache {
		return Try{ResourceVersion: rv, Outcome: OutcomeExpired, Source: SourceWatchCache, OldestNamed: s.oldest, Code: 410,
			Message: fmt.Sprintf("too old resource version: %d (%d)", rv, s.oldest)}
	}
	return Try{ResourceVersion: rv, Outcome: OutcomeExpired, Source: SourceStorage, Code: 410, Message: "The resourceVersion for the provided watch is too old."}
}

// recordingClock fires every timer at once and records its wait.
type recordingClock struct {
	*clocktest.Instant
	slept *[]time.Duration
}

func (c recordingClock) NewTimer(d time.Duration) clock.Timer {
	if c.slept != nil {
		*c.slept = append(*c.slept, d)
	}
	return c.Instant.NewTimer(d)
}

// noSleep is a search of s within max requests whose retries wait on a clock
// that fires at once (the waits recorded in slept when not nil).
func noSleep(s *simServer, max int, slept *[]time.Duration) SearchOptions {
	s.budget = apiclient.NewBudget(max, 0)
	return SearchOptions{Budget: s.budget, Retry: apiclient.Retry{Clock: recordingClock{clocktest.NewInstant(), slept}}}
}

// etcdBound is the request bound of a bisection: the low probe, plus
// ceil(log2(current-1)), plus one to prove the answer again when its
// success was seen before the last failure (a window may move meanwhile).
func etcdBound(current uint64) int {
	return 2 + bits.Len64(current-2)
}

func TestSearchWatchCacheNamesOldestTwoProbes(t *testing.T) {
	s := &simServer{oldest: 257, cache: true}
	r := Search(context.Background(), 300, s.probe, noSleep(s, 64, nil))
	if r.Err != nil || !r.Found || r.Oldest != 257 || r.Source != SourceWatchCache {
		t.Fatalf("want oldest 257 from the watch cache, got %+v", r)
	}
	if len(r.Probes) != 2 || !r.LowerBoundFromServer || r.Width() != 43 {
		t.Fatalf("want 2 probes, a server-named lower bound and width 43, got %d probes %+v", len(r.Probes), r)
	}
}

func TestSearchNothingExpiredOneProbe(t *testing.T) {
	s := &simServer{oldest: 1, cache: true}
	r := Search(context.Background(), 5000, s.probe, SearchOptions{})
	if !r.Found || r.Oldest != 1 || len(r.Probes) != 1 || r.Source != SourceNone {
		t.Fatalf("want oldest 1 after one probe, source unknown, got %+v", r)
	}
}

// Every compaction point of small and large windows: the exact answer,
// within the bisection bound.
func TestSearchEtcdExactWithinBound(t *testing.T) {
	for _, current := range []uint64{2, 3, 4, 17, 100, 1023, 1024, 1025, 5000} {
		for oldest := uint64(1); oldest <= current; oldest++ {
			s := &simServer{oldest: oldest}
			r := Search(context.Background(), current, s.probe, noSleep(s, 64, nil))
			if r.Err != nil || !r.Found || r.Oldest != oldest {
				t.Fatalf("current %d oldest %d: got %+v", current, oldest, r)
			}
			if len(r.Probes) > etcdBound(current) {
				t.Fatalf("current %d oldest %d: %d probes, bound %d", current, oldest, len(r.Probes), etcdBound(current))
			}
			if oldest > 1 && (r.Source != SourceStorage || r.LastFailing != oldest-1) {
				t.Fatalf("current %d oldest %d: want source etcd and last failing %d, got %+v", current, oldest, oldest-1, r)
			}
		}
	}
}

// A transient 5xx at random requests changes neither the answer nor the
// bound: each one costs exactly one extra request.
func TestSearchTransientErrorNeverMovesTheBound(t *testing.T) {
	for _, cache := range []bool{false, true} {
		for seed := 1; seed <= 40; seed++ {
			current, oldest := uint64(100000), uint64(37+seed*997)
			failing := map[int]bool{seed % 5: true, seed%7 + 3: true, 11: true}
			s := &simServer{oldest: oldest, cache: cache, noise: func(n int, _ uint64) Outcome {
				if failing[n] {
					return OutcomeTransient
				}
				return ""
			}}
			var slept []time.Duration
			clean := &simServer{oldest: oldest, cache: cache}
			want := Search(context.Background(), current, clean.probe, SearchOptions{})
			r := Search(context.Background(), current, s.probe, noSleep(s, 64, &slept))
			if r.Err != nil || r.Oldest != oldest {
				t.Fatalf("cache=%v seed %d: want %d, got %+v", cache, seed, oldest, r)
			}
			transients := 0
			for _, p := range r.Probes {
				if p.Outcome == OutcomeTransient {
					transients++
				}
			}
			if len(r.Probes) != len(want.Probes)+transients || len(slept) != transients {
				t.Fatalf("cache=%v seed %d: %d probes with %d transients (%d sleeps), clean search took %d", cache, seed, len(r.Probes), transients, len(slept), len(want.Probes))
			}
		}
	}
}

// A 5xx that persists stops the search with the bracket found so far,
// which still holds the true bound.
func TestSearchPersistentErrorStopsWithTrueBracket(t *testing.T) {
	s := &simServer{oldest: 7000, noise: func(n int, rv uint64) Outcome {
		if n >= 4 {
			return OutcomeTransient
		}
		return ""
	}}
	r := Search(context.Background(), 10000, s.probe, noSleep(s, 64, nil))
	if r.Err == nil || r.Found {
		t.Fatalf("want an error, got %+v", r)
	}
	if !(r.LastFailing < 7000 && 7000 <= r.FirstSucceeding) {
		t.Fatalf("bracket (%d, %d] lost the true oldest 7000", r.LastFailing, r.FirstSucceeding)
	}
	if len(r.Probes) != 3+3 {
		t.Fatalf("want 3 answered probes and 3 attempts at the failing RV, got %d", len(r.Probes))
	}
}

func TestSearchHonorsRetryAfter(t *testing.T) {
	s := &simServer{oldest: 257, cache: true, noise: func(n int, _ uint64) Outcome {
		if n == 1 {
			return OutcomeThrottled
		}
		return ""
	}}
	var slept []time.Duration
	r := Search(context.Background(), 300, s.probe, noSleep(s, 64, &slept))
	if r.Err != nil || r.Oldest != 257 || len(r.Probes) != 3 {
		t.Fatalf("want 257 in 3 probes, got %+v", r)
	}
	if len(slept) != 1 || slept[0] != 2*time.Second {
		t.Fatalf("want one 2s wait (the Retry-After), got %v", slept)
	}
}

func TestSearchBudgetExhaustedKeepsBracket(t *testing.T) {
	s := &simServer{oldest: 123456}
	r := Search(context.Background(), 1<<20, s.probe, noSleep(s, 5, nil))
	if !errors.Is(r.Err, apiclient.ErrBudgetExhausted) || r.Found || len(r.Probes) != 5 {
		t.Fatalf("want budget exhausted after 5 probes, got %d probes, %+v", len(r.Probes), r.Err)
	}
	if !(r.LastFailing < 123456 && 123456 <= r.FirstSucceeding) || r.FirstSucceeding-r.LastFailing > 1<<20/8 {
		t.Fatalf("bracket (%d, %d] does not narrow onto 123456", r.LastFailing, r.FirstSucceeding)
	}
}

func TestSearchFatalStopsAtOnce(t *testing.T) {
	s := &simServer{oldest: 10, noise: func(int, uint64) Outcome { return OutcomeFatal }}
	r := Search(context.Background(), 100, s.probe, SearchOptions{})
	if r.Err == nil || diagnose.ClassifyFailure(r.Err) != diagnose.FailureForbidden || len(r.Probes) != 1 {
		t.Fatalf("want one probe and a Forbidden error, got %d, %v", len(r.Probes), r.Err)
	}
}

// The watch cache evicts while the search runs (writes keep coming): the
// oldest moves up by 50 per request, twice. The search follows it and ends
// on an RV that was the oldest when it was probed.
func TestSearchFollowsAMovingWatchCacheWindow(t *testing.T) {
	s := &simServer{oldest: 1000, cache: true, after: func(s *simServer) {
		if s.requests <= 2 {
			s.oldest += 50
		}
	}}
	r := Search(context.Background(), 5000, s.probe, noSleep(s, 64, nil))
	if r.Err != nil || !r.Found {
		t.Fatalf("want a result, got %+v", r)
	}
	last := r.Probes[len(r.Probes)-1]
	if last.Outcome != OutcomeOK || last.ResourceVersion != r.Oldest || r.Oldest != 1100 || len(r.Probes) != 4 {
		t.Fatalf("want the last probe to confirm the moved oldest, got %+v", r)
	}
}

func TestEtcdBoundMatchesLog2(t *testing.T) {
	for _, c := range []uint64{3, 1025, 1 << 20} {
		if want := 2 + int(math.Ceil(math.Log2(float64(c-1)))); etcdBound(c) != want {
			t.Fatalf("etcdBound(%d) = %d, want %d", c, etcdBound(c), want)
		}
	}
}

// etcd compacted again in the middle of a bisection (the real case of
// test/e2e/faults TestProbeDuringEtcdCompaction): successes seen before the
// compaction are stale, failures are not. The answer must be a window that
// really existed (the new one here), never a mix of the two.
func TestSearchEtcdCompactedDuringTheSearch(t *testing.T) {
	for at := 1; at <= 12; at++ {
		s := &simServer{oldest: 410}
		s.after = func(s *simServer) {
			if s.requests == at {
				s.oldest = 610
			}
		}
		r := Search(context.Background(), 810, s.probe, noSleep(s, 64, nil))
		if r.Err != nil || !r.Found || (r.Oldest != 410 && r.Oldest != 610) {
			t.Fatalf("compaction after request %d: want 410 or 610, got %+v", at, r)
		}
		if r.Oldest == 410 && at < len(r.Probes) {
			t.Fatalf("compaction after request %d of %d: 410 was no longer true when the search ended", at, len(r.Probes))
		}
	}
}

// One policy, one cap on the tries: a throttled answer counts toward the
// tries like any other non-answer, each wait the server's Retry-After
// (before, throttled answers were retried until the budget ran out).
func TestSearchPersistentThrottlingStopsAtTheTries(t *testing.T) {
	s := &simServer{oldest: 257, cache: true, noise: func(int, uint64) Outcome { return OutcomeThrottled }}
	var slept []time.Duration
	r := Search(context.Background(), 300, s.probe, noSleep(s, 64, &slept))
	if diagnose.ClassifyFailure(r.Err) != diagnose.FailureThrottled || errors.Is(r.Err, apiclient.ErrBudgetExhausted) || len(r.Probes) != 3 {
		t.Fatalf("want the search to stop after 3 throttled tries, got %d probes, %v", len(r.Probes), r.Err)
	}
	if len(slept) != 2 || slept[0] != 2*time.Second || slept[1] != 2*time.Second {
		t.Fatalf("want two 2s waits (the Retry-After), got %v", slept)
	}
}

// A hint (the bound another resource of the same storage had in this
// run) costs two probes after RV 1 when right, and never a wrong answer
// when wrong: every hint, right or not, still finds the exact bound.
func TestSearchStorageHint(t *testing.T) {
	const current = 100000
	for _, oldest := range []uint64{2, 500, 4711, 99999} {
		for _, hint := range []uint64{0, 1, oldest - 1, oldest, oldest + 1, 3, 99998, current, current + 5} {
			s := &simServer{oldest: oldest}
			o := noSleep(s, 64, nil)
			o.Hint = hint
			r := Search(context.Background(), current, s.probe, o)
			if r.Err != nil || !r.Found || r.Oldest != oldest {
				t.Fatalf("oldest %d hint %d: got %+v", oldest, hint, r)
			}
			if hint == oldest && oldest > 2 && len(r.Probes) != 3 {
				t.Errorf("oldest %d, a right hint: %d probes, want 3 (RV 1, the hint, the RV below)", oldest, len(r.Probes))
			}
			if len(r.Probes) > etcdBound(current)+2 {
				t.Errorf("oldest %d hint %d: %d probes, over the bisection's bound + 2", oldest, hint, len(r.Probes))
			}
		}
	}
}
