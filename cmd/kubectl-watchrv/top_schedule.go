package main

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

// topSampler is the one scheduler of top's reads of /metrics: the first
// at once, each later one --interval after the latest answer of the one
// before it (the moment a server sampled its counters, as near as a
// client can tell; when none answered, after it was sent). A slow answer
// therefore never shortens an interval, on the first refresh or any later
// one (fresh user try 23 F5: the live view kept a fixed cadence, and an
// answer that came 0.3 s late left the next interval 0.7 s for
// --interval 1s; docs/top.md promises no interval shorter).
type topSampler struct {
	clock    clock.Clock
	interval time.Duration
	read     func() []sampled
	// due is when the next read is sent (zero: the first, at once).
	due time.Time
}

// sample waits until the next read is due, reads, and schedules the one
// after it.
func (s *topSampler) sample(ctx context.Context) ([]sampled, error) {
	if !s.due.IsZero() {
		if err := sleepUntil(ctx, s.clock, s.due); err != nil {
			return nil, err
		}
	}
	sent := s.clock.Now()
	reads := s.read()
	s.due = answeredAt(reads, sent).Add(s.interval)
	return reads, nil
}

// answeredAt is the latest time a server's answer came in one refresh's
// reads (its headers), or sent when none was answered.
func answeredAt(reads []sampled, sent time.Time) time.Time {
	at := sent
	for _, r := range reads {
		if r.sample != nil && r.sample.At.After(at) {
			at = r.sample.At
		}
	}
	return at
}

// sleepUntil waits until t or the end of ctx.
func sleepUntil(ctx context.Context, clk clock.Clock, t time.Time) error {
	d := t.Sub(clk.Now())
	if d <= 0 {
		return ctx.Err()
	}
	timer := clk.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C():
		return nil
	}
}
