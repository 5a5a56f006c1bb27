package apiclient

import (
	"context"
	"errors"
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

// The limiter decides "would pass the deadline" itself, on its clock: a
// typed error at once and no token taken; a wait that fits is waited on the
// clock.
func TestRateLimiterRefusesAWaitPastTheDeadlineTyped(t *testing.T) {
	fc := testingclock.NewFakeClock(time.Now())
	l := newRateLimiter(1, 1, fc)
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
	if _, err := c.Get(ctx, tg.CollectionPath(), nil, AcceptMetadataList); !errors.Is(err, ErrRateWaitPastDeadline) || requests != 1 {
		t.Fatalf("want ErrRateWaitPastDeadline and one request sent, got %v (%d requests)", err, requests)
	}
}
