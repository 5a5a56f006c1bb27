package render

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// TestASeriesSaysWhatHappened attacks, across the series' outputs (the
// rows, the summary and -o json), the class of fresh user try 51 and
// adversary try 51: a sentence that says what did not happen. Each case
// builds the series as probe leaves it (probe.RoundOf, probe.CutRound,
// probe.MeasureMotion, DateDepth, RefineDepth) and names what must be said
// and what must never be:
//   - a round stopped by the rate limit is not "still running one
//     interval after" the series (F1, F3), is not counted among the rounds
//     (F1), and its time is no round's time ("it took", F3);
//   - a long round's time is said as what it was spent on: the plugin's
//     backoff is not blamed on --interval (F8);
//   - a quiet series whose dating list was not made does not say "nothing
//     was written, so the window did not age" (F6);
//   - depthSeconds is never an upper bound (F12).
func TestASeriesSaysWhatHappened(t *testing.T) {
	target := configmapsIn("demo")
	at := time.Date(2026, 12, 7, 21, 1, 26, 0, time.UTC)
	found := func(at time.Time, current, oldest uint64) probe.Round {
		return probe.RoundOf(&probe.Result{Target: target, Current: current, CurrentRaw: "x", Started: at, Requests: 3,
			Search: &probe.SearchResult{Current: current, Oldest: oldest, Found: true, Source: probe.SourceWatchCache}})
	}
	stopped := probe.CutRound(probe.RoundOf(&probe.Result{Target: target, Current: 534, Started: at, Requests: 2,
		Search: &probe.SearchResult{Current: 534}}), 2*time.Second, time.Second, 2*time.Second, false)
	quiet := []probe.Round{found(at, 534, 518), found(at.Add(time.Second), 534, 518)}
	interrupted := &probe.Series{Rounds: quiet, Motion: probe.MeasureMotion(quiet)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	interrupted.RefineDepth(ctx, nil, target, nil, nil, false)
	atMost := probe.MeasureMotion(quiet)
	atMost.DateDepth(quiet[1], []probe.DatedRV{{ResourceVersion: 400, At: at.Add(-422 * time.Second), Object: "demo/a", Field: "creationTimestamp", CreationOnly: true}})
	for _, tc := range []struct {
		name       string
		rounds     []probe.Round
		motion     probe.Motion
		pace       probe.Pace
		say, never []string
		json       map[string]any
	}{
		{"a round stopped by the rate limit", []probe.Round{stopped}, probe.MeasureMotion([]probe.Round{stopped}),
			probe.Pace{Asked: time.Second, Duration: 2 * time.Second, CutAfter: 2 * time.Second, CutPaced: true},
			[]string{"cut after 2.00s: its next request, paced by the rate limit, could go only past the series' 2s and one interval (1s)", "Rounds with a bound:  0 of 0 (and 1 cut round, not counted)", "one round only, cut after 2.00s (--interval 1s): how long a round takes is not known"},
			[]string{"still running", "it took"}, map[string]any{"longestRoundSeconds": 0.0}},
		{"a long round of retries", quiet, probe.MeasureMotion(quiet),
			probe.Pace{Asked: time.Second, Duration: 10 * time.Second, Kept: 1070 * time.Millisecond, Longest: 1370 * time.Millisecond, LongestRetried: 600 * time.Millisecond, LongestPaced: 10 * time.Millisecond},
			[]string{"a round took up to 1.37s, 0.76s of it waiting for the server's answers (give a longer --interval)"}, nil, nil},
		{"a long round mostly retries", quiet, probe.MeasureMotion(quiet),
			probe.Pace{Asked: time.Second, Duration: 10 * time.Second, Kept: 1070 * time.Millisecond, Longest: 1370 * time.Millisecond, LongestRetried: 900 * time.Millisecond},
			[]string{"a round took up to 1.37s, 0.90s of it the plugin's backoff before sending failed requests again (the rows' notes say what failed)"}, []string{"give a longer --interval"},
			map[string]any{"longestRoundSeconds": 1.4, "longestRoundRetryWaitSeconds": 0.9}},
		{"a quiet series interrupted before its dating list", quiet, interrupted.Motion,
			probe.Pace{Asked: time.Second, Duration: 20 * time.Second, Kept: time.Second, Longest: 100 * time.Millisecond},
			[]string{"Window depth:         unknown: the current RV did not move between the rounds that found the bound, so no write rate dates the oldest RV, and the list that dates the oldest RV by its objects' times was not made: the run was interrupted"},
			[]string{"nothing was written", "did not age"}, map[string]any{"depthKnown": false}},
		{"only an upper bound", quiet, atMost,
			probe.Pace{Asked: time.Second, Duration: 2 * time.Second, Kept: time.Second, Longest: 100 * time.Millisecond},
			[]string{"at most 423.0s (no dated object is newer than the oldest RV, so no lower bound)"}, nil,
			map[string]any{"depthBound": "atMost", "depthSeconds": 0.0, "depthAtMostSeconds": 423.0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewProbeSeries(target)
			s.Rounds, s.Motion = tc.rounds, tc.motion
			s.SetPace(tc.pace)
			var human bytes.Buffer
			p := NewPrinter(&human, &bytes.Buffer{}, FormatTable, true)
			for _, r := range tc.rounds {
				if err := p.ProbeRound(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.ProbeSeriesSummary(s); err != nil {
				t.Fatal(err)
			}
			var doc bytes.Buffer
			if err := NewPrinter(&doc, &bytes.Buffer{}, FormatJSON, true).ProbeSeriesSummary(s); err != nil {
				t.Fatal(err)
			}
			all := human.String() + doc.String()
			for _, w := range tc.say {
				if !strings.Contains(strings.Join(strings.Fields(human.String()), " "), strings.Join(strings.Fields(w), " ")) {
					t.Errorf("does not say %q:\n%s", w, human.String())
				}
			}
			for _, w := range tc.never {
				if strings.Contains(all, w) {
					t.Errorf("says %q:\n%s", w, all)
				}
			}
			var got map[string]any
			if err := json.Unmarshal(doc.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.json {
				if f, ok := got[k].(float64); ok {
					got[k] = float64(int(f*10+0.5)) / 10
				}
				if got[k] != v {
					t.Errorf("-o json %s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
}
