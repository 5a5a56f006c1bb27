package follow

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// runRecorded runs a session (no Follow) over one recorded real stream and
// returns its stats.
func runRecorded(t *testing.T, stream string, o watchstream.Options) Stats {
	t.Helper()
	s := &Session{Client: serveRecordedWatch(t, stream), Target: cmTarget(), Options: o}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s.Stats()
}

// The resume point is an RV a next watch may start from without losing an
// event: after a watch from an exact RV, its last event (changes come in RV
// order); after a state the server ended with the initial-events-end
// bookmark (a streaming list, or a watch with RV unset or 0 that asked for
// bookmarks, as v1.35 and later end it: unset-bookmarks.jsonl and
// zero-bookmarks.jsonl, recorded from v1.37.2), that bookmark; after a
// state that came with no marker (unset.jsonl: no bookmarks asked for),
// none: the state comes in key order, not RV order, and the highest RV
// seen (220 there, the last ADDED) says nothing about the objects not sent.
func TestResumePointIsWhereNothingIsLost(t *testing.T) {
	for _, c := range []struct {
		name, stream   string
		opts           watchstream.Options
		rv, from, none string
	}{
		{"exact RV", "seed.jsonl", watchstream.Options{ResourceVersion: "213", RVSet: true}, "221", ResumeFromEvent, ""},
		{"streaming list", "streaming.jsonl", watchstream.Options{SendInitialEvents: true}, "221", ResumeFromInitialEventsEnd, ""},
		{"RV unset, bookmarks", "unset-bookmarks.jsonl", watchstream.Options{AllowBookmarks: true}, "220", ResumeFromInitialEventsEnd, ""},
		{"RV 0, bookmarks", "zero-bookmarks.jsonl", watchstream.Options{ResourceVersion: "0", RVSet: true, AllowBookmarks: true}, "220", ResumeFromInitialEventsEnd, ""},
		{"RV unset, no marker", "unset.jsonl", watchstream.Options{}, "", ResumeFromNone, NoResumeStateInKeyOrder},
		{"Expired", "expired.jsonl", watchstream.Options{ResourceVersion: "213", RVSet: true}, "", ResumeFromNone, NoResumeRVProblem},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := runRecorded(t, c.stream, c.opts)
			if st.ResumeRV != c.rv || st.ResumeFrom != c.from || st.NoResume != c.none {
				t.Fatalf("want resume point %q from %q (none: %q), got %q from %q (none: %q)", c.rv, c.from, c.none, st.ResumeRV, st.ResumeFrom, st.NoResume)
			}
		})
	}
}

// Every watch is answered Expired, every relist works (the recorded List
// and ERROR event of a real server): the session loops relist -> watch ->
// 410 and never watches. When its time runs out it is inside that failure
// streak, never healthy, and says so: the caller exits 10 as without --follow.
func TestRelistLoopEndsInsideAnExpiredStreak(t *testing.T) {
	list, err := os.ReadFile(filepath.Join("..", "listing", "testdata", "page3.json"))
	if err != nil {
		t.Fatal(err)
	}
	expired, err := os.ReadFile(filepath.Join("..", "watchstream", "testdata", "expired.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") == "1" {
			_, _ = w.Write(expired)
			return
		}
		_, _ = w.Write(list)
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	s := &Session{
		Client: c, Target: recordedListTarget(), Follow: true, Backoff: Backoff{Initial: time.Millisecond, Max: 2 * time.Millisecond},
		Options: watchstream.Options{ResourceVersion: "213", RVSet: true},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := s.Run(ctx); err != nil || s.End() != EndTimeout {
		t.Fatalf("got %v, End %q", err, s.End())
	}
	st := s.Streak()
	if st == nil || st.Failure != diagnose.FailureExpired || st.EverHealthy || st.Attempts < 2 || s.Stats().Relists < 2 {
		t.Fatalf("want an Expired streak of the whole session over several relists, got %+v (stats %+v)", st, s.Stats())
	}
}

// A watch that delivers events is healthy: a session whose every stream
// worked is in no streak when it ends.
func TestHealthySessionHasNoStreak(t *testing.T) {
	s := &Session{Client: serveRecordedWatch(t, "seed.jsonl"), Target: cmTarget(), Options: watchstream.Options{ResourceVersion: "213", RVSet: true}}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := s.Streak(); st != nil {
		t.Fatalf("want no streak, got %+v", st)
	}
}

// Each reason for no resume point of a watch that sends the state is
// drawn from what was recorded, never by elimination (adversary F6: a
// watch answered with an empty body, or with only an ERROR event, said
// "the state came in key order" with Events: 0).
func TestNoResumeReasonOfAStateIsWhatCame(t *testing.T) {
	for _, c := range []struct {
		name                     string
		streams, events, objects int
		asked                    bool
		want                     string
	}{
		{"no watch answered", 0, 0, 0, false, NoResumeNothingAnswered},
		{"empty body", 1, 0, 0, false, NoResumeNoEvent},
		{"empty body, streaming list", 1, 0, 0, true, NoResumeNoEvent},
		{"only an ERROR event", 1, 1, 0, false, NoResumeNoState},
		{"only an ERROR event, streaming list", 1, 1, 0, true, NoResumeNoState},
		{"objects, no end", 1, 3, 3, false, NoResumeStateInKeyOrder},
		{"objects, no end, streaming list", 1, 3, 3, true, NoResumeInitialEventsIncomplete},
	} {
		if got := stateNoResume(c.streams, c.events, c.objects, c.asked); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// A real server's answer to a watch from RV 0 of a collection with
	// nothing in it, closed at its timeoutSeconds: 200 and no byte.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
	}))
	t.Cleanup(srv.Close)
	for _, o := range []watchstream.Options{{}, {ResourceVersion: "0", RVSet: true}} {
		c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		s := &Session{Client: c, Target: cmTarget(), Options: o}
		if err := s.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if st := s.Stats(); st.NoResume != NoResumeNoEvent || st.ResumeFrom != ResumeFromNone {
			t.Errorf("an empty answer to a watch from %q: no resume point %q from %q, want %q", o.ResourceVersion, st.NoResume, st.ResumeFrom, NoResumeNoEvent)
		}
	}
}
