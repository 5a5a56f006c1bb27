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
	// Pace is how often the rounds ran, measured.
	Pace Pace
}

// Pace is how often a series' rounds ran, measured, beside the --interval
// asked: a round that takes longer than the interval (its requests paced
// by --qps: a search without a watch cache sends a dozen) starts the next
// at once, so the rounds run further apart than asked, and a --duration
// of two intervals may hold one round only (fresh user try 49 F2: rounds
// of 2.4 s at --interval 1s, said nowhere).
type Pace struct {
	Asked, Duration time.Duration
	// Kept is the mean time between the starts of the rounds; 0 with
	// fewer than two rounds.
	Kept time.Duration
	// Longest is the longest round from its start to its end, the
	// plugin's own waits included, and LongestPaced its waits for --qps.
	Longest, LongestPaced time.Duration
}

// IntervalKept: no round took longer than the interval asked, so each
// started when asked.
func (p Pace) IntervalKept() bool { return p.Longest <= p.Asked }

// note adds a round that took took, from its start to its end, paced of
// it waiting for --qps.
func (p *Pace) note(took, paced time.Duration) {
	if took > p.Longest {
		p.Longest, p.LongestPaced = took, paced
	}
}

// TooFewRoundsError: fewer than two rounds found the bound, so no rate.
type TooFewRoundsError struct {
	Found, Rounds int
	Resource      string
	Pace          Pace
}

func (e *TooFewRoundsError) Error() string {
	if e.Rounds == 1 {
		// The series' time held one round: no rate, whatever it found
		// (cmd says it with its flags: tooFewRoundsError).
		return fmt.Sprintf("the series held only one round, and one round measures no rate of %s", e.Resource)
	}
	return fmt.Sprintf("only %d of %d rounds found the bound of %s: no rate can be measured", e.Found, e.Rounds, e.Resource)
}

// LeastDuration is a series' time that holds two rounds of the pace
// measured, and a margin: twice the interval or the longest round, to
// the second above.
func (p Pace) LeastDuration() time.Duration {
	return (2 * max(p.Asked, p.Longest)).Truncate(time.Second) + time.Second
}

// Err is an *OutOfOrderError when the rounds' current RVs went back, a
// *TooFewRoundsError when no rate could be measured.
func (s *Series) Err(t apiclient.Target) error {
	if len(s.Motion.OutOfOrder) > 0 {
		return &OutOfOrderError{Signs: s.Motion.OutOfOrder}
	}
	if s.FirstFailed == nil && s.Motion.Rounds < 2 {
		return &TooFewRoundsError{Found: s.Motion.Rounds, Rounds: len(s.Rounds), Resource: t.Resource.Name(), Pace: s.Pace}
	}
	return nil
}

