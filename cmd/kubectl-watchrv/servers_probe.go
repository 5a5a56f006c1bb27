package main

import (
	"context"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
)

// serversConflict names the probe flags that --servers does not support.
func (o *ProbeOptions) serversConflict() string {
	if o.Interval > 0 || o.Duration > 0 {
		return "--interval/--duration"
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
	if err := p.Servers(render.NewServersReport("probe", fleet.Found, v)); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return serversFailure(v.Servers)
}

// runServersAll is probe --all --servers: every resource, every server; one
// row per server and resource.
func (o *ProbeOptions) runServersAll(ctx context.Context, p *render.Printer, fleet *servers.Fleet, oo servers.ObserveOptions) error {
	found := fleet.Found
	resources, err := o.listableResources(p)
	if err != nil {
		return err
	}
	start := time.Now()
	all := render.ServersAllReport{Discovery: found, Requests: found.Requests}
	var failed []failedTarget
	for _, res := range resources {
		if ctx.Err() != nil {
			break
		}
		t := o.allTarget(res)
		v := servers.Observe(ctx, fleet, t, oo)
		if ctx.Err() != nil {
			all.Requests += v.Requests // this resource was cut: not a row
			break
		}
		r := render.NewServersReport("probe", servers.Found{}, v)
		all.Resources = append(all.Resources, r)
		all.Requests += r.Requests
		for _, s := range v.Servers {
			if s.Err != nil {
				failed = append(failed, failedTarget{Name: res.Name() + " on server " + s.Endpoint, Err: s.Err})
			}
		}
	}
	all.Millis = float64(time.Since(start).Microseconds()) / 1000
	if ctx.Err() != nil {
		all.Interrupted = &render.Interruption{Done: len(all.Resources), Of: len(resources)}
	}
	if err := p.ServersAll(all); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// One target is one resource on one server.
	return partialFailure("resource probes on the servers", len(all.Resources)*len(found.Endpoints), failed)
}
