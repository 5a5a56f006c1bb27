package main

import (
	"context"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// runAll probes every resource that supports list and watch, one at a time
// (each watch closed before the next starts), with --max-requests per
// resource and one --qps limit for the whole run. A resource that fails
// (forbidden, opaque RV, budget) is a row with its reason, never dropped.
func (o *ProbeOptions) runAll(ctx context.Context, p *render.Printer, client *apiclient.Client, budget *apiclient.Budget) error {
	resources, err := o.listableResources(p)
	if err != nil {
		return err
	}
	start := time.Now()
	var rows []render.ProbeReport
	var windows []*probe.Result
	total := 0
	m0 := o.readMetrics(ctx, client, budget)
	for i, res := range resources {
		if ctx.Err() != nil {
			break
		}
		p.Progress("probing %d of %d: %s (%d requests so far)", i+1, len(resources), res.Name(), total)
		t := o.allTarget(res)
		budget.Reset()
		w := probe.Run(ctx, client, t, o.windowOptions(budget))
		total += w.Requests
		if ctx.Err() != nil {
			break // this probe was cut: not a row
		}
		rows = append(rows, render.NewProbeReport(w, reasonOf(w.Err)))
		windows = append(windows, w)
	}
	interrupted := ctx.Err() != nil
	if !interrupted {
		budget.Reset()
		for i, m1 := 0, o.readMetrics(ctx, client, budget); i < len(rows); i++ {
			rows[i].Metrics = metricsReport(m0, m1, windows[i])
		}
	}
	p.ProgressDone()
	report := render.NewProbeAllReport(rows, total, time.Since(start))
	if interrupted {
		// Print what was measured, marked partial; the run exits 130.
		report.Interrupted = &render.Interruption{Done: len(rows), Of: len(resources)}
	}
	if err := p.ProbeAll(report, o.Verbose); err != nil {
		return err
	}
	if interrupted {
		return ctx.Err()
	}
	// The one partial-failure rule: a resource failed when it could not be
	// probed (its row has the reason).
	var failed []failedTarget
	for _, w := range windows {
		if w.Err != nil {
			failed = append(failed, failedTarget{Name: w.Target.Resource.Name(), Err: w.Err})
		}
	}
	return partialFailure("resources", len(windows), failed)
}
