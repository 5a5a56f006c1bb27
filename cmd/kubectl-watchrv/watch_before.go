package main

// The checks that come before the watch: what the server is (its facts,
// read where a text or the stall rule depends on them) and, for an exact
// start RV, how it compares with the current one (warnIfAhead).

import (
	"context"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// beforeWatch runs the checks that come before the watch, each bounded by
// the run's time: an exact start RV is compared with the server's current
// RV, and what the server is (serverinfo) is read where a text or the
// stall rule depends on it.
func (r *watchRun) beforeWatch(wo watchstream.Options) error {
	o := r.o
	res := r.target.Resource
	bookmarks := wo.AllowBookmarks || wo.SendInitialEvents
	if o.stallDefault || (o.StallTimeout > follow.WatchCacheBookmarkPeriod && bookmarks) {
		// Silence is a hang only where bookmarks are due (a watch cache).
		if err := r.readServer(); err != nil {
			return err
		}
		if !r.server.BookmarksExpected() && o.stallDefault {
			o.StallTimeout = 0
			r.session.StallTimeout = 0
			// Said as what happened to --follow's default, which the docs
			// give as on (fresh user try 26 F6: "turns the check on" read
			// as if the check were never on with --follow).
			r.p.Notef("%s: --follow's stall check (default --stall-timeout %.0fs) is off here; --stall-timeout D turns it on (a stream silent for D is then closed and watched again from the last RV)", r.server.NoStallNote(res.Name()), defaultFollowStallTimeout.Seconds())
		} else if o.stallDefault && r.server.WatchCache == serverinfo.Unknown {
			// Whether the check fits is not known: said, not left silent
			// (fresh user try 27 F4: with /metrics unreadable nothing was
			// said, and a storage-served quiet stream would be closed).
			why := r.server.Note()
			if why == "" {
				why = "the server's facts do not say"
			}
			r.p.Notef("%s: whether a watch cache serves %s is not known here, so --follow's stall check stays on (default --stall-timeout %.0fs): a stream silent that long is closed and watched again from the last RV, which a quiet stream that storage serves (no periodic bookmarks) would be; --stall-timeout D sets it", why, res.Name(), defaultFollowStallTimeout.Seconds())
		}
	}
	if wo.RVSet && wo.ResourceVersion == "0" && !wo.SendInitialEvents {
		// The header says what RV 0 starts with: who serves it decides.
		if err := r.readServer(); err != nil {
			return err
		}
	}
	r.session.BookmarkPeriod, r.session.BookmarkFacts = r.bookmarkFacts()
	r.session.ServerFacts, r.session.FactsRead = r.serverNow, r.server != nil
	if wo.RVSet && wo.ResourceVersion != "0" {
		r.start = wo.ResourceVersion
		return r.warnIfAhead(wo)
	}
	return nil
}

func (r *watchRun) readServer() error {
	if r.server != nil {
		return nil
	}
	res := r.target.Resource
	in, err := boundedBy(r.ctx, func() (*serverinfo.Info, error) {
		return r.o.serverInfo(r.ctx, res.GVR.Group, res.GVR.Resource), nil
	})
	if err != nil {
		return err
	}
	if in == nil {
		return r.ctx.Err() // the signal cut the read: no facts, the run ends
	}
	r.server = in
	return nil
}

// warnIfAhead compares an exact start RV with the server's current RV (one
// metadata list of one item) and, when it is ahead, says what the server
// does with such a watch in this request's mode (FutureWatch): the watch
// cache and etcd hold it silently, which looks exactly like a quiet
// collection; kine ends it at once; a streaming list gets a 504.
func (r *watchRun) warnIfAhead(wo watchstream.Options) error {
	start := wo.ResourceVersion
	type current struct {
		rv      string
		err     error
		retried *apiclient.RetryWait // its own retries (its own stopwatch)
	}
	// Advisory: bounded, so that a server without etcd holds no watch up.
	cur, err := boundedBy(r.ctx, func() (current, error) {
		ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
		defer cancel()
		// Its retries are said by its own note or warning below.
		ctx, sw := apiclient.StartOwnLineStopwatch(ctx)
		c, _, err := listing.CurrentRV(ctx, r.client, r.target, listing.CurrentOptions{})
		return current{c, err, apiclient.RetryWaitOf(sw)}, nil
	})
	if err != nil {
		return err
	}
	if cur.err == nil && cur.retried != nil {
		// Answered after retries: said, so that the run's retries on a
		// later error line are not read as the watch's own, and the
		// wait before the watch is not silent (adversary try 29 F5).
		r.p.Notef("the read of the current RV that checks --rv %s was answered after retries (%s%s), before the watch was sent", start, render.AfterRetriesText(cur.retried), render.RetryCauseText(cur.retried, nil))
	}
	if cur.err != nil {
		if r.ctx.Err() != nil {
			if diagnose.IsAnswer(cur.err) {
				// The run's time cut a retry of the server's answer: the
				// answer is the failure, never "no answer" (fresh user
				// try 27 F1: a 429 said as "check that the cluster is up").
				return cur.err
			}
			return r.ctx.Err()
		}
		// The answer said as the error line says it (fresh user try 26
		// F7: a 502's HTML page alone read as the reason).
		// Its own retries said as the error line says a run's
		// (render.RetriesSaid: adversary try 27 F5, "(after 2 retries and
		// 600.0 ms waiting ...)").
		r.p.Warnf("cannot read the current RV to check --rv %s against it: %s%s", start, apiclient.FailureWords("list", r.target.Resource.Name(), cur.err), render.RetriesSaid(cur.err))
		return nil
	}
	c, why := rv.OfStorage(cur.rv)
	if why != "" { // said, never taken for an RV (adversary try 24 F2)
		r.p.Warnf("cannot read the current RV to check --rv %s against it: the consistent list's resourceVersion %q %s", start, text.Echo(cur.rv), why)
		return nil
	}
	n, ok1 := rv.Parse(start)
	if !ok1 || n <= c {
		return nil
	}
	r.session.StartAheadOf = cur.rv
	if err := r.readServer(); err != nil {
		return err
	}
	// From a consistent list: facts kept at a higher RV are another storage's (factsAt).
	res := r.target.Resource
	r.server = r.o.factsAt(r.ctx, r.p, r.client, r.server, res.GVR.Group, res.GVR.Resource, cur.rv)
	if r.server == nil {
		return r.ctx.Err() // the signal cut the facts' read again
	}
	what := r.server.FutureWatch(wo.SendInitialEvents, start)
	if what != "" {
		what = ": " + what
	}
	r.p.Warnf("--rv %s is %d ahead of the server's current RV %s%s. Such an RV usually comes from another API server, another cluster, or from before an etcd restore: list again (--rv list) for a real starting point", start, n-c, cur.rv, what)
	return nil
}
