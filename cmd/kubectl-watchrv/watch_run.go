package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// watchRun is the state of one "watch" run: what is shown and counted.
type watchRun struct {
	ctx context.Context
	o   *WatchOptions
	// notShown is the last bookmark counted as not shown: a change that
	// goes below it shows it first (showBelowBookmark).
	notShown *render.WatchEventRecord
	p        *render.Printer
	client   *apiclient.Client
	target   apiclient.Target
	session  *follow.Session
	summary  *render.WatchSummary
	server   *serverinfo.Info // read only when a text or a rule needs it
	start    string           // the start RV events are related to
	shown    int
}

// Run watches and reports. --timeout bounds the whole run (discovery, the
// checks before the watch, the watch), and holds while a request waits for
// credentials or a connection: client-go runs an exec credential plugin
// without the request's context, so each step runs aside (boundedBy).
func (o *WatchOptions) Run(cmd *cobra.Command) error {
	ctx, cancel := cmd.Context(), context.CancelFunc(func() {})
	if o.Timeout > 0 {
		ctx, cancel = apiclient.WithNamedBound(ctx, o.Timeout, "--timeout")
	}
	defer cancel()
	// The credential plugin's wait ends with the run's time too.
	o.runCtx = ctx
	began := time.Now()
	verbs := []string{"watch"}
	if o.RV == rvList || o.Follow {
		verbs = append(verbs, "list")
	}
	res, err := boundedBy(ctx, func() (apiclient.Resource, error) { return o.resolveResource(ctx, o.Resource, verbs...) })
	if err != nil {
		err = o.beforeWatchError(ctx, err, "reading discovery for "+text.Echo(o.Resource), "watch", o.Resource)
		if code := exitCode(err); code == ExitUsage || code == ExitNotFound {
			return err // bad input: the line says it all, as kubectl's
		}
		// The server failed before the watch (unreachable, no answer,
		// a 403 of discovery): the run still ends with its summary
		// (fresh user try 18: nothing on stdout, no failureStreak).
		r := &watchRun{ctx: ctx, o: o, p: o.Printer(o.Output)}
		r.session = &follow.Session{Options: o.watchOptions(), ListFirst: o.RV == rvList, Follow: o.Follow}
		return r.endedBeforeWatch(began, err)
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	t, err := o.targetOf(res, o.AllNamespaces)
	if err != nil {
		return err
	}
	t.LabelSelector, t.FieldSelector = o.LabelSelector, o.fieldSelector()
	r := &watchRun{ctx: ctx, o: o, p: o.Printer(o.Output), client: client, target: t}
	r.p.ObjectsOf(res)
	wo := o.watchOptions()
	r.session = &follow.Session{
		Client: client, Target: t, Options: wo, ListFirst: o.RV == rvList, Follow: o.Follow,
		StallTimeout: o.StallTimeout, OnEvent: r.onEvent, OnNotice: r.onNotice, CredentialPlugin: o.credentialPlugin(),
		OnOpen: func() { _ = r.p.WatchOpened() }, // a write error is the next line's
	}
	if err := r.beforeWatch(wo); err != nil {
		return r.endedBeforeWatch(began, o.beforeWatchError(ctx, err, "checking the server before the watch", "watch", res.Name()))
	}
	if !r.p.Machine() {
		if o.RV == rvList {
			r.p.Notef("listing %s, then watching the changes after the List's RV", r.session.ListURL())
		} else {
			r.p.Notef("watching %s (%s)", apiclient.URL(t.CollectionPath(), wo.Query(t)), o.describeStart(r.server))
		}
	}
	r.summary = render.NewWatchSummary(r.start)
	r.summary.Server = r.server
	if o.Verbose {
		r.session.Trace = r.p.Tracef
	}
	if err := r.p.WatchHeader(); err != nil {
		return err
	}
	// The summary's time is the session's, from its first request: the
	// checks before it (discovery, the facts, the --rv check read and its
	// retry waits) are the plugin's, never the stream's (adversary try 28
	// F9: "the server ended the stream after 2.056s" of a stream that
	// lasted ms after 2 s of the check read's waits).
	sessionBegan := time.Now()
	serr := r.session.Run(ctx)
	if serr != nil && errors.Is(serr, errWrite) {
		return serr
	}
	if serr != nil && !r.showHTTPStatus(serr) {
		// A relist that failed ends the run: the watch's own answer it
		// was for has its row, as without --follow (fresh user try 31
		// F3: nothing said it, the RELIST line that names it never came).
		var list *follow.ListStepError
		if errors.As(serr, &list) && list.Cause != nil && apiclient.AnsweredVerb(list.Cause) == "watch" {
			r.showHTTPStatus(list.Cause)
		}
	}
	// Every run ends with its summary, one refused before any stream
	// (403, 401, TLS, a bad selector) too: -o json's last record and its
	// failureStreak are there whenever the exit is not 0 (fresh user try
	// 16: a 403 printed the header alone, and no JSON at all).
	streak := r.session.Streak()
	if r.session.End() == follow.EndInterrupted {
		streak = nil
	}
	r.summary.SetSession(r.session.Stats(), r.wordedStreak(streak))
	r.summary.DurationSeconds = time.Since(sessionBegan).Seconds()
	r.summary.StartResourceVersion = r.start
	r.summary.Ended = string(r.session.End())
	if err := r.p.WatchSummary(r.summary); err != nil {
		return fmt.Errorf("%w: %w", errWrite, err)
	}
	if r.session.End() == follow.EndStallTimeout {
		r.p.Notef("%s: %s", r.session.EndReason(), r.stallAdvice())
	}
	outcome := r.exit(streak, serr)
	var empty *follow.EmptyStreamError
	if st := r.session.Stats(); st.ContractBreaches > 0 && r.session.End() != follow.EndInterrupted && (outcome == nil || errors.As(outcome, &empty) || diagnose.BrokeContract(outcome)) {
		// One rule with list: an answer that broke the contract fails,
		// and a stream that brought only such events ended for that. When
		// a later answer broke a contract too (the relist after a state
		// end that broke it), the line names the first breach: the
		// stream's, which the relist followed.
		return r.o.requestError(&diagnose.ContractError{Contract: "Watch", Breach: fmt.Sprintf("%s did (the first: %s)", text.Count(st.ContractBreaches, "event"), st.FirstBreach)}, r.o.verbs(), r.target.Resource.Name())
	}
	return outcome
}

// redactedStreak is st with its error's text passed through the one
// redaction of kubeconfig secrets, as the error line's: the summary and
// -o json quote it (a token as a URL's user is in client-go's URL).
func (o *RootOptions) redactedStreak(st *follow.Streak) *follow.Streak {
	if st == nil || st.Err == nil {
		return st
	}
	c := *st
	c.Err = redacted{st.Err, o.redactKubeconfig}
	return &c
}

// failureOf is err's class for a summary; an error the plugin worded
// with its exit code alone (the run's time ran out before the watch) is
// named by that code, never "Other" with exit 4 (adversary try 18).
func failureOf(err error) diagnose.Failure {
	f := diagnose.ClassifyFailure(err)
	if f == diagnose.FailureOther && exitCode(err) == ExitUnreachable {
		return diagnose.FailureNoAnswer
	}
	return f
}

// endedBeforeWatch ends a run whose checks before the watch failed (a
// /version that hung past --timeout): with its summary too, as every run
// (adversary try 17: stdout empty, no failureStreak in -o json), then err.
func (r *watchRun) endedBeforeWatch(began time.Time, err error) error {
	if errors.Is(err, errWrite) {
		return err
	}
	if wo := r.session.Options; r.start == "" && wo.RVSet && wo.ResourceVersion != "0" && !r.session.ListFirst {
		r.start = wo.ResourceVersion
	}
	st := r.session.Stats()
	if r.start != "" && !r.session.ListFirst {
		// The start RV (--rv N) stays where a next watch may start.
		st.ResumeRV, st.ResumeFrom, st.NoResume = r.start, follow.ResumeFromStart, ""
	} else if r.session.ListFirst {
		st.ResumeRV, st.ResumeFrom, st.NoResume = "", follow.ResumeFromNone, follow.NoResumeListIncomplete
	} else {
		st.ResumeRV, st.ResumeFrom, st.NoResume = "", follow.ResumeFromNone, follow.NoResumeNothingAnswered
	}
	streak, ended := &follow.Streak{Err: err, Failure: failureOf(err), Attempts: 1, Since: began}, follow.EndError
	if apiclient.Cut(r.ctx) {
		// A check the signal cut failed with the cut's error, which says
		// nothing of the server: no failure (adversary try 23 F6: "Failed:
		// Other: context canceled" of the facts' read).
		streak, ended = nil, follow.EndInterrupted
	}
	r.summary = render.NewWatchSummary(r.start)
	r.summary.Server = r.server
	r.summary.SetSession(st, r.o.redactedStreak(streak))
	r.summary.DurationSeconds = time.Since(began).Seconds()
	r.summary.StartResourceVersion = r.start
	r.summary.Ended = string(ended)
	if werr := r.p.WatchSummary(r.summary); werr != nil {
		return fmt.Errorf("%w: %w", errWrite, werr)
	}
	return err
}

// showHTTPStatus shows a 410 or a 504 that answered the watch request
// itself (no stream) with its diagnosis, as an ERROR event's is shown: the
// 410 comes in both forms (a client must handle both), and -o json
// carries its diagnosis (fromHTTPStatus: true). It is the request's
// answer, no event of a stream: not counted as one (adversary try 27 F4:
// "Events: 1 (ERROR 1)" beside "Session: 0 stream(s)"). Only a 410 or a
// 504: the HTTP status wins, so a 429 (the watch cache's lagging answer
// says "Too large resource version") is throttling, said by the error
// line alone, whatever its body.
func (r *watchRun) showHTTPStatus(serr error) bool {
	st, ok := diagnose.StatusOf(serr)
	var list *follow.ListStepError
	if !ok || errors.As(serr, &list) || (st.Code != http.StatusGone && st.Code != http.StatusGatewayTimeout) {
		return false // a list's answer is no event of a watch
	}
	_, ctx := r.answerContext(serr)
	d := diagnose.FromError(serr, ctx)
	if !d.IsRVProblem() {
		return false
	}
	at, ok := apiclient.AnsweredAt(serr)
	if !ok {
		at = time.Now()
	}
	rec := render.WatchEventRecord{Record: render.RecordEvent, Time: at.UTC().Format(time.RFC3339Nano), Type: watchstream.EventError, Status: &diagnose.SentStatus{Status: st, CodeSent: st.Code != 0}, Diagnosis: &d, FromHTTPStatus: true}
	return r.p.WatchEvent(rec) == nil
}

func (r *watchRun) onEvent(ev watchstream.Event, obs follow.Observation) error {
	rec := render.NewWatchEventRecord(ev, obs, r.start)
	switch ev.Type {
	case watchstream.EventBookmark:
		// Every bookmark received is accounted for: the contract floors
		// the changes after it and it may be the resume point (adversary
		// try 21 F1: "not after RV 200 (the bookmark before it)" beside
		// "bookmarks: 0"). One asked for only to keep the resume point
		// fresh (--follow, a streaming list) is counted as not shown; one
		// the watch never asked for is shown, named as unasked.
		switch {
		case rec.InitialEventsEnd || r.o.Bookmarks || rec.ContractBreach != "":
			// The state's end, usable or not, and a bookmark that broke
			// the contract are always shown: the breach is said on its
			// line (adversary try 44 F2).
		case !r.o.Follow && !r.o.SendInitialEvents:
			rec.Unasked = true
		default:
			r.summary.CountNotShown(rec)
			r.notShown = &rec
			return nil
		}
	case watchstream.EventDeleted:
		if r.o.ExplainDeletes {
			rec.DeleteCause = r.explainDelete(ev.Object)
		}
	case watchstream.EventError:
		// Its diagnosis only where it is one: a status no RV error
		// explains is said by its own line, not with explain-error's
		// advice to paste the text (adversary try 45 F2).
		if d := diagnose.FromStatus(ev.Status.Status, r.sentContext()); d.Recognized() {
			rec.Diagnosis = &d
		}
	}
	if err := r.showBelowBookmark(rec, obs); err != nil {
		return err
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

// showBelowBookmark shows, above a change that went below a bookmark not
// shown, that bookmark: the breach names it, so its line is shown and
// counted as shown (adversary try 21 F1).
func (r *watchRun) showBelowBookmark(rec render.WatchEventRecord, obs follow.Observation) error {
	b := r.notShown
	if b == nil || obs.BelowBookmark == "" || b.ResourceVersion != obs.BelowBookmark {
		return nil
	}
	r.notShown = nil
	r.summary.Unhide(*b)
	if err := r.p.WatchEvent(*b); err != nil {
		return fmt.Errorf("%w: %w", errWrite, err)
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
		r.p.Warnf("--explain-deletes: cannot GET %s/%s: %s", m.Namespace, m.Name, apiclient.FailureWords("get", r.target.Resource.Name()+" "+m.Name, err))
	}
	return cause
}

func (r *watchRun) onNotice(n follow.Notice) {
	// Its error's URL may hold a kubeconfig secret; its failure is said
	// with its status and request (noticeWords).
	n.Reason = r.o.redactKubeconfig(r.noticeWords(n.Reason, n.Err))
	var d *diagnose.Diagnosis
	if n.Kind == follow.NoticeListed {
		r.start = n.ListResourceVersion
		r.summary.StartResourceVersion = r.start
	}
	if n.Kind == follow.NoticeRelist && n.Err != nil {
		// Of the request that got the answer, never of the RV the
		// relist starts from (fresh user try 29 F2).
		_, ctx := r.answerContext(n.Err)
		dd := diagnose.FromError(n.Err, ctx)
		d = &dd
	}
	if err := r.p.WatchNotice(render.NewWatchNoticeRecord(n, d)); err != nil && !errors.Is(err, context.Canceled) {
		r.p.Warnf("cannot write: %v", err)
	}
}
