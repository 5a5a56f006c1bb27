package streaming

import (
	"errors"
	"fmt"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// ListDeadlineError: a list of the check did not answer within the
// deadline.
type ListDeadlineError struct {
	Deadline, After time.Duration
}

func (e *ListDeadlineError) Error() string {
	return fmt.Sprintf("the list to compare the stream with was not read within %s, six times the deadline (stopped after %s)", e.Deadline, e.After)
}

// FailureClass: no answer in time.
func (e *ListDeadlineError) FailureClass() diagnose.Failure { return diagnose.FailureNoAnswer }

// WatchDeadlineError: the streaming watch's answer never began within the
// deadline (no response headers, or no connection). No stream existed, so
// nothing about streaming lists was seen: the check could not be made (no
// answer, exit 4), as every command reports a request never answered. It
// is never "hangs", which is what an informer does on a stream that was
// answered and then sent no initial-events-end bookmark (fresh user try
// 20 #1: a server that answered nothing was said to make informers hang).
//
// It is also a stream that was answered and still sending its initial
// state when the deadline ended it (Arriving): the stream did not hang,
// the deadline cut it, so the check could not be made either (adversary
// try 21 F3: 23 of a list's 31 objects at 2.3/s were "will hang", exit
// 1, on a server that syncs at 14s). Only a stream that went silent is
// "hangs" (cutShapes give the rule).
type WatchDeadlineError struct {
	Resource string
	Deadline time.Duration
	// Err is the request's own failure (an apiclient.DeadlineError): how
	// far it got. Nil when Arriving.
	Err error
	// Arriving is the state the stream was still sending at the deadline.
	Arriving *Arrival
}

// Arrival is how far a stream cut by the deadline had got: Objects in the
// informer's store, of ListCount (nil when the list failed), PerSecond
// since the first event, the last one LastAgo before the deadline.
type Arrival struct {
	Objects   int
	ListCount *int
	PerSecond float64
	LastAgo   time.Duration
}

func (e *WatchDeadlineError) Error() string {
	if a := e.Arriving; a != nil {
		received, need := text.Count(a.Objects, "object")+" received", ""
		switch {
		case a.ListCount != nil && a.Objects > *a.ListCount:
			// Still new objects past the list's count: the collection grew
			// after the list (adversary try 23 F1), so no end is foreseen.
			received = fmt.Sprintf("%s received, more than the list's %d (the collection grew after the list)", text.Count(a.Objects, "object"), *a.ListCount)
		case a.ListCount != nil:
			received = fmt.Sprintf("%s of the list's %d received", text.Count(a.Objects, "object"), *a.ListCount)
			if a.PerSecond > 0 && *a.ListCount > a.Objects {
				need = fmt.Sprintf("; at that rate the whole state takes about %s", time.Duration(float64(*a.ListCount)/a.PerSecond*float64(time.Second)).Round(time.Second))
			}
		}
		return fmt.Sprintf("the streaming watch of %s was still sending its initial state when the deadline (%s) ended it: %s, at %.1f objects/s, the last one %s before it: a live stream cut by the deadline (an informer waits for it up to the watch's 5-10 min)%s",
			e.Resource, e.Deadline, received, a.PerSecond, a.LastAgo.Round(time.Millisecond), need)
	}
	what := "it was sent and no response headers came"
	switch {
	case apiclient.BodyLate(e.Err):
		what = "its answer began, and the error it carried did not end in time"
	case apiclient.NoConnection(e.Err):
		what = "no connection to the server was made"
	}
	return fmt.Sprintf("no answer to the streaming watch of %s within the deadline (%s): %s", e.Resource, e.Deadline, what)
}

// FailureClass: no answer in time.
func (e *WatchDeadlineError) FailureClass() diagnose.Failure { return diagnose.FailureNoAnswer }

func (e *WatchDeadlineError) Unwrap() error { return e.Err }

// ListTimeout is what bounded a list of the check that got no answer in
// time, so that the plugin's voice (render) can name the knob that gives
// it more: the check's own bound (listDeadlineFactor deadlines) or the
// request's time bound.
type ListTimeout string

// List timeouts ("" for a list that answered, or failed otherwise).
const (
	ListTimeoutCheck   ListTimeout = "check"
	ListTimeoutRequest ListTimeout = "request"
)

// listTimeoutOf is the bound that ended err, a list's failure; "" when
// err is not a list that got no answer in time.
func listTimeoutOf(err error) ListTimeout {
	if diagnose.ClassifyFailure(err) != diagnose.FailureNoAnswer {
		return ""
	}
	var own *ListDeadlineError
	if errors.As(err, &own) {
		return ListTimeoutCheck
	}
	return ListTimeoutRequest
}
