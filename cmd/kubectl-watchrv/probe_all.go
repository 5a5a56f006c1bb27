package main

import (
	"context"
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/window"
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
	var windows []*window.Window
	total := 0
	m0 := o.readMetrics(ctx, client, budget)
	for i, res := range resources {
		p.Progress("probing %d of %d: %s (%d requests so far)", i+1, len(resources), res.Name(), total)
		if ctx.Err() != nil {
			p.ProgressDone()
			return withCode(ExitFailure, fmt.Errorf("interrupted after %d of %d resources", len(rows), len(resources)))
		}
		t := o.allTarget(res)
		budget.Reset()
		w := window.Probe(ctx, client, t, o.windowOptions(budget))
		total += w.Requests
		rows = append(rows, render.NewProbeReport(w, reasonOf(w.Err)))
		windows = append(windows, w)
	}
	budget.Reset()
	for i, m1 := 0, o.readMetrics(ctx, client, budget); i < len(rows); i++ {
		rows[i].Metrics = metricsReport(m0, m1, windows[i])
	}
	p.ProgressDone()
	report := render.NewProbeAllReport(rows, total, time.Since(start))
	if err := p.ProbeAll(report, o.Verbose); err != nil {
		return err
	}
	if report.Failed < len(rows) {
		return nil
	}
	// Not one window found: say why in one line, with the exit code of the
	// common reason (every row forbidden: a user without grants).
	forbidden := 0
	for _, r := range rows {
		if r.Reason == string(diagnose.FailureForbidden) {
			forbidden++
		}
	}
	if forbidden == len(rows) {
		return withCode(ExitForbidden, fmt.Errorf("forbidden: all %d resources refused list or watch: probe --all needs RBAC permission to list and watch them", len(rows)))
	}
	return withCode(ExitFailure, fmt.Errorf("no resource could be probed (%d failed): see the NOTE column", len(rows)))
}
