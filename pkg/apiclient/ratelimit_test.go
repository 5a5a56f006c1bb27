package apiclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	testingclock "k8s.io/utils/clock/testing"
)

// The limiter decides "would pass the deadline" itself, on its clock: a
// typed error at once and no token taken; a wait that fits is waited on the
// clock.
func TestRateLimiterRefusesAWaitPastTheDeadlineTyped(t *testing.T) {
	fc := testingclock.NewFakeClock(time.Now())
	l := newRateLimiter(1, 1, fc, "the rate limit of 1 requests a second")
	if !l.TryAccept() {
		t.Fatal("the burst allows one request at once")
	}
	ctx, cancel := context.WithDeadline(context.Background(), fc.Now().Add(500*time.Millisecond))
	defer cancel()
	if err := l.Wait(ctx); !errors.Is(err, ErrRateWaitPastDeadline) {
		t.Fatalf("a 1s wait with 500ms left: want ErrRateWaitPastDeadline, got %v", err)
	}
	long, cancelLong := context.WithDeadline(context.Background(), fc.Now().Add(time.Hour))
	defer cancelLong()
	done := make(chan error, 1)
	go func() { done <- l.Wait(long) }()
	for !fc.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	// The refused wait took no token: the next one is due after 1s, not 2s.
	fc.Step(time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Through the REST client: the second request of a client at 0.01 QPS,
// with a deadline long before its turn, is not sent and says why by type
// (client-go wraps the limiter's error with %w).
func TestClientRateWaitPastDeadlineIsTyped(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "listing", "testdata", "page3.json"))
	if err != nil {
		t.Fatal(err)
	}
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(page)
	}))
	defer srv.Close()
	c, err := NewClient(&rest.Config{Host: srv.URL, QPS: 0.01, Burst: 1})
	if err != nil {
		t.Fatal(err)
	}
	tg := Target{Resource: Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "recorded"}
	body, err := c.Get(context.Background(), tg.CollectionPath(), nil, AcceptMetadataList)
	if err != nil {
		t.Fatal(err)
	}
	body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.Get(ctx, tg.CollectionPath(), nil, AcceptMetadataList)
	if !errors.Is(err, ErrRateWaitPastDeadline) || requests != 1 {
		t.Fatalf("want ErrRateWaitPastDeadline and one request sent, got %v (%d requests)", err, requests)
	}
	saidPlainly(t, err, "the plugin's own rate limit of 0.01 requests a second")
}

// Every limiter's refusal is said in the user's words: the flag or limit
// that paced the request and a rounded wait, never the limiter's own
// words with a wait to the nanosecond (fresh user try 49 F2: "the
// client-side rate limit would hold the request past its deadline (a wait
// of 194.456343ms)" as a probe round's note). Both limiters: --qps's
// Budget and the REST client's own (above).
func TestRateWaitRefusalIsSaidPlainly(t *testing.T) {
	b := NewBudget(0, 3)
	for range 3 {
		if err := b.Take(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := b.Take(ctx)
	if !errors.Is(err, ErrRateWaitPastDeadline) || !NotSent(err) {
		t.Fatalf("want a refusal, not sent: %v", err)
	}
	saidPlainly(t, err, "the rate limit of 3 requests a second")
	if !RateWaitPast(err, time.Now().Add(10*time.Millisecond)) || RateWaitPast(err, time.Now().Add(time.Second)) {
		t.Fatalf("RateWaitPast: the wait ends within the next 334ms, after 10ms and before 1s: %#v", err)
	}
}

func saidPlainly(t *testing.T, err error, limit string) {
	t.Helper()
	msg := err.Error()
	for _, internal := range []string{"deadline", "client-side", "a wait of"} {
		if strings.Contains(msg, internal) {
			t.Errorf("%q says %q", msg, internal)
		}
	}
	if !strings.HasPrefix(msg, "not sent: ") || !strings.Contains(msg, limit) {
		t.Errorf("%q: want \"not sent: ...\" naming %q", msg, limit)
	}
	// The wait is rounded: to the millisecond below a second, to 100 ms
	// above (roundBound); never nanoseconds.
	if !regexp.MustCompile(`\(in (\d+ms|(\d+h)?(\d+m)?\d+(\.\d)?s)\)$`).MatchString(msg) {
		t.Errorf("%q: want the wait rounded, \"(in 334ms)\"", msg)
	}
}
