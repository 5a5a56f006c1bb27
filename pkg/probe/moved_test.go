package probe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// shownAfterLastFailure fails t unless r's bound is one a request showed:
// a probe after the search's last failure started from it (fresh user try
// 22 #1: the current RV was the bound, never tried, and a watch from it got
// 410).
func shownAfterLastFailure(t *testing.T, what string, r *SearchResult) {
	t.Helper()
	if !r.Found {
		return
	}
	shown := false
	for _, p := range r.Probes {
		switch {
		case p.Outcome == OutcomeExpired:
			shown = false
		case p.Outcome == OutcomeOK && p.ResourceVersion == r.Oldest:
			shown = true
		}
	}
	if !shown {
		t.Fatalf("%s: bound %d (current %d) claimed, but no request after the last failure started from it: %+v", what, r.Oldest, r.Current, r.Probes)
	}
	if r.Oldest > r.Current {
		t.Fatalf("%s: bound %d above the current RV %d", what, r.Oldest, r.Current)
	}
}

// Every window, the bound at the current RV included: the bound is one a
// request showed, never the current RV taken to start.
func TestSearchBoundIsAlwaysShown(t *testing.T) {
	for _, cache := range []bool{false, true} {
		for _, current := range []uint64{2, 3, 17, 1024} {
			for oldest := uint64(1); oldest <= current; oldest++ {
				s := &simServer{oldest: oldest, cache: cache}
				r := Search(context.Background(), current, s.probe, noSleep(s, 64, nil))
				if r.Err != nil || r.Oldest != oldest {
					t.Fatalf("cache=%v current %d oldest %d: got %+v", cache, current, oldest, r)
				}
				shownAfterLastFailure(t, "a still window", r)
			}
		}
	}
}

// The window moves past the current RV the search read (storage compacted,
// or the watch cache evicted, above it) after any one of the search's
// requests: every RV up to that current RV then fails. The search reads the
// current RV again and finds the new window above it, shown by a request;
// without a way to read it again, it says the window moved and claims no
// bound.
func TestSearchWindowMovedPastTheCurrentRV(t *testing.T) {
	for _, cache := range []bool{false, true} {
		for _, reread := range []bool{true, false} {
			for at := 1; at <= 14; at++ {
				current := uint64(810)
				s := &simServer{oldest: 410, cache: cache}
				s.after = func(s *simServer) {
					if s.requests == at {
						current += 5 // writes, then a compaction (eviction) there
						s.oldest = current - 2
					}
				}
				o := noSleep(s, 64, nil)
				reads := 0
				if reread {
					o.currentAgain = func(ctx context.Context, r *SearchResult) error {
						if err := s.budget.Take(ctx); err != nil {
							return err
						}
						reads++
						r.Current = current
						return nil
					}
				}
				r := Search(context.Background(), 810, s.probe, o)
				what := fmt.Sprintf("cache=%v reread=%v, moved after request %d of %d", cache, reread, at, s.requests)
				shownAfterLastFailure(t, what, r)
				var wm *WindowMovedError
				switch {
				case at >= s.requests:
					// Moved after the search's last answer: the window it
					// showed was the one then.
					if r.Err != nil || r.Oldest != 410 {
						t.Fatalf("%s: want 410, got %+v", what, r)
					}
				case reread:
					if r.Err != nil || !r.Found || r.Oldest != s.oldest || r.Current != current || reads != 1 {
						t.Fatalf("%s: want oldest %d found above the current RV read again (%d), in one read; got %d reads, %+v", what, s.oldest, current, reads, r)
					}
				case r.Found || !errors.As(r.Err, &wm) || !strings.Contains(r.Err.Error(), "moved past the current RV"):
					t.Fatalf("%s, no reread: want the window-moved error and no bound, got %v (%+v)", what, r.Err, r)
				}
			}
		}
	}
}

// settleStorageBound never takes the current RV to start: when the watch
// from the lists' bound fails and the bound reaches the current RV, a watch
// from it decides; a second plain 410 says the window moved.
func TestSettleStorageBoundWatchesTheCurrentRV(t *testing.T) {
	s := &simServer{oldest: 812} // compacted above the current RV 810
	r := &SearchResult{Current: 810, Oldest: 809, Found: true, Source: SourceStorage}
	o := noSleep(s, 64, nil)
	err := settleStorageBound(context.Background(), r, s.probe, o)
	if err == nil || r.Found || !strings.Contains(err.Error(), "moved") {
		t.Fatalf("want the window-moved failure, got %v, %+v", err, r)
	}
	if last := r.Probes[len(r.Probes)-1]; last.ResourceVersion != 810 || last.Outcome != OutcomeExpired {
		t.Fatalf("want the last watch from the current RV 810, refused: %+v", r.Probes)
	}
}

// The verification's failure names what moved the window by who refused
// the watch (AnswerOf): storage compacts, a watch cache evicts (recorded
// answers of kube-apiserver v1.37.2).
func TestVerifyFailureNamesWhoMovedTheWindow(t *testing.T) {
	for _, tc := range []struct {
		file      string
		rv        uint64
		want, not string
	}{
		{"etcd-watch-from-R-2.json", 458, "storage was compacted", "evict"},
		{"cache-expired-event.json", 1, "evicted it from the watch cache", "compact"},
	} {
		ev, err := recordedEvent(t, tc.file)
		var refused Try
		refused.fromFirstEvent(ev, err, tc.rv)
		at := func(context.Context, uint64) Try { return refused }
		v, verr := verify(context.Background(), tc.rv, at, at, SearchOptions{})
		if verr != nil || v.Holds || !strings.Contains(v.FailureReason, tc.want) || strings.Contains(v.FailureReason, tc.not) {
			t.Fatalf("%s: want a failure that says %q (never %q), got %q (%v)", tc.file, tc.want, tc.not, v.FailureReason, verr)
		}
	}
}
