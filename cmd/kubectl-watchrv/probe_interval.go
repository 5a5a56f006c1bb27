package main

import (
	"context"

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
	if err := p.ProbeSeriesSummary(out); err != nil {
		return err
	}
	return withCode(ExitFailure, outOfOrderError(s.Err(t)))
}
