package main

import (
	"context"
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// checkNow repeats, once, the request the error came from, so that --check
// says what is true now rather than what is likely: for an Expired exact
// list that list again, for another Expired a watch from the RV (closed at
// its first answer), for TooLarge a list not older than it. Only what was tried is claimed.
func checkNow(ctx context.Context, c *apiclient.Client, t apiclient.Target, d diagnose.Diagnosis, requested, current string) *diagnose.Tried {
	want, ok := rv.Parse(requested)
	cur, ok2 := rv.Parse(current)
	if !ok || !ok2 || want == 0 {
		return nil
	}
	switch d.Class {
	case diagnose.ClassExpired:
		if want > cur {
			return nil
		}
		if exactListKind(d.Kind) {
			// An exact list is served by storage or the cache's snapshots,
			// a watch by the watch cache: a watch that works proves nothing
			// about the list (seen on v1.30 and v1.35). Re-run the list.
			_, err := listing.List(ctx, c, t, listing.PageOptions{Limit: 1, ResourceVersion: requested, ResourceVersionMatch: "Exact"})
			tr := &diagnose.Tried{Request: fmt.Sprintf("an exact list at RV %d", want), Works: err == nil, Answer: "answered"}
			if err != nil {
				tr.Answer = text.OneLine(err.Error())
			}
			return tr
		}
		r := probe.TryWatch(ctx, c, t, want, probe.TryOptions{})
		tr := &diagnose.Tried{Request: fmt.Sprintf("a watch from RV %d", want), Works: r.Outcome == probe.OutcomeOK, Answer: r.Evidence}
		if r.Message != "" {
			tr.Answer += ": " + r.Message
		}
		return tr
	case diagnose.ClassTooLarge:
		_, err := listing.List(ctx, c, t, listing.PageOptions{Limit: 1, ResourceVersion: requested, ResourceVersionMatch: "NotOlderThan"})
		tr := &diagnose.Tried{Request: fmt.Sprintf("a list not older than RV %d", want), Works: err == nil, Answer: "answered"}
		if err != nil {
			tr.Answer = text.OneLine(err.Error())
		}
		return tr
	}
	return nil
}

// exactListKind: the error came from a list at an exact resourceVersion.
func exactListKind(kind string) bool {
	return kind == diagnose.KindEtcdCompactedExactList || kind == diagnose.KindWatchCacheSnapshot
}
