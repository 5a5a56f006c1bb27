package render

import (
	"errors"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// TestFailedRoundsNoteSaysWhatWasMeasured (adversary try 52 F5: a relay
// closed after round 1 left one round with a bound, and the note said
// "the rates and the depth are the other rounds'" beside "Current RV
// advance: not measured" and "Window depth: not measured"): the note's
// tail follows what the other rounds measured, the rates and the depth
// said theirs only when they were measured; a cut round is neither failed
// nor counted.
func TestFailedRoundsNoteSaysWhatWasMeasured(t *testing.T) {
	target := configmapsIn("default")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	found := func(sec int, current, oldest uint64) probe.Round {
		return probe.RoundOf(&probe.Result{Target: target, Current: current, Started: at.Add(time.Duration(sec) * time.Second), Requests: 7,
			Search: &probe.SearchResult{Current: current, Oldest: oldest, Found: true, Source: probe.SourceWatchCache}})
	}
	failed := func(sec int) probe.Round {
		return probe.RoundOf(&probe.Result{Target: target, Err: errors.New("connection refused"), Started: at.Add(time.Duration(sec) * time.Second), Requests: 1})
	}
	cut := probe.CutRound(failed(9), 6*time.Second, 2*time.Second, 3*time.Second, true)
	const head = "Note: 2 of 3 rounds failed (the first: connection refused); "
	for _, tc := range []struct {
		name   string
		rounds []probe.Round
		motion func(*probe.Motion)
		want   string
	}{
		{"no round failed", []probe.Round{found(0, 100, 50), found(2, 110, 60)}, nil, ""},
		{"only a cut round", []probe.Round{found(0, 100, 50), found(2, 110, 60), cut}, nil, ""},
		{"the relay closed after round 1", []probe.Round{found(0, 100, 50), failed(2), failed(4)}, nil,
			head + "only one round found the bound, so no rate and no depth were measured"},
		{"the relay closed after round 1, the last cut", []probe.Round{found(0, 100, 50), failed(2), failed(4), cut}, nil,
			head + "only one round found the bound, so no rate and no depth were measured"},
		{"none found", []probe.Round{failed(0), failed(2)}, nil,
			"Note: 2 of 2 rounds failed (the first: connection refused); no round found the bound, so nothing was measured"},
		{"two found, the depth known", []probe.Round{found(0, 100, 50), failed(2), failed(4), found(6, 160, 110)}, nil,
			"Note: 2 of 4 rounds failed (the first: connection refused); the rates and the depth are the other rounds'"},
		{"two found, no depth", []probe.Round{found(0, 100, 50), failed(2), failed(4), found(6, 160, 110)}, func(m *probe.Motion) { m.DepthKnown = false },
			"Note: 2 of 4 rounds failed (the first: connection refused); the rates are the other rounds' (no depth is known)"},
		{"the RVs went back", []probe.Round{found(0, 100, 50), failed(2), failed(4), found(6, 90, 40)}, nil,
			"Note: 2 of 4 rounds failed (the first: connection refused); the current RV went back between rounds, so no rate and no depth were measured"},
	} {
		s := &ProbeSeries{Rounds: tc.rounds, Motion: probe.MeasureMotion(tc.rounds)}
		if tc.name == "two found, the depth known" && !s.Motion.DepthKnown {
			t.Fatalf("%s: the rounds measured no depth: %+v", tc.name, s.Motion)
		}
		if tc.motion != nil {
			tc.motion(&s.Motion)
		}
		if got := FailedRoundsNote(s); got != tc.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
