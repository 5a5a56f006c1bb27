package metrics

import (
	"context"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// Reading is one read of /metrics, or the one-line note that says why
// there is none (a forbidden /metrics is a note, never a failure).
type Reading struct {
	Snapshot *Snapshot
	Note     string
}

// SideReadWait bounds a read of /metrics (and /version) whose answer
// only explains what a command measured (probe --metrics, list's server
// facts): a server that does not answer it must not hold the command
// much longer than the command's own requests (fresh user try 19: a
// probe --metrics of a server that never answers took 2.5 minutes, the
// bound of every request in turn).
const SideReadWait = 10 * time.Second

// ReadUnder reads /metrics once, taking one request from b, within
// SideReadWait.
func ReadUnder(ctx context.Context, c *apiclient.Client, b *apiclient.Budget) *Reading {
	if err := b.Take(ctx); err != nil {
		return &Reading{Note: "/metrics not read: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, SideReadWait)
	defer cancel()
	s, err := Read(ctx, c)
	switch {
	case err == nil:
		return &Reading{Snapshot: s}
	case diagnose.ClassifyFailure(err) == diagnose.FailureForbidden:
		return &Reading{Note: `watch-cache metrics not shown: /metrics is forbidden to this user (it needs a ClusterRole with nonResourceURLs ["/metrics"], verbs ["get"])`}
	}
	return &Reading{Note: "watch-cache metrics not shown: " + text.OneLine(ShortRequest(err).Error())}
}
