package follow

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// These tests drive the session's clock: every wait is a step of a fake
// clock, never a wait on the wall clock. The answers are recorded from a
// real v1.37.2 server (pkg/watchstream/testdata, pkg/listing/testdata); a
// hang is a handler that answers nothing until the client gives up.

// guard bounds how long a test waits for the session's goroutine to reach
// the next step: a hung test fails instead of hanging, and nothing is
// asserted about how long a step takes.
const guard = 20 * time.Second

func recorded(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", dir, "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replayServer answers the n-th watch (from 0) with watch(n) and every list
// with list, and tells arrived of every request.
type replayServer struct {
	mu      sync.Mutex
	watches []url.Values
	lists   []url.Values
	arrived chan string
}

func newReplayServer(t *testing.T, watch func(w http.ResponseWriter, r *http.Request, n int), list []byte) (*replayServer, *apiclient.Client) {
	t.Helper()
	rs := &replayServer{arrived: make(chan string, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		w.Header().Set("Content-Type", "application/json")
		rs.mu.Lock()
		if q.Get("watch") == "" {
			rs.lists = append(rs.lists, q)
			rs.mu.Unlock()
			rs.arrived <- "list"
			_, _ = w.Write(list)
			return
		}
		n := len(rs.watches)
		rs.watches = append(rs.watches, q)
		rs.mu.Unlock()
		rs.arrived <- "watch"
		watch(w, r, n)
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return rs, c
}

func (rs *replayServer) counts() (watches, lists int) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.watches), len(rs.lists)
}

func (rs *replayServer) watchQuery(n int) url.Values {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.watches[n]
}

// hang answers nothing until the client gives up.
func hang(_ http.ResponseWriter, r *http.Request, _ int) { <-r.Context().Done() }

// thenHang sends a recorded stream, then keeps the stream open and silent,
// as a server does while nothing changes (or a network that drops packets).
func thenHang(body []byte) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, _ int) {
		_, _ = w.Write(body)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// running is a session run in its own goroutine, its notices and events
// passed to the test.
type running struct {
	notices chan Notice
	events  chan watchstream.Event
	done    chan error
	cancel  context.CancelFunc
}

func start(t *testing.T, s *Session) *running {
	t.Helper()
	return startIn(t, context.Background(), s)
}

// startIn is start under parent (a deadline: the run's --timeout).
func startIn(t *testing.T, parent context.Context, s *Session) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(parent)
	r := &running{notices: make(chan Notice, 100), events: make(chan watchstream.Event, 1000), done: make(chan error, 1), cancel: cancel}
	// A session that runs on after the test stopped reading (an immediate
	// reconnect loop) must not block on a full channel once cancelled.
	s.OnNotice = func(n Notice) {
		select {
		case r.notices <- n:
		case <-ctx.Done():
		}
	}
	s.OnEvent = func(ev watchstream.Event, _ Observation) error {
		select {
		case r.events <- ev:
		case <-ctx.Done():
		}
		return nil
	}
	go func() { r.done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(guard):
			t.Error("the session did not end after its context was cancelled")
		}
	})
	return r
}

func next[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(guard):
		t.Fatalf("no %s", what)
	}
	var zero T
	return zero
}

// waitWaiters waits until the session waits on the clock (n timers).
func waitWaiters(t *testing.T, fc *clocktesting.FakeClock, n int) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for fc.Waiters() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the session never waited on its clock (%d timers, want %d)", fc.Waiters(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func newFakeClock() *clocktesting.FakeClock {
	return clocktesting.NewFakeClock(time.Date(2026, 11, 29, 20, 2, 43, 0, time.UTC))
}

