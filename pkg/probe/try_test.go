package probe

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The answers under testdata were recorded from the real
// kube-apiserver v1.37.2 by test/e2e/probe (WATCHRV_RECORD_TESTDATA=1).

func recordedEvent(t *testing.T, name string) (watchstream.Event, error) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return watchstream.FromReader(f).Next()
}

func recordedStatusError(t *testing.T, name string) error {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var st metav1.Status
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return &apierrors.StatusError{ErrStatus: st}
}

func TestProbeClassifiesRecordedWatchAnswers(t *testing.T) {
	for _, tc := range []struct {
		file    string
		rv      uint64
		outcome Outcome
		source  string
		named   uint64
	}{
		{"cache-expired-event.json", 1, OutcomeExpired, SourceWatchCache, 312},
		{"etcd-watch-from-R-2.json", 458, OutcomeExpired, SourceStorage, 0},
		{"etcd-watch-from-R-1.json", 459, OutcomeOK, "", 0},
		{"etcd-watch-from-R+0.json", 460, OutcomeOK, "", 0},
		// Compacted at a modification: the watch from R-1 loses the change
		// at R (PrevKv=nil) and goes on; for the window that RV is expired.
		{"etcd-prevkv-nil-from-R-1.json", 240, OutcomeExpired, SourceStorage, 0},
	} {
		ev, err := recordedEvent(t, tc.file)
		var r Try
		r.fromFirstEvent(ev, err, tc.rv)
		if r.Outcome != tc.outcome || r.Source != tc.source || r.OldestNamed != tc.named {
			t.Fatalf("%s: got outcome %s source %q named %d, want %s %q %d", tc.file, r.Outcome, r.Source, r.OldestNamed, tc.outcome, tc.source, tc.named)
		}
	}
}

func TestProbeClassifiesRecordedHTTPAnswers(t *testing.T) {
	var r Try
	r.fromError(recordedStatusError(t, "forbidden-watch.json"), 1)
	if r.Outcome != OutcomeFatal || diagnose.ClassifyFailure(r.asError()) != diagnose.FailureForbidden {
		t.Fatalf("403: want a fatal Forbidden, got %+v", r)
	}
	// The 504 TooLarge carries retryAfterSeconds 1: client-go would retry it
	// ten times if probe did not turn its retries off.
	err := recordedStatusError(t, "toolarge-list.json")
	if diagnose.ClassifyFailure(err) != diagnose.FailureTooLarge {
		t.Fatalf("the recorded 504 is not TooLarge: %v", err)
	}
	if s, ok := apierrors.SuggestsClientDelay(err); !ok || s != 1 {
		t.Fatalf("want Retry-After 1 in the recorded 504, got %d %v", s, ok)
	}
	var f Try
	f.fromError(err, 999999999)
	if f.Outcome != OutcomeTransient {
		t.Fatalf("a 504 on a probe is neither success nor Expired: want transient, got %s", f.Outcome)
	}
}

func TestProbeEndOfStreamIsNotSuccess(t *testing.T) {
	var r Try
	r.fromFirstEvent(watchstream.Event{}, errEOF(), 5)
	if r.Outcome != OutcomeTransient {
		t.Fatalf("a stream that ends before any event must be retried, got %s", r.Outcome)
	}
}

func errEOF() error { return io.EOF }

// adaptiveProbe's own rules, on a probe that records the wait it was given
// and answers like an accepted watch with nothing to replay.
func TestAdaptiveProbeSilenceRules(t *testing.T) {
	var waits []time.Duration
	expiredBelow := uint64(100)
	p := adaptiveProbe(func(_ context.Context, rv uint64, o TryOptions) Try {
		waits = append(waits, o.Wait)
		if rv < expiredBelow {
			return Try{ResourceVersion: rv, Outcome: OutcomeExpired, Latency: 120 * time.Millisecond}
		}
		return Try{ResourceVersion: rv, Outcome: OutcomeOK, Silent: true}
	}, TryOptions{Wait: DefaultTryWait}, 500, new(time.Duration))
	ctx := context.Background()
	if r := p(ctx, 600); r.Outcome != OutcomeOK || waits[0] != DefaultTryWait {
		t.Fatalf("above the item's RV silence is success after the default wait: %+v, wait %s", r, waits[0])
	}
	if r := p(ctx, 300); r.Outcome != OutcomeTransient || waits[1] != expectedEventWait {
		t.Fatalf("below the item's RV an event must come: %+v, wait %s", r, waits[1])
	}
	p(ctx, 50) // a 410 after 120ms
	if p(ctx, 700); waits[3] != 360*time.Millisecond {
		t.Fatalf("after a 410 in 120ms the wait must be 3x that, got %s", waits[3])
	}
}

// Issue 16 item 29: the wait after a 410 is printed in evidence ("no error
// within 284.580438ms"): it is rounded to the millisecond.
func TestAdaptiveProbeWaitIsRounded(t *testing.T) {
	var waits []time.Duration
	p := adaptiveProbe(func(_ context.Context, rv uint64, o TryOptions) Try {
		waits = append(waits, o.Wait)
		if rv < 100 {
			return Try{ResourceVersion: rv, Outcome: OutcomeExpired, Latency: 94860146 * time.Nanosecond}
		}
		return Try{ResourceVersion: rv, Outcome: OutcomeOK, Silent: true}
	}, TryOptions{Wait: DefaultTryWait}, 500, new(time.Duration))
	ctx := context.Background()
	p(ctx, 50)
	p(ctx, 700)
	if waits[1] != 285*time.Millisecond {
		t.Fatalf("after a 410 in 94.860146ms the wait must be 285ms, got %s", waits[1])
	}
}
