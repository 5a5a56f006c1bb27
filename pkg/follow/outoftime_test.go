package follow

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// A request the rate limiter would hold past the run's deadline ends the
// run at its deadline, decided on the typed refusal: a message that merely
// reads like golang.org/x/time/rate's decides nothing.
func TestOutOfTimeDecidesOnTheTypedRefusal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if outOfTime(ctx, errors.New("client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context deadline")) {
		t.Fatal("an untyped message decided that the run's time is up")
	}
	err := fmt.Errorf("client rate limiter Wait returned an error: %w", apiclient.ErrRateWaitPastDeadline)
	if !outOfTime(ctx, err) || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("the typed refusal must wait for the deadline and report the time up (ctx: %v)", ctx.Err())
	}
	if outOfTime(context.Background(), errors.New("connection refused")) {
		t.Fatal("a failure with time left is not out of time")
	}
}
