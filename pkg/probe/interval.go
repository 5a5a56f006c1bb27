package probe

import (
	"context"
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
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
	// LastFailed is the last round that finished without finding the
	// bound and failed (a cut round is not one): when no round found it,
	// the series fails as that round's probe would alone (fresh user try
	// 51 F2: --max-requests spent in every round exited 1, not 11 with
	// the bracket and "raise --max-requests").
	LastFailed *Result
	// Pace is how often the rounds ran, measured.
	Pace Pace
}

// Pace is how often a series' rounds ran, measured, beside the --interval
// asked: a round that takes longer than the interval (its requests paced
// by --qps: a search without a watch cache sends a dozen) starts the next
// at once, so the rounds run further apart than asked, and a --duration
// of two intervals may hold one round only (fresh user try 49 F2: rounds
// of 2.4 s at --interval 1s, said nowhere).
//
// It is the one account of a round's time: what the longest finished
// round spent it on (the rate limit, the plugin's backoff before retries,
// the server's answers), how long a round takes once the rate limiter's
// burst is spent (Steady), and the cut round's time apart: a cut round is
// no measure of how long a round takes (adversary try 51 F7: a hung
// list's cut said "a round took up to 3.00s (give a longer --interval)").
type Pace struct {
	Asked, Duration time.Duration
	// Kept is the mean time between the starts of the rounds; 0 with
	// fewer than two rounds.
	Kept time.Duration
	// Longest is the longest round that finished, from its start to its
	// end, the plugin's own waits included: LongestPaced its waits for
	// the rate limit (--qps), LongestRetried its waits before sending a
	// failed request again; the rest was the server's answers.
	Longest, LongestPaced, LongestRetried time.Duration
	// Steady is the longest a finished round takes with the rate
	// limiter's burst spent, as every round after the first may find it:
	// its time less its rate-limit waits, and each of its requests one
	// token's time (fresh user try 51 F13: a 4 s first round, a 6 s
	// second one at --qps 0.5, and the --duration advised from the first
	// cut the second).
	Steady time.Duration
	// CutAfter is how long the cut round (the last one) ran, 0 when none
	// was cut; CutPaced says it was stopped because its next request,
	// paced by the rate limit, could go only past the bound (else it was
	// still running at the bound).
	CutAfter time.Duration
	CutPaced bool
}

// IntervalKept: no finished round took longer than the interval asked,
// so each started when asked.
func (p Pace) IntervalKept() bool { return p.Longest <= p.Asked }

// note adds a round of w that took took from its start to its end, at a
// rate limit of qps requests a second (0: none); a cut round only says how
// long it ran.
func (p *Pace) note(w *Result, took time.Duration, qps float64, cut, running bool) {
	if cut {
		p.CutAfter, p.CutPaced = took, !running
		return
	}
	if took > p.Longest {
		p.Longest, p.LongestPaced, p.LongestRetried = took, min(w.Paced, took), min(w.RetryWaited, took)
	}
	steady := took
	if qps > 0 {
		steady = took - min(w.Paced, took) + time.Duration(float64(w.Requests)/qps*float64(time.Second))
	}
	p.Steady = max(p.Steady, steady)
}

// TooFewRoundsError: fewer than two rounds found the bound, so no rate.
// Rounds counts the rounds that finished; a cut round is not counted
// (docs/probe.md), Cut says how many were (fresh user try 51 F1: "2 of
// 3" with the third cut), and Held is every round the series started.
type TooFewRoundsError struct {
	Found, Rounds, Cut, Held int
	Resource                 string
	Pace                     Pace
}

func (e *TooFewRoundsError) Error() string {
	if e.Held == 1 {
		// The series' time held one round: no rate, whatever it found
		// (cmd says it with its flags: tooFewRoundsError).
		return fmt.Sprintf("the series held only one round, and one round measures no rate of %s", e.Resource)
	}
	cut := ""
	if e.Cut > 0 {
		cut = fmt.Sprintf(" (and %s, not counted)", text.Count(uint64(e.Cut), "cut round"))
	}
	if e.Rounds == 1 {
		// One round finished and the next was cut: the series' time held
		// one round, as a series of one does (fresh user try 52 F3: "only
		// 1 of 1 rounds found the bound" with no time to give).
		return fmt.Sprintf("the series held only one round that finished%s, and one round measures no rate of %s", cut, e.Resource)
	}
	return fmt.Sprintf("only %d of %d rounds found the bound of %s%s: no rate can be measured", e.Found, e.Rounds, e.Resource, cut)
}

