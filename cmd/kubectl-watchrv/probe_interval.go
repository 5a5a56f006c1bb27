package main

import (
	"context"
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// runInterval probes one resource every --interval for --duration and
// reports how the window moves. Each round has its own --max-requests; the
// --qps limit spans the run. A failed round is reported and the series goes on.
func (o *ProbeOptions) runInterval(ctx context.Context, p *render.Printer, client *apiclient.Client, budget *apiclient.Budget, t apiclient.Target) error {
	series := render.NewProbeSeries(t)
	if err := p.ProbeSeriesHeader(series); err != nil {
		return err
	}
	m0 := o.readMetrics(ctx, client, budget)
	deadline := time.Now().Add(o.Duration)
	for round := 0; ; round++ {
		budget.Reset()
		w := probe.Run(ctx, client, t, o.windowOptions(budget))
		r := probe.RoundOf(w)
		series.Rounds = append(series.Rounds, r)
		if err := p.ProbeRound(r); err != nil {
			return err
		}
		if w.Err != nil && w.Search == nil && round == 0 {
			// The very first round could not even read the current RV:
			// nothing will change by retrying (forbidden, opaque, unreachable).
			return o.windowError(w)
		}
		next := w.Started.Add(o.Interval)
		if next.After(deadline) {
			break
		}
		p.Progress("round %d done; next at %s, series ends at %s", round+1, next.Format("15:04:05"), deadline.Format("15:04:05"))
		err := apiclient.SleepContext(ctx, time.Until(next))
		p.ProgressDone()
		if err != nil {
			break
		}
	}
	series.Motion = probe.MeasureMotion(series.Rounds)
	budget.Reset()
	o.refineDepth(ctx, client, budget, t, series, m0)
	if err := p.ProbeSeriesSummary(series); err != nil {
		return err
	}
	if series.Motion.Rounds < 2 {
		return withCode(ExitFailure, fmt.Errorf("only %d of %d rounds found the bound of %s: no rate can be measured", series.Motion.Rounds, len(series.Rounds), t.Resource.Name()))
	}
	return nil
}
