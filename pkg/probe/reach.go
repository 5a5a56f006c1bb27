package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// A watch that starts is not yet a watch that reaches the current RV: on
// kine, a watch served by storage (watch cache off) fails with PrevKv=nil
// at any change of an object whose previous version is below its
// compaction point, far above it (shared/reference/rv-semantics.md, kine).
// On etcd only the change at the compaction revision does, which the first
// event shows. The plugin cannot tell the two apart, so a bound that
// storage answered is proven by reading a watch from it through every
// change it replays (TryWatchThrough).

// ReachSilence is how long a drained watch must stay silent after its last
// event to count as having delivered every change: storage sends no
// bookmarks, so silence is the only end of a replay it shows.
const ReachSilence = time.Second

// maxReachEvents bounds what one drained watch reads (about 1 KiB each):
// beyond it the watch is closed and the answer says how far it read.
const maxReachEvents = 10000

// TryWatchThrough opens one watch from exactly rv and reads it until it
// has replayed every change up to current (an event at or past current, or
// silence for ReachSilence after the last one), an ERROR event (a PrevKv=nil
// 500 is Expired, its modRevision LostAt: every watch from below it meets
// the same lost change), the end of the stream, or maxReachEvents.
// One request.
func TryWatchThrough(ctx context.Context, c *apiclient.Client, t apiclient.Target, rv, current uint64, opts TryOptions) (res Try) {
	opts = opts.withDefaults()
	// Before the first event, the wait the caller gives (adaptiveProbe
	// raises it where an event must come); between events, ReachSilence.
	silence := max(opts.Wait, ReachSilence)
	res = Try{ResourceVersion: rv}
	clk := opts.clock()
	if !takeToken(ctx, opts.Budget, &res) {
		return res
	}
	defer res.cutUnanswered(ctx) // run last: the try's own ctx is below
	ctx, sw := apiclient.StartStopwatchOn(ctx, clk)
	defer res.timeFrom(sw)
	wo := watchstream.Options{ResourceVersion: strconv.FormatUint(rv, 10), RVSet: true, TimeoutSeconds: 60}
	ctx, headersCame, cancel := apiclient.WithNamedBoundOn(ctx, clk, opts.HeaderTimeout, opts.HeaderBound)
	defer cancel()
	stream := openTry(ctx, headersCame, c, t, wo, &res)
	if stream == nil {
		return res
	}
	defer stream.Close()
	type next struct {
		ev  watchstream.Event
		err error
	}
	events := make(chan next)
	go func() {
		for {
			ev, err := stream.Next()
			select {
			case events <- next{ev, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	// Every event is held to the Watch contract, as watch holds it (the
	// one judge, watchstream.Contract): a replay out of order, or of an
	// object the request excluded, is the server's breach, never a watch
	// that "works" (adversary try 36 F2). A bookmark is no change: it
	// says the changes up to its RV were sent (try 36 F6).
	contract := watchstream.NewContract(t, wo)
	// n counts the changes, seen every event (a bookmark too): a stream
	// that ended after a bookmark did not end "before any event"
	// (adversary try 37 F1).
	n, seen, last := 0, 0, rv
	timer := clk.NewTimer(silence)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			res.Outcome, res.Evidence = OutcomeTransient, fmt.Sprintf("no verdict: the run ended (%s) after %s and no error", ctx.Err(), text.Count(n, "change"))
			return res
		case <-timer.C():
			res.Outcome, res.ReadTo = OutcomeOK, last
			res.Silent = n == 0
			res.Evidence = fmt.Sprintf("replayed %s without an error (the last at RV %d), then nothing within %s", text.Count(n, "change"), last, silence)
			if n == 0 {
				// RVs are cluster-wide: the changes up to the current RV
				// may all be in other resources.
				res.Evidence = fmt.Sprintf("accepted, and no change and no error within %s (the changes up to RV %d may be in other resources)", silence, current)
			}
			return res
		case e := <-events:
			switch {
			case e.err != nil && seen > 0 && (errors.Is(e.err, io.EOF) || errors.Is(e.err, io.ErrUnexpectedEOF)):
				res.Outcome, res.Evidence = OutcomeTransient, fmt.Sprintf("the stream ended after %s and %s (up to RV %d), before the current RV %d", text.Count(n, "change"), text.Count(seen-n, "other event"), last, current)
				if !errors.Is(e.err, io.EOF) {
					res.failed = e.err // cut mid-event: a broken connection (exit 4)
				}
				return res
			case e.err != nil || e.ev.Type == watchstream.EventError:
				res.fromFirstEvent(e.ev, e.err, rv)
				if n > 0 {
					res.Evidence = fmt.Sprintf("%s, after %s delivered (the last at RV %d)", res.Evidence, text.Count(n, "change"), last)
				}
				return res
			}
			if why := contract.Judge(e.ev); why != "" {
				res.Outcome, res.failed = OutcomeFatal, &diagnose.ContractError{Contract: "Watch", Breach: fmt.Sprintf("the watch from RV %d: %s", rv, why)}
				res.Evidence = "this API server broke the Watch contract: " + why
				return res
			}
			seen++
			bookmark := e.ev.Type == watchstream.EventBookmark
			if !bookmark {
				n++
			}
			// A bookmark the request did not ask for proves nothing of
			// how far the watch reached (watch says it "sent unasked";
			// adversary try 37 F1).
			if v, ok := apiclient.ParseRV(e.ev.Object.ResourceVersion); ok && v > last && (!bookmark || wo.AllowBookmarks) {
				last = v
			}
			if last >= current || n >= maxReachEvents {
				res.Outcome, res.ReadTo = OutcomeOK, last
				res.Evidence = fmt.Sprintf("replayed %s without an error, up to RV %d (the current RV is %d)", text.Count(n, "change"), last, current)
				if last < current {
					res.Evidence += fmt.Sprintf("; not read further (at most %d events are read): the changes above RV %d are not checked", maxReachEvents, last)
				}
				return res
			}
			// Go >= 1.23: Reset drops a value the timer may have sent.
			silence = ReachSilence
			timer.Reset(silence)
		}
	}
}
