// Package clocktest is a clock for unit tests of code that waits: every
// timer it makes fires at once, by moving a fake clock forward by the
// timer's duration, and every wait is recorded. A test then checks how long
// the code waited without waiting itself.
package clocktest

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
)

// Instant is a fake clock whose timers fire as soon as they are made.
type Instant struct {
	*testingclock.FakeClock
	mu    sync.Mutex
	waits []time.Duration
}

// NewInstant starts at a fixed time.
func NewInstant() *Instant {
	return &Instant{FakeClock: testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
}

// NewTimer records d and returns a timer that has already fired, the clock
// moved forward by d.
func (c *Instant) NewTimer(d time.Duration) clock.Timer {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	t := c.FakeClock.NewTimer(d)
	c.Step(d)
	return t
}

// After is NewTimer's channel.
func (c *Instant) After(d time.Duration) <-chan time.Time { return c.NewTimer(d).C() }

// Sleep records d and moves the clock forward by it.
func (c *Instant) Sleep(d time.Duration) { <-c.After(d) }

// Waits are the durations waited, in order.
func (c *Instant) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}
