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
		{"one of three", []Round{found, {}, {Cut: true}}, kept, "only 1 of 3 rounds found the bound of configmaps: no rate can be measured", 3 * time.Second},
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
