package main

import (
	"context"

	"github.com/watchrv/kubectl-watchrv/internal/rv"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
)

// checkNow asks the kubeconfig's server the one question of --check
// (servers.Repeat, the same one --servers asks every server): the request
// the error came from, once. Only what was tried is claimed; nothing is
// tried for an Expired RV ahead of the current one. err is the request's
// own failure (a 403, no connection, a credential plugin's), with its
// class: the command exits with its code, as any other request's.
// try bounds its watch (RootOptions.watchAnswerBound).
func checkNow(ctx context.Context, c *apiclient.Client, t apiclient.Target, d diagnose.Diagnosis, requested, current string, try probe.TryOptions) (tried *diagnose.Tried, err error) {
	want, ok := rv.Parse(requested)
	cur, ok2 := rv.Parse(current)
	q, ask := servers.QuestionOf(d, want)
	q.Current = cur
	if !ok || !ok2 || !ask || (d.Class == diagnose.ClassExpired && want > cur) {
		return nil, nil
	}
	rep := servers.Repeat(ctx, c, t, q, apiclient.NewBudget(0, 0), try)
	return rep.Tried, rep.Err
}
