package probe

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// A series ends at its duration, whatever its rounds take: a round still
// running then (a server that answers nothing) is cut and said so, and no
// round starts after it (adversary: --interval 1ns --duration 1s was still
// going at 40 s, a round of 30 s started after the duration).
func TestSeriesEndsAtItsDuration(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	}))
	defer srv.Close()
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s, err := RunSeries(context.Background(), c, watchTarget(), SeriesOptions{
		Budget: apiclient.NewBudget(64, 0), Interval: 100 * time.Millisecond, Duration: time.Second,
	})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if took > 5*time.Second {
		t.Fatalf("a 1s series took %s", took)
	}
	if len(s.Rounds) != 1 || !s.Rounds[0].Cut || s.Rounds[0].Found || !strings.HasPrefix(s.Rounds[0].Error, "cut: ") || s.FirstFailed != nil {
		t.Fatalf("want one round, cut: %+v (first failed %v)", s.Rounds, s.FirstFailed)
	}
}

// The exit rule of a series with fewer than two rounds that found the
// bound (docs/exit-codes.md, docs/probe.md: exit 1, no rate): one round
// (whatever it found) is a series whose time held one round, and
// LeastDuration is the time that holds two of the pace measured; several
// rounds of which fewer than two found the bound say how many (fresh user
// try 49 F2: "only 1 of 1 rounds found the bound" of a --duration 2s whose
// round took 2.4 s at --interval 1s). cmd's TestOneRoundSaysTheDuration
// names the flags.
func TestFewerThanTwoRoundsWithABoundSayWhy(t *testing.T) {
	found := Round{Found: true, current: 10, oldest: 5, width: 5}
	slow := Pace{Asked: time.Second, Duration: 2 * time.Second, Longest: 2430 * time.Millisecond, LongestPaced: 2200 * time.Millisecond}
	kept := Pace{Asked: time.Second, Duration: 2 * time.Second, Longest: 300 * time.Millisecond}
	one := "the series held only one round, and one round measures no rate of configmaps"
	for _, tc := range []struct {
		name   string
		rounds []Round
		pace   Pace
		want   string
		least  time.Duration
	}{
		{"one slow round found", []Round{found}, slow, one, 5 * time.Second},
		{"one slow round cut", []Round{{Cut: true}}, slow, one, 5 * time.Second},
		{"one round in time", []Round{found}, kept, one, 3 * time.Second},
		// Fresh user try 52 F3: one round finished, the next was cut.
		{"one round found, the next cut", []Round{found, {Cut: true}}, slow, "the series held only one round that finished (and 1 cut round, not counted), and one round measures no rate of configmaps", 5 * time.Second},
		{"one of three, one cut", []Round{found, {}, {Cut: true}}, kept, "only 1 of 2 rounds found the bound of configmaps (and 1 cut round, not counted): no rate can be measured", 3 * time.Second},
		{"one of two", []Round{found, {}}, kept, "only 1 of 2 rounds found the bound of configmaps: no rate can be measured", 3 * time.Second},
		// Fresh user try 51 F13: a first round of 4.01 s at --qps 0.5
		// spent the burst; the second waits for every token (3 requests:
		// 6 s). Twice the first (9 s) cut the second; the advice holds
		// the second as it takes with the burst spent.
		{"one round, the burst spent by it", []Round{found}, Pace{Asked: time.Second, Duration: 4 * time.Second, Longest: 4010 * time.Millisecond, LongestPaced: 3990 * time.Millisecond, Steady: 6020 * time.Millisecond}, one, 11 * time.Second},
	} {
		s := &Series{Rounds: tc.rounds, Motion: MeasureMotion(tc.rounds), Pace: tc.pace}
		err := s.Err(watchTarget())
		var few *TooFewRoundsError
		if !errors.As(err, &few) || err.Error() != tc.want || few.Pace.LeastDuration() != tc.least {
			t.Errorf("%s: got %v (least %s)\nwant %s (least %s)", tc.name, err, tc.pace.LeastDuration(), tc.want, tc.least)
		}
	}
	two := []Round{found, {At: time.Unix(1, 0), Found: true, current: 12, oldest: 6, width: 6}}
	if err := (&Series{Rounds: two, Motion: MeasureMotion(two), Pace: slow}).Err(watchTarget()); err != nil {
		t.Errorf("two rounds with a bound: want no error, got %v", err)
	}
}

// A round's time is told by the one account, Pace.note: a finished
// round's parts (the rate limit's waits, the plugin's backoff) and how
// long it takes with the limiter's burst spent (Steady: its requests at
// the rate limit, and its time waiting for answers); a cut round is no
// measure of a round's time (adversary try 51 F7: a hung list's cut said
// "a round took up to 3.00s"), only how long it ran and why it stopped.
func TestPaceNotesWhatARoundsTimeWasSpentOn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		w     Result
		took  time.Duration
		qps   float64
		cut   bool
		run   bool
		want  Pace
		least time.Duration
	}{
		{"burst spent by the first round", Result{Requests: 3, Paced: 3990 * time.Millisecond}, 4010 * time.Millisecond, 0.5, false, false,
			Pace{Asked: time.Second, Longest: 4010 * time.Millisecond, LongestPaced: 3990 * time.Millisecond, Steady: 6020 * time.Millisecond}, 11 * time.Second},
		{"retries against a dead server", Result{Requests: 3, Paced: 0, RetryWaited: 600 * time.Millisecond}, 1370 * time.Millisecond, 50, false, false,
			Pace{Asked: time.Second, Longest: 1370 * time.Millisecond, LongestRetried: 600 * time.Millisecond, Steady: 1430 * time.Millisecond}, 3 * time.Second},
		{"no rate limit", Result{Requests: 7}, 300 * time.Millisecond, 0, false, false,
			Pace{Asked: time.Second, Longest: 300 * time.Millisecond, Steady: 300 * time.Millisecond}, 3 * time.Second},
		{"a hung round cut at the bound", Result{Requests: 1}, 3 * time.Second, 5, true, true,
			Pace{Asked: time.Second, CutAfter: 3 * time.Second}, 3 * time.Second},
		{"a round stopped by the rate limit", Result{Requests: 2, Paced: 2 * time.Second}, 2 * time.Second, 0.5, true, false,
			Pace{Asked: time.Second, CutAfter: 2 * time.Second, CutPaced: true}, 3 * time.Second},
	} {
		p := Pace{Asked: time.Second}
		p.note(&tc.w, tc.took, tc.qps, tc.cut, tc.run)
		if p != tc.want || p.LeastDuration() != tc.least {
			t.Errorf("%s: got %+v (least %s)\nwant %+v (least %s)", tc.name, p, p.LeastDuration(), tc.want, tc.least)
		}
	}
}
