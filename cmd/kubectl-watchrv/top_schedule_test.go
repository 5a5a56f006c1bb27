package main

import (
	"context"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/clocktest"
	"github.com/watchrv/kubectl-watchrv/pkg/top"
)

// Fresh user try 23 F5: the live view kept a fixed cadence, so an answer
// that came late shortened the next interval (0.7 s and 0.9 s for
// --interval 1s); docs/top.md promises that a slow answer never does. The
// one scheduler of every refresh, on a fake clock whose reads answer after
// the latencies the user's loaded machine showed (and one read nobody
// answers): each interval between two answers is --interval plus the
// second answer's latency, never less; a read nobody answered is followed
// by one --interval after it was sent.
func TestTopSlowAnswerNeverShortensTheInterval(t *testing.T) {
	const interval = time.Second
	latencies := []time.Duration{200 * time.Millisecond, 10 * time.Millisecond, 300 * time.Millisecond, 20 * time.Millisecond,
		500 * time.Millisecond, 0, 100 * time.Millisecond}
	const unanswered = 5 // this read gets no answer: its server timed out
	clk := clocktest.NewInstant()
	var sent []time.Time
	n := 0
	s := &topSampler{clock: clk, interval: interval, read: func() []sampled {
		sent = append(sent, clk.Now())
		clk.Step(latencies[n])
		n++
		if n-1 == unanswered {
			return []sampled{{err: context.DeadlineExceeded, sent: true}}
		}
		return []sampled{{sample: &top.Sample{At: clk.Now()}, sent: true}}
	}}
	var reads [][]sampled
	for range latencies {
		r, err := s.sample(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		reads = append(reads, r)
	}
	for i := 1; i < len(reads); i++ {
		prev, cur := reads[i-1][0].sample, reads[i][0].sample
		switch {
		case prev == nil:
			if got := sent[i].Sub(sent[i-1]); got != interval {
				t.Errorf("read %d was sent %s after the one before it, which no server answered: want --interval (%s)", i, got, interval)
			}
		case cur == nil:
		default:
			if got, want := cur.At.Sub(prev.At), interval+latencies[i]; got != want {
				t.Errorf("interval %d: %s between the answers (the second came %s after it was sent), want --interval + that, %s: a slow answer must never shorten an interval", i, got, latencies[i], want)
			}
		}
	}
}
