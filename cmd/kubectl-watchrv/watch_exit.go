package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
)

// exit is the one exit rule of watch, with and without --follow
// (docs/watch.md "Exit codes", docs/exit-codes.md): a run exits with the
// outcome of its last attempt. A watch that was answered and ended as asked
// (--timeout, --max-events, --until, the end of an open stream, a quiet
// --stall-timeout) exits 0, however quiet it was. One whose last attempt
// failed exits with that failure's code (exitCode, by the one classifier):
// never answered (no response headers by the deadline) 4; refused, the
// code of its HTTP status; an ERROR event, the code of its status (400 2,
// 401 6, 403 7, 404 9, 410 and TooLarge 10, 429 8, 500, 503 and a 504 that
// is not TooLarge 1); a stream cut 4; a stream the server ended at once
// with nothing from an RV ahead of it 10, and so is a reconnect that found
// the server behind the resume point (another storage) when the run ended
// before the relist after it was answered; a relist refused or failed is
// the last attempt, with its own code (fresh user try 25 F3: no exception
// for the behind state, which the summary's noResumePoint names). With
// --follow the last attempt is the failure streak the session ended in
// (nil once a stream was healthy again); without it, the one attempt.
// serr is what the session returned.
func (r *watchRun) exit(st *follow.Streak, serr error) error {
	if st == nil {
		if serr != nil && r.session.End() != follow.EndInterrupted {
			return r.answerError(serr)
		}
		return nil
	}
	err := r.failureError(st.Err)
	code := exitCode(err)
	if r.o.Follow {
		when := "no stream of this session was healthy"
		if st.EverHealthy {
			when = "the watch was failing when it ended"
		}
		err = fmt.Errorf("%s (%s in a row since %s): %w", when, text.Count(st.Attempts, "failed attempt"), st.Since.Format("15:04:05"), err)
	}
	return withCode(code, err)
}

// failureError is the error line of one failed attempt: what it was, in
// its own words, and the fix.
func (r *watchRun) failureError(err error) error {
	var (
		stall  *follow.StalledError
		empty  *follow.EmptyStreamError
		event  *follow.EventError
		behind *follow.ServerBehindError
	)
	switch {
	case errors.As(err, &stall):
		// Its message names the flag whose time ran out (--timeout or
		// --stall-timeout) and how far the request got.
		return fmt.Errorf("%s: %w", r.o.serverName(), err)
	case errors.As(err, &empty), errors.As(err, &behind):
		return err // in its own words, which say the fix
	}
	if errors.As(err, &event) {
		// In the one wording of an ERROR event (eventError).
		return r.answerError(err)
	}
	step, ctx := r.answerContext(err)
	var list *follow.ListStepError
	errors.As(err, &list)
	// Only an ERROR event inside a stream (above), or a list step's
	// answer, "ended" the watch or the list; a refusal of the watch
	// request itself is said as any refused request's answer
	// (requestError: "answered watch configmaps with 429 Too Many
	// Requests: its watch cache lags storage"), whatever its body
	// (adversary try 27 F4).
	if st, ok := diagnose.StatusOf(err); ok && list != nil {
		d := diagnose.FromError(err, ctx)
		if d.IsRVProblem() {
			// The server's message is in the line as it came: the line
			// says what it means, and explain-error reads it again with
			// its numbers (fresh user try 17: the plugin's own line was
			// "410 Gone, without the message that names the window").
			msg := text.Shorten(text.OneLine(st.Message), 256)
			return &watchError{text: fmt.Sprintf("%s ended with %s: %s: %s", step, diagnose.StatusLine(st.Code, string(st.Reason), msg), d.Summary, d.Fix), err: err}
		}
	}
	var incomplete *follow.ListIncompleteError
	if !r.o.Follow && diagnose.ClassifyFailure(err).Retryable() && r.session.Stats().Streams > 0 && list == nil && !errors.As(err, &incomplete) {
		// Only a stream that was open broke; a list before any stream
		// (--rv list) has no last RV to reconnect from (fresh user try
		// 19: "the watch stream broke" of a list cut by --timeout).
		if apiclient.IsBodyCut(err) {
			// The cut's own words say the watch stream broke, with its
			// request and the bytes read.
			err = fmt.Errorf("%w (--follow reconnects from the last RV, as an informer does)", err)
		} else {
			err = fmt.Errorf("the watch stream broke: %w (--follow reconnects from the last RV, as an informer does)", err)
		}
	}
	return r.answerError(err)
}

