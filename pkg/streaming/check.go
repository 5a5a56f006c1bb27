// Package streaming checks whether a resource really serves streaming lists
// (WatchList: a watch with sendInitialEvents=true), the way every informer
// built with client-go >= 1.35 asks for its initial state, and what such an
// informer does with the answer: work, fall back to list+watch, or hang.
package streaming

import (
	"context"
	"errors"
	"io"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// Status is what the server did with the streaming list.
type Status string

// Statuses, from best to worst.
const (
	// StatusCorrect: the initial objects, then the initial-events-end
	// bookmark at an RV not older than a consistent list's, with as many
	// objects as a list at that RV.
	StatusCorrect Status = "correct"
	// StatusUnverified: the bookmark arrived but the count could not be
	// checked (the list was refused or failed).
	StatusUnverified Status = "unverified"
	// StatusIncorrect: the bookmark arrived, but the count or its RV is wrong.
	StatusIncorrect Status = "incorrect"
	// StatusRefused: the server answered the request with an error status.
	StatusRefused Status = "refused"
	// StatusBroken: no initial-events-end bookmark within the deadline, or
	// the stream ended without one.
	StatusBroken Status = "broken"
	// StatusError: the check itself could not run (no connection, budget).
	StatusError Status = "error"
)

// Informer is what a client-go >= 1.35 Reflector (WatchListClient on by
// default) does on this answer; see informer.go for the rules.
type Informer string

// Informer outcomes.
const (
	InformerWorks     Informer = "works"
	InformerFallsBack Informer = "falls-back"
	InformerHangs     Informer = "hangs"
	// InformerRetries: a 429 (or 410/TooLarge) on the streaming watch is
	// retried, with backoff, as a streaming watch again: no fallback.
	InformerRetries Informer = "retries"
	InformerUnknown Informer = "unknown"
)

// Options bound one check.
type Options struct {
	// Deadline is how long the stream may take to send the bookmark.
	Deadline time.Duration
	// Budget gives each request its token (the list, the watch, and the
	// exact list only when the counts differ), taken by the sender.
	Budget *apiclient.Budget
}

// Result is the stable schema of one resource's check (a row of
// "streaming -o json|yaml").
type Result struct {
	Resource     string `json:"resource"`
	GroupVersion string `json:"groupVersion"`
	Namespace    string `json:"namespace"`
	// Namespaced: the resource has namespaces ("" above is then -A).
	Namespaced bool     `json:"-"`
	Status     Status   `json:"status"`
	Informer   Informer `json:"informer"`
	// InitialObjects counts the ADDED events before the bookmark (or before
	// the deadline for a broken stream).
	InitialObjects int `json:"initialObjects"`
	// ListCount is the item count of the consistent list read first, and
	// ListResourceVersion its RV.
	ListCount           *int   `json:"listCount,omitempty"`
	ListResourceVersion string `json:"listResourceVersion,omitempty"`
	// ExactCount is the item count of a list at exactly the bookmark's RV,
	// read only when the bookmark's RV differs from the list's and the
	// counts differ (writes in between).
	ExactCount              *int   `json:"exactCount,omitempty"`
	BookmarkResourceVersion string `json:"bookmarkResourceVersion,omitempty"`
	BookmarkReceived        bool   `json:"bookmarkReceived"`
	// BookmarkMillis is the time from sending the watch to the bookmark;
	// FirstEventMillis to the first event.
	BookmarkMillis   float64 `json:"bookmarkMs,omitempty"`
	FirstEventMillis float64 `json:"firstEventMs,omitempty"`
	ObjectsPerSecond float64 `json:"objectsPerSecond,omitempty"`
	// StreamEnded: the server closed the stream before the bookmark; its
	// time is StreamMillis.
	StreamEnded  bool    `json:"streamEnded,omitempty"`
	StreamMillis float64 `json:"streamMs"`
	// Code, Reason and Message are the server's refusal (HTTP status or
	// the Status of an ERROR event).
	Code     int32    `json:"code,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Message  string   `json:"message,omitempty"`
	Problems []string `json:"problems,omitempty"`
	// CountUnchecked: the last problem says the count could not be
	// checked (the list failed, or the budget ran out), so the status is
	// unverified rather than incorrect.
	CountUnchecked bool `json:"-"`
	// ChangesBeforeEnd counts MODIFIED and DELETED events before the
	// bookmark (allowed, but not what the API server itself sends).
	ChangesBeforeEnd int `json:"changesBeforeEnd,omitempty"`
	// Explanation says, in one sentence, why the informer does what it does.
	Explanation string `json:"explanation"`
	Requests    int    `json:"requests"`
	Error       string `json:"error,omitempty"`
	// Err is the error of the request that failed (the watch's refusal, or
	// what stopped the check), for the one classifier and the exit code.
	Err error `json:"-"`
}

// RequestFailure is the failure of the check's own requests, as the one
// classifier (diagnose.ClassifyFailure) names it: rejected credentials,
// RBAC, throttling, no connection, TLS, no answer. Such an answer says
// nothing about streaming lists: it is that failure, exit code and all.
// FailureNone when the server answered the streaming list, whatever it
// answered (a refusal such as 400 or 422 is an answer).
func (r Result) RequestFailure() diagnose.Failure {
	switch f := diagnose.ClassifyFailure(r.Err); f {
	case diagnose.FailureUnauthorized, diagnose.FailureForbidden, diagnose.FailureThrottled,
		diagnose.FailureUnreachable, diagnose.FailureTLS, diagnose.FailureNoAnswer, diagnose.FailureConnectionBroken,
		diagnose.FailureUnbounded:
		return f
	}
	return diagnose.FailureNone
}

// Check runs the check on one collection: one consistent list (to count),
// one streaming watch closed as soon as the verdict is known, and one
// exact list only when the counts must be compared at the bookmark's RV.
func Check(ctx context.Context, c *apiclient.Client, t apiclient.Target, o Options) Result {
	r := Result{Resource: t.Resource.Name(), GroupVersion: t.Resource.GVR.GroupVersion().String(), Namespace: t.Namespace, Namespaced: t.Resource.Namespaced, Informer: InformerUnknown}
	list, listErr := listing.List(ctx, c, t, listing.PageOptions{Budget: o.Budget})
	if !apiclient.NotSent(listErr) {
		r.Requests++
	}
	if errors.Is(listErr, apiclient.ErrBudgetExhausted) || ctx.Err() != nil {
		return failed(r, listErr)
	}
	if list != nil {
		n := len(list.Items)
		r.ListCount, r.ListResourceVersion = &n, list.ResourceVersion
	}
	if err := readStream(ctx, c, t, o, &r); err != nil {
		return failed(r, err)
	}
	if r.BookmarkReceived {
		compare(ctx, c, t, o, &r, listErr)
	}
	Judge(&r)
	return r
}

func failed(r Result, err error) Result {
	r.Status, r.Error, r.Err = StatusError, err.Error(), err
	Judge(&r)
	return r
}

// readStream opens the streaming watch and reads it until the bookmark, an
// ERROR event, the end of the stream or the deadline, then closes it.
func readStream(ctx context.Context, c *apiclient.Client, t apiclient.Target, o Options, r *Result) error {
	ctx, cancel := context.WithTimeout(ctx, o.Deadline)
	defer cancel()
	start := time.Now()
	s, err := watchstream.Open(ctx, c, t, watchstream.Options{SendInitialEvents: true, Budget: o.Budget})
	if apiclient.NotSent(err) {
		return err
	}
	r.Requests++
	if err != nil {
		r.StreamMillis = ms(time.Since(start))
		refusedOrError(r, err, ctx)
		return nil
	}
	defer s.Close()
	for {
		e, err := s.Next()
		if err != nil {
			r.StreamMillis = ms(time.Since(start))
			switch {
			case ctx.Err() == context.DeadlineExceeded:
				// The deadline closed the stream under Next: a server that
				// holds the watch open without the bookmark.
			case errors.Is(err, io.EOF):
				r.StreamEnded = true
			default:
				r.Error, r.Err = err.Error(), err
			}
			return nil
		}
		if r.FirstEventMillis == 0 {
			r.FirstEventMillis = ms(e.Received.Sub(start))
		}
		switch {
		case e.Type == watchstream.EventError:
			r.StreamMillis = ms(time.Since(start))
			if e.Status != nil {
				r.Code, r.Reason, r.Message = e.Status.Code, string(e.Status.Reason), e.Status.Message
				r.Err = &apierrors.StatusError{ErrStatus: *e.Status}
			}
			return nil
		case e.IsInitialEventsEnd():
			d := e.Received.Sub(start)
			r.BookmarkReceived, r.BookmarkResourceVersion = true, e.Object.ResourceVersion
			r.BookmarkMillis, r.StreamMillis = ms(d), ms(d)
			if d > 0 {
				r.ObjectsPerSecond = float64(r.InitialObjects) / d.Seconds()
			}
			return nil
		case e.Type == watchstream.EventAdded:
			r.InitialObjects++
		case e.Type == watchstream.EventBookmark:
			// An ordinary progress bookmark: the stream is alive, go on.
		default:
			// MODIFIED or DELETED before the end: the server mixes changes
			// into the initial state; client-go accepts it, so count it only.
			r.ChangesBeforeEnd++
		}
	}
}

// refusedOrError records a watch that did not open.
func refusedOrError(r *Result, err error, ctx context.Context) {
	if st, ok := diagnose.StatusOf(err); ok {
		r.Code, r.Reason, r.Message, r.Err = st.Code, string(st.Reason), st.Message, err
		return
	}
	if ctx.Err() == context.DeadlineExceeded {
		// No response headers within the deadline: held, never answered.
		return
	}
	r.Error, r.Err = err.Error(), err
}

// compare checks the count and the bookmark's RV against the list.
func compare(ctx context.Context, c *apiclient.Client, t apiclient.Target, o Options, r *Result, listErr error) {
	if r.ListCount == nil {
		r.Problems = append(r.Problems, "the count was not checked: the list failed: "+listErr.Error())
		r.CountUnchecked = true
		return
	}
	lrv, lok := rv.Parse(r.ListResourceVersion)
	brv, bok := rv.Parse(r.BookmarkResourceVersion)
	if lok && bok && brv < lrv {
		r.Problems = append(r.Problems, "the bookmark's RV "+r.BookmarkResourceVersion+" is older than the consistent list's "+r.ListResourceVersion+" (sent before it): the stream is not a consistent read")
	}
	if r.InitialObjects == *r.ListCount {
		return
	}
	if r.BookmarkResourceVersion == r.ListResourceVersion || !bok {
		r.Problems = append(r.Problems, countProblem(r.InitialObjects, *r.ListCount, "a list at the same RV "+r.ListResourceVersion))
		return
	}
	// Writes between the list and the watch: count at the bookmark's RV.
	p, err := listing.List(ctx, c, t, listing.PageOptions{ResourceVersion: r.BookmarkResourceVersion, ResourceVersionMatch: "Exact", Budget: o.Budget})
	if apiclient.NotSent(err) {
		r.Problems = append(r.Problems, "the count was not checked at the bookmark's RV: "+err.Error())
		r.CountUnchecked = true
		return
	}
	r.Requests++
	if err != nil {
		r.Problems = append(r.Problems, "the count was not checked at the bookmark's RV "+r.BookmarkResourceVersion+": "+text.OneLine(err.Error()))
		r.CountUnchecked = true
		return
	}
	n := len(p.Items)
	r.ExactCount = &n
	if n != r.InitialObjects {
		r.Problems = append(r.Problems, countProblem(r.InitialObjects, n, "a list at exactly the bookmark's RV "+r.BookmarkResourceVersion))
	}
}

func countProblem(streamed, listed int, what string) string {
	return "the stream sent " + strconv.Itoa(streamed) + " initial objects, " + what + " has " + strconv.Itoa(listed)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
