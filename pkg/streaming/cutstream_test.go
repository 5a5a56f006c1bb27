package streaming

import (
	"strings"
	"testing"
	"time"
)

// Every shape a stream cut by the deadline can have gets one judgement,
// and only a state still growing (a new object in the deadline's last
// quarter) is "arriving" (no answer, exit 4), whatever the list's count:
// a collection that grew between the list and the stream reaches the
// list's count and goes on (adversary try 23 F1: "will hang", exit 1, at
// 5s, and it synced at 20s). A stream that sent the whole state and then
// only changes (a server ignoring sendInitialEvents: the legacy watch)
// hangs an informer at any deadline (adversary try 22 F7: "still sending
// its initial state", exit 4, "raise --deadline", at 20s as at 10s). The
// shapes are those of the fakes of test/e2e/bounds
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
	// grown: the collection grew after the list of 20: distinct ADDED
	// objects every 0.15s, up to 60, cut while they still come.
	twenty := 20
	grown := func(d time.Duration) cutStream {
		n := min(int(d/(150*time.Millisecond)), 60)
		last := start.Add(time.Duration(n-1) * 150 * time.Millisecond)
		return cutStream{Objects: n, ListCount: &twenty, FirstObject: start, LastGrowth: last, LastObject: last, At: start.Add(d), Deadline: d}
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
		{"a collection grown after the list, its new objects still coming", grown, []time.Duration{4 * time.Second, 8 * time.Second},
			"the state still arriving", "more than the list's 20 (the collection grew after the list)"},
		{"the list's count exactly, the last object just before the cut", func(time.Duration) cutStream { return grown(3 * time.Second) },
			[]time.Duration{3 * time.Second}, "the state still arriving", "20 objects of the list's 20 received"},
		{"the whole state, then new objects in the last quarter and changes", func(d time.Duration) cutStream {
			c := legacy(d)
			c.Objects, c.LastGrowth = 3, c.At.Add(-d/silenceFraction)
			return c
		}, []time.Duration{2 * time.Second, 10 * time.Second}, "the state still arriving", "3 objects received, more than the list's 2"},
		{"a collection grown after the list, then no new object", func(d time.Duration) cutStream {
			c := grown(9 * time.Second) // 60 objects by 8.85s
			c.At, c.Deadline = start.Add(d), d
			return c
		}, []time.Duration{20 * time.Second, time.Minute}, "the whole state, then no bookmark", "(60 objects, more than the list's 20) and 0 changes"},
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
				if r.Informer != want || r.Outcome() != OutcomeFailed || !strings.Contains(r.Error, "was still sending its initial state") ||
					!strings.Contains(r.Error, c.says) {
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
