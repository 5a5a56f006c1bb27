package probe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// ErrOpaqueRV is returned for a collection whose resourceVersion is not a
// decimal etcd revision (some aggregated APIs): its window cannot be searched.
var ErrOpaqueRV = errors.New("opaque resourceVersion")

// CurrentRV reads the collection's current RV (a consistent list of one
// item) within the budget, waiting out 429s, and parses it. itemRV is the
// last-modified RV of the item the list returned (0 for an empty scope).
func CurrentRV(ctx context.Context, c *apiclient.Client, t apiclient.Target, b *apiclient.Budget, maxRetryAfter time.Duration) (current uint64, raw string, itemRV uint64, err error) {
	if maxRetryAfter <= 0 {
		maxRetryAfter = 30 * time.Second
	}
	for {
		if err := b.Take(ctx); err != nil {
			return 0, "", 0, err
		}
		raw, page, err := listing.CurrentRV(ctx, c, t)
		if apierrors.IsTooManyRequests(err) && b.Remaining() != 0 {
			wait := time.Second
			if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
				wait = time.Duration(s) * time.Second
			}
			if err := b.Wait(ctx, min(wait, maxRetryAfter)); err != nil {
				return 0, "", 0, err
			}
			continue
		}
		if err != nil {
			return 0, "", 0, err
		}
		n, ok := apiclient.ParseRV(raw)
		if !ok {
			return 0, raw, 0, fmt.Errorf("%w %q: only etcd-backed resources with decimal resourceVersions can be searched (aggregated APIs may use their own)", ErrOpaqueRV, raw)
		}
		return n, raw, page.NewestItemRV(), nil
	}
}

// FutureCheck is what the server did with an RV ahead of it.
type FutureCheck struct {
	ResourceVersion string `json:"resourceVersion"`
	// List: a NotOlderThan list at the future RV (expected: 504 TooLarge
	// after about 3 s).
	ListOutcome string  `json:"listOutcome"`
	ListCode    int32   `json:"listCode,omitempty"`
	ListMessage string  `json:"listMessage,omitempty"`
	ListMillis  float64 `json:"listMs"`
	// Watch: a watch from the future RV (expected on v1.37.2: held silently).
	WatchOutcome  Outcome `json:"watchOutcome"`
	WatchEvidence string  `json:"watchEvidence"`
	WatchMillis   float64 `json:"watchMs"`
	WatchHeldFor  string  `json:"watchHeldFor"`
}

// Future shows what this server does with an RV ahead of it: one list and
// one watch, two requests from the budget.
func Future(ctx context.Context, c *apiclient.Client, t apiclient.Target, current uint64, ahead uint64, hold time.Duration, b *apiclient.Budget) (*FutureCheck, error) {
	if ahead > math.MaxUint64-current {
		return nil, fmt.Errorf("an RV %d past the current RV %d does not fit in 64 bits", ahead, current)
	}
	rv := current + ahead
	f := &FutureCheck{ResourceVersion: strconv.FormatUint(rv, 10), WatchHeldFor: hold.String()}
	if err := b.Take(ctx); err != nil {
		return f, err
	}
	start := time.Now()
	_, err := listing.List(ctx, c, t, listing.PageOptions{Limit: 1, ResourceVersion: f.ResourceVersion, ResourceVersionMatch: "NotOlderThan"})
	f.ListMillis = float64(time.Since(start).Microseconds()) / 1000
	switch {
	case err == nil:
		f.ListOutcome = "ok"
	default:
		f.ListOutcome = string(diagnose.ClassifyFailure(err))
	}
	if st, ok := diagnose.StatusOf(err); ok {
		f.ListCode, f.ListMessage = st.Code, st.Message
	} else if err != nil {
		f.ListMessage = err.Error()
	}
	if err := b.Take(ctx); err != nil {
		return f, err
	}
	w := TryWatch(ctx, c, t, rv, TryOptions{Wait: hold})
	f.WatchOutcome, f.WatchEvidence, f.WatchMillis = w.Outcome, w.Evidence, w.LatencyMillis
	if w.Outcome == OutcomeOK && w.Silent {
		f.WatchEvidence = fmt.Sprintf("held silently: no event and no error for %s", hold)
	}
	return f, nil
}
