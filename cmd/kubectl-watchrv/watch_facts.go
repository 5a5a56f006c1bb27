// The server's facts a following watch reads: who serves the watch, and
// so whether a quiet stream is a hang.

package main

import (
	"context"
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/follow"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
)

// bookmarkFacts is what the server's facts (r.server, nil when not read)
// say of a quiet watch's bookmarks: how often one comes (0 = never, or
// none asked for), and who sends it or why none comes, in words ("" where
// the facts do not say who serves the watch: no text names it then).
func (r *watchRun) bookmarkFacts() (time.Duration, string) { return r.bookmarkFactsOf(r.server) }

func (r *watchRun) bookmarkFactsOf(in *serverinfo.Info) (time.Duration, string) {
	wo := r.session.Options
	if !wo.AllowBookmarks && !wo.SendInitialEvents {
		return 0, ""
	}
	name := r.target.Resource.Name()
	switch {
	case in == nil:
		return follow.WatchCacheBookmarkPeriod, ""
	case !in.BookmarksExpected():
		return 0, in.NoStallNote(name)
	case in.WatchCache == serverinfo.Yes && in.Serves == serverinfo.Yes:
		return follow.WatchCacheBookmarkPeriod, fmt.Sprintf("%s has a watch cache on the server answering (server facts: %s), which sends a quiet watch %s", name, in.Summary(), follow.BookmarkEvery(follow.WatchCacheBookmarkPeriod))
	}
	return follow.WatchCacheBookmarkPeriod, ""
}

// serverNow reads the facts of the server answering now, for a session
// whose reconnect may have reached another server (follow.Session
// ServerFacts): currentRV, the RV a consistent list of the resource just
// gave ("" for none), is held to the RVs kept with the facts at this
// address (factsAt: another storage is said, and its facts read again).
func (r *watchRun) serverNow(ctx context.Context, currentRV string) (time.Duration, string) {
	res := r.target.Resource
	in, err := boundedBy(ctx, func() (*serverinfo.Info, error) {
		in := r.o.readServerInfo(ctx, r.client, res.GVR.Group, res.GVR.Resource)
		if currentRV != "" {
			in = r.o.factsAt(ctx, r.p, r.client, in, res.GVR.Group, res.GVR.Resource, currentRV)
		}
		return in, nil
	})
	if err != nil || in == nil {
		// Not read within the session's bound (follow.FactsWait), or the
		// run was cut: the generic rule, which says it was not read.
		return r.bookmarkFactsOf(nil)
	}
	r.server = in
	if r.summary != nil {
		r.summary.Server = in
	}
	return r.bookmarkFacts()
}
