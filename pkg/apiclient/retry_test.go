package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// recordedTooLarge is the 504 TooLarge recorded from the real v1.37.2
// server by test/e2e/probe (it carries retryAfterSeconds 1).
func recordedTooLarge(t *testing.T) error {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "probe", "testdata", "toolarge-list.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st metav1.Status
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return &apierrors.StatusError{ErrStatus: st}
}

func TestRetryBackoffDoublesUpToTheCap(t *testing.T) {
	r := Retry{Initial: 250 * time.Millisecond, Max: 2 * time.Second}
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 2 * time.Second}
	for i, w := range want {
		if d := r.Delay(i+1, errors.New("connection refused")); d.Duration != w || d.ServerAsked != 0 {
			t.Fatalf("wait after failure %d: got %s, want %s", i+1, d, w)
		}
	}
	if d := (Retry{}).Backoff(1); d != 200*time.Millisecond {
		t.Fatalf("default first wait %s, want 200ms", d)
	}
	if !(Retry{Tries: 2}).More(1) || (Retry{Tries: 2}).More(2) || !(Retry{}).More(2) || (Retry{}).More(3) {
		t.Fatal("Tries counts every try, the first included (default 3)")
	}
}

func TestRetryHonoursTheRecordedRetryAfterUpToTheCap(t *testing.T) {
	err := recordedTooLarge(t)
	if ra, ok := RetryAfter(err); !ok || ra != time.Second {
		t.Fatalf("the recorded 504 asks for 1s, got %s %v", ra, ok)
	}
	if d := (Retry{Initial: 100 * time.Millisecond}).Delay(1, err); d.Duration != time.Second || d.ServerAsked != time.Second {
		t.Fatalf("want the server's 1s over a 100ms backoff, got %s", d)
	}
	if d := (Retry{Initial: 100 * time.Millisecond, Max: 300 * time.Millisecond}).Delay(1, err); d.Duration != 300*time.Millisecond {
		t.Fatalf("want the Retry-After capped at Max (300ms), got %s", d)
	}
	if d := (Retry{Initial: 4 * time.Second}).Delay(1, err); d.Duration != 4*time.Second || d.ServerAsked != 0 {
		t.Fatalf("a longer backoff wins over a shorter Retry-After, got %s", d)
	}
	if _, ok := RetryAfter(errors.New("EOF")); ok {
		t.Fatal("a network error carries no Retry-After")
	}
}

func TestRetryJitterAddsAtMostHalf(t *testing.T) {
	r := Retry{Initial: time.Second, Max: 8 * time.Second, Jitter: true}
	for i := 0; i < 50; i++ {
		if d := r.Backoff(2); d < 2*time.Second || d > 3*time.Second {
			t.Fatalf("jittered second wait %s outside [2s, 3s]", d)
		}
	}
}

// Wait is timed by the injected clock: it returns when the fake clock has
// moved by the wait, never by the wall clock.
func TestRetryWaitsOnTheInjectedClock(t *testing.T) {
	fc := testingclock.NewFakeClock(time.Unix(0, 0))
	r := Retry{Clock: fc}
	done := make(chan error, 1)
	go func() { done <- r.Wait(context.Background(), Pause{Duration: time.Second}) }()
	for !fc.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	fc.Step(time.Second - time.Nanosecond)
	select {
	case <-done:
		t.Fatal("the wait ended before the clock reached it")
	default:
	}
	fc.Step(time.Nanosecond)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Wait(ctx, Pause{Duration: time.Hour}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait returns the context's error, got %v", err)
	}
}

// The first retry's cause is kept on the run's stopwatch and carried by
// its RetryWait; a later retry's cause does not replace it.
func TestTheFirstRetrysCauseIsKept(t *testing.T) {
	ctx, sw := StartStopwatch(context.Background())
	r := Retry{Initial: time.Millisecond, Max: time.Millisecond}
	first, later := recordedTooLarge(t), errors.New("http2: client connection lost")
	for _, err := range []error{first, later} {
		if werr := r.Wait(ctx, r.Delay(1, err)); werr != nil {
			t.Fatal(werr)
		}
	}
	rw := retryWait(sw)
	st, _ := diagnose.StatusOf(first)
	want := diagnose.StatusAnswer(st, first.Error()) // its status said, as AnswerWords says it (adversary try 28 F4)
	if rw == nil || rw.Retries != 2 || rw.FirstCause != want {
		t.Fatalf("RetryWait = %+v, want 2 retries, first cause %q", rw, want)
	}
	if !SameFailure(rw, fmt.Errorf("list: %w", first)) || SameFailure(rw, later) {
		t.Fatalf("SameFailure: the first cause is not told from another failure")
	}
}
