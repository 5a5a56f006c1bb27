package apiclient

import (
	"context"
	"time"
)

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
