package apiclient

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A read said on its own line (StartOwnLineStopwatch) counts in the run's
// cost, and not in what a later line about the run says; a retry outside
// it counts in both, and the line's first cause is its own (adversary try
// 30 F3: the check read's 503 said as the watch's).
func TestAnOwnLineReadCountsInTheCostNotInTheLine(t *testing.T) {
	run, runSW := StartStopwatch(context.Background())
	check, checkSW := StartOwnLineStopwatch(run)
	noteRetryWait(check, 200*time.Millisecond, Pause{Duration: 200 * time.Millisecond, Cause: errors.New("check read refused")})
	noteRetryWait(check, 400*time.Millisecond, Pause{Duration: 400 * time.Millisecond})
	if got := runSW.line.retryWait(); got != nil {
		t.Fatalf("the run's line says the own-line read's retries: %+v", got)
	}
	if all := runSW.all.retryWait(); all == nil || all.Retries != 2 || all.Millis != 600 {
		t.Fatalf("the run's cost lost the own-line read's retries: %+v", all)
	}
	if own := RetryWaitOf(checkSW); own == nil || own.Retries != 2 || own.FirstCause != "check read refused" {
		t.Fatalf("the read's own retries: %+v", own)
	}
	noteRetryWait(run, time.Second, Pause{Duration: time.Second, ServerAsked: time.Second, Cause: errors.New("watch throttled")})
	line := runSW.line.retryWait()
	if line == nil || line.Retries != 1 || line.FirstCause != "watch throttled" || line.ServerAskedRetries != 1 {
		t.Fatalf("the run's line: %+v, want the one retry outside the read, with its own cause", line)
	}
	if all := runSW.all.retryWait(); all.Retries != 3 || all.FirstCause != "check read refused" {
		t.Fatalf("the run's cost: %+v", all)
	}
}
