package apiclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/utils/clock"
)

// ErrRateWaitPastDeadline says the client-side rate limit (--qps, or the
// REST client's own) would hold a request past its context's deadline: the
// request was not sent. golang.org/x/time/rate refuses such a wait with an
// untyped error; this limiter decides it itself, so that a caller can tell
// "the run's time is up" from a failure without reading a message. The
// refusal itself is a *RateWaitError, which errors.Is this.
var ErrRateWaitPastDeadline = errors.New("the request's time would be up before the rate limit let it go")

// RateWaitError is a request the rate limit did not send because its time
// would be up first: it could have gone at Until, Wait after it was asked
// for, after its context's deadline. Its words are the user's (the flag
// that sets the limit, a rounded wait), never the limiter's: fresh user
// try 49 F2 read "the client-side rate limit would hold the request past
// its deadline (a wait of 194.456343ms)" as a round's note.
type RateWaitError struct {
	// Limit names the limit in the user's words ("the rate limit of 5
	// requests a second": --qps, which this package does not name).
	Limit string
	Wait  time.Duration
	Until time.Time
}

func (e *RateWaitError) Error() string {
	return fmt.Sprintf("not sent: its time would be up before %s let it go (in %s)", e.Limit, roundBound(e.Wait))
}

func (e *RateWaitError) Is(target error) bool { return target == ErrRateWaitPastDeadline }

// RateWaitPast reports whether err is a request the rate limit did not
// send because it could have gone only after t: the time up to t was not
// enough (a probe series' round still running at its bound).
func RateWaitPast(err error, t time.Time) bool {
	var rw *RateWaitError
	return errors.As(err, &rw) && rw.Until.After(t)
}

// deadlineLimiter is a token bucket (flowcontrol.RateLimiter, what the
// REST client and Budget pace with) whose Wait compares the reservation's
// delay with the context's deadline itself, on its clock.
type deadlineLimiter struct {
	lim   *rate.Limiter
	qps   float32
	clock clock.Clock
	// name is the limit in the user's words, for RateWaitError.
	name string
}

var _ flowcontrol.RateLimiter = (*deadlineLimiter)(nil)

// newRateLimiter allows qps requests a second with a burst of burst (at
// least 1), timed by clk (nil = the real clock); name is the limit in the
// user's words ("the rate limit of 5 requests a second").
func newRateLimiter(qps float32, burst int, clk clock.Clock, name string) *deadlineLimiter {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &deadlineLimiter{lim: rate.NewLimiter(rate.Limit(qps), max(burst, 1)), qps: qps, clock: clk, name: name}
}

func (l *deadlineLimiter) TryAccept() bool { return l.lim.AllowN(l.clock.Now(), 1) }

func (l *deadlineLimiter) Accept() {
	now := l.clock.Now()
	l.clock.Sleep(l.lim.ReserveN(now, 1).DelayFrom(now))
}

func (l *deadlineLimiter) Stop() {}

func (l *deadlineLimiter) QPS() float32 { return l.qps }

// Wait takes a token, waiting for it on the clock; it returns a
// *RateWaitError (ErrRateWaitPastDeadline) at once (taking nothing) when
// the wait would end after ctx's deadline, and ctx's error when ctx ends
// first.
func (l *deadlineLimiter) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := l.clock.Now()
	r := l.lim.ReserveN(now, 1)
	if !r.OK() {
		return fmt.Errorf("rate limiter refused a request (burst %d)", l.lim.Burst())
	}
	delay := r.DelayFrom(now)
	if delay <= 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && now.Add(delay).After(dl) {
		r.CancelAt(now)
		return &RateWaitError{Limit: l.name, Wait: delay, Until: now.Add(delay)}
	}
	t := l.clock.NewTimer(delay)
	defer t.Stop()
	// Every wait is left out of the durations the plugin prints
	// (Stopwatch): they are its own pacing, not the server's time.
	defer func() { notePaced(ctx, l.clock.Since(now)) }()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		r.CancelAt(l.clock.Now())
		return ctx.Err()
	}
}
