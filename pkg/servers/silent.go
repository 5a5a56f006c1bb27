package servers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// A server that gave no answer to its consistent list within the bound
// (the connection made, not a byte of an answer back:
// apiclient.GaveNoAnswer) is cut off from etcd, or silent. Its rv=0 list
// tells which: a watch cache answers it at once from memory, even cut off
// from etcd (docs/ha.md), so it is sent with a short wait
// (CacheAfterNoAnswerWait), not the whole bound again; when that too has
// no answer, the server is silent and is not asked again in the run (the
// next resource of probe --all, the check's request). Adversary try 21
// F9: list --endpoints waited 20 s on each silent server, for a row that
// said "no answer within 10s". This is metrics.WithSideReads's rule
// ("asked again only while it answers") for the per-server reads.

// CacheAfterNoAnswerWait bounds the rv=0 list of a server whose
// consistent list had no answer (half that list's bound when shorter).
const CacheAfterNoAnswerWait = 2 * time.Second

// readCacheAfterNoAnswer reads the cache RV of a server whose consistent
// list had no answer, within CacheAfterNoAnswerWait; no answer to it
// either, and the server is remembered as silent.
// waited is how long the server had already been waited on (about its
// bound: the consistent list's).
func (s *Server) readCacheAfterNoAnswer(ctx context.Context, c *apiclient.Client, t apiclient.Target, b *apiclient.Budget, endpoint string, waited time.Duration) {
	wait := min(CacheAfterNoAnswerWait, max(waited/2, 100*time.Millisecond))
	rctx, cancel := apiclient.WithNamedBound(ctx, wait, "the short wait for the rv=0 list of a server that gave no answer")
	defer cancel()
	err := s.readCache(rctx, c, t, b)
	if err == nil {
		return
	}
	if apiclient.GaveNoAnswer(err) || errors.Is(err, context.DeadlineExceeded) {
		noteSilent(ctx, endpoint, s.Err)
		s.failedRead = ReadNeither
		s.Error += fmt.Sprintf("; its rv=0 list, which a watch cache answers at once (even cut off from etcd), had no answer within %s either: it is not asked again in this run", wait)
		return
	}
	s.failAt(ReadCache, err)
}

// AskUnlessSilent is the same rule for a single read of a server (top's
// samples of /metrics): read, unless the run already got no answer from
// endpoint (then a *NotAskedError, and nothing sent); a read whose time
// bound ended with no answer (none began, no connection, or a body that
// did not end) makes endpoint silent for the rest of the run. Adversary
// try 22 F8: top --endpoints sent its second sample to a server that had
// not answered the first, one interval of --interval 2s took 20 s. A
// read the run's cut ended is no answer and no silence.
func AskUnlessSilent(ctx context.Context, endpoint string, read func() error) error {
	if first := silentBefore(ctx, endpoint); first != nil {
		return &NotAskedError{First: first}
	}
	err := read()
	if apiclient.GaveNoAnswer(err) || apiclient.NoConnection(err) || apiclient.BodyLate(err) {
		noteSilent(ctx, endpoint, err)
	}
	return err
}

type silentKey struct{}

type silentServers struct {
	mu    sync.Mutex
	first map[string]error
}

// WithSilentServers makes every Measure under ctx one run's: once a
// server gave no answer to its consistent list nor to its rv=0 list, no
// other read of it is sent in the run.
func WithSilentServers(ctx context.Context) context.Context {
	return context.WithValue(ctx, silentKey{}, &silentServers{first: map[string]error{}})
}

// silentBefore is the first read of endpoint the run got no answer to, or
// nil.
func silentBefore(ctx context.Context, endpoint string) error {
	m, _ := ctx.Value(silentKey{}).(*silentServers)
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.first[endpoint]
}

// noteSilent remembers that endpoint gave no answer to err's read.
func noteSilent(ctx context.Context, endpoint string, err error) {
	m, _ := ctx.Value(silentKey{}).(*silentServers)
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.first[endpoint] == nil {
		m.first[endpoint] = err
	}
}

// NotAskedError is a read not sent: the server gave no answer to an
// earlier read of the run. It unwraps to that read's error (its class).
type NotAskedError struct{ First error }

func (e *NotAskedError) Error() string {
	return "not asked: it gave no answer to an earlier read of this run (" + e.First.Error() + ")"
}

func (e *NotAskedError) Unwrap() error { return e.First }
