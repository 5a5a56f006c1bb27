package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// runInterval probes one resource every --interval for --duration
// (probe.RunSeries) and reports how the window moves. Each round has its
// own --max-requests; the --qps limit spans the run.
func (o *ProbeOptions) runInterval(ctx context.Context, p *render.Printer, client *apiclient.Client, budget *apiclient.Budget, t apiclient.Target) error {
	out := render.NewProbeSeries(t)
	if err := p.ProbeSeriesHeader(out); err != nil {
		return err
	}
	s, err := probe.RunSeries(ctx, client, t, probe.SeriesOptions{
		Options: o.windowOptions(budget), Budget: budget, Interval: o.Interval, Duration: o.Duration,
		Metrics: o.Metrics, Progress: p, Round: p.ProbeRound,
	})
	if err != nil {
		return err
	}
	if s.FirstFailed != nil {
		return o.windowError(s.FirstFailed)
	}
	out.Rounds, out.Motion, out.Metrics = s.Rounds, s.Motion, s.Metrics
	out.SetPace(s.Pace)
	if err := p.ProbeSeriesSummary(out); err != nil {
		return err
	}
	// Rounds that failed are said on stderr too, whatever the exit (fresh
	// user try 50 F4: 9 of 12 rounds refused, exit 0, nothing said).
	failed, finished, _ := render.FailedRounds(s.Rounds)
	if note := render.FailedRoundsNote(out); note != "" && ctx.Err() == nil {
		p.Notef("%s", note)
	}
	// Every round that finished failed: the series fails as its last
	// round's probe would alone (its exit code, its bracket, its fix), so
	// --max-requests spent in every round is exit 11 with "raise
	// --max-requests" (fresh user try 51 F2).
	if failed > 0 && failed == finished && s.LastFailed != nil && ctx.Err() == nil {
		return ofSeries(o.windowError(s.LastFailed), len(s.Rounds))
	}
	return ofSeries(withCode(ExitFailure, tooFewRoundsError(outOfOrderError(s.Err(t)))), len(s.Rounds))
}

// tooFewRoundsError is a series whose --duration held one round
// (probe.TooFewRoundsError) said with its flags: why (a round longer than
// --interval, most of it waiting for --qps) and the --duration to give
// (fresh user try 49 F2: "only 1 of 1 rounds found the bound" of a
// --duration 2s whose round took 2.4 s at --interval 1s); other errors as
// they are.
// A round that was cut is no measure of how long one takes (fresh user
// try 50 F1: --duration 6s advised from a cut round of 2.5 s, where one
// took 5 s at that --qps): no --duration is given for it. One round that
// finished is, whether or not the next was cut: the --duration is advised
// from it by the one rule (Pace.LeastDuration; fresh user try 52 F3: one
// round and a cut one were "only 1 of 1 rounds found the bound", and no
// --duration to give).
func tooFewRoundsError(err error) error {
	var few *probe.TooFewRoundsError
	if !errors.As(err, &few) {
		return err
	}
	p := few.Pace
	switch {
	case few.Held == 1 && few.Rounds == 0:
		fix := "give a --duration of several rounds"
		if p.CutPaced {
			fix = "raise --qps, or give a --duration of several rounds"
		}
		return &worded{msg: fmt.Sprintf("--duration %s held only one round, and it was cut before it finished (after %.2fs): one round measures no rate of %s, and how long a round takes is not known: %s", p.Duration, p.CutAfter.Seconds(), few.Resource, fix), err: err}
	case few.Rounds != 1:
		return err
	}
	why := fmt.Sprintf("--duration %s held only one round", p.Duration)
	if few.Cut > 0 {
		why += " that finished"
	}
	if !p.IntervalKept() {
		took, spent, _ := render.RoundTime(p)
		why += fmt.Sprintf(" (it took %s, longer than --interval %s%s)", took, p.Asked, spent)
	}
	if few.Cut > 0 {
		why += fmt.Sprintf(", the next one cut before it finished (after %.2fs, not counted)", p.CutAfter.Seconds())
	}
	return &worded{msg: fmt.Sprintf("%s, and one round measures no rate of %s: give --duration %s or more", why, few.Resource, p.LeastDuration()), err: err}
}
