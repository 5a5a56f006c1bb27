package follow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// ListIncompleteError says the watch's time (--timeout) ran out before
// its first list (ListFirst, --rv list) completed: no watch was started,
// so the run did not do what was asked, and it fails as a request without
// an answer in time does (diagnose.FailureNoAnswer).
type ListIncompleteError struct{ Err error }

func (e *ListIncompleteError) Error() string {
	if errors.Is(e.Err, context.DeadlineExceeded) {
		// The sentence says it: Go's "context deadline exceeded" adds
		// nothing (fresh user try 39 F2).
		return "the first list did not complete before the watch's time ran out, so no watch was started"
	}
	return fmt.Sprintf("the first list did not complete before the watch's time ran out, so no watch was started (%v)", e.Err)
}

// Timeout marks the error as a client-side timeout.
func (e *ListIncompleteError) Timeout() bool { return true }

func (e *ListIncompleteError) Unwrap() error { return e.Err }

// ListStepError is a failure of a list of the session (the first list of
// --rv list, or a relist): no watch request was sent for it, so it is
// told as the list's, never as a watch's (a 410 of an expired continue
// token was "the watch ended with 410 ... the watch asked for the events
// after RV 5").
type ListStepError struct {
	Err error
	// Cause is what the relist was for (the watch's Expired or TooLarge
	// answer), nil for the first list of --rv list.
	Cause error
}

func (e *ListStepError) Error() string { return e.Err.Error() }
func (e *ListStepError) Unwrap() error { return e.Err }

// StalledError says the server sent nothing for longer than StallTimeout,
// or that a watch request had no answer when the run's time ran out.
type StalledError struct {
	After   time.Duration
	Opening bool // no answer to the watch request itself
	// AtDeadline: the watch's own time (--timeout) ran out first.
	AtDeadline bool
	// Stage is how far an unanswered request got (Opening only).
	Stage OpenStage
	// Sent is how many times net/http sent it (Opening only;
	// apiclient.Sent.Again).
	Sent apiclient.Sent
	// CredentialPlugin is the kubeconfig's exec command, when it has one.
	CredentialPlugin string
	// Quiet: the stream was answered and then silent for After, which here
	// proves no hang (no bookmark was due in that time): a quiet collection.
	Quiet bool
	// Hint says why silence was not expected, for a stall that is a hang.
	Hint string
}

func (e *StalledError) Error() string {
	if e.Opening {
		within := fmt.Sprintf("within %s (--stall-timeout)", e.After)
		if e.AtDeadline {
			within = fmt.Sprintf("in the %s before the watch's time (--timeout) ran out", e.After)
			if e.After < fairWait {
				// Too little time to tell a hang from an answer on its
				// way: the run spent the rest before the request.
				return fmt.Sprintf("no answer to the watch request %s: too little of the watch's time was left when it was sent to tell a hung server from a slow one (the run spent the rest before it: discovery, credentials, a first list); give a longer --timeout", within)
			}
		}
		return e.Stage.noAnswer(within, e.CredentialPlugin, e.Sent)
	}
	if e.Quiet {
		return fmt.Sprintf("the stream was answered and then sent nothing for %s (--stall-timeout): %s", e.After, e.Hint)
	}
	msg := fmt.Sprintf("no data from the server for %s, not even a bookmark (--stall-timeout): the stream was closed as stalled", e.After)
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// fairWait is the least wait for an answer after which no answer says the
// server or the network hangs.
const fairWait = time.Second

// Timeout marks a stall as a client-side timeout (retryable, like client-go's).
func (e *StalledError) Timeout() bool { return true }
