package probe

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func rounds(current, oldest []uint64) []Round {
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	var out []Round
	for i := range current {
		out = append(out, Round{At: t0.Add(time.Duration(i) * time.Second), current: current[i], oldest: oldest[i], Found: true})
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestMeasureMotionObservedDepth(t *testing.T) {
	m := MeasureMotion(rounds([]uint64{100, 120, 140, 160}, []uint64{90, 100, 110, 125}))
	// 125 was current a quarter of the way from t=1s (120) to t=2s (140).
	if !near(*m.CurrentRate, 20) || !near(*m.OldestRate, 35.0/3) || !m.DepthKnown || !m.DepthObserved || !near(m.DepthSeconds, 1.75) {
		t.Fatalf("got %+v", m)
	}
}

func TestMeasureMotionExtrapolatedDepth(t *testing.T) {
	m := MeasureMotion(rounds([]uint64{100, 120, 140, 160}, []uint64{50, 50, 50, 50}))
	// 50 RVs before the first round at 20 RV/s: 2.5s before it, 5.5s before the last.
	if !m.DepthKnown || m.DepthObserved || !near(m.DepthSeconds, 5.5) || *m.OldestRate != 0 {
		t.Fatalf("got %+v", m)
	}
}

func TestMeasureMotionNoWritesNoDepth(t *testing.T) {
	m := MeasureMotion(rounds([]uint64{100, 100, 100}, []uint64{50, 50, 50}))
	if m.DepthKnown || *m.CurrentRate != 0 || m.Rounds != 3 {
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
	// b (RV 212, the oldest RV) was written 5s before the first round, 6s
	// before the last: its timestamp (truncated to the second) bounds the
	// depth to 5..6s.
	if m.DepthMethod != DepthMethodObjectTimestamp || !m.DepthKnown || m.DepthBound != DepthBoundBetween || !near(*m.DepthAtLeast, 5) || !near(*m.DepthAtMost, 6) || !near(m.DepthSeconds, 5) {
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

// The defect of issue 16 item 12: the window's oldest RV (518) is 131 RVs
// older than the nearest dated object (649, written 5.8s ago); the window
// began ~510s ago. The newer object bounds the depth from below, it does
// not date it; an object older than the oldest RV bounds it from above.
func TestDateDepthNewerObjectIsALowerBound(t *testing.T) {
	rs := rounds([]uint64{700, 700}, []uint64{518, 518})
	now := rs[1].At
	m := MeasureMotion(rs)
	m.DateDepth(rs[1], []DatedRV{{ResourceVersion: 649, At: now.Add(-6800 * time.Millisecond), Object: "depthtest/s1"}})
	if m.DepthBound != DepthBoundAtLeast || m.DepthAtMost != nil || !near(m.DepthSeconds, 5.8) {
		t.Fatalf("a newer object must give 'at least 5.8s' and nothing more, got %+v", m)
	}
	m = MeasureMotion(rs)
	m.DateDepth(rs[1], []DatedRV{{ResourceVersion: 400, At: now.Add(-600 * time.Second), Object: "depthtest/s0"}, {ResourceVersion: 600, At: now.Add(-10 * time.Second), Object: "depthtest/gone", Deleting: true}, {ResourceVersion: 620, At: now.Add(-9 * time.Second), Object: "depthtest/bare", CreationOnly: true}, {ResourceVersion: 649, At: now.Add(-6800 * time.Millisecond), Object: "depthtest/s1"}})
	if m.DepthBound != DepthBoundBetween || !near(*m.DepthAtMost, 600) || !near(*m.DepthAtLeast, 5.8) {
		t.Fatalf("want at least 5.8s (s1; an object being deleted or without managedFields has no write time) and at most 600s (s0), got %+v", m)
	}
	m = MeasureMotion(rs)
	m.DateDepth(rs[1], []DatedRV{{ResourceVersion: 400, At: now.Add(-600 * time.Second), Object: "depthtest/s0", CreationOnly: true}})
	// depthSeconds is the lower bound: with only an upper one, 0 (fresh
	// user try 51 F12: it held the upper bound).
	if m.DepthBound != DepthBoundAtMost || m.DepthAtLeast != nil || m.DepthAtMost == nil || !near(*m.DepthAtMost, 600) || m.DepthSeconds != 0 {
		t.Fatalf("only an older object: want at most 600s and depthSeconds 0, got %+v", m)
	}
}

// A current RV below one read before it (different API servers, or an
// etcd restored) is no rate and no depth (adversary try 19: "-699.8
// RV/s", "nothing was written").
func TestMeasureMotionRVsBackNoRate(t *testing.T) {
	m := MeasureMotion(rounds([]uint64{4300, 3600, 2900}, []uint64{50, 50, 50}))
	if m.CurrentRate != nil || m.OldestRate != nil || m.DepthKnown || len(m.OutOfOrder) != 2 || m.Rounds != 3 {
		t.Fatalf("got %+v", m)
	}
}

// TestARoundHasNoRVARendererCanPrintUnread attacks the class of a round's
// plain uint64 RV fields, where 0 stood for "not read" and renderers
// printed it (adversary: CURRENT RV 0 for a round whose list failed): no
// exported field of a Round is an unsigned number, so an RV reaches a
// renderer only through CurrentRV and Window, with whether it was read.
func TestARoundHasNoRVARendererCanPrintUnread(t *testing.T) {
	rt := reflect.TypeOf(Round{})
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		switch f.Type.Kind() {
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if f.IsExported() {
				t.Errorf("Round.%s is an exported %s: a value a renderer can print as 0 where it was not read", f.Name, f.Type)
			}
		}
	}
	if _, ok := (Round{}).CurrentRV(); ok {
		t.Error("a zero round says it read a current RV")
	}
	if _, _, ok := (Round{Found: false, oldest: 5, width: 5}).Window(); ok {
		t.Error("a round that found no bound says its window is known")
	}
}
