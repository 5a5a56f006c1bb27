package apiclient

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"k8s.io/client-go/util/flowcontrol"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// ErrBudgetExhausted is returned when --max-requests runs out.
var ErrBudgetExhausted = errors.New("request budget exhausted")

// Budget bounds what a command may send to a control plane: a request count
// (--max-requests) and a client-side rate (--qps). It is safe for
// concurrent use, so requests to several API servers share one budget.
//
// Who takes a token: the function that sends the request, right before it
// sends it, and nobody else. The plugin's request functions take it from
// the budget they are handed: listing.List (PageOptions.Budget, so every
// page of a walk and the current-RV read), watchstream.Open
// (Options.Budget, so every probe watch), metrics.ReadUnder,
// servers.Discover and servers.ReadLeases. A function that only decides
// what to send (the probe's search, a check, a fan-out) passes the budget
// down and never takes one itself, so no request is counted twice or not
// at all. A request refused by the budget is never sent; its error says so
// (NotSent).
type Budget struct {
	Max     int // 0 = unlimited
	mu      sync.Mutex
	used    int
	limiter flowcontrol.RateLimiter
}

// NewBudget allows max requests (0 = unlimited) at qps per second (0 = no
// rate limit), with a burst of at most one second's worth.
func NewBudget(max int, qps float64) *Budget {
	b := &Budget{Max: max}
	if qps > 0 {
		burst := int(qps)
		if burst < 1 {
			burst = 1
		}
		b.limiter = newRateLimiter(float32(qps), burst, nil, "the rate limit of "+strconv.FormatFloat(qps, 'g', -1, 64)+" requests a second")
	}
	return b
}

// NotSentError is a request the budget refused: it was never sent (the
// budget was spent, or the rate limiter's wait ended with its context).
type NotSentError struct{ Err error }

func (e *NotSentError) Error() string { return e.Err.Error() }

func (e *NotSentError) Unwrap() error { return e.Err }

// NotSent reports whether err is a request the budget refused (nothing
// went to the server).
func NotSent(err error) bool {
	var ns *NotSentError
	return errors.As(err, &ns)
}

// Take waits for the rate limiter and counts one request; it fails without
// waiting when the budget is spent. Only a request function calls it (see
// Budget).
func (b *Budget) Take(ctx context.Context) error {
	if b == nil {
		return nil
	}
	if Cut(ctx) {
		// The signal cut the run: the request would fail before it is
		// sent, so it is not counted (a budget without a rate limiter
		// counted two requests of a run already cut; user try 22 #11).
		return &NotSentError{Err: ctx.Err()}
	}
	b.mu.Lock()
	if b.Max > 0 && b.used >= b.Max {
		b.mu.Unlock()
		return b.Exhausted()
	}
	b.used++ // taken now, so concurrent takers cannot overdraw
	b.mu.Unlock()
	if b.limiter != nil {
		if err := b.limiter.Wait(ctx); err != nil {
			b.mu.Lock()
			b.used--
			b.mu.Unlock()
			return &NotSentError{Err: err}
		}
	}
	return nil
}

// Exhausted is the error a request would get now (a *NotSentError
// wrapping ErrBudgetExhausted), or nil while requests remain: a caller
// that would retry asks it instead of waiting for nothing.
func (b *Budget) Exhausted() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.Max > 0 && b.used >= b.Max {
		return &NotSentError{Err: fmt.Errorf("%w: all %s used", ErrBudgetExhausted, text.Count(b.Max, "request"))}
	}
	return nil
}

// Used is how many requests were taken.
func (b *Budget) Used() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Remaining is how many requests are left (-1 = unlimited).
func (b *Budget) Remaining() int {
	if b == nil || b.Max <= 0 {
		return -1
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Max - b.used
}

// QPS is the rate limit's requests a second, 0 without one.
func (b *Budget) QPS() float64 {
	if b == nil || b.limiter == nil {
		return 0
	}
	return float64(b.limiter.QPS())
}

// Reset starts a new count with the same limits (one per --all resource or
// per --interval round); the rate limiter keeps its state.
func (b *Budget) Reset() {
	if b != nil {
		b.mu.Lock()
		b.used = 0
		b.mu.Unlock()
	}
}

// SleepContext waits for d or until ctx ends.
func SleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
