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
}

// boundName is what ended a request whose deadline is ctx's: the name a
// WithNamedBound gave it when that deadline is its own (the nearest one),
// else "the request's time bound" (--request-timeout, discovery's 32 s).
func boundName(ctx context.Context) string {
	nb, ok := ctx.Value(namedBoundKey{}).(namedBound)
	if deadline, has := ctx.Deadline(); ok && has && !deadline.Before(nb.deadline) {
		return "what was left of " + nb.name
	}
	return "the request's time bound"
}
