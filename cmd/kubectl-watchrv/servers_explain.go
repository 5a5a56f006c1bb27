package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
)

// validateExplainServers: --servers asks each server what --check asks one.
func (o *ExplainErrorOptions) validateExplainServers(cmd *cobra.Command) error {
	if o.serversOn() && !o.Check {
		return usageErrorf(cmd, "--servers and --endpoints ask every API server what --check asks one: add --check")
	}
	return o.validateServers(cmd, "")
}

// printExplanation prints the explanation, and with --check --servers what
// every server says about the error's RV.
func (o *ExplainErrorOptions) printExplanation(ctx context.Context, p *render.Printer, e render.Explanation) error {
	if !o.Check || !o.serversOn() {
		return p.Explanation(e)
	}
	cc, err := o.checkServers(ctx, e.Diagnosis)
	if err != nil {
		if perr := p.Explanation(e); perr != nil {
			return perr
		}
		return err
	}
	if err := p.ExplanationServers(render.ServersExplanation{Explanation: e, Servers: cc}); err != nil {
		return err
	}
	if cc == nil {
		return nil
	}
	return cc.Err()
}

// checkServers asks every API server what --check asks one
// (servers.CheckAcross), and for TooLarge each one's cache RV.
func (o *ExplainErrorOptions) checkServers(ctx context.Context, d diagnose.Diagnosis) (*servers.CrossCheck, error) {
	requested := d.RequestedResourceVersion
	if o.RV != "" {
		requested = o.RV
	}
	want, _ := rv.Parse(requested)
	q, ask := servers.QuestionOf(d, want)
	if !ask {
		return nil, nil
	}
	res, err := o.resolveResource(ctx, o.Resource, "list", "watch")
	if err != nil {
		return nil, err
	}
	t, err := o.targetOf(res, false)
	if err != nil {
		return nil, err
	}
	budget := apiclient.NewBudget(0, 0)
	fleet, err := o.findServers(ctx, &o.serversFlags, budget)
	if err != nil {
		return nil, err
	}
	cc := servers.CheckAcross(ctx, fleet, t, budget, q, o.watchAnswerBound(probe.TryOptions{}))
	cc.Requests += fleet.Found.Requests
	return &cc, nil
}
