// Package streaming checks whether a resource really serves streaming lists
// (WatchList: a watch with sendInitialEvents=true), the way every informer
// built with client-go >= 1.35 asks for its initial state, and what such an
// informer does with the answer: work, fall back to list+watch, or hang.
package streaming

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/watchrv/kubectl-watchrv/internal/text"
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
	// Deadline is how long the stream may take to send the bookmark; each
	// list the check compares it with may take six times as long (a list
	// that never ends, a trickling proxy, would hold the check for ever).
	Deadline time.Duration
	// DeadlineName is how a request the deadline ends names it (the
	// flag that gave it; "" names it "the deadline").
	DeadlineName string
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
	// InitialObjects is how many objects a client-go informer's store holds
	// from the stream at the bookmark (or at the deadline, for a broken
	// stream): its ADDED and MODIFIED events less its DELETED ones, by
	// namespace/name (Store). AddedEvents counts the ADDED events.
	InitialObjects int `json:"initialObjects"`
	AddedEvents    int `json:"addedEvents"`
	// RepeatedAdds counts ADDED events of an object already sent, and
	// DeletesOfUnsent DELETED events of an object the store did not hold:
	// client-go takes both silently; an API server sends neither.
	RepeatedAdds    int `json:"repeatedAdds,omitempty"`
	DeletesOfUnsent int `json:"deletesOfUnsent,omitempty"`
	// ListCount is the item count of the consistent list read first, and
	// ListResourceVersion its RV.
	ListCount           *int   `json:"listCount,omitempty"`
	ListResourceVersion string `json:"listResourceVersion,omitempty"`
	// ExactCount is the item count of a list at exactly the bookmark's RV,
	// read only when the bookmark's RV differs from the list's and the
	// store differs from the list (writes in between).
	ExactCount *int `json:"exactCount,omitempty"`
	// Difference is how the informer's store differs from the list it was
	// compared with last (nil when it matches, or was not compared).
	Difference              *StateDifference `json:"difference,omitempty"`
	BookmarkResourceVersion string           `json:"bookmarkResourceVersion,omitempty"`
	BookmarkReceived        bool             `json:"bookmarkReceived"`
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
	// ListError is why the consistent list read first failed: the state
	// was then not compared, whatever the stream did (shown in the NOTE
	// column, never a silent "-"; fresh user try 20 #1).
	ListError string `json:"listError,omitempty"`
	// ListTimedOut is the bound that ended that list when it got no
	// answer in time ("" otherwise): the note names its flag.
	ListTimedOut ListTimeout `json:"-"`
	// ChangesBeforeEnd counts MODIFIED and DELETED events before the
	// bookmark (allowed, but not what the API server itself sends).
	ChangesBeforeEnd int `json:"changesBeforeEnd,omitempty"`
	// stall is what a stream held open without the bookmark had sent
	// when the deadline closed it (judgeCut): the start of Explanation.
	stall string
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
		diagnose.FailureUnbounded, diagnose.FailureCredentials:
		return f
	}
	return diagnose.FailureNone
}

// Check runs the check on one collection: one consistent list (to compare
// with), one streaming watch closed as soon as the verdict is known, and
// one exact list only when the store must be compared at the bookmark's RV.
//
// Its Requests are every request the check sent, retries included, as the
// ledger counts them (apiclient.RequestTally): the rows add up to the
// run's total, and net/http's own resends are said apart (adversary try
// 35 F1).
func Check(ctx context.Context, c *apiclient.Client, t apiclient.Target, o Options) Result {
	ctx, tally := apiclient.WithRequestTally(ctx)
	r := check(ctx, c, t, o)
	r.Requests = tally.Requests()
	return r
}

func check(ctx context.Context, c *apiclient.Client, t apiclient.Target, o Options) Result {
	r := Result{Resource: t.Resource.Name(), GroupVersion: t.Resource.GVR.GroupVersion().String(), Namespace: t.Namespace, Namespaced: t.Resource.Namespaced, Informer: InformerUnknown}
	list, listErr := listWithin(ctx, c, t, o, listing.PageOptions{Budget: o.Budget})
	if !apiclient.NotSent(listErr) {
		r.Requests++
	}
	if errors.Is(listErr, apiclient.ErrBudgetExhausted) || ctx.Err() != nil {
		// Interrupted after the list answered: the interruption is what
		// stopped the check.
		return failed(r, cmp.Or(listErr, ctx.Err()))
	}
	if listErr != nil {
		// Said as every line says an answer: who answered which request
		// with what status (adversary try 34 F3: "the list failed: slow"
		// of a 429).
		r.ListError = diagnose.WithoutLibraryWords(apiclient.FailureWords("list", r.Resource, listErr))
		r.ListTimedOut = listTimeoutOf(listErr)
	}
	if listFailsTheCheck(listErr) {
		return failed(r, listErr)
	}
	var listItems []apiclient.ItemMeta
	if list != nil {
		n := len(list.Items)
		r.ListCount, r.ListResourceVersion, listItems = &n, list.ResourceVersion, list.Items
	}
	store := NewStore()
	if err := readStream(ctx, c, t, o, &r, store); err != nil {
		return failed(r, err)
	}
	if r.BookmarkReceived {
		if err := compare(ctx, c, t, o, &r, store, listItems); err != nil {
			return failed(r, err)
		}
	}
	Judge(&r)
	return r
}

