package probe

import (
	"context"
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
		// As client-go: with an RV (other than 0) the list is not paged, so
		// that the watch cache serves it "not older than" the RV; a paged
		// list with an RV is an exact read from etcd, which would return the
		// very RV the watch just found too old.
		limit := int64(relistPageSize)
		if rv != "" && rv != "0" {
			limit = 0
		}
		res, err := s.Client.Walk(ctx, s.Target, WalkOptions{PageOptions: PageOptions{Limit: limit, ResourceVersion: rv}},
			func(m ItemMeta) { items = append(items, m) })
		if err != nil {
			lastErr = err
			if f := ClassifyFailure(err); f == FailureExpired || f == FailureTooLarge {
				continue
			}
			return n, err
		}
		a := res.Final()
		if len(a.Pages) > 0 {
			n.ListResourceVersion = a.Pages[0].ResourceVersion
		}
		n.Items = len(items)
		g := s.tracker.Reconcile(items)
		n.Gap = &g
		return n, nil
	}
	return n, lastErr
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
