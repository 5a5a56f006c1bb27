package metrics

import (
	"context"

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

// ReadUnder reads /metrics once, taking one request from b.
func ReadUnder(ctx context.Context, c *apiclient.Client, b *apiclient.Budget) *Reading {
	if err := b.Take(ctx); err != nil {
		return &Reading{Note: "/metrics not read: " + err.Error()}
	}
	s, err := Read(ctx, c)
	switch {
	case err == nil:
		return &Reading{Snapshot: s}
	case diagnose.ClassifyFailure(err) == diagnose.FailureForbidden:
		return &Reading{Note: `watch-cache metrics not shown: /metrics is forbidden to this user (it needs a ClusterRole with nonResourceURLs ["/metrics"], verbs ["get"])`}
	}
	return &Reading{Note: "watch-cache metrics not shown: " + text.OneLine(ShortRequest(err).Error())}
}
