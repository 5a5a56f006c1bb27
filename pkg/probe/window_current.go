package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ErrOpaqueRV is returned for a collection whose resourceVersion is not a
// decimal etcd revision (some aggregated APIs): its window cannot be searched.
var ErrOpaqueRV = errors.New("opaque resourceVersion")

// oneItem is what a one-item list says: the list RV and the RV of the item
// it returned (0 when the collection is empty).
type oneItem struct {
	rv     string
	itemRV uint64
}

// listOneItem is one metadata list of at most one item, sent exactly once:
// client-go would otherwise retry a 429 or a 5xx carrying Retry-After up to
// ten times, behind the request budget's back.
func (c *Client) listOneItem(ctx context.Context, t Target, o PageOptions) (oneItem, time.Duration, error) {
	o.Limit = 1
	req := c.short.Get().AbsPath(t.CollectionPath()).SetHeader("Accept", acceptMetadataList).MaxRetries(0)
	for k, vs := range o.Query(t) {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	// Stream, not DoRaw: Stream decodes an error body into the server's
	// Status (message and causes), DoRaw keeps only a generic text.
	start := time.Now()
	body, err := req.Stream(ctx)
	if err != nil {
		return oneItem{}, time.Since(start), err
	}
	defer body.Close()
	var w pageWire
	err = json.NewDecoder(body).Decode(&w)
	took := time.Since(start)
	if err != nil {
		return oneItem{}, took, fmt.Errorf("cannot decode the list response of %s: %w", t.CollectionPath(), err)
	}
	out := oneItem{rv: w.Metadata.ResourceVersion}
	for _, it := range w.Items {
		if n, ok := ParseRV(it.Metadata.ResourceVersion); ok && n > out.itemRV {
			out.itemRV = n
		}
	}
	return out, took, nil
}

// CurrentRV reads the collection's current RV (a consistent list of one
// item) within the budget, waiting out 429s, and parses it. itemRV is the
// last-modified RV of the item the list returned (0 for an empty scope).
func (c *Client) CurrentRV(ctx context.Context, t Target, b *Budget, maxRetryAfter time.Duration) (current uint64, raw string, itemRV uint64, err error) {
	if maxRetryAfter <= 0 {
		maxRetryAfter = 30 * time.Second
	}
	for {
		if err := b.Take(ctx); err != nil {
			return 0, "", 0, err
		}
		one, _, err := c.listOneItem(ctx, t, PageOptions{})
		if apierrors.IsTooManyRequests(err) && b.Remaining() != 0 {
			wait := time.Second
			if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
				wait = time.Duration(s) * time.Second
			}
			if err := b.sleep(ctx, min(wait, maxRetryAfter)); err != nil {
				return 0, "", 0, err
			}
			continue
		}
		if err != nil {
			return 0, "", 0, err
		}
		n, ok := ParseRV(one.rv)
		if !ok {
			return 0, one.rv, 0, fmt.Errorf("%w %q: only etcd-backed resources with decimal resourceVersions can be searched (aggregated APIs may use their own)", ErrOpaqueRV, one.rv)
		}
		return n, one.rv, one.itemRV, nil
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
func (c *Client) Future(ctx context.Context, t Target, current uint64, ahead uint64, hold time.Duration, b *Budget) (*FutureCheck, error) {
	rv := current + ahead
	f := &FutureCheck{ResourceVersion: strconv.FormatUint(rv, 10), WatchHeldFor: hold.String()}
	if err := b.Take(ctx); err != nil {
		return f, err
	}
	_, took, err := c.listOneItem(ctx, t, PageOptions{ResourceVersion: f.ResourceVersion, ResourceVersionMatch: "NotOlderThan"})
	f.ListMillis = float64(took.Microseconds()) / 1000
	switch {
	case err == nil:
		f.ListOutcome = "ok"
	case IsTooLarge(err):
		f.ListOutcome = "TooLarge"
	default:
		f.ListOutcome = string(ClassifyFailure(err))
	}
	if st, ok := StatusOf(err); ok {
		f.ListCode, f.ListMessage = st.Code, st.Message
	} else if err != nil {
		f.ListMessage = err.Error()
	}
	if err := b.Take(ctx); err != nil {
		return f, err
	}
	w := c.ProbeWatch(ctx, t, rv, ProbeOptions{Wait: hold})
	f.WatchOutcome, f.WatchEvidence, f.WatchMillis = w.Outcome, w.Evidence, w.LatencyMillis
	if w.Outcome == OutcomeOK && w.Silent {
		f.WatchEvidence = fmt.Sprintf("held silently: no event and no error for %s", hold)
	}
	return f, nil
}
