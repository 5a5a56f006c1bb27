package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// relistPageSize is the page size of lists made by a session, as an
// informer's (client-go pages relists by 500).
const relistPageSize = 500

// list reads the whole collection (paged, metadata only), trying each RV in
// order and moving to the next only on Expired or TooLarge. It replaces the
// tracker's state and returns what changed.
func (s *WatchSession) list(ctx context.Context, tries []string) (Notice, error) {
	n := Notice{Kind: NoticeListed, Time: time.Now()}
	var lastErr error
	for _, rv := range tries {
		n.Tried = append(n.Tried, rv)
		var items []ItemMeta
		var listRV string
		var err error
		if rv != "" && rv != "0" {
			listRV, items, err = s.Client.listUnpaged(ctx, s.Target, rv)
		} else {
			var res *WalkResult
			res, err = s.Client.Walk(ctx, s.Target, WalkOptions{PageOptions: PageOptions{Limit: relistPageSize, ResourceVersion: rv}},
				func(m ItemMeta) { items = append(items, m) })
			if err == nil && len(res.Final().Pages) > 0 {
				listRV = res.Final().Pages[0].ResourceVersion
			}
		}
		if err != nil {
			lastErr = err
			if f := ClassifyFailure(err); f == FailureExpired || f == FailureTooLarge {
				continue
			}
			return n, err
		}
		n.ListResourceVersion = listRV
		n.Items = len(items)
		g := s.tracker.Reconcile(items)
		n.Gap = &g
		return n, nil
	}
	return n, lastErr
}

// listUnpaged lists the whole collection "not older than" rv in one
// request. As client-go does, a list with an RV (other than 0) is not paged,
// so that the watch cache serves it; a paged list with an RV is an exact read
// from etcd, which would return the very RV the watch just found too old.
// Unlike client-go's REST client it does not retry a 504 that carries
// Retry-After (client-go retries up to 10 times, ~40 s for an RV from the
// future): the fall back to "" comes at once.
func (c *Client) listUnpaged(ctx context.Context, t Target, rv string) (string, []ItemMeta, error) {
	q := PageOptions{ResourceVersion: rv}.Query(t)
	req := getCollection(c.short, t, q, acceptMetadataList).MaxRetries(0)
	// Stream, not Do: its error path decodes the Status body, so a 504
	// keeps its "Too large resource version" message and cause.
	body, err := req.Stream(ctx)
	if err != nil {
		return "", nil, err
	}
	defer body.Close()
	var w pageWire
	if err := json.NewDecoder(body).Decode(&w); err != nil {
		return "", nil, fmt.Errorf("cannot decode the list response of %s: %w", t.CollectionPath(), err)
	}
	items := make([]ItemMeta, len(w.Items))
	for i := range w.Items {
		items[i] = w.Items[i].Metadata
	}
	return w.Metadata.ResourceVersion, items, nil
}

// relist lists again after an Expired or TooLarge, first from the last RV
// seen and then, as the last resort, with a consistent read (""), as the
// Reflector does; it reports the gap and resumes from the new List's RV.
func (s *WatchSession) relist(ctx context.Context, reason string, cause error, consistentOnly bool) error {
	from := s.lastRV
	tries := []string{""}
	if from != "" && from != "0" && !consistentOnly {
		tries = []string{from, ""}
	}
	n, err := s.list(ctx, tries)
	if err != nil {
		return err
	}
	s.stats.Relists++
	s.stats.Reconciled += n.Gap.Count()
	n.Kind, n.Reason, n.Err, n.FromResourceVersion = NoticeRelist, reason, cause, from
	if cause != nil {
		n.Failure = ClassifyFailure(cause)
	}
	if a, ok := ParseRV(n.ListResourceVersion); ok {
		if b, ok := ParseRV(from); ok && a > b {
			n.SkippedRVs = a - b
		}
	}
	s.lastRV = n.ListResourceVersion
	s.notify(n)
	return nil
}