// listFailsTheCheck: the list's failure is the check's answer, not a
// state left uncompared. A list past the plugin's bounds, or credentials
// that cannot be used, fail the stream the same way; an answer that broke
// the List contract was not the API server's (items the request excluded,
// an item newer than the list): it fails the run as it fails list, watch
// and probe, never "unverified" (fresh user try 20 #2).
func listFailsTheCheck(err error) bool {
	switch diagnose.ClassifyFailure(err) {
	case diagnose.FailureUnbounded, diagnose.FailureCredentials:
		return true
	}
	var breach *diagnose.ContractError
	return errors.As(err, &breach)
}

// listWithin is one list of the check, bounded by listDeadlineFactor times
// the deadline: past it the list is a failure that says so, never a wait
// for ever.
func listWithin(ctx context.Context, c *apiclient.Client, t apiclient.Target, o Options, po listing.PageOptions) (*listing.Page, error) {
	lctx, cancel := context.WithTimeout(ctx, listDeadlineFactor*o.Deadline)
	defer cancel()
	start := time.Now()
	p, err := listing.List(lctx, c, t, po)
	if err != nil && ctx.Err() == nil && lctx.Err() == context.DeadlineExceeded {
		return p, &ListDeadlineError{Deadline: listDeadlineFactor * o.Deadline, After: time.Since(start).Round(time.Millisecond)}
	}
	return p, err
}

// listDeadlineFactor: a list may take longer than the stream's bookmark
// (the stream comes from the watch cache, a consistent list may read
// storage, and a big page takes its time), so it gets six deadlines: a
// minute at the default 10s.
const listDeadlineFactor = 6

func failed(r Result, err error) Result {
	if err == nil {
		// Never an error-less failure: a caller that has none says why.
		err = errors.New("the check stopped without an error")
	}
	r.Status, r.Error, r.Err = StatusError, err.Error(), err
	Judge(&r)
	return r
}

// maxStoredBeyondList bounds the store of a stream that never ends its
// initial events: at most this many objects more than the list held (or
// than this when the list failed), then the check stops reading.
const maxStoredBeyondList = 100000

// readStream opens the streaming watch and reads it into store until the
// bookmark, an ERROR event, the end of the stream or the deadline, then
// closes it.
func readStream(ctx context.Context, c *apiclient.Client, t apiclient.Target, o Options, r *Result, store *Store) error {
	ctx, cancel := apiclient.WithNamedBound(ctx, o.Deadline, cmp.Or(o.DeadlineName, "the deadline"))
	defer cancel()
	defer func() {
		r.InitialObjects, r.AddedEvents = store.Len(), store.Added
		r.RepeatedAdds, r.DeletesOfUnsent = store.Repeated, store.DeletedUnheld
	}()
	limit := maxStoredBeyondList
	if r.ListCount != nil {
		limit += *r.ListCount
	}
	// Timed from the send: the --qps pacing before it is left out
	// (apiclient.Stopwatch), as TO BOOKMARK and OBJ/S are the server's.
	ctx, sw := apiclient.StartStopwatch(ctx)
	wo := watchstream.Options{SendInitialEvents: true, Budget: o.Budget}
	s, err := watchstream.Open(ctx, c, t, wo)
	if apiclient.NotSent(err) {
		return err
	}
	r.Requests++
	if err != nil {
		r.StreamMillis = ms(sw.Elapsed())
		refusedOrError(r, err, ctx, o.Deadline)
		return nil
	}
	defer s.Close()
	consume(ctx, s, watchstream.NewContract(t, wo), sw, limit, o.Deadline, r, store)
	return nil
}

