package apiclient

import (
	"context"
	"errors"
	"net/http"
	"time"

	"k8s.io/utils/clock"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// A bound the plugin arms itself names itself in the error of the request
// it cuts: "no answer within 10s, the probe's bound for a watch's answer
// to begin", a timeout (DeadlineError: the failure class NoAnswer, exit
// 4), never the cancellation it is made of. A cut read as a cancellation
// was recorded as the server's answer: probe and explain-error --check
// said "request failed: Get ...: context canceled", class Other, exit 1,
// of a server that sent no response headers (adversary try 22 F2), where
// watch said "no response headers came", exit 4. Two ways to arm one:
// WithNamedBound (a deadline on the wall clock) and WithNamedBoundOn (a
// clock's timer, a test's fake one included, that ends the request by
// cancelling it); pastDeadline turns either's cut into its DeadlineError.

// WithNamedBound is context.WithTimeout(ctx, d) whose deadline a request
// that it ends names as name (what the user gave: "--timeout"), not as
// "the request's time bound": a request cut by a command's own time
// (watch --timeout 5s) was said cut by its time bound beside a URL showing
// timeout=1m40s (adversary try 21 F10).
func WithNamedBound(ctx context.Context, d time.Duration, name string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, d)
	deadline, _ := ctx.Deadline()
	return context.WithValue(ctx, namedBoundKey{}, namedBound{name: name, deadline: deadline}), cancel
}

// WithNamedBoundOn bounds the requests under the returned context by d on
// clk, until disarm is called (a watch's bound for its answer to begin is
// disarmed once its headers came: the stream it opened lives on under the
// same context); past d, the context is cancelled with the bound as its
// cause, and a request it cut fails with a *DeadlineError naming it as
// name (the whole bound, as given: "the probe's bound for a watch's answer
// to begin"). cancel ends the context, as any CancelFunc.
func WithNamedBoundOn(ctx context.Context, clk clock.WithDelayedExecution, d time.Duration, name string) (_ context.Context, disarm func(), cancel context.CancelFunc) {
	ctx, cancelCause := context.WithCancelCause(ctx)
	t := clk.AfterFunc(d, func() { cancelCause(&boundCut{name: name, within: d}) })
	return ctx, func() { t.Stop() }, func() { t.Stop(); cancelCause(context.Canceled) }
}

// boundCut is the cause of a context a WithNamedBoundOn bound ended.
type boundCut struct {
	name   string
	within time.Duration
}

func (b *boundCut) Error() string {
	return "no answer within " + roundBound(b.within).String() + ", " + b.name
}

// cutByNamedBound is err, the failure of req or of its answer's body, as
// the *DeadlineError of the WithNamedBoundOn bound that cancelled req's
// context, when one did. Its chain keeps only the text of the
// cancellation's error: a context.Canceled in it reads as Ctrl-C
// ("interrupted", Unanswered), which this is not.
func cutByNamedBound(err error, req *http.Request, body bool) error {
	var cut *boundCut
	if err == nil || !errors.As(context.Cause(req.Context()), &cut) {
		return err
	}
	var d *DeadlineError
	if errors.As(err, &d) {
		return err
	}
	return &DeadlineError{Err: errors.New(text.OneLine(err.Error())), Within: cut.within, Body: body, Bound: cut.name}
}

type namedBoundKey struct{}

type namedBound struct {
	name     string
	deadline time.Time
	// whole: set for one request, so it is named as it is, not as what
	// was left of it.
	whole bool
}

// WithRequestBound is WithNamedBound for a bound set for one request
// only, named as name whole (version's 5 s without --request-timeout:
// user try 22 #4, "the request's time bound" beside a URL with
// timeout=8s).
func WithRequestBound(ctx context.Context, d time.Duration, name string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, d)
	deadline, _ := ctx.Deadline()
	return context.WithValue(ctx, namedBoundKey{}, namedBound{name: name, deadline: deadline, whole: true}), cancel
}

// boundName is what ended a request whose deadline is ctx's: the name a
// WithNamedBound gave it when that deadline is its own (the nearest one),
// else "the request's time bound" (--request-timeout, discovery's 32 s).
func boundName(ctx context.Context) string {
	nb, ok := ctx.Value(namedBoundKey{}).(namedBound)
	if deadline, has := ctx.Deadline(); ok && has && !deadline.Before(nb.deadline) {
		if nb.whole {
			return nb.name
		}
		return "what was left of " + nb.name
	}
	return "the request's time bound"
}
