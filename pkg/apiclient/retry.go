package apiclient

import (
	"context"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"
)

// Retry is the plugin's one retry policy: how long to wait before sending a
// request again, and how many times. The probe's search, the current-RV
// read, a paged walk's pages and follow's reconnects all wait by it:
// exponential backoff from Initial, never shorter than the server's
// Retry-After, every wait capped at Max, at most Tries tries, each wait
// timed by Clock (so that tests drive it without sleeping). The zero value
// is the default policy (3 tries, 200 ms doubling, 30 s cap, real clock).
type Retry struct {
	// Tries is the most times one request is sent, the first included
	// (0 = 3).
	Tries int
	// Initial is the wait after the first failure; it doubles with each
	// further failure (0 = 200 ms).
	Initial time.Duration
	// Max caps every wait, the server's Retry-After included (0 = 30 s).
	Max time.Duration
	// Jitter adds up to half of the backoff to it, as client-go's Reflector
	// does, so that many clients do not come back at once.
	Jitter bool
	// Clock times the waits (nil = the real clock).
	Clock clock.Clock
}

// DefaultThrottleWait is what a 429 without a Retry-After counts as (the
// server asked to slow down without saying how long).
const DefaultThrottleWait = time.Second

func (r Retry) tries() int {
	if r.Tries <= 0 {
		return 3
	}
	return r.Tries
}

func (r Retry) initial() time.Duration {
	if r.Initial <= 0 {
		return 200 * time.Millisecond
	}
	return r.Initial
}

// Cap is the longest wait of the policy.
func (r Retry) Cap() time.Duration {
	if r.Max <= 0 {
		return 30 * time.Second
	}
	return r.Max
}

func (r Retry) clock() clock.Clock {
	if r.Clock == nil {
		return clock.RealClock{}
	}
	return r.Clock
}

// More reports whether another try is allowed after failed ones.
func (r Retry) More(failed int) bool { return failed < r.tries() }

// Backoff is the wait after the failed-th failure (1-based) without a word
// from the server: Initial doubled failed-1 times, capped at Max, plus the
// jitter when asked.
func (r Retry) Backoff(failed int) time.Duration {
	d, cap := r.initial(), r.Cap()
	for i := 1; i < failed && d < cap; i++ {
		d *= 2
	}
	d = min(d, cap)
	if r.Jitter {
		d += time.Duration(rand.Int64N(int64(d)/2 + 1))
	}
	return d
}

// Pause is one wait of the policy before a request sent again, and who
// set it: ServerAsked is the server's Retry-After when that set the wait
// (0 when the plugin's backoff did), as the server asked it: above the
// wait when the policy's Max cut it (adversary try 26 F1: the cap of
// 30 s was said as "the server's Retry-After asked: 30 s" of a 3600), so
// that a line can say which
// (adversary try 25 F6: a wait of the server's "Retry-After: 3" was
// credited to "the plugin's retry policy").
type Pause struct {
	time.Duration
	ServerAsked time.Duration
	// Cause is the failure the request is sent again after (Delay sets
	// it): the run's first is said beside its retries, so that a final
	// error of another kind does not hide why the first try failed (CI:
	// a first page whose connection was lost was sent again, and only
	// the retry's TLS handshake stall was said).
	Cause error
}

// Delay is the wait after the failed-th failure, whose error is err: the
// backoff, but never shorter than the server's Retry-After (capped at
// Max), nor than DefaultThrottleWait for a 429 that names no delay.
func (r Retry) Delay(failed int, err error) Pause {
	p := Pause{Duration: r.Backoff(failed), Cause: err}
	if ra, ok := RetryAfter(err); ok {
		if capped := min(ra, r.Cap()); capped >= p.Duration {
			p = Pause{Duration: capped, ServerAsked: ra, Cause: err}
		}
	} else if apierrors.IsTooManyRequests(err) {
		p.Duration = max(p.Duration, min(DefaultThrottleWait, r.Cap()))
	}
	return p
}

// RetryAfter is how long the server asked the client to wait before trying
// again: the retryAfterSeconds of its Status (a 429, a 503, or a 504
// TooLarge), where the transport also writes the answer's Retry-After
// header when the Status names no delay (asStatus: the body's value wins
// when both do). ok is false when the server asked nothing.
func RetryAfter(err error) (time.Duration, bool) {
	if err == nil {
		return 0, false
	}
	if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
		return time.Duration(s) * time.Second, true
	}
	return 0, false
}

// Wait waits p on the policy's clock, or until ctx ends (then ctx's error).
// The wait is the plugin's own, before a retry: it is noted on the
// Stopwatch of ctx, which leaves it out of the times it measures and says
// it apart (RetryWaited, Retries), as it does a rate limiter's.
//
// A wait that would end after ctx's deadline is not begun: no request can
// follow it, so the caller ends at once with the last answer, and no
// retry is counted (fresh user try 27 F1, adversary try 27 F3: a 429's
// Retry-After waited out to --timeout, then said as "no answer").
func (r Retry) Wait(ctx context.Context, p Pause) error {
	if dl, ok := ctx.Deadline(); ok && r.Clock == nil && time.Until(dl) < p.Duration {
		return context.DeadlineExceeded
	}
	clk := r.clock()
	start := clk.Now()
	defer func() { noteRetryWait(ctx, clk.Since(start), p) }()
	return WaitOn(ctx, clk, p.Duration)
}

// WaitOn waits d on clk, or until ctx ends (then ctx's error): every wait
// of the plugin's on an injected clock.
func WaitOn(ctx context.Context, clk clock.Clock, d time.Duration) error {
	t := clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
