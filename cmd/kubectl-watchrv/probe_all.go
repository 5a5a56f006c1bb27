package main

import (
	"context"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// runAll probes every resource that supports list and watch (probe.All),
// with --max-requests per resource and one --qps limit for the whole run.
func (o *ProbeOptions) runAll(ctx context.Context, p *render.Printer, client *apiclient.Client, budget *apiclient.Budget) error {
	resources, err := o.listableResources(p)
	if err != nil {
		return err
	}
	a := probe.All(ctx, client, resources, probe.AllOptions{
		Options: o.windowOptions(budget), Budget: budget, MaxRequests: o.MaxRequests,
		Metrics: o.Metrics, Progress: p, Target: o.allTarget,
	})
	r := render.NewProbeAllReport(a)
	r.DiscoveryFailed = o.discoveryFailed()
	if err := p.ProbeAll(r, o.Verbose); err != nil {
		return err
	}
	// "the first" failure is the first failed row a user sees.
	return o.allOutcome(sweep.InTableOrder(a.Err(ctx), r.RowNames()))
}
