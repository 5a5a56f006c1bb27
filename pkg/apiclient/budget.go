package apiclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/util/flowcontrol"
)

// ErrBudgetExhausted is returned when --max-requests runs out.
var ErrBudgetExhausted = errors.New("request budget exhausted")

// Budget bounds what a command may send to a control plane: a request count
// (--max-requests) and a client-side rate (--qps). Every request a probe
// sends, the current-RV read included, takes one token first. It is safe
// for concurrent use, so requests to several API servers share one budget.
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
		b.limiter = flowcontrol.NewTokenBucketRateLimiter(float32(qps), burst)
	}
	return b
}

// Take waits for the rate limiter and counts one request; it fails without
// waiting when the budget is spent.
func (b *Budget) Take(ctx context.Context) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	if b.Max > 0 && b.used >= b.Max {
		b.mu.Unlock()
		return fmt.Errorf("%w: all %d requests used", ErrBudgetExhausted, b.Max)
	}
	b.used++ // taken now, so concurrent takers cannot overdraw
	b.mu.Unlock()
	if b.limiter != nil {
		if err := b.limiter.Wait(ctx); err != nil {
			b.mu.Lock()
			b.used--
			b.mu.Unlock()
			return err
		}
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