// consume reads the open stream into store until the bookmark, an ERROR
// event, the end of the stream, ctx's end, more than limit objects or an
// event that breaks the Watch contract (judged by contract, the one judge
// of a stream: an object the request excluded, a state newer than its
// end bookmark), timed by sw. A stream the deadline cut while it was
// still sending objects is no hang: its Err says how far it got.
func consume(ctx context.Context, s *watchstream.Stream, contract *watchstream.Contract, sw *apiclient.Stopwatch, limit int, deadline time.Duration, r *Result, store *Store) {
	var firstObject, lastObject, lastGrowth time.Time
	for {
		e, err := s.Next()
		if err != nil {
			r.StreamMillis = ms(sw.Elapsed())
			switch {
			case ctx.Err() == context.DeadlineExceeded:
				// The deadline closed the stream under Next: a server that
				// holds the watch open without the bookmark, unless it
				// was still sending the state (then the deadline cut it).
				judgeCut(r, cutStream{Objects: store.Len(), ListCount: r.ListCount, Changes: r.ChangesBeforeEnd,
					FirstObject: firstObject, LastObject: lastObject, LastGrowth: lastGrowth, At: time.Now(), Deadline: deadline})
			case errors.Is(err, io.EOF):
				r.StreamEnded = true
			default:
				r.Error, r.Err = diagnose.WithoutLibraryWords(err.Error()), err
			}
			return
		}
		if r.FirstEventMillis == 0 {
			r.FirstEventMillis = max(ms(sw.At(e.Received)), 0.001)
		}
		if breach := contract.Judge(e); breach != "" {
			// Not the API server's stream: the check fails with the
			// breach, as a list that broke the List contract fails it.
			r.StreamMillis = ms(sw.Elapsed())
			r.Err = &diagnose.ContractError{Contract: "Watch", Breach: breach}
			r.Error = r.Err.Error()
			return
		}
		switch {
		case e.Type == watchstream.EventError:
			r.StreamMillis = ms(sw.Elapsed())
			if e.Status != nil {
				r.Code, r.Reason, r.Message = e.Status.Code, string(e.Status.Reason), e.Status.Message
				r.Err = &apierrors.StatusError{ErrStatus: e.Status.Status}
				if e.Status.Code == 0 {
					// No code to judge a refusal by (none sent, or a 0
					// sent): the event is said as sent, its code never
					// dropped nor invented (diagnose.SentStatus).
					r.Error = e.Status.Said("the stream ended with an ERROR event", text.OneLine(e.Status.Message))
				}
			}
			return
		case e.IsInitialEventsEnd():
			d := sw.At(e.Received)
			r.BookmarkReceived, r.BookmarkResourceVersion = true, e.Object.ResourceVersion
			r.BookmarkMillis, r.StreamMillis = ms(d), ms(d)
			if d > 0 {
				r.ObjectsPerSecond = float64(store.Len()) / d.Seconds()
			}
			return
		case e.Type == watchstream.EventBookmark:
			// An ordinary progress bookmark: the stream is alive, go on.
		default:
			held := store.Len()
			store.Apply(e)
			if store.Len() > held {
				lastGrowth = e.Received
			}
			if firstObject.IsZero() {
				firstObject = e.Received
			}
			lastObject = e.Received
			if e.Type != watchstream.EventAdded {
				// MODIFIED or DELETED before the end: client-go applies them
				// to its store like any event; the API server sends none.
				r.ChangesBeforeEnd++
			}
			if store.Len() > limit {
				r.StreamMillis = ms(sw.Elapsed())
				r.Error = fmt.Sprintf("the stream sent more than %d distinct objects without the initial-events-end bookmark (%s): the check stopped reading it", limit, listHeld(r))
				return
			}
		}
	}
}

func listHeld(r *Result) string {
	if r.ListCount == nil {
		return "the list failed"
	}
	return "a consistent list held " + strconv.Itoa(*r.ListCount)
}

// refusedOrError records a watch that did not open: refused with a
// status, or failed. One whose answer had not begun when the deadline
// ended it was never answered: no answer, never a stream held open
// without the bookmark (WatchDeadlineError).
func refusedOrError(r *Result, err error, ctx context.Context, deadline time.Duration) {
	if st, ok := diagnose.StatusOf(err); ok {
		r.Code, r.Reason, r.Message, r.Err = st.Code, string(st.Reason), st.Message, err
		return
	}
	if ctx.Err() == context.DeadlineExceeded {
		err = &WatchDeadlineError{Resource: r.Resource, Deadline: deadline, Err: err}
	}
	r.Error, r.Err = diagnose.WithoutLibraryWords(err.Error()), err
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
