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
	// What the one-server check asked the kubeconfig's server (before the
	// servers are asked), said apart on the view's Requests line; discovery
	// and /version are said there whole.
	before := o.ledger.Cost()
	kubeconfigCheck := before.Requests - before.ByKind[apiclient.KindDiscovery].Requests - before.ByKind[apiclient.KindVersion].Requests - before.Cut
	current := ""
	if e.Check != nil {
		current = e.Check.CurrentResourceVersion
	}
	cc, err := o.checkServers(ctx, e.Diagnosis, current, e.Check)
	if err != nil {
		if perr := p.Explanation(e); perr != nil {
			return perr
		}
		return err
	}
	if err := p.ExplanationServers(render.ServersExplanation{Explanation: e, Servers: cc, KubeconfigCheck: kubeconfigCheck}); err != nil {
		return err
	}
	if cc == nil {
		return nil
	}
	return cc.Err()
}

// checkServers asks every API server what --check asks one
// (servers.CheckAcross), and for TooLarge each one's cache RV.
// current is the current RV the one-server check read (its storage's,
// which every server of the cluster shares): each server's watch is read
// through to it, as the one-server check reads its own (a watch ended
// after one change was "fails" there and "ok" in its row).
// checked is the one-server check's: whether the kubeconfig's server has a
// watch cache for the resource, which its row takes.
func (o *ExplainErrorOptions) checkServers(ctx context.Context, d diagnose.Diagnosis, current string, checked *diagnose.Check) (*servers.CrossCheck, error) {
	requested := d.RequestedResourceVersion
	if o.RV != "" {
		requested = o.RV
	}
	want, _ := rv.Parse(requested)
	q, ask := servers.QuestionOf(d, want)
	if !ask {
		return nil, nil
	}
	if cur, ok := rv.Parse(current); ok {
		q.Current = cur
	}
	_, t, _, err := o.checkTarget(ctx, d, "list", "watch")
	if err != nil {
		return nil, err
	}
	budget := apiclient.NewBudget(0, 0)
	fleet, err := o.findServers(ctx, &o.serversFlags, budget)
	if err != nil {
		return nil, err
	}
	var known servers.KnownCache
	if cfg, err := o.restConfig(); err == nil && checked != nil {
		switch {
		case checked.NoWatchCache:
			known = servers.KubeconfigCache(cfg, servers.CacheOff, "the kubeconfig's server, whose /metrics --check read has no watch-cache series for the resource")
		case checked.WatchCache:
			known = servers.KubeconfigCache(cfg, servers.CacheOn, "the kubeconfig's server, whose /metrics --check read has watch-cache series for the resource")
		}
	}
	across := servers.CheckAcross(ctx, fleet, t, budget, q, o.watchAnswerBound(probe.TryOptions{}), known)
	across.Requests += fleet.Found.Requests
	across.Discovery = fleet.Found
	return &across, nil
}
