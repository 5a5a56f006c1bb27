package follow

import (
	"context"
	"errors"
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// relistPageSize is the page size of lists made by a session, as an
// informer's (client-go pages relists by 500).
const relistPageSize = 500

// list reads the whole collection (metadata only), trying each RV in order
// and moving to the next only on Expired or TooLarge. It replaces the
// tracker's state and returns what changed.
//
// As client-go does, a list with an RV (other than 0) is one unpaged
// request "not older than" it, so that the watch cache serves it; a paged
// list with an RV is an exact read from etcd, which would return the very
// RV the watch just found too old. Like every request of the plugin it is
// sent once: a 504 TooLarge falls back to "" at once instead of after
// client-go's ten hidden retries (~40 s).
//
// again is a relist: its caller (relistFor) sends it again after the
// reconnect backoff, so its first page is sent once (no retry inside a
// retry); --rv list's first list is retried by the walk's policy.
func (s *Session) list(ctx context.Context, tries []string, again bool) (Notice, error) {
	n := Notice{Kind: NoticeListed, Time: s.clock().Now()}
	var lastErr error
	for _, at := range tries {
		n.Tried = append(n.Tried, at)
		listRV, items, err := s.listAt(ctx, at, again)
		if err != nil {
			lastErr = err
			f := diagnose.ClassifyFailure(err)
			s.mixing.failure(f, at)
			if f == diagnose.FailureExpired || f == diagnose.FailureTooLarge {
				continue
			}
			return n, err
		}
		if _, why := rv.OfStorage(listRV); why != "" {
			// A watch from it would send the state again, not the
			// changes after the list (adversary try 24 F2, its relist):
			// the list gave no resume point, and the session says so
			// rather than resume from nothing, and why: the list was
			// answered, so not "did not complete".
			s.clearResume(NoResumeListRVNotStorage)
			return n, &NoResumePointError{ResourceVersion: listRV, Why: why}
		}
		n.ListResourceVersion = listRV
		n.Items = len(items)
		n.MixedServers = s.mixing.listedAt(listRV)
		g := s.tracker.Reconcile(items)
		g.Initial = !s.knowsState
		s.knowsState = true
		n.Gap = &g
		return n, nil
	}
	return n, lastErr
}

// NoResumePointError: a whole list whose resourceVersion is no RV of a
// storage ("0", empty, not a decimal): no watch can resume from it.
type NoResumePointError struct{ ResourceVersion, Why string }

func (e *NoResumePointError) Error() string {
	return fmt.Sprintf("the list gave no resume point: its resourceVersion %q %s, so a watch from it would not start after the list; check what answers at the kubeconfig's server (an API server over etcd or kine gives its revision)", text.Echo(e.ResourceVersion), e.Why)
}

// ListURL is the first request of ListFirst as it is sent (path and
// query): a page of relistPageSize with the target's selectors.
func (s *Session) ListURL() string {
	o := listing.PageOptions{Limit: relistPageSize}
	return apiclient.URL(s.Target.CollectionPath(), o.Query(s.Target))
}

// listAt is one list of the whole collection at rv.
func (s *Session) listAt(ctx context.Context, rv string, again bool) (string, []apiclient.ItemMeta, error) {
	if rv != "" && rv != "0" {
		o := listing.PageOptions{ResourceVersion: rv}
		p, err := listing.List(ctx, s.Client, s.Target, o)
		if err != nil {
			s.trace("GET %s: %v", apiclient.URL(s.Target.CollectionPath(), o.Query(s.Target)), err)
			return "", nil, err
		}
		s.trace("GET %s: %s at RV %s", p.URL, text.Count(len(p.Items), "item"), p.ResourceVersion)
		return p.ResourceVersion, p.Items, nil
	}
	var items []apiclient.ItemMeta
	res, err := listing.Walk(ctx, s.Client, s.Target, listing.WalkOptions{PageOptions: listing.PageOptions{Limit: relistPageSize, ResourceVersion: rv}, Trace: s.Trace, Keeps: listing.KeptItem, FirstPageOnce: again},
		func(m apiclient.ItemMeta) { items = append(items, m) })
	if err != nil {
		return "", nil, err
	}
	listRV := ""
	if pages := res.Final().Pages; len(pages) > 0 {
		listRV = pages[0].ResourceVersion
	}
	return listRV, items, nil
}

// relist lists again after an Expired or TooLarge, first from the last RV
// seen and then, as the last resort, with a consistent read (""), as the
// Reflector does; it reports the gap and resumes from the new List's RV.
//
// After a stream that ended before the session had a resume point (an
// initial state not known complete), the list is "not older than" the
// highest RV seen: any full state at or after it completes what the watch
// sent, and the gap names the objects it never sent.
func (s *Session) relist(ctx context.Context, c *relistCause) error {
	reason, cause := c.reason, c.err
	from := s.lastRV
	tries := []string{""}
	if from != "" && from != "0" && !c.unproductive && !c.otherStorage {
		tries = []string{from, ""}
	}
	if c.otherStorage {
		// The RVs seen before are another storage's: no sign of mixed
		// servers of one storage is read from them.
		s.mixing = mixingDetector{}
	}
	n, err := s.list(ctx, tries, true)
	var none *NoResumePointError
	if err == nil || errors.As(err, &none) {
		// The relist's list was sent and answered, resume point or not
		// (adversary try 25 F2: "0 relist(s)" after a relist answered RV 0).
		s.stats.Relists++
	}
	if err != nil {
		return err
	}
	if c.otherStorage {
		// A completed relist, with a resume point of the storage now
		// answering (fresh user try 25 F4).
		s.stats.ServerBehindRelisted++
	}
	if c.noResumePoint {
		n.Gap.NoResumePoint, n.Gap.StateObjectsSent = true, c.stateSent
	}
	if !n.Gap.Initial {
		s.stats.Reconciled += n.Gap.Count()
	}
	n.Kind, n.Reason, n.Err, n.FromResourceVersion = NoticeRelist, reason, cause, from
	if cause != nil {
		n.Failure = diagnose.ClassifyFailure(cause)
	}
	if a, ok := rv.Parse(n.ListResourceVersion); ok {
		// RV 0 is "any state", no point of the cluster's history to
		// count from (adversary try 31 F2: "advanced 400 since RV 0").
		if b, ok := rv.Parse(from); ok && b > 0 && a > b {
			n.RVsAdvanced = a - b
		}
	}
	s.lastRV = n.ListResourceVersion
	s.setResume(n.ListResourceVersion, ResumeFromList)
	s.notify(n)
	return nil
}

// relistCause is why a relist is due.
type relistCause struct {
	reason string
	err    error
	// unproductive: the last relist was followed by another Expired before
	// any event; then the next relist is a consistent read, after a backoff
	// (client-go's isLastSyncResourceVersionUnavailable), never a tight loop.
	unproductive bool
	// noResumePoint: the stream ended before the session had a resume
	// point (an initial state not known complete), not on an RV error.
	noResumePoint bool
	stateSent     int
	// backedOff: the last relist failed and its backoff was waited: the
	// next try is sent at once.
	backedOff bool
	// otherStorage: the server answering is behind the resume point
	// (ServerBehindError): a consistent list at once, from no RV seen.
	otherStorage bool
}

// listFirst is --rv list: list, then watch from the List's RV.
func (s *Session) listFirst(ctx context.Context, opts watchstream.Options) (watchstream.Options, error) {
	n, err := s.list(ctx, []string{""}, false)
	if err != nil {
		return opts, &ListStepError{Err: err}
	}
	s.lastRV = n.ListResourceVersion
	s.setResume(n.ListResourceVersion, ResumeFromList)
	s.answered = true
	w := watchstream.Options{ResourceVersion: n.ListResourceVersion, RVSet: true, AllowBookmarks: opts.AllowBookmarks || s.Follow, TimeoutSeconds: opts.TimeoutSeconds}
	n.URL = apiclient.URL(s.Target.CollectionPath(), w.Query(s.Target))
	s.notify(n)
	return w, nil
}

// relistFor relists after c; retry is true when the relist failed in a way
// worth another try after a backoff (already waited).
func (s *Session) relistFor(ctx context.Context, c *relistCause) (retry bool, err error) {
	// After a failed relist the backoff was waited (and said) already:
	// the unproductive watch's wait is not waited, nor said, again
	// (adversary try 27 F2: a second reconnect line with the old reason,
	// counted, and no request after it).
	if c.unproductive && !c.backedOff && !s.sleep(ctx, Notice{Kind: NoticeReconnect, Reason: "the watch from the relist's RV failed again: " + c.reason, Err: c.err, Failure: diagnose.ClassifyFailure(c.err), FromResourceVersion: s.lastRV}) {
		return false, nil
	}
	if err = s.relist(ctx, c); err != nil {
		err = &ListStepError{Err: err, Cause: c.err}
	}
	if err == nil {
		c.unproductive, c.backedOff = false, false
		s.relisted = true
		return false, nil
	}
	if outOfTime(ctx, err) {
		return false, nil
	}
	s.failed(err)
	f := diagnose.ClassifyFailure(err)
	if !f.Retryable() {
		return false, err
	}
	if !s.sleep(ctx, Notice{Kind: NoticeReconnect, Reason: "relist failed: " + err.Error(), Err: err, Failure: f, FromResourceVersion: s.lastRV}) {
		return false, nil
	}
	c.backedOff = true
	return true, nil
}
