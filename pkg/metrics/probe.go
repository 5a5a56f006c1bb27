package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// Reading is one read of /metrics, or the one-line note that says why
// there is none (a forbidden /metrics is a note, never a failure).
type Reading struct {
	Snapshot *Snapshot
	Note     string
	// Sent: this read sent its request (false: the run's side reads
	// already had this server's answer, a note, and sent none).
	Sent bool
}

// SideReadWait bounds a read of /metrics (and /version) whose answer
// only explains what a command measured (probe --metrics, list's server
// facts): a server that does not answer it must not hold the command
// much longer than the command's own requests (fresh user try 19: a
// probe --metrics of a server that never answers took 2.5 minutes, the
// bound of every request in turn).
const SideReadWait = 10 * time.Second

// sideReadsKey holds the run's sideReads in a context.
type sideReadsKey struct{}

// sideReads is what one run's side reads of /metrics learned: per server
// (its client), the first read that got no snapshot.
type sideReads struct {
	mu     sync.Mutex
	failed map[*apiclient.Client]*Reading
}

// WithSideReads makes every ReadUnder under ctx one run's: once a
// server's /metrics gave no snapshot (no answer within SideReadWait,
// forbidden, no kube-apiserver's text), no other read of it is sent in
// the run, and each gives back that first note. So a run waits on a
// server's /metrics at most SideReadWait once, and has one reason to say
// (adversary try 20 #11: probe --metrics of a /metrics that never
// answered sent its second read after the first had had no answer, 2 x
// 10 s). The witness of a silent start (probe's cacheWitness) and the
// reads around every probe share it.
func WithSideReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, sideReadsKey{}, &sideReads{failed: map[*apiclient.Client]*Reading{}})
}

// ReadUnder reads /metrics once, taking one request from b, within
// SideReadWait; under WithSideReads, not at all where the run's reads of
// c already failed (that note, unsent).
func ReadUnder(ctx context.Context, c *apiclient.Client, b *apiclient.Budget) *Reading {
	memo, _ := ctx.Value(sideReadsKey{}).(*sideReads)
	if memo != nil {
		memo.mu.Lock()
		failed := memo.failed[c]
		memo.mu.Unlock()
		if failed != nil {
			return &Reading{Note: failed.Note}
		}
	}
	if err := b.Take(ctx); err != nil {
		return &Reading{Note: "/metrics not read: " + err.Error()}
	}
	r := readWithin(ctx, c)
	if r.Snapshot == nil && memo != nil {
		memo.mu.Lock()
		if memo.failed[c] == nil {
			memo.failed[c] = r
		}
		memo.mu.Unlock()
	}
	return r
}

// readWithin sends the read, within SideReadWait (named in the error of a
// read it cut: apiclient.WithNamedBound).
func readWithin(ctx context.Context, c *apiclient.Client) *Reading {
	ctx, cancel := apiclient.WithNamedBound(ctx, SideReadWait, "the plugin's bound for a /metrics read")
	defer cancel()
	s, err := Read(ctx, c)
	switch {
	case err == nil:
		return &Reading{Snapshot: s, Sent: true}
	case diagnose.ClassifyFailure(err) == diagnose.FailureForbidden:
		return &Reading{Sent: true, Note: `watch-cache metrics not shown: /metrics is forbidden to this user (it needs a ClusterRole with nonResourceURLs ["/metrics"], verbs ["get"])`}
	}
	return &Reading{Sent: true, Note: "watch-cache metrics not shown: " + FailureWords(err)}
}

// ReportOf is the one report of a pair of reads around a probe (before,
// after): the counters' explanation when both were read, else the one
// note that says why not (the first read's failure: a second one is the
// same server's, and under WithSideReads was never sent), never two.
// Requests counts the reads sent.
func ReportOf(start, end *Reading, group, resource string, p ProbeFacts) *Report {
	requests := 0
	for _, r := range []*Reading{start, end} {
		if r != nil && r.Sent {
			requests++
		}
	}
	if start == nil || end == nil || start.Snapshot == nil || end.Snapshot == nil {
		return &Report{WatchCache: WatchCache{Group: group, Resource: resource}, Note: noteOf(start, end), Requests: requests}
	}
	r := Explain(start.Snapshot, end.Snapshot, group, resource, p)
	r.Requests = requests
	return &r
}

// noteOf is why a pair of reads gave no report: the first note said.
func noteOf(readings ...*Reading) string {
	for _, r := range readings {
		if r != nil && r.Note != "" {
			return r.Note
		}
	}
	return "watch-cache metrics not shown: /metrics was not read"
}

// NotShown is the report of a run that read /metrics before its probes
// (start) and has no window for the counters to explain (why): the read's
// own failure when it had one, else why.
func NotShown(start *Reading, group, resource, why string) *Report {
	r := ReportOf(start, nil, group, resource, ProbeFacts{})
	if start != nil && start.Snapshot != nil {
		r.Note = "watch-cache metrics not shown: " + why
	}
	return r
}
