package follow

import (
	"context"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// Why a DELETED event arrived, as one GET of the object tells.
const (
	DeleteCauseLeftSelector = "left-selector" // the object still exists: it stopped matching the selector
	DeleteCauseDeleted      = "deleted"       // the object is gone
	DeleteCauseRecreated    = "recreated"     // gone, and a new object has the name now
)

// DeleteCause checks with one GET whether the object of a DELETED event
// still exists: through a selector, DELETED also means "no longer matches".
func DeleteCause(ctx context.Context, c *apiclient.Client, t apiclient.Target, m apiclient.ItemMeta) (string, error) {
	got, err := c.GetObjectMeta(ctx, t, m.Namespace, m.Name)
	switch {
	case err == nil && (got.UID == m.UID || m.UID == ""):
		return DeleteCauseLeftSelector, nil
	case err == nil:
		return DeleteCauseRecreated, nil
	case diagnose.ClassifyFailure(err) == diagnose.FailureNotFound:
		return DeleteCauseDeleted, nil
	}
	return "", err
}
