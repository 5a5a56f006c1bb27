package streaming

import (
	"strings"
	"testing"
	"time"
)

// Every shape a stream cut by the deadline can have gets one judgement,
// and only a state short of the list's count that is still growing is
// "arriving" (no answer, exit 4). A stream that sent the whole state and
// then only changes (a server ignoring sendInitialEvents: the legacy
// watch) hangs an informer at any deadline (adversary try 22 F7: "still
// sending its initial state", exit 4, "raise --deadline", at 20s as at
// 10s). The shapes are those of the fakes of test/e2e/bounds
// (TestStreamingJudgesOnlyAStreamThatWasAnswered,
// TestStreamingVerdictOfAStreamWithoutBookmarkIsTheDeadlines).
func TestEveryCutStreamShapeHasOneJudgement(t *testing.T) {
	two, thirtyOne := 2, 31
	start := time.Unix(1000, 0)
	// legacy: ADDED a, ADDED b at once, then MODIFIED a every 0.5s up to
	// the deadline d.
	legacy := func(d time.Duration) cutStream {
		return cutStream{Objects: 2, ListCount: &two, Changes: int(d / (500 * time.Millisecond)), FirstObject: start, LastGrowth: start,
			LastObject: start.Add(d - 100*time.Millisecond), At: start.Add(d), Deadline: d}
	}
	// beyond: distinct ADDED objects every 0.3s, more than the list held.
	beyond := func(d time.Duration) cutStream {
		n := int(d / (300 * time.Millisecond))
		return cutStream{Objects: n, ListCount: &two, FirstObject: start, LastGrowth: start.Add(d - 100*time.Millisecond),
			LastObject: start.Add(d - 100*time.Millisecond), At: start.Add(d), Deadline: d}
	}
	// trickle: the list's objects every 0.1s, cut before the last.
	trickle := func(d time.Duration) cutStream {
		n := min(int(d/(100*time.Millisecond)), thirtyOne-1)
		last := start.Add(time.Duration(n) * 100 * time.Millisecond)
		return cutStream{Objects: n, ListCount: &thirtyOne, FirstObject: start, LastGrowth: last, LastObject: last, At: last.Add(50 * time.Millisecond), Deadline: d}
	}
	noList := func(c cutStream) cutStream { c.ListCount = nil; return c }
	cases := []struct {
		name      string
		at        func(d time.Duration) cutStream
		deadlines []time.Duration
		shape     string
		says      string
	}{
		{"the watch answered and sent nothing", func(d time.Duration) cutStream {
			return cutStream{ListCount: &two, At: start.Add(d), Deadline: d}
		}, []time.Duration{time.Second, 10 * time.Second}, "nothing sent", "no initial-events-end bookmark within the deadline, and no object"},
		{"the whole state, then changes (legacy watch)", legacy, []time.Duration{time.Second, 2 * time.Second, 10 * time.Second, 20 * time.Second, time.Minute},
			"the whole state, then no bookmark", "no initial-events-end bookmark after the whole state (2 of the list's 2) and "},
		{"more distinct objects than the list held", func(d time.Duration) cutStream { return beyond(d) }, []time.Duration{3 * time.Second, 10 * time.Second},
			"the whole state, then no bookmark", "more than the list's 2) and 0 changes"},
		{"the state still arriving", trickle, []time.Duration{time.Second, 2 * time.Second}, "the state still arriving", ""},
		{"the state still arriving, the list failed", func(d time.Duration) cutStream { return noList(trickle(d)) }, []time.Duration{time.Second}, "the state still arriving", ""},
		{"part of the state, then silence", func(d time.Duration) cutStream {
			return cutStream{Objects: 3, ListCount: &thirtyOne, FirstObject: start, LastGrowth: start, LastObject: start, At: start.Add(d), Deadline: d}
		}, []time.Duration{time.Second, 10 * time.Second}, "part of the state, then no new object", "no initial-events-end bookmark: 3 of the list's 31, then no new object in the last "},
		{"part of the state, then only changes", func(d time.Duration) cutStream {
			c := legacy(d)
			c.Objects = 1 // b deleted between the list and the watch
			return c
		}, []time.Duration{time.Second, 10 * time.Second, time.Minute}, "part of the state, then no new object", "1 of the list's 2, then no new object in the last "},
		{"the list failed, the state then silence", func(d time.Duration) cutStream { return noList(legacy(d)) }, []time.Duration{time.Second, 10 * time.Second},
			"part of the state, then no new object", "no initial-events-end bookmark: 2 objects, then no new object"},
	}
	for _, c := range cases {
		for _, d := range c.deadlines {
			cut := c.at(d)
			s := cut.shape()
			if s.name != c.shape {
				t.Errorf("%s at %s: shape %q, want %q", c.name, d, s.name, c.shape)
				continue
			}
			r := Result{Resource: "configmaps"}
			judgeCut(&r, cut)
			Judge(&r)
			if s.arriving {
				var want Informer = InformerUnknown
				if r.Informer != want || r.Outcome() != OutcomeFailed || !strings.Contains(r.Error, "was still sending its initial state") {
					t.Errorf("%s at %s: %s/%s %q, want the deadline's no answer", c.name, d, r.Status, r.Informer, r.Error)
				}
				continue
			}
			if r.Status != StatusBroken || r.Informer != InformerHangs || r.Outcome() != OutcomeDefect || !strings.HasPrefix(r.Explanation, r.Stall()) ||
				!strings.Contains(r.Stall(), c.says) || strings.Contains(r.Explanation, "still sending") {
				t.Errorf("%s at %s: %s/%s %q, want broken/hangs saying %q", c.name, d, r.Status, r.Informer, r.Explanation, c.says)
			}
		}
	}
}
