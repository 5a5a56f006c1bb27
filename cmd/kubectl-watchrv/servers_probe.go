package main

import (
	"context"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
)

// serversConflict names the probe flags that --servers does not support:
// the per-server view shows each server's RVs and window, and no proof of
// one server's bound nor of its answer to a future RV. --verify and
// --future were sent on every server and shown nowhere, and a verify that
// failed exited 0 under a range it disproved (adversary try 22 F6): they
// are refused, nothing sent.
func (o *ProbeOptions) serversConflict() string {
	switch {
	case o.Interval > 0 || o.Duration > 0:
		return "--interval/--duration"
	case o.Verify:
		return "--verify"
	case o.Future:
		return "--future"
	}
	return ""
}

// runServers probes every API server: the same probe as without
// --servers, once per server and in parallel, each within its own
// --max-requests and all within one --qps; plus one rv=0 list per server
// for its cache RV.
func (o *ProbeOptions) runServers(ctx context.Context, p *render.Printer) error {
	budget := apiclient.NewBudget(0, o.QPS)
	fleet, err := o.findServers(ctx, &o.serversFlags, budget)
	if err != nil {
		return err
	}
	oo := servers.ObserveOptions{
		Budget: budget, MaxPerServer: o.MaxRequests, FromRV: o.fromRV,
		Measure: servers.MeasureOptions{Mode: servers.ModeWindow, Window: o.windowOptions(nil), Metrics: o.Metrics},
	}
	if o.All {
		return o.runServersAll(ctx, p, fleet, oo)
	}
	t, err := o.oneTarget(ctx, &o.resourceScope)
	if err != nil {
		return err
	}
	v := servers.Observe(ctx, fleet, t, oo)
	if err := p.Servers(o.withOwnerFacts(ctx, p, render.NewServersReport("probe", fleet.Found, v, o.suggest), t.Resource)); err != nil {
		return err
	}
	return v.Err(ctx)
}

// runServersAll is probe --all --servers: every resource, every server
// (servers.ObserveAll); one row per server and resource.
func (o *ProbeOptions) runServersAll(ctx context.Context, p *render.Printer, fleet *servers.Fleet, oo servers.ObserveOptions) error {
	resources, err := o.listableResources(p)
	if err != nil {
		return err
	}
	run := servers.ObserveAll(ctx, fleet, resources, servers.AllOptions{Observe: oo, Progress: p, Target: o.allTarget})
	r := render.NewServersAllReport(fleet.Found, run, o.suggest)
	r.DiscoveryFailed = o.discoveryFailed()
	if err := p.ServersAll(r); err != nil {
		return err
	}
	return o.allOutcome(run.Err(ctx))
}