// A watch request with no answer is abandoned after StallTimeout (of the
// clock) as a stall, and each retry waits its backoff on the clock: doubling,
// with up to 50% jitter, up to the cap; the next request is not sent until
// the backoff has passed.
func TestStalledOpeningBacksOffOnTheClock(t *testing.T) {
	fc := newFakeClock()
	rs, c := newReplayServer(t, hang, nil)
	const stall = 5 * time.Second
	s := &Session{Client: c, Target: cmTarget(), Follow: true, Clock: fc, StallTimeout: stall,
		Options: watchstream.Options{ResourceVersion: "213", RVSet: true},
		Backoff: Backoff{Initial: time.Second, Max: 4 * time.Second}}
	r := start(t, s)
	for i, base := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		next(t, rs.arrived, "watch request")
		waitWaiters(t, fc, 1) // the watchdog of the open request
		fc.Step(stall)
		n := next(t, r.notices, "reconnect notice")
		var stalled *StalledError
		if n.Kind != NoticeReconnect || n.Failure != diagnose.FailureNoAnswer || !errors.As(n.Err, &stalled) || !stalled.Opening || stalled.After != stall {
			t.Fatalf("attempt %d: want a reconnect after a stalled opening, got %+v", i, n)
		}
		if n.Delay < base || n.Delay > base+base/2 {
			t.Fatalf("attempt %d: backoff %s, want %s to %s", i, n.Delay, base, base+base/2)
		}
		if n.FromResourceVersion != "213" {
			t.Fatalf("attempt %d: reconnect from %q, want 213", i, n.FromResourceVersion)
		}
		waitWaiters(t, fc, 1) // the backoff
		fc.Step(n.Delay - time.Nanosecond)
		if w, _ := rs.counts(); w != i+1 || fc.Waiters() != 1 {
			t.Fatalf("attempt %d: a watch was sent before its backoff passed (%d watches)", i, w)
		}
		fc.Step(time.Nanosecond)
	}
	next(t, rs.arrived, "watch request after the last backoff")
	if st := s.Streak(); st == nil || st.Attempts != 4 || st.Failure != diagnose.FailureNoAnswer || !st.Since.Equal(newFakeClock().Now().Add(stall)) {
		t.Fatalf("want a streak of 4 stalls that began at the first stall (clock time), got %+v", st)
	}
}

// A stream that sends the recorded events and then nothing, not even a
// bookmark, is closed as stalled StallTimeout after its last event (of the
// clock, not before), and the session watches again from the last event's
// RV after the backoff.
func TestStalledStreamReconnectsFromLastRV(t *testing.T) {
	fc := newFakeClock()
	body := recorded(t, "watchstream", "seed.jsonl")
	want, err := watchstream.ReadFile(filepath.Join("..", "watchstream", "testdata", "seed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rs, c := newReplayServer(t, thenHang(body), nil)
	const stall = 30 * time.Second
	// A bookmark was due within the stall (every 10 s): the silence is a hang.
	s := &Session{Client: c, Target: cmTarget(), Follow: true, Clock: fc, StallTimeout: stall, BookmarkPeriod: 10 * time.Second,
		Options: watchstream.Options{ResourceVersion: "213", RVSet: true, AllowBookmarks: true}}
	r := start(t, s)
	next(t, rs.arrived, "watch request")
	for range want {
		next(t, r.events, "event")
	}
	lastRV := want[len(want)-1].Object.ResourceVersion
	fc.Step(stall - time.Nanosecond) // the watchdog was reset at the last event
	select {
	case n := <-r.notices:
		t.Fatalf("the stream was closed before it stalled: %+v", n)
	default:
	}
	if fc.Waiters() != 1 {
		t.Fatalf("the watchdog fired early (%d timers)", fc.Waiters())
	}
	fc.Step(time.Nanosecond)
	n := next(t, r.notices, "reconnect notice")
	var stalled *StalledError
	if n.Kind != NoticeReconnect || !errors.As(n.Err, &stalled) || stalled.Opening || n.Failure != diagnose.FailureNoAnswer {
		t.Fatalf("want a reconnect after a stalled stream, got %+v", n)
	}
	if n.FromResourceVersion != lastRV || n.Delay < 800*time.Millisecond || n.Delay > 1200*time.Millisecond {
		t.Fatalf("want a reconnect from %s after 800ms-1.2s, got from %q after %s", lastRV, n.FromResourceVersion, n.Delay)
	}
	// Read while the session waits its backoff (it wrote them before the notice).
	if st := s.Stats(); st.Streams != 1 || st.Reconnects != 1 || st.ResumeFrom != ResumeFromEvent {
		t.Fatalf("stats %+v", st)
	}
	waitWaiters(t, fc, 1)
	fc.Step(n.Delay)
	next(t, rs.arrived, "second watch request")
	if q := rs.watchQuery(1); q.Get("resourceVersion") != lastRV || q.Get("allowWatchBookmarks") != "true" {
		t.Fatalf("second watch: %v, want resourceVersion=%s with bookmarks", q, lastRV)
	}
}

// A stream the server ends after sending events is followed by a new watch
// at once, with no backoff (as a Reflector does): nothing waits on the clock.
func TestEndedStreamReconnectsAtOnce(t *testing.T) {
	fc := newFakeClock()
	body := recorded(t, "watchstream", "seed.jsonl")
	rs, c := newReplayServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { _, _ = w.Write(body) }, nil)
	s := &Session{Client: c, Target: cmTarget(), Follow: true, Clock: fc,
		Options: watchstream.Options{ResourceVersion: "213", RVSet: true}}
	r := start(t, s)
	next(t, rs.arrived, "watch request")
	n := next(t, r.notices, "reconnect notice")
	if n.Kind != NoticeReconnect || n.Delay != 0 || n.Err != nil || !n.Time.Equal(fc.Now()) {
		t.Fatalf("want an immediate reconnect at the clock's time, got %+v", n)
	}
	next(t, rs.arrived, "second watch request") // without a step of the clock
	if q := rs.watchQuery(1); q.Get("resourceVersion") != n.FromResourceVersion || n.FromResourceVersion == "213" {
		t.Fatalf("second watch %v, want it from the last RV %q", q, n.FromResourceVersion)
	}
}

// An Expired watch relists "not older than" the last RV; when the watch
// from the relist's RV is Expired again before any event, the next relist
// is a consistent read, and only after a backoff on the clock (client-go's
// isLastSyncResourceVersionUnavailable), whose delay grows while that goes on.
func TestUnproductiveRelistBacksOffOnTheClock(t *testing.T) {
	fc := newFakeClock()
	expired := recorded(t, "watchstream", "expired.jsonl")
	list := recorded(t, "listing", "page3.json") // a whole list at RV 215
	rs, c := newReplayServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { _, _ = w.Write(expired) }, list)
	s := &Session{Client: c, Target: recordedListTarget(), Follow: true, Clock: fc,
		Options: watchstream.Options{ResourceVersion: "213", RVSet: true}}
	r := start(t, s)

	n := next(t, r.notices, "first relist")
	if n.Kind != NoticeRelist || n.Failure != diagnose.FailureExpired || len(n.Tried) != 1 || n.Tried[0] != "213" || n.ListResourceVersion != "215" {
		t.Fatalf("want a relist not older than 213 at once, got %+v", n)
	}
	var last time.Duration
	for i := range 3 {
		n = next(t, r.notices, "backoff before the relist")
		if n.Kind != NoticeReconnect || n.Failure != diagnose.FailureExpired || n.Delay <= last {
			t.Fatalf("relist %d: want a growing backoff after the watch from the relist's RV expired again, got %+v (last %s)", i, n, last)
		}
		last = n.Delay
		waitWaiters(t, fc, 1)
		_, lists := rs.counts()
		fc.Step(n.Delay - time.Nanosecond)
		if _, l := rs.counts(); l != lists || fc.Waiters() != 1 {
			t.Fatalf("relist %d: listed before the backoff passed", i)
		}
		fc.Step(time.Nanosecond)
		n = next(t, r.notices, "relist")
		if n.Kind != NoticeRelist || len(n.Tried) != 1 || n.Tried[0] != "" {
			t.Fatalf("relist %d: want a consistent read, got %+v", i, n)
		}
	}
	// The watch from the last relist's RV expires too: the session waits
	// again, having sent 5 watches and 4 lists.
	if n = next(t, r.notices, "backoff"); n.Kind != NoticeReconnect || n.Delay <= last {
		t.Fatalf("want a longer backoff, got %+v", n)
	}
	if w, l := rs.counts(); w != 5 || l != 4 {
		t.Fatalf("want 5 watches and 4 lists, got %d and %d", w, l)
	}
	if st := s.Stats(); st.Relists != 4 || st.LastRV != "215" || st.NoResume != NoResumeRVProblem {
		t.Fatalf("stats %+v", st)
	}
}

