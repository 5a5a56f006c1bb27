package window

import (
	"math"
	"testing"
	"time"
)

func rounds(current, oldest []uint64) []Round {
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	var out []Round
	for i := range current {
		out = append(out, Round{At: t0.Add(time.Duration(i) * time.Second), Current: current[i], Oldest: oldest[i], Found: true})
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestMeasureMotionObservedDepth(t *testing.T) {
	m := MeasureMotion(rounds([]uint64{100, 120, 140, 160}, []uint64{90, 100, 110, 125}))
	// 125 was current a quarter of the way from t=1s (120) to t=2s (140).
	if !near(m.CurrentRate, 20) || !near(m.OldestRate, 35.0/3) || !m.DepthKnown || !m.DepthObserved || !near(m.DepthSeconds, 1.75) {
		t.Fatalf("got %+v", m)
	}
}

func TestMeasureMotionExtrapolatedDepth(t *testing.T) {
	m := MeasureMotion(rounds([]uint64{100, 120, 140, 160}, []uint64{50, 50, 50, 50}))
	// 50 RVs before the first round at 20 RV/s: 2.5s before it, 5.5s before the last.
	if !m.DepthKnown || m.DepthObserved || !near(m.DepthSeconds, 5.5) || m.OldestRate != 0 {
		t.Fatalf("got %+v", m)
	}
}

func TestMeasureMotionNoWritesNoDepth(t *testing.T) {
	m := MeasureMotion(rounds([]uint64{100, 100, 100}, []uint64{50, 50, 50}))
	if m.DepthKnown || m.CurrentRate != 0 || m.Rounds != 3 {
		t.Fatalf("got %+v", m)
	}
	failed := rounds([]uint64{100, 120}, []uint64{50, 50})
	failed[1].Found = false
	if m := MeasureMotion(failed); m.Rounds != 1 || m.DepthKnown {
		t.Fatalf("one found round measures nothing, got %+v", m)
	}
}

func TestDateDepthByObjectTimestamp(t *testing.T) {
	rs := rounds([]uint64{300, 300}, []uint64{212, 212})
	m := MeasureMotion(rs)
	t0 := rs[0].At
	dated := []DatedRV{{ResourceVersion: 200, At: t0.Add(-9 * time.Second)}, {ResourceVersion: 212, At: t0.Add(-5 * time.Second), Object: "depth/b"}, {ResourceVersion: 250, At: t0.Add(-1 * time.Second)}}
	m.DateDepth(rs[1], dated)
	// b (RV 212, the oldest RV) was written 5s before the first round, 6s before the last.
	if m.DepthMethod != DepthMethodObjectTimestamp || !m.DepthKnown || !near(m.DepthSeconds, 6) {
		t.Fatalf("got %+v", m)
	}
	m.EstimateDepthFromEvents(100, 2)
	if m.DepthMethod != DepthMethodObjectTimestamp {
		t.Fatalf("an event-rate estimate replaced a dated depth: %+v", m)
	}
	observed := MeasureMotion(rounds([]uint64{100, 120, 140, 160}, []uint64{90, 100, 110, 125}))
	observed.DateDepth(rounds([]uint64{160}, []uint64{125})[0], dated)
	if observed.DepthMethod != DepthMethodObserved {
		t.Fatalf("an observed depth was replaced: %+v", observed)
	}
}