// beforeWatchError is the error of a step before the watch: the run's time
// (--timeout) running out there is no answer (exit 4), like a watch request
// unanswered at its deadline; any other error is the step's own, and so is
// an answer that came as the time ran out (a 410 whose body did not: its
// status is what the server said, adversary try 11).
func (o *WatchOptions) beforeWatchError(ctx context.Context, err error, doing, verb, what string) error {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || diagnose.IsAnswer(err) {
		return err
	}
	if held := o.credentials.heldByRerun(); held != "" {
		return heldError(o.serverName(), held, err)
	}
	note := ""
	if p := o.credentialPlugin(); p != "" {
		note = fmt.Sprintf(" (the kubeconfig's credential plugin, exec %q, runs before the first request reaches the network)", p)
	}
	for _, e := range o.ledger.HeadsWithoutBody() {
		if e.Kind == apiclient.KindWatch && e.Status < 300 {
			continue // a watch's body is its stream: it never ends by itself
		}
		came := fmt.Sprintf("%s answered %s %s with %s, and its body did not end within the watch's time (--timeout %s) while %s", o.serverName(), e.Method, e.URL, fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status)), o.Timeout, doing)
		if e.Status >= 400 {
			// The status is the server's answer: its class and exit code
			// (a 410 is Expired), as a list's at --request-timeout.
			return o.requestError(&apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: int32(e.Status), Message: "the answer's status came, its body did not: " + came}}, verb, what)
		}
		return withCode(ExitUnreachable, fmt.Errorf("%s: raise --timeout", came))
	}
	if o.ledger.Cost().Requests == 0 && note == "" {
		// Nothing was sent (discovery came from kubectl's disk cache):
		// the time ran out in the plugin, and says nothing of the server.
		return withCode(ExitUnreachable, fmt.Errorf("the watch's time (--timeout %s) ran out while %s, before any request was sent to %s: give a longer --timeout", o.Timeout, doing, o.serverName()))
	}
	return withCode(ExitUnreachable, fmt.Errorf("no answer from %s within the watch's time (--timeout %s) while %s%s: check that the cluster is up, or raise --timeout", o.serverName(), o.Timeout, doing, note))
}

// credentialPlugin is the exec credential command this run started (""
// when it started none). Not read from the kubeconfig again: client-go's
// ClientConfig writes into the loaded kubeconfig's exec config, which a
// step still running aside (boundedBy) may be reading.
func (o *WatchOptions) credentialPlugin() string {
	return o.credentials.pluginStarted()
}

// boundedBy runs f aside and returns its result, or ctx's error as soon as
// ctx ends: client-go runs an exec credential plugin without the request's
// context, so only this holds a deadline (or Ctrl-C) while one runs. What
// f does after that is dropped (the run is over).
func boundedBy[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// errWrite marks a failed write of the output (a closed pipe, a full disk):
// the run cannot report anything more and must not claim success.
var errWrite = errors.New("cannot write the output")

// stallAdvice says, after a --stall-timeout that proved no hang, what would
// tell a hung server from a quiet collection here, if anything does.
func (r *watchRun) stallAdvice() string {
	// The advice depends on whether bookmarks come here: the server is
	// read now where it was not before the watch (a short --stall-timeout
	// without --bookmarks), so that a server without a watch cache is
	// never sent after bookmarks it does not send (fresh user try 20).
	if r.server == nil {
		_ = r.readServer()
	}
	if r.server != nil && !r.server.BookmarksExpected() {
		return r.server.NoStallNote(r.target.Resource.Name()) + ": no --stall-timeout tells a hang from a quiet collection here"
	}
	return fmt.Sprintf("to tell a hung server from a quiet collection, ask for bookmarks (--bookmarks) and set --stall-timeout above %s: where the watch cache serves the watch, it sends %s", follow.WatchCacheBookmarkPeriod, follow.BookmarkEvery(follow.WatchCacheBookmarkPeriod))
}

// watchError is a failure in the watch's own words that still unwraps to
// the failure itself, so that its exit code is the failure's.
type watchError struct {
	text string
	err  error
}

func (e *watchError) Error() string { return e.text }
func (e *watchError) Unwrap() error { return e.err }
