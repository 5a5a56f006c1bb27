package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
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
	// The one partial-failure rule, over the servers asked.
	var failed []failedTarget
	for _, a := range cc.Servers {
		if a.Error != "" {
			err := a.Err
			if err == nil {
				err = errors.New(a.Reason + ": " + a.Error)
			}
			failed = append(failed, failedTarget{Name: "server " + a.Endpoint, Err: err})
		}
	}
	return partialFailure("API servers", len(cc.Servers), failed)
}

// checkServers asks every API server once about the error's RV: its cache
// RV for TooLarge, a watch from the RV for Expired.
func (o *ExplainErrorOptions) checkServers(ctx context.Context, d diagnose.Diagnosis) (*servers.CrossCheck, error) {
	requested := d.RequestedResourceVersion
	if o.RV != "" {
		requested = o.RV
	}
	want, ok := rv.Parse(requested)
	if !ok || want == 0 || (d.Class != diagnose.ClassTooLarge && d.Class != diagnose.ClassExpired) {
		return nil, nil
	}
	res, err := o.resolveResource(ctx, o.Resource, "list", "watch")
	if err != nil {
		return nil, err
	}
	t := apiclient.Target{Resource: res}
	if res.Namespaced {
		ns, err := o.Namespace()
		if err != nil {
			return nil, err
		}
		t.Namespace = ns
	}
	budget := apiclient.NewBudget(0, 0)
	fleet, err := o.findServers(ctx, &o.serversFlags, budget)
	if err != nil {
		return nil, err
	}
	cc := servers.CheckAcross(ctx, fleet, t, budget, d.Class, want)
	cc.Requests += fleet.Found.Requests
	return &cc, nil
}
