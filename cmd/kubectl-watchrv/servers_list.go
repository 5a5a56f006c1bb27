package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
)

// listServersConflict names the list flags that --servers does not use: it
// reads two fixed lists of one item per server.
func (o *ListOptions) listServersConflict(cmd *cobra.Command) string {
	for _, f := range []string{"rv", "rv-match", "rv-only", "limit", "no-restart"} {
		if cmd.Flags().Changed(f) {
			return "--" + f
		}
	}
	return ""
}

// listServers reads, on every API server in parallel, the cache RV (an
// rv=0 list) and the current RV (a consistent list): two requests each.
func (o *ListOptions) listServers(ctx context.Context, p *render.Printer, t apiclient.Target) error {
	budget := apiclient.NewBudget(0, 0)
	fleet, err := o.findServers(ctx, &o.serversFlags, budget)
	if err != nil {
		return err
	}
	v := servers.Observe(ctx, fleet, t, servers.ObserveOptions{Budget: budget, Measure: servers.MeasureOptions{Mode: servers.ModeRVs}})
	if err := p.Servers(o.withOwnerFacts(ctx, p, render.NewServersReport("list", fleet.Found, v, o.suggest), t.Resource)); err != nil {
		return err
	}
	return v.Err(ctx)
}