// The server's Retry-After is honoured: after the recorded 504 TooLarge
// (retryAfterSeconds 1) the relist from the relist's RV waits at least 1 s
// of the clock, even when the backoff alone would be shorter.
func TestBackoffHonoursRetryAfter(t *testing.T) {
	fc := newFakeClock()
	tooLarge := recorded(t, "watchstream", "toolarge.jsonl")
	list := recorded(t, "listing", "page3.json")
	rs, c := newReplayServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { _, _ = w.Write(tooLarge) }, list)
	s := &Session{Client: c, Target: recordedListTarget(), Follow: true, Clock: fc,
		Options: watchstream.Options{ResourceVersion: "213", RVSet: true},
		Backoff: Backoff{Initial: 100 * time.Millisecond, Max: 30 * time.Second}}
	r := start(t, s)
	if n := next(t, r.notices, "first relist"); n.Kind != NoticeRelist || n.Failure != diagnose.FailureTooLarge {
		t.Fatalf("want a relist after TooLarge, got %+v", n)
	}
	n := next(t, r.notices, "backoff")
	if n.Kind != NoticeReconnect || n.Delay != time.Second {
		t.Fatalf("want the server's Retry-After (1s) over a 100-150ms backoff, got %+v", n)
	}
	waitWaiters(t, fc, 1)
	fc.Step(n.Delay - time.Nanosecond)
	if _, l := rs.counts(); l != 1 || fc.Waiters() != 1 {
		t.Fatal("relisted before the server's Retry-After passed")
	}
	fc.Step(time.Nanosecond)
	if n := next(t, r.notices, "relist"); n.Kind != NoticeRelist {
		t.Fatalf("want a relist after the wait, got %+v", n)
	}
}
