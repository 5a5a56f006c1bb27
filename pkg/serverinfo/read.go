package serverinfo

import (
	"context"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// Read asks the server what it is: GET /version (a few hundred bytes) and
// GET /metrics (the whole text, parsed once; tens to hundreds of KB), for
// the resource group/resource ("" for none). Neither failing fails the
// run: what could not be read is assumed, and Info says so.
func Read(ctx context.Context, c *apiclient.Client, group, resource string) *Info {
	git, minor := "", 0
	if body, err := c.Get(ctx, "/version", nil, "application/json"); err == nil {
		b, rerr := io.ReadAll(body) // within the cap of /version (apiclient.LimitVersion)
		body.Close()
		if rerr == nil {
			git, minor, _ = ParseVersion(b)
		}
	}
	name := resource
	if group != "" && resource != "" {
		name = resource + "." + group
	}
	facts, note := readMetrics(ctx, c, group, resource)
	return Build(git, minor, facts, note, name)
}

func readMetrics(ctx context.Context, c *apiclient.Client, group, resource string) (*MetricsFacts, string) {
	body, err := c.Get(ctx, "/metrics", nil, "text/plain")
	if err != nil {
		if apierrors.IsForbidden(err) {
			return nil, ForbiddenNote
		}
		return nil, "/metrics not read (" + oneLine(err.Error()) + "): feature gates taken as the version's defaults, the watch cache as unknown"
	}
	defer body.Close()
	f, err := ParseMetrics(body)
	if err != nil {
		return nil, oneLine(err.Error()) + ": feature gates taken as the version's defaults"
	}
	return FactsOf(f, group, resource), ""
}
