package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// watchRun is the state of one "watch" run: what is shown and counted.
type watchRun struct {
	ctx     context.Context
	o       *WatchOptions
	p       *render.Printer
	client  *apiclient.Client
	target  apiclient.Target
	session *follow.Session
	summary *render.WatchSummary
	start   string // the start RV events are related to
	shown   int
	rvErr   *render.WatchEventRecord // the Expired/TooLarge that ended a watch without --follow
}

// Run watches and reports.
func (o *WatchOptions) Run(cmd *cobra.Command) error {
	ctx := cmd.Context()
	verbs := []string{"watch"}
	if o.RV == rvList || o.Follow {
		verbs = append(verbs, "list")
	}
	res, err := o.resolveResource(ctx, o.Resource, verbs...)
	if err != nil {
		return err
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	t := apiclient.Target{Resource: res, LabelSelector: o.LabelSelector, FieldSelector: o.fieldSelector()}
	if res.Namespaced && !o.AllNamespaces {
		t.Namespace = o.namespace
	}
	r := &watchRun{ctx: ctx, o: o, p: o.Printer(o.Output), client: client, target: t}
	r.p.ObjectsOf(res)
	var server *serverinfo.Info
	if o.stallDefault {
		// Silence is a stall only where bookmarks are due (a watch cache).
		if server = o.serverInfo(ctx, res.GVR.Group, res.GVR.Resource); !server.BookmarksExpected() {
			o.StallTimeout = 0
			r.p.Notef("%s (--stall-timeout turns the check on)", server.NoStallNote(res.Name()))
		}
	}
	wo := o.watchOptions()
	if wo.RVSet && wo.ResourceVersion != "0" {
		r.start = wo.ResourceVersion
		r.warnIfAhead(ctx, wo.ResourceVersion)
	}
	if !r.p.Machine() {
		if o.RV == rvList {
			r.p.Notef("listing %s, then watching the changes after the List's RV", t.CollectionPath())
		} else {
			r.p.Notef("watching %s (%s)", apiclient.URL(t.CollectionPath(), wo.Query(t)), o.describeStart())
		}
	}
	r.summary = render.NewWatchSummary(r.start)
	r.summary.Server = server
	r.session = &follow.Session{
		Client: client, Target: t, Options: wo, ListFirst: o.RV == rvList, Follow: o.Follow,
		StallTimeout: o.StallTimeout, OnEvent: r.onEvent, OnNotice: r.onNotice,
	}
	if o.Verbose {
		r.session.Trace = r.p.Tracef
	}
	if err := r.p.WatchHeader(); err != nil {
		return err
	}
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if o.Timeout > 0 {
		wctx, cancel = context.WithTimeout(ctx, o.Timeout)
	}
	defer cancel()
	began := time.Now()
	serr := r.session.Run(wctx)
	if serr != nil && errors.Is(serr, errWrite) {
		return serr
	}
	if serr != nil && r.showHTTPStatus(serr) {
		serr = nil
	}
	if serr != nil && r.summary.Events == 0 && r.session.Stats().Streams == 0 {
		return o.requestError(serr, "watch", res.Name())
	}
	var streak *follow.Streak
	if o.Follow && serr == nil && r.session.End() != follow.EndInterrupted {
		streak = r.session.Streak()
	}
	r.summary.SetSession(r.session.Stats(), streak)
	r.summary.DurationSeconds = time.Since(began).Seconds()
	r.summary.StartResourceVersion = r.start
	r.summary.Ended = string(r.session.End())
	if r.rvErr != nil {
		r.summary.Ended = string(follow.EndError)
	}
	if err := r.p.WatchSummary(r.summary); err != nil {
		return fmt.Errorf("%w: %w", errWrite, err)
	}
	if serr != nil {
		return o.requestError(fmt.Errorf("the watch stream broke: %w (--follow reconnects from the last RV, as an informer does)", serr), "watch", res.Name())
	}
	if streak != nil {
		return o.requestError(streakError(streak), "watch", res.Name())
	}
	if r.rvErr != nil {
		d := r.rvErr.Diagnosis
		return withCode(ExitRVProblem, fmt.Errorf("the watch ended with %d %s: %s: %s", r.rvErr.Status.Code, r.rvErr.Status.Reason, d.Summary, d.Fix))
	}
	return nil
}

// streakError is the failure a --follow session ended in: it was not
// watching when it ended, so it exits as the same failure would without
// --follow (4 unreachable or no answer, 8 throttled, 10 Expired ...).
func streakError(st *follow.Streak) error {
	when := "no watch of this session succeeded"
	if st.EverHealthy {
		when = "the watch was failing when it ended"
	}
	return fmt.Errorf("%s (%d failed attempt(s) in a row since %s): %w", when, st.Attempts, st.Since.Format("15:04:05"), st.Err)
}

// errWrite marks a failed write of the output (a closed pipe, a full disk):
// the run cannot report anything more and must not claim success.
var errWrite = errors.New("cannot write the output")

// showHTTPStatus shows a 410 or 504 that answered the watch request itself
// like an ERROR event; true when it did.
func (r *watchRun) showHTTPStatus(serr error) bool {
	st, ok := diagnose.StatusOf(serr)
	if !ok {
		return false
	}
	d := diagnose.FromError(serr, diagnose.Context{Operation: diagnose.OpWatch, RequestedResourceVersion: r.session.Stats().LastRV})
	if !d.IsRVProblem() {
		return false
	}
	rec := render.WatchEventRecord{Record: render.RecordEvent, Time: time.Now().UTC().Format(time.RFC3339Nano), Type: watchstream.EventError, Status: &st, Diagnosis: &d, FromHTTPStatus: true}
	r.summary.Count(rec)
	if err := r.p.WatchEvent(rec); err != nil {
		return false
	}
	r.rvErr = &rec
	return true
}

// warnIfAhead compares an exact start RV with the server's current RV (one
// metadata list of one item): the server holds a watch from the future
// silently, which looks exactly like a quiet collection.
func (r *watchRun) warnIfAhead(ctx context.Context, start string) {
	// Advisory: bounded, so that a server that cannot reach etcd (where a
	// consistent list waits) does not hold up the watch itself.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cur, _, err := listing.CurrentRV(ctx, r.client, r.target, listing.CurrentOptions{})
	if err != nil {
		r.p.Warnf("cannot read the current RV to check --rv %s against it: %s", start, text.OneLine(err.Error()))
		return
	}
	n, ok1 := rv.Parse(start)
	c, ok2 := rv.Parse(cur)
	if !ok1 || !ok2 || n <= c {
		return
	}
	r.p.Warnf("--rv %s is %d ahead of the server's current RV %s: the API server will hold this watch silently (no event, no error, seen on v1.37.2) until it reaches %s. Such an RV usually comes from another API server, another cluster, or from before an etcd restore: list again (--rv list) for a real starting point", start, n-c, cur, start)
}

func (r *watchRun) onEvent(ev watchstream.Event, obs follow.Observation) error {
	rec := render.NewWatchEventRecord(ev, obs, r.start)
	switch ev.Type {
	case watchstream.EventBookmark:
		if !rec.InitialEventsEnd && !r.o.Bookmarks {
			return nil // requested only to keep --follow's RV fresh: neither shown nor counted
		}
	case watchstream.EventDeleted:
		if r.o.ExplainDeletes {
			rec.DeleteCause = r.explainDelete(ev.Object)
		}
	case watchstream.EventError:
		d := diagnose.FromStatus(*ev.Status, diagnose.Context{Operation: diagnose.OpWatch, RequestedResourceVersion: r.session.Stats().LastRV})
		rec.Diagnosis = &d
		if d.IsRVProblem() && !r.o.Follow && diagnose.ErrorEndsStream(*ev.Status) {
			r.rvErr = &rec
		}
	}
	r.summary.Count(rec)
	if err := r.p.WatchEvent(rec); err != nil {
		return fmt.Errorf("%w: %w", errWrite, err)
	}
	r.shown++
	if r.o.Until != "" && ev.Type == r.o.Until {
		return &follow.Stop{Reason: "until"}
	}
	if r.o.MaxEvents > 0 && r.shown >= r.o.MaxEvents {
		return &follow.Stop{Reason: "max-events"}
	}
	return nil
}

// explainDelete asks why a DELETED arrived (one GET, bounded by 10 s and by
// the run's context, so Ctrl-C still ends the run at once).
func (r *watchRun) explainDelete(m apiclient.ItemMeta) string {
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	cause, err := follow.DeleteCause(ctx, r.client, r.target, m)
	if err != nil {
		r.p.Warnf("--explain-deletes: cannot GET %s/%s: %s", m.Namespace, m.Name, text.OneLine(err.Error()))
	}
	return cause
}

func (r *watchRun) onNotice(n follow.Notice) {
	var d *diagnose.Diagnosis
	if n.Kind == follow.NoticeListed {
		r.start = n.ListResourceVersion
		r.summary.StartResourceVersion = r.start
	}
	if n.Kind == follow.NoticeRelist && n.Err != nil {
		dd := diagnose.FromError(n.Err, diagnose.Context{Operation: diagnose.OpWatch, RequestedResourceVersion: n.FromResourceVersion})
		d = &dd
	}
	if err := r.p.WatchNotice(render.NewWatchNoticeRecord(n, d)); err != nil && !errors.Is(err, context.Canceled) {
		r.p.Warnf("cannot write: %v", err)
	}
}
