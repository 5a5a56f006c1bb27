package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// watchRun is the state of one "watch" run: what is shown and counted.
type watchRun struct {
	o        *WatchOptions
	p        *render.Printer
	client   *probe.Client
	target   probe.Target
	session  *probe.WatchSession
	summary  *render.WatchSummary
	start    string // the start RV events are related to
	shown    int
	initial  int  // ADDED events before the initial-events-end bookmark
	initDone bool // the initial-events-end bookmark has arrived
	ended    string
	rvErr    *render.WatchEventRecord // the Expired/TooLarge that ended a watch without --follow
}

// Run watches and reports.
func (o *WatchOptions) Run(cmd *cobra.Command) error {
	ctx := cmd.Context()
	verbs := []string{"watch"}
	if o.RV == rvList || o.Follow {
		verbs = append(verbs, "list")
	}
	res, err := o.resolveResource(o.Resource, verbs...)
	if err != nil {
		return err
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	t := probe.Target{Resource: res, LabelSelector: o.LabelSelector, FieldSelector: o.fieldSelector()}
	if res.Namespaced && !o.AllNamespaces {
		t.Namespace = o.namespace
	}
	r := &watchRun{o: o, p: o.Printer(o.Output), client: client, target: t}
	wo := o.watchOptions()
	if wo.RVSet && wo.ResourceVersion != "0" {
		r.start = wo.ResourceVersion
		r.warnIfAhead(ctx, wo.ResourceVersion)
	}
	if !r.p.Machine() {
		if o.RV == rvList {
			r.p.Notef("listing %s, then watching the changes after the List's RV", t.CollectionPath())
		} else {
			r.p.Notef("watching %s (%s)", probe.URL(t.CollectionPath(), wo.Query(t)), o.describeStart())
		}
	}
	r.summary = render.NewWatchSummary(r.start)
	r.session = &probe.WatchSession{
		Client: client, Target: t, Options: wo, ListFirst: o.RV == rvList, Follow: o.Follow,
		StallTimeout: o.StallTimeout, OnEvent: r.onEvent, OnNotice: r.onNotice,
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
	switch {
	case r.ended != "":
	case ctx.Err() != nil:
		r.ended = "interrupted"
	case wctx.Err() != nil || (o.Timeout > 0 && time.Since(began) >= o.Timeout-time.Second && serr == nil):
		r.ended = "timeout"
	case serr != nil || r.rvErr != nil:
		r.ended = "error"
	default:
		r.ended = "stream-end"
	}
	if serr != nil {
		if st, ok := probe.StatusOf(serr); ok {
			// A 410 or 504 answering the request itself: shown like an ERROR event.
			d := diagnose.FromError(serr, diagnose.Context{Operation: diagnose.OpWatch, RequestedResourceVersion: r.session.Stats().LastRV})
			if d.IsRVProblem() {
				rec := render.WatchEventRecord{Record: render.RecordEvent, Time: time.Now().UTC().Format(time.RFC3339Nano), Type: probe.EventError, Status: &st, Diagnosis: &d, FromHTTPStatus: true}
				r.summary.Count(rec)
				if err := r.p.WatchEvent(rec); err != nil {
					return err
				}
				r.rvErr, serr = &rec, nil
			}
		}
	}
	if serr != nil && r.summary.Events == 0 && r.session.Stats().Streams == 0 {
		return o.requestError(serr, "watch", res.Name())
	}
	r.summary.SessionStats = r.session.Stats()
	r.summary.DurationSeconds = time.Since(began).Seconds()
	r.summary.StartResourceVersion = r.start
	r.summary.Ended = r.ended
	if err := r.p.WatchSummary(r.summary); err != nil {
		return err
	}
	if serr != nil {
		return o.requestError(fmt.Errorf("the watch stream broke: %w (--follow reconnects from the last RV, as an informer does)", serr), "watch", res.Name())
	}
	if r.rvErr != nil {
		d := r.rvErr.Diagnosis
		return withCode(ExitRVProblem, fmt.Errorf("the watch ended with %d %s: %s: %s", r.rvErr.Status.Code, r.rvErr.Status.Reason, d.Summary, d.Fix))
	}
	return nil
}

// warnIfAhead compares an exact start RV with the server's current RV (one
// metadata list of one item): the server holds a watch from the future
// silently, which looks exactly like a quiet collection.
func (r *watchRun) warnIfAhead(ctx context.Context, rv string) {
	cur, err := r.client.CurrentResourceVersion(ctx, r.target)
	if err != nil {
		r.p.Warnf("cannot read the current RV to check --rv %s against it: %s", rv, oneLine(err.Error()))
		return
	}
	n, ok1 := probe.ParseRV(rv)
	c, ok2 := probe.ParseRV(cur)
	if !ok1 || !ok2 || n <= c {
		return
	}
	r.p.Warnf("--rv %s is %d ahead of the server's current RV %s: the API server will hold this watch silently (no event, no error, seen on v1.37.2) until it reaches %s. Such an RV usually comes from another API server, another cluster, or from before an etcd restore: list again (--rv list) for a real starting point", rv, n-c, cur, rv)
}

func (r *watchRun) onEvent(ev probe.Event, obs probe.Observation) error {
	rec := render.NewWatchEventRecord(ev, obs, r.start)
	r.summary.Count(rec)
	switch ev.Type {
	case probe.EventAdded:
		if r.o.SendInitialEvents && !r.initDone {
			r.initial++
		}
	case probe.EventBookmark:
		if rec.InitialEventsEnd && !r.initDone {
			r.initDone = true
			n := r.initial
			rec.InitialObjects = &n
		} else if !r.o.Bookmarks {
			return nil // requested only to keep --follow's RV fresh
		}
	case probe.EventDeleted:
		if r.o.ExplainDeletes {
			rec.DeleteCause = r.explainDelete(ev.Object)
		}
	case probe.EventError:
		d := diagnose.FromStatus(*ev.Status, diagnose.Context{Operation: diagnose.OpWatch, RequestedResourceVersion: r.session.Stats().LastRV})
		rec.Diagnosis = &d
		if d.IsRVProblem() && !r.o.Follow {
			r.rvErr = &rec
		}
	}
	if err := r.p.WatchEvent(rec); err != nil {
		return err
	}
	r.shown++
	if r.o.Until != "" && ev.Type == r.o.Until {
		r.ended = "until"
		return probe.ErrStopWatch
	}
	if r.o.MaxEvents > 0 && r.shown >= r.o.MaxEvents {
		r.ended = "max-events"
		return probe.ErrStopWatch
	}
	return nil
}

// explainDelete checks with one GET whether a DELETED object still exists.
func (r *watchRun) explainDelete(m probe.ItemMeta) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := r.client.GetObjectMeta(ctx, r.target, m.Namespace, m.Name)
	switch {
	case err == nil && (got.UID == m.UID || m.UID == ""):
		return render.DeleteCauseLeftSelector
	case err == nil:
		return render.DeleteCauseRecreated
	case probe.ClassifyFailure(err) == probe.FailureNotFound:
		return render.DeleteCauseDeleted
	}
	r.p.Warnf("--explain-deletes: cannot GET %s/%s: %s", m.Namespace, m.Name, oneLine(err.Error()))
	return ""
}

func (r *watchRun) onNotice(n probe.Notice) {
	var d *diagnose.Diagnosis
	if n.Kind == probe.NoticeListed {
		r.start = n.ListResourceVersion
		r.summary.StartResourceVersion = r.start
	}
	if n.Kind == probe.NoticeRelist && n.Err != nil {
		dd := diagnose.FromError(n.Err, diagnose.Context{Operation: diagnose.OpWatch, RequestedResourceVersion: n.FromResourceVersion})
		d = &dd
	}
	if err := r.p.WatchNotice(render.NewWatchNoticeRecord(n, d)); err != nil && !errors.Is(err, context.Canceled) {
		r.p.Warnf("cannot write: %v", err)
	}
}
