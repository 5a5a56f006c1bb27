package apiclient

import (
	"context"
	"errors"
)

// A request the run cut has no answer: when Ctrl-C or SIGTERM cancels the
// run's context (cmd's signal context, and every context under it), the
// requests in flight end with the cancel's error, which says nothing of
// the server. Recorded as an outcome, it read as one: probe --future
// printed the cut list as "list -> Other" and a watch never sent as held
// for 2s, explain-error --check "a list not older than RV N fails
// (... context canceled)" (fresh user try 21 F2), although
// docs/exit-codes.md (130) says what the signal cut is not printed.
//
// So every place that turns a request's error into an outcome (a probe's
// Try, the future check, the --check and --servers question, a streaming
// check) asks Unanswered first, as it asked NotSent, and records nothing
// for such a request: the run ends with "interrupted" (exit 130), and
// prints only what was answered before the signal.

// Cut reports whether the run whose context is run was cut (cancelled:
// Ctrl-C, SIGTERM, the command's end), not ended by a deadline (a time
// bound is a timeout, an answer of its own).
func Cut(run context.Context) bool {
	return errors.Is(run.Err(), context.Canceled)
}

// Unanswered reports whether err, the error of a request made under the
// run's context run, is no answer to record: the budget refused the
// request (NotSent), or it failed once the run was cut (Cut), so that its
// error is the cut's, not the server's.
func Unanswered(run context.Context, err error) bool {
	return NotSent(err) || (err != nil && Cut(run))
}
