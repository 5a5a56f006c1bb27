package probe

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// The request functions take their own token (the rule of
// apiclient.Budget): an exact list answered by a recorded v1.37.2 list page
// costs one token, and a watch asked with the budget spent is never sent,
// and says so instead of counting as a probe.
func TestProbeRequestsTakeTheirOwnToken(t *testing.T) {
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
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	tg := apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "recorded"}
	b := apiclient.NewBudget(1, 0)
	if r := TryExactList(context.Background(), c, tg, 215, b); r.Outcome != OutcomeOK || r.Unanswered() != nil || b.Used() != 1 || requests != 1 {
		t.Fatalf("want one answered exact list and one token, got %+v, %d tokens, %d requests", r, b.Used(), requests)
	}
	r := TryWatch(context.Background(), c, tg, 215, TryOptions{Budget: b})
	if !errors.Is(r.Unanswered(), apiclient.ErrBudgetExhausted) || r.Outcome != "" || requests != 1 || b.Used() != 1 {
		t.Fatalf("a watch with the budget spent must not be sent: %+v (%v), %d requests", r, r.Unanswered(), requests)
	}
	// The watch read through to the current RV (a bound storage answered)
	// is a request of the budget too.
	r = TryWatchThrough(context.Background(), c, tg, 215, 300, TryOptions{Budget: b})
	if !errors.Is(r.Unanswered(), apiclient.ErrBudgetExhausted) || r.Outcome != "" || requests != 1 || b.Used() != 1 {
		t.Fatalf("a read-through watch with the budget spent must not be sent: %+v (%v), %d requests", r, r.Unanswered(), requests)
	}
}

// watchTarget is the recorded namespace's configmaps.
func watchTarget() apiclient.Target {
	return apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "recorded"}
}

// stepUntil moves fc forward by step until done is closed: the probe's
// timers fire on the fake clock, never on the wall clock.
func stepUntil(fc *testingclock.FakeClock, step time.Duration, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
		}
		if fc.HasWaiters() {
			fc.Step(step)
		}
		time.Sleep(time.Millisecond)
	}
}

// A watch the server accepts and keeps silent (what a real server does
// for a watch from its current RV: headers, then nothing) counts as started
// once the wait has passed on the probe's clock.
func TestTryWatchSilenceIsTimedByTheClock(t *testing.T) {
	r := tryWatchOnAFakeClock(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}, TryOptions{Wait: 250 * time.Millisecond, HeaderTimeout: time.Hour}, 250*time.Millisecond)
	if r.Outcome != OutcomeOK || !r.Silent || r.Evidence != "accepted: no error within 250ms" || r.Latency < 250*time.Millisecond {
		t.Fatalf("want a silent start after 250ms of the clock, got %+v", r)
	}
}

// A server that never answers the watch request: the header timeout, on
// the probe's clock, abandons it as a transient answer, which is no
// answer named by its bound (NoAnswer), never a cancellation (adversary
// try 22 F2: "context canceled", class Other).
func TestTryWatchHeaderTimeoutIsTimedByTheClock(t *testing.T) {
	r := tryWatchOnAFakeClock(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}, TryOptions{HeaderTimeout: 5 * time.Second}, time.Second)
	if r.Outcome != OutcomeTransient || r.Latency < 5*time.Second {
		t.Fatalf("want a transient answer after 5s of the clock, got %+v", r)
	}
	err := r.Err()
	if f := diagnose.ClassifyFailure(err); f != diagnose.FailureNoAnswer || !apiclient.GaveNoAnswer(err) || errors.Is(err, context.Canceled) {
		t.Errorf("class %s, no answer %v, a cancellation %v: want NoAnswer, not a cancellation: %v", f, apiclient.GaveNoAnswer(err), errors.Is(err, context.Canceled), err)
	}
	if want := "no answer within 5s, " + DefaultHeaderBound; !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "cancel") {
		t.Errorf("the error %q does not name the bound (%q)", err, want)
	}
}

// tryWatchOnAFakeClock runs TryWatch from RV 215 against handler with a
// fake clock in opts, stepped by step until the try returns.
func tryWatchOnAFakeClock(t *testing.T, handler http.HandlerFunc, opts TryOptions, step time.Duration) Try {
	t.Helper()
	srv := httptest.NewServer(handler)
	defer srv.Close()
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	fc := testingclock.NewFakeClock(time.Unix(0, 0))
	opts.Clock = fc
	done := make(chan struct{})
	var r Try
	go func() {
		defer close(done)
		r = TryWatch(context.Background(), c, watchTarget(), 215, opts)
	}()
	stepUntil(fc, step, done)
	return r
}