// LeastDuration is a series' time that holds two rounds of the pace
// measured, and a margin: the first round as it took (or the interval),
// the second as one takes with the rate limiter's burst spent (Steady),
// to the second above. The second round then ends before the series does,
// a whole interval before the bound that would cut it.
func (p Pace) LeastDuration() time.Duration {
	first := max(p.Asked, p.Longest)
	return (first + max(first, p.Steady)).Truncate(time.Second) + time.Second
}

// Err is an *OutOfOrderError when the rounds' current RVs went back, a
// *TooFewRoundsError when no rate could be measured.
func (s *Series) Err(t apiclient.Target) error {
	if len(s.Motion.OutOfOrder) > 0 {
		return &OutOfOrderError{Signs: s.Motion.OutOfOrder}
	}
	if s.FirstFailed == nil && s.Motion.Rounds < 2 {
		cut := 0
		for _, r := range s.Rounds {
			if r.Cut {
				cut++
			}
		}
		return &TooFewRoundsError{Found: s.Motion.Rounds, Rounds: len(s.Rounds) - cut, Cut: cut, Held: len(s.Rounds), Resource: t.Resource.Name(), Pace: s.Pace}
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
		running := rctx.Err() != nil
		cut := ctx.Err() == nil && (running || apiclient.RateWaitPast(w.Err, bound))
		cancel()
		took := time.Since(w.Started)
		s.Pace.note(w, took, o.Budget.QPS(), cut, running)
		r := RoundOf(w)
		if cut {
			r = CutRound(r, o.Duration, o.Interval, took, running)
		}
		s.Rounds = append(s.Rounds, r)
		if !cut && !r.Found && w.Err != nil {
			s.LastFailed = w
		}
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

// depthUnknownReason is why m has no depth, "" when it has one: from
// what the rounds measured and what became of the list that dates the
// oldest RV (dating).
func depthUnknownReason(m Motion, dating string) string {
	switch {
	case m.DepthKnown:
		return ""
	case len(m.OutOfOrder) > 0:
		return "the current RV went back between rounds"
	case m.CurrentRate == nil:
		return "fewer than two rounds found the bound"
	case *m.CurrentRate == 0 && dating != "":
		return "the current RV did not move between the rounds that found the bound, so no write rate dates the oldest RV, and " + dating
	case *m.CurrentRate == 0:
		return "the current RV did not move between the rounds that found the bound, so no write rate dates the oldest RV"
	}
	return ""
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
	dating := ""
	if last != nil {
		if ctx.Err() != nil {
			dating = "the list that dates the oldest RV by its objects' times was not made: the run was interrupted"
		} else if dated, err := ListDatedAround(ctx, c, t, last.oldest, b); err != nil && ctx.Err() != nil {
			// The run's end cut it: no outcome of the server's
			// (bounds/TestACutRequestIsNoOutcome).
			dating = "the list that dates the oldest RV by its objects' times was cut: the run was interrupted"
		} else if err != nil {
			dating = "the list that dates the oldest RV by its objects' times failed: " + text.OneLine(err.Error())
		} else {
			s.Motion.DateDepth(*last, dated)
			dating = "no object listed dates the oldest RV"
		}
	}
	defer func() { s.Motion.DepthUnknownReason = depthUnknownReason(s.Motion, dating) }()
	if m0 == nil {
		return
	}
	if last == nil {
		s.Metrics = metrics.NotShown(m0, gvr.Group, gvr.Resource, "no round found the bound, so there is no window for the counters to explain")
		return
	}
	m1 := readMetrics(ctx, c, b, withMetrics)
	s.Metrics = metrics.ReportOf(m0, m1, gvr.Group, gvr.Resource, metrics.ProbeFacts{Found: true, Oldest: last.oldest, Current: last.current, Source: last.Source, AtEnd: true})
	if r := s.Metrics; r.Limit == metrics.LimitEviction && r.Capacity != nil && r.EventRate != nil {
		s.Motion.EstimateDepthFromEvents(*r.Capacity, *r.EventRate)
	}
}
