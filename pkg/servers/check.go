package servers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// Question is what explain-error --check asks about an error: its class,
// its kind and the RV it names.
type Question struct {
	Class diagnose.Class
	Kind  string
	RV    uint64
	// Current is the server's current RV, when known (0: not): a watch
	// asked is then read through every change up to it.
	Current uint64
	// Op is the request Repeat sends, in diagnose's words: OpWatch,
	// OpListExact or OpList (a list not older than RV). QuestionOf sets it
	// (RequestOf); everything Repeat and CheckAcross send and say follows
	// it.
	Op string
}

// QuestionOf is the question of a diagnosis about RV rv; ok is false when
// there is nothing to ask (no RV, RV 0, or neither Expired nor TooLarge).
func QuestionOf(d diagnose.Diagnosis, rv uint64) (Question, bool) {
	q := Question{Class: d.Class, Kind: d.Kind, RV: rv, Op: RequestOf(d)}
	return q, rv != 0 && (d.Class == diagnose.ClassExpired || d.Class == diagnose.ClassTooLarge)
}

// RequestOf is the one rule of which request --check repeats for a
// diagnosis: the request the error answered (its Operation: the text's
// URL, its wrapper, or --operation), whatever the kind. An exact list is
// asked again as an exact list (a watch that works proves nothing about
// it: another cache serves it), a continue as the exact list it reads, a
// watch or a streaming list as a watch, a list as a list not older than the
// RV (an Expired list as the exact list it was: no other list is refused as
// too old). Only where the request is unknown does the kind name it. A TooLarge
// is asked as a list not older than the RV unless it came from an exact
// list: a watch at a future RV is held, not refused.
func RequestOf(d diagnose.Diagnosis) string {
	op := d.Operation
	if op == "" {
		switch d.Kind {
		case diagnose.KindEtcdCompactedExactList, diagnose.KindWatchCacheSnapshot:
			op = diagnose.OpListExact
		case diagnose.KindContinueExpired, diagnose.KindContinueExpiredInconsistent:
			op = diagnose.OpListContinue
		}
	}
	switch {
	case op == diagnose.OpListExact || op == diagnose.OpListContinue:
		return diagnose.OpListExact
	case op == diagnose.OpList && d.Class == diagnose.ClassExpired:
		// A list answered 410 read at the exact RV: a list not older
		// than it is never refused as too old (the API server's legacy
		// rule: an RV with a limit, as client-go's pager sends, is exact).
		return diagnose.OpListExact
	case d.Class == diagnose.ClassTooLarge || op == diagnose.OpList:
		return diagnose.OpList
	}
	return diagnose.OpWatch
}

// exactList: Repeat sends a list at the exact RV.
func (q Question) exactList() bool { return q.Op == diagnose.OpListExact }

// watch: Repeat sends a watch from the RV.
func (q Question) watch() bool {
	return q.Op == diagnose.OpWatch || (q.Op == "" && q.Class == diagnose.ClassExpired)
}

// Repeated is one server's answer to the request an error came from,
// asked again once.
type Repeated struct {
	Tried *diagnose.Tried
	// Outcome is ok or expired when the server answered the question
	// (served the RV, or refused it as Expired); another outcome when the
	// request failed for a reason of its own (Err).
	Outcome     probe.Outcome
	OldestNamed uint64 // the oldest RV the watch cache named (a watch's 410)
	// Watch is the watch's own answer, when a watch was asked.
	Watch *probe.Try
	Err   error
}

