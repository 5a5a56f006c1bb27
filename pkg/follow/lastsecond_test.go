package follow

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// In the run's last second, how the stream ended decides its reconnect:
// one the server ended is the server's answer to --timeout (its
// timeoutSeconds is --timeout in whole seconds), so no reconnect; one the
// stall watchdog closed where silence is no hang (no bookmark was due)
// reconnects at once, since its wait of 0 s ends before --timeout (fresh
// user try 26 F5: it was dropped with 0.9 s left, which no rule said).
// The run's deadline is on the wall clock (the context's, as --timeout's
// is); the stall is a step of the session's fake clock.
func TestInTheLastSecondOnlyTheServersEndEndsTheRun(t *testing.T) {
	body := recorded(t, "watchstream", "seed.jsonl")
	want, err := watchstream.ReadFile(filepath.Join("..", "watchstream", "testdata", "seed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const left = 950 * time.Millisecond // under the 1 s margin of the server's end
	for _, c := range []struct {
		name      string
		watch     func(http.ResponseWriter, *http.Request, int)
		reconnect bool
	}{
		{"the server ends the stream", func(w http.ResponseWriter, _ *http.Request, _ int) { _, _ = w.Write(body) }, false},
		{"the stall watchdog closes it", thenHang(body), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fc := newFakeClock()
			rs, cl := newReplayServer(t, c.watch, nil)
			const stall = 30 * time.Second
			// No bookmark period known: silence is no hang (a quiet stall).
			s := &Session{Client: cl, Target: cmTarget(), Follow: true, Clock: fc, StallTimeout: stall,
				Options: watchstream.Options{ResourceVersion: "213", RVSet: true, AllowBookmarks: true}}
			ctx, cancel := context.WithTimeout(context.Background(), left)
			defer cancel()
			r := startIn(t, ctx, s)
			next(t, rs.arrived, "watch request")
			for range want {
				next(t, r.events, "event")
			}
			if c.reconnect {
				waitWaiters(t, fc, 1)
				fc.Step(stall)
			}
			select {
			case n := <-r.notices:
				if !c.reconnect || n.Kind != NoticeReconnect || n.Delay != 0 {
					t.Fatalf("want no reconnect: %v; got %+v", !c.reconnect, n)
				}
			case err := <-r.done:
				r.done <- err // for the cleanup, which waits for the end too
				if c.reconnect {
					t.Fatalf("the stall's reconnect of 0 s was dropped before --timeout (%v); stats %+v", err, s.Stats())
				}
				if st := s.Stats(); st.Streams != 1 || st.Reconnects != 0 {
					t.Fatalf("the server's end in the last second: want 1 stream, no reconnect; got %+v", st)
				}
			case <-time.After(guard):
				t.Fatal("the session neither reconnected nor ended")
			}
		})
	}
}
