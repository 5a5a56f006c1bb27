package apiclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	testingclock "k8s.io/utils/clock/testing"
)

// Every wait for a token is left out of the stopwatch of its context and
// of the stopwatches around it (a row's and its requests'), on the
// limiter's clock.
func TestStopwatchLeavesOutTheRateLimitersWaits(t *testing.T) {
	fc := testingclock.NewFakeClock(time.Now())
	l := newRateLimiter(5, 1, fc, "the rate limit of 5 requests a second")
	row, rowSW := StartStopwatchOn(context.Background(), fc)
	for i := 0; i < 3; i++ {
		req, reqSW := StartStopwatchOn(row, fc)
		done := make(chan error, 1)
		go func() { done <- l.Wait(req) }()
		if i > 0 {
			for !fc.HasWaiters() {
				time.Sleep(time.Millisecond)
			}
			fc.Step(200 * time.Millisecond) // the token's wait at 5/s
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		fc.Step(3 * time.Millisecond) // the server's answer
		if got := reqSW.Elapsed(); got != 3*time.Millisecond {
			t.Fatalf("request %d: %s, want the server's 3ms without the wait", i, got)
		}
	}
	if got := rowSW.Elapsed(); got != 9*time.Millisecond || rowSW.Paced() != 400*time.Millisecond {
		t.Fatalf("the row: %s (%s paced), want 9ms (400ms paced)", got, rowSW.Paced())
	}
}

// Through the client, on the real clock: requests paced at 4/s by --qps's
// Budget and by the REST client's own limiter are timed from their send,
// by the stopwatch and by the ledger (the -v lines and the cost) alike.
func TestRequestTimesAreFromTheSend(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "listing", "testdata", "page3.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(page)
	}))
	defer srv.Close()
	l := NewLedger()
	var lines []Entry
	l.Observe(func(e Entry) { lines = append(lines, e) }) // the -v lines; one request at a time
	cfg := Meter(&rest.Config{Host: srv.URL, QPS: 4, Burst: 1}, l)
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tg := Target{Resource: Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "recorded"}
	for _, b := range []*Budget{nil, NewBudget(0, 4)} { // the REST client's limiter; then --qps's too
		for i := 0; i < 3; i++ {
			start := time.Now()
			ctx, sw := StartStopwatch(context.Background())
			if err := b.Take(ctx); err != nil {
				t.Fatal(err)
			}
			body, err := c.Get(ctx, tg.CollectionPath(), nil, AcceptMetadataList)
			if err != nil {
				t.Fatal(err)
			}
			body.Close()
			wall := time.Since(start)
			if i > 0 && (wall < 200*time.Millisecond || sw.Elapsed() > wall-200*time.Millisecond) {
				t.Fatalf("request %d waited %s for a token, and its time is %s: the wait must be left out", i, wall, sw.Elapsed())
			}
		}
	}
	l.Settle()
	if len(lines) != 6 {
		t.Fatalf("%d -v lines for 6 requests", len(lines))
	}
	for _, e := range lines {
		if e.Duration > 150*time.Millisecond {
			t.Fatalf("a -v line's time is %s: the ledger times a request from its send, after the rate limiters", e.Duration)
		}
	}
}