// RunSeries probes one resource every o.Interval for o.Duration and
// measures how the window moves. A failed round is reported and the series
// goes on; the depth is then refined (RefineDepth).
func RunSeries(ctx context.Context, c *apiclient.Client, t apiclient.Target, o SeriesOptions) (*Series, error) {
	o.Search.Budget = o.Budget
	s := &Series{Rounds: []Round{}, Pace: Pace{Asked: o.Interval, Duration: o.Duration}}
	actx, cancel := context.WithTimeout(ctx, asideOf(o.Interval))
	m0 := readMetrics(actx, c, o.Budget, o.Metrics)
	cancel()
	deadline := time.Now().Add(o.Duration)
	for round := 0; ; round++ {
		o.Budget.Reset()
		// A round in flight is bounded by --duration and one more
		// interval (a round started before the end, as the last one of a
		// series usually is, may finish: a search without a watch cache
		// takes seconds): one still running then is cut, and said so
		// (its numbers are not used). That bound is the one rule: a
		// request the rate limit would send only after it (refused at
		// once, before the bound: RateWaitPast) is that round still
		// running then, cut as the series says, never a failure in the
		// limiter's words (fresh user try 49 F2).
		bound := deadline.Add(o.Interval)
		rctx, cancel := context.WithDeadline(ctx, bound)
		w := Run(rctx, c, t, o.Options)
		cut := ctx.Err() == nil && (rctx.Err() != nil || apiclient.RateWaitPast(w.Err, bound))
		cancel()
		s.Pace.note(time.Since(w.Started), w.Paced)
		r := RoundOf(w)
		if cut {
			r = CutRound(r, o.Duration, o.Interval)
		}
		s.Rounds = append(s.Rounds, r)
		if o.Round != nil {
			if err := o.Round(r); err != nil {
				return s, err
			}
		}
		if !cut && w.Err != nil && w.Search == nil && round == 0 {
			s.FirstFailed = w
			return s, nil
		}
		// No round starts once --duration has passed, by the time now
		// (a round may take longer than --interval: a watch that waits).
		next := w.Started.Add(o.Interval)
		if cut || !time.Now().Before(deadline) || next.After(deadline) {
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
	if n := len(s.Rounds); n > 1 {
		s.Pace.Kept = s.Rounds[n-1].At.Sub(s.Rounds[0].At) / time.Duration(n-1)
	}
	s.Motion = MeasureMotion(s.Rounds)
	o.Budget.Reset()
	actx, cancel = context.WithTimeout(ctx, asideOf(o.Interval))
	s.RefineDepth(actx, c, t, o.Budget, m0, o.Metrics)
	cancel()
	return s, nil
}

// asideBound bounds the reads a series makes outside its rounds (/metrics
// before the first; after the last, the list that dates the depth and
// /metrics again), together: one interval, and at least asideBound
// (asideOf). Without it such a read that hung held the run past
// --duration and its interval, up to the 75 s a get or list waits for its
// answer to begin (a list after the last round that hung). A read cut
// there leaves what it would refine as it was: the depth as the rounds
// measured it, the counters said unread.
const asideBound = 15 * time.Second

// asideOf is the bound of the reads outside the rounds, for interval.
func asideOf(interval time.Duration) time.Duration { return max(interval, asideBound) }

// RefineDepth improves the depth once the series is over: one list of the
// resource dates the oldest RV by the objects' own times, and with
// metrics the two reads of /metrics give the resource's event rate (used
// when the watch cache is full and nothing better is known). With
// metrics, the series always says what became of them: a window the
// counters explain, or why they explain none (adversary try 20 #11: no
// round found the bound, and the read of /metrics was said nowhere).
func (s *Series) RefineDepth(ctx context.Context, c *apiclient.Client, t apiclient.Target, b *apiclient.Budget, m0 *metrics.Reading, withMetrics bool) {
	gvr := t.Resource.GVR
	if len(s.Motion.OutOfOrder) > 0 {
		// RVs out of order date no depth.
		if m0 != nil {
			s.Metrics = metrics.NotShown(m0, gvr.Group, gvr.Resource, "the current RV went back between rounds, so there is no window for the counters to explain")
		}
		return
	}
	var last *Round
	for i := len(s.Rounds) - 1; i >= 0; i-- {
		if s.Rounds[i].Found {
			last = &s.Rounds[i]
			break
		}
	}
	if last != nil {
		if dated, err := ListDatedAround(ctx, c, t, last.oldest, b); err == nil {
			s.Motion.DateDepth(*last, dated)
		}
	}
	if m0 == nil {
		return
	}
	if last == nil {
		s.Metrics = metrics.NotShown(m0, gvr.Group, gvr.Resource, "no round found the bound, so there is no window for the counters to explain")
		return
	}
	m1 := readMetrics(ctx, c, b, withMetrics)
	s.Metrics = metrics.ReportOf(m0, m1, gvr.Group, gvr.Resource, metrics.ProbeFacts{Found: true, Oldest: last.oldest, Current: last.current, Source: last.Source})
	if r := s.Metrics; r.Limit == metrics.LimitEviction && r.Capacity != nil && r.EventRate != nil {
		s.Motion.EstimateDepthFromEvents(*r.Capacity, *r.EventRate)
	}
}
