package follow

import (
	"context"
	"errors"
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

// These tests pin what one attempt of a session was (its outcome, the
// cmd's exit rule reads it from Streak) on streams recorded from real
// servers: the failure streak holds exactly the failed last attempt, in
// both modes.

// serveFile answers every watch with the file (relative to pkg/), or with
// an empty 200 when name is "": what kine sends to a watch from an RV
// ahead of it.
func serveFile(t *testing.T, name string) *apiclient.Client {
	t.Helper()
	var body []byte
	if name != "" {
		b, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		body = b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// An ERROR event keeps its code's class, and only Expired and TooLarge are
// "answered Expired or TooLarge": a 500 PrevKv=nil (recorded from etcd with
// the watch cache off) loses a change, so the resume point is gone for
// that reason (issue 25, H39: it said rv-expired-or-too-large).
func TestErrorEventKeepsItsOwnClass(t *testing.T) {
	for _, c := range []struct {
		name, file string
		failure    diagnose.Failure
		noResume   string
	}{
		{"410 Expired", "watchstream/testdata/expired.jsonl", diagnose.FailureExpired, NoResumeRVProblem},
		{"504 TooLarge", "watchstream/testdata/toolarge.jsonl", diagnose.FailureTooLarge, NoResumeRVProblem},
		{"500 PrevKv=nil", "probe/testdata/etcd-prevkv-nil-from-R-1.json", diagnose.FailureServer, NoResumeChangeLost},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &Session{Client: serveFile(t, c.file), Target: cmTarget(), Options: watchstream.Options{ResourceVersion: "213", RVSet: true}}
			if err := s.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			st := s.Streak()
			var ev *EventError
			if st == nil || st.Failure != c.failure || !errors.As(st.Err, &ev) || s.End() != EndError {
				t.Fatalf("want the ERROR event as a %s failure, got %+v (end %q)", c.failure, st, s.End())
			}
			if got := s.Stats(); got.NoResume != c.noResume || got.ResumeRV != "" {
				t.Fatalf("want no resume point (%s), got %q (%q)", c.noResume, got.ResumeRV, got.NoResume)
			}
		})
	}
}

// A start RV found ahead of the server is no resume point (issue 25, D18),
// and a stream the server ends at once from it with nothing (kine, cache
// off) is a TooLarge failure, not a stream end.
func TestStartAheadIsNoResumePointAndItsEmptyStreamFails(t *testing.T) {
	s := &Session{Client: serveFile(t, ""), Target: cmTarget(), StartAheadOf: "8529",
		Options: watchstream.Options{ResourceVersion: "99999999", RVSet: true}}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := s.Streak()
	var empty *EmptyStreamError
	if st == nil || st.Failure != diagnose.FailureTooLarge || !errors.As(st.Err, &empty) || empty.AheadOf != "8529" || empty.From != "99999999" {
		t.Fatalf("want a TooLarge empty stream, got %+v", st)
	}
	if got := s.Stats(); got.ResumeRV != "" || got.NoResume != NoResumeStartAhead {
		t.Fatalf("a future start is no resume point: %+v", got)
	}
	// Not ahead: the server ends every watch at once (Other, exit 1).
	s = &Session{Client: serveFile(t, ""), Target: cmTarget(), Options: watchstream.Options{ResourceVersion: "213", RVSet: true}}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := s.Streak(); st == nil || st.Failure != diagnose.FailureOther || s.Stats().ResumeRV != "213" {
		t.Fatalf("want an empty stream failure and the start kept as resume point, got %+v %+v", st, s.Stats())
	}
}

// With Follow, streams the server ends at once with nothing are watched
// again with backoff only MaxEmptyStreams times in a row: then the session
// ends with that failure (issue 25, H36: kine's empty answers to a watch
// from the future were reconnected forever, exit 0).
func TestFollowGivesUpOnEmptyStreams(t *testing.T) {
	fc := newFakeClock()
	rs, c := newReplayServer(t, func(http.ResponseWriter, *http.Request, int) {}, nil)
	s := &Session{Client: c, Target: cmTarget(), Follow: true, Clock: fc, StartAheadOf: "8529",
		Options: watchstream.Options{ResourceVersion: "99999999", RVSet: true, AllowBookmarks: true}}
	r := start(t, s)
	for i := 1; i < MaxEmptyStreams; i++ {
		next(t, rs.arrived, "watch request")
		n := next(t, r.notices, "reconnect notice")
		if n.Kind != NoticeReconnect || n.Delay <= 0 || n.FromResourceVersion != "99999999" || n.Failure != diagnose.FailureTooLarge {
			t.Fatalf("empty stream %d: want a reconnect after a backoff, got %+v", i, n)
		}
		waitWaiters(t, fc, 1)
		fc.Step(n.Delay)
	}
	next(t, rs.arrived, "last watch request")
	err := next(t, r.done, "end of the session")
	r.done <- err // for the cleanup, which waits for the end too
	var empty *EmptyStreamError
	if !errors.As(err, &empty) || empty.InARow != MaxEmptyStreams || diagnose.ClassifyFailure(err) != diagnose.FailureTooLarge {
		t.Fatalf("want the session to end with %d empty streams (TooLarge), got %v", MaxEmptyStreams, err)
	}
	if w, _ := rs.counts(); w != MaxEmptyStreams {
		t.Fatalf("want %d watches, got %d", MaxEmptyStreams, w)
	}
}

// A stream answered and then silent for StallTimeout, where no bookmark was
// due in that time, is a quiet collection: without Follow the run ends
// there as asked, in no failure (issue 25, E21: exit 4 "no answer").
func TestQuietStallIsNoFailure(t *testing.T) {
	fc := newFakeClock()
	body := recorded(t, "watchstream", "seed.jsonl")
	want, err := watchstream.ReadFile(filepath.Join("..", "watchstream", "testdata", "seed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rs, c := newReplayServer(t, thenHang(body), nil)
	s := &Session{Client: c, Target: cmTarget(), Clock: fc, StallTimeout: 2 * time.Second, BookmarkPeriod: WatchCacheBookmarkPeriod,
		Options: watchstream.Options{ResourceVersion: "213", RVSet: true, AllowBookmarks: true}}
	r := start(t, s)
	next(t, rs.arrived, "watch request")
	for range want {
		next(t, r.events, "event")
	}
	waitWaiters(t, fc, 1)
	fc.Step(2 * time.Second)
	err = next(t, r.done, "end of the session")
	r.done <- err
	if err != nil {
		t.Fatal(err)
	}
	if s.End() != EndStallTimeout || s.Streak() != nil {
		t.Fatalf("want a quiet end at the stall timeout and no failure, got %q and %+v", s.End(), s.Streak())
	}
}

// blockingCredentials stands for client-go's exec credential plugin: it
// blocks the request before any connection, ignoring the request's context.
type blockingCredentials struct {
	next    http.RoundTripper
	release chan struct{}
}

func (b blockingCredentials) RoundTrip(r *http.Request) (*http.Response, error) {
	<-b.release
	return b.next.RoundTrip(r)
}

// The run's deadline holds while the request waits for credentials, and a
// watch never answered by then is no answer, not a quiet watch (issue 25,
// E19: "timeout after 25.007s", exit 0); the failure says how far the
// request got.
func TestDeadlineHoldsWhileCredentialsBlock(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(srv.Close)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	cfg := &rest.Config{Host: srv.URL}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return blockingCredentials{next: rt, release: release} })
	c, err := apiclient.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, follow := range []bool{false, true} {
		s := &Session{Client: c, Target: cmTarget(), Follow: follow, CredentialPlugin: "slow-plugin",
			Options: watchstream.Options{ResourceVersion: "213", RVSet: true}}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		began := time.Now()
		err := s.Run(ctx)
		cancel()
		if err != nil || time.Since(began) > guard {
			t.Fatalf("follow %v: got %v after %s", follow, err, time.Since(began))
		}
		st := s.Streak()
		var stall *StalledError
		if st == nil || st.Failure != diagnose.FailureNoAnswer || !errors.As(st.Err, &stall) || !stall.AtDeadline || stall.Stage != StageNotSent {
			t.Fatalf("follow %v: want no answer before the request reached the network, got %+v", follow, st)
		}
	}
}

// A run stopped at an ERROR event (--until ERROR) ended as asked, and its
// attempt still ended in that error: the exit code keeps the error's class.
func TestStopAtAnErrorEventKeepsItsClass(t *testing.T) {
	s := &Session{Client: serveFile(t, "watchstream/testdata/expired.jsonl"), Target: cmTarget(),
		Options: watchstream.Options{ResourceVersion: "213", RVSet: true},
		OnEvent: func(ev watchstream.Event, _ Observation) error {
			if ev.Type == watchstream.EventError {
				return &Stop{Reason: "until"}
			}
			return nil
		}}
	if err := s.Run(context.Background()); err != nil || s.End() != "until" {
		t.Fatalf("got %v, end %q", err, s.End())
	}
	if st := s.Streak(); st == nil || st.Failure != diagnose.FailureExpired {
		t.Fatalf("want the Expired as the run's outcome, got %+v", st)
	}
}
