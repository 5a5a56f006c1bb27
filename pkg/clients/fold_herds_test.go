package clients

import (
	"testing"
	"time"
)

// TestHerdsAreFoldedToTheLargest: a log of many herds keeps the MaxHerds
// with the most clients, in the order they happened, and counts the rest,
// so that memory and output do not grow with the number of herds.
func TestHerdsAreFoldedToTheLargest(t *testing.T) {
	var h herdState
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	n := 10*MaxHerds + 7
	for i := 0; i < n; i++ {
		// Sizes cycle 3..12; the largest ones are spread over the log.
		h.keep(Pattern{Name: PatternHerd, Count: int64(3 + i%10), First: t0.Add(time.Duration(i) * time.Minute)})
		if len(h.herds) >= 2*MaxHerds {
			t.Fatalf("%d herds held after %d", len(h.herds), i+1)
		}
	}
	h.fold()
	if len(h.herds) != MaxHerds || h.folded != int64(n-MaxHerds) {
		t.Fatalf("kept %d, folded %d; want %d and %d", len(h.herds), h.folded, MaxHerds, n-MaxHerds)
	}
	for i, p := range h.herds {
		if p.Count != 12 {
			t.Fatalf("herd %d of %d clients kept, want only the largest (12)", i, p.Count)
		}
		if i > 0 && !h.herds[i-1].First.Before(p.First) {
			t.Fatalf("kept herds out of order at %d", i)
		}
	}
}