// Repeat asks one server, once, the request the error came from, so that
// --check says what is true now rather than what is likely: for an
// Expired exact list that list again, for another Expired a watch from the
// RV (closed at its first answer), for TooLarge a list not older than it.
// An exact list is served by storage or the cache's snapshots, a watch by
// the watch cache: a watch that works proves nothing about the list (seen
// on v1.30 and v1.35). One request, whose sender takes its token from b.
// The same question for one server (the kubeconfig's) and for every server
// (CheckAcross). try bounds a watch's wait for its answer to begin
// (HeaderTimeout and HeaderBound; the zero value: probe's defaults).
func Repeat(ctx context.Context, c *apiclient.Client, t apiclient.Target, q Question, b *apiclient.Budget, try probe.TryOptions) Repeated {
	// A request with no answer (the budget refused it, or the run was
	// cut: apiclient.Unanswered) was not tried: no Tried, only its error.
	unanswered := func(err error) Repeated {
		return Repeated{Outcome: probe.OutcomeFatal, Err: err}
	}
	if q.watch() {
		// A watch counts as working only once it replayed every change up
		// to the current RV, or stayed silent for probe.ReachSilence: on
		// storage a 410 can come after a quarter second, and on kine a
		// lost change fails a watch that started (probe/reach.go).
		var r probe.Try
		try.Budget = b
		if q.Current > q.RV {
			r = probe.TryWatchThrough(ctx, c, t, q.RV, q.Current, try)
		} else {
			try.Wait = probe.ReachSilence
			r = probe.TryWatch(ctx, c, t, q.RV, try)
		}
		if err := r.Unanswered(); err != nil {
			return unanswered(err)
		}
		// Inconsistent: the one check of a 410's numbers (probe.Try), for
		// the one-server check and every --endpoints row alike.
		tr := &diagnose.Tried{Request: q.request(), Works: r.Outcome == probe.OutcomeOK, Refused: r.Outcome == probe.OutcomeExpired, Answer: r.Evidence, Inconsistent: r.Inconsistent}
		if r.Message != "" {
			tr.Answer += ": " + r.Message
		}
		brokenTry(tr, r.Err())
		if r.EndedAtOnce() {
			// An answer, not the request's failure (adversary try 52
			// F9: "error: --check: the stream ended before any event").
			tr.EndedAtOnce = true
			return Repeated{Tried: tr, Outcome: r.Outcome, Watch: &r}
		}
		return Repeated{Tried: tr, Outcome: r.Outcome, OldestNamed: r.OldestNamed, Watch: &r, Err: r.Err()}
	}
	po := listing.PageOptions{Limit: 1, ResourceVersion: fmt.Sprint(q.RV), ResourceVersionMatch: "NotOlderThan", Budget: b}
	if q.exactList() {
		po.ResourceVersionMatch = "Exact"
	}
	_, err := listing.List(ctx, c, t, po)
	if apiclient.Unanswered(ctx, err) {
		return unanswered(err)
	}
	rep := Repeated{Tried: &diagnose.Tried{Request: q.request(), Works: err == nil, Answer: "answered"}, Outcome: probe.OutcomeOK}
	if err != nil {
		rep.Tried.Answer = text.OneLine(err.Error())
		switch f := diagnose.ClassifyFailure(err); {
		case f == diagnose.FailureExpired && q.Class == diagnose.ClassExpired:
			rep.Outcome = probe.OutcomeExpired
		case f == diagnose.FailureTooLarge && q.Class == diagnose.ClassTooLarge:
			rep.Outcome = probe.OutcomeExpired // refused as the error did
		case q.Class == diagnose.ClassTooLarge && q.RV > q.Current && heldUnder(c, err, diagnose.HeldAnswerBound) && ctx.Err() == nil:
			// Held past a request time bound shorter than a watch cache's
			// hold of a list at an RV it has not reached: no answer, and
			// no failure of the check (fresh user try 41 F2: exit 4
			// "check that the cluster is up" of a healthy server). A
			// longer bound with no answer is no such hold: a failure
			// (adversary try 42 F5).
			rep.Outcome, rep.Tried.Held = probe.OutcomeTransient, true
		default:
			rep.Outcome, rep.Err = probe.OutcomeFatal, err
		}
		rep.Tried.Refused = rep.Outcome == probe.OutcomeExpired
		brokenTry(rep.Tried, err)
		if st, ok := diagnose.StatusOf(err); ok && rep.Tried.Refused {
			// The same rule as a watch's refusal (probe.Try): a refusal
			// whose numbers contradict the list asked confirms nothing.
			rep.Tried.Inconsistent = diagnose.FromStatus(st, diagnose.Context{Operation: q.operation(), RequestedResourceVersion: fmt.Sprint(q.RV)}).Inconsistent
		}
	}
	return rep
}

// brokenTry marks a request tried whose connection broke (its body cut
// mid-event, reset, lost: apiclient.BodyCutError) as broken, its answer
// the one wording of every cut body: no answer, so neither works nor is
// refused (adversary try 51 F1: a watch cut mid-event was "tried: a watch
// from RV 5 fails (the stream ended before any event)").
func brokenTry(tr *diagnose.Tried, err error) {
	var cut *apiclient.BodyCutError
	if !errors.As(err, &cut) {
		return
	}
	tr.Works, tr.Refused, tr.Broken, tr.Answer = false, false, true, text.OneLine(cut.Error())
}

// operation is the request Repeat sends, in diagnose's words.
func (q Question) operation() string {
	if q.exactList() {
		return diagnose.OpListExact
	}
	return diagnose.OpList
}

// request names the request Repeat sends.
func (q Question) request() string {
	switch {
	case q.watch():
		return fmt.Sprintf("a watch from RV %d", q.RV)
	case q.exactList():
		return fmt.Sprintf("an exact list at RV %d", q.RV)
	}
	return fmt.Sprintf("a list not older than RV %d", q.RV)
}

// heldUnder: c's request time bound (--request-timeout), under bound,
// ended a request of c before its answer: none had begun, a 504's status
// came and its body did not (the hold's own answer, cut), or the server's
// own timeout filter, which enforces the same bound (the request's
// timeout parameter), answered 504 "request did not complete within the
// allotted timeout" first.
func heldUnder(c *apiclient.Client, err error, bound time.Duration) bool {
	within := c.RequestTimeout()
	st, answered := diagnose.StatusOf(err)
	timedOut := answered && st.Code == http.StatusGatewayTimeout && (apiclient.StatusWithoutBody(err) || diagnose.FromStatus(st, diagnose.Context{}).Kind == diagnose.KindRequestTimeout)
	cut := apiclient.GaveNoAnswer(err) || timedOut
	return cut && within > 0 && within < bound
}
