package apiclient

import (
	"context"
	"sync/atomic"
)

// RequestTally counts the requests the plugin sent under one context, as
// the ledger counts them (every retry of the retry policy is one; a send
// net/http made again by itself is not: KindCost.Resent says those): the
// one count of a row of a run over resources (streaming's checks), which
// the run's total adds up (adversary try 35 F1: rows of 2+2+2 under a
// total of 9).
type RequestTally struct{ n atomic.Int64 }

type requestTallyKey struct{}

// WithRequestTally is ctx counting its requests in the returned tally.
func WithRequestTally(ctx context.Context) (context.Context, *RequestTally) {
	t := &RequestTally{}
	return context.WithValue(ctx, requestTallyKey{}, t), t
}

// Requests is how many requests were sent under the tally's context.
func (t *RequestTally) Requests() int { return int(t.n.Load()) }
