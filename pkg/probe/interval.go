package probe

import (
	"context"
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// SeriesOptions configure a series of probes of one resource.
type SeriesOptions struct {
	Options
	// Budget is reset before each round: each has its own count, and the
	// rate spans the run.
	Budget             *apiclient.Budget
	Interval, Duration time.Duration
	// Metrics reads /metrics before and after the series for the
	// resource's event rate.
	Metrics  bool
	Progress sweep.Progress
	// Round is given each round as it is measured (render prints it); an
	// error stops the series.
	Round func(Round) error
}

// Series is how one resource's window moved over the rounds.
type Series struct {
	Rounds  []Round
	Motion  Motion
	Metrics *metrics.Report
	// FirstFailed is the first round when it could not even read the
	// current RV: nothing changes by retrying (forbidden, opaque,
	// unreachable), so the series stopped there.
	FirstFailed *Result
}

// TooFewRoundsError: fewer than two rounds found the bound, so no rate.
type TooFewRoundsError struct {
	Found, Rounds int
	Resource      string
}

func (e *TooFewRoundsError) Error() string {
	return fmt.Sprintf("only %d of %d rounds found the bound of %s: no rate can be measured", e.Found, e.Rounds, e.Resource)
}

// Err is an *OutOfOrderError when the rounds' current RVs went back, a
// *TooFewRoundsError when no rate could be measured.
func (s *Series) Err(t apiclient.Target) error {
	if len(s.Motion.OutOfOrder) > 0 {
		return &OutOfOrderError{Signs: s.Motion.OutOfOrder}
	}
	if s.FirstFailed == nil && s.Motion.Rounds < 2 {
		return &TooFewRoundsError{Found: s.Motion.Rounds, Rounds: len(s.Rounds), Resource: t.Resource.Name()}
	}
	return nil
}

// RunSeries probes one resource every o.Interval for o.Duration and
// measures how the window moves. A failed round is reported and the series
// goes on; the depth is then refined (RefineDepth).
func RunSeries(ctx context.Context, c *apiclient.Client, t apiclient.Target, o SeriesOptions) (*Series, error) {
	o.Search.Budget = o.Budget
	s := &Series{Rounds: []Round{}}
	m0 := readMetrics(ctx, c, o.Budget, o.Metrics)
	deadline := time.Now().Add(o.Duration)
	for round := 0; ; round++ {
		o.Budget.Reset()
		w := Run(ctx, c, t, o.Options)
		r := RoundOf(w)
		s.Rounds = append(s.Rounds, r)
		if o.Round != nil {
			if err := o.Round(r); err != nil {
				return s, err
			}
		}
		if w.Err != nil && w.Search == nil && round == 0 {
			s.FirstFailed = w
			return s, nil
		}
		next := w.Started.Add(o.Interval)
		if next.After(deadline) {
			break
		}
		if o.Progress != nil {
			o.Progress.Progress("round %d done; next at %s, series ends at %s", round+1, next.Format("15:04:05"), deadline.Format("15:04:05"))
		}
		err := apiclient.SleepContext(ctx, time.Until(next))
		if o.Progress != nil {
			o.Progress.ProgressDone()
		}
		if err != nil {
			break
		}
	}
	s.Motion = MeasureMotion(s.Rounds)
	o.Budget.Reset()
	s.RefineDepth(ctx, c, t, o.Budget, m0, o.Metrics)
	return s, nil
}

// RefineDepth improves the depth once the series is over: one list of the
// resource dates the oldest RV by the objects' own times, and with
// metrics the two reads of /metrics give the resource's event rate (used
// when the watch cache is full and nothing better is known).
func (s *Series) RefineDepth(ctx context.Context, c *apiclient.Client, t apiclient.Target, b *apiclient.Budget, m0 *metrics.Reading, withMetrics bool) {
	if len(s.Motion.OutOfOrder) > 0 {
		return // RVs out of order date no depth
	}
	var last *Round
	for i := len(s.Rounds) - 1; i >= 0; i-- {
		if s.Rounds[i].Found {
			last = &s.Rounds[i]
			break
		}
	}
	if last != nil {
		if dated, err := ListDatedAround(ctx, c, t, last.Oldest, b); err == nil {
			s.Motion.DateDepth(*last, dated)
		}
	}
	if m0 == nil || last == nil {
		return
	}
	m1 := readMetrics(ctx, c, b, withMetrics)
	if m0.Snapshot == nil || m1.Snapshot == nil {
		s.Metrics = &metrics.Report{Note: m1.Note + m0.Note, Requests: 2}
		return
	}
	r := metrics.Explain(m0.Snapshot, m1.Snapshot, t.Resource.GVR.Group, t.Resource.GVR.Resource, metrics.ProbeFacts{Found: true, Oldest: last.Oldest, Current: last.Current, Source: last.Source})
	r.Requests = 2
	s.Metrics = &r
	if r.Limit == metrics.LimitEviction && r.Capacity != nil && r.EventRate != nil {
		s.Motion.EstimateDepthFromEvents(*r.Capacity, *r.EventRate)
	}
}
