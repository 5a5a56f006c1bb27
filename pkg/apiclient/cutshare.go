package apiclient

import (
	"context"
	"sync"
	"time"
)

// What the signal cut is left out of every count a report shows
// (docs/exit-codes.md, 130): a probe row's REQUESTS and TIME, a server's,
// the per-resource cost of --all, and said apart in the run's cost (user
// try 22 #11 and F13: an interrupted probe --future counted its cut list
// as a 4th request and its wait, 1.38 s, as the row's time). One rule
// decides which request that is, where each request ends (the meter's
// entry.finish): one cancelled (context.Canceled, before any deadline)
// once the context of a span was cut (Cut) was cut by it. A Stopwatch is
// such a span (a probe row, a server's measure): Kept gives its requests
// and time without those; the Ledger's span is the run (CutBy), and its
// Cost says them apart (Cost.Cut), as they were sent.

// cutTally is the requests the signal cut under a span, and when the
// first of them was sent.
type cutTally struct {
	mu    sync.Mutex
	n     int
	first time.Time
}

func (t *cutTally) add(sent time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	if t.first.IsZero() || sent.Before(t.first) {
		t.first = sent
	}
}

func (t *cutTally) get() (int, time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n, t.first
}

// CutBy names the run's context: a request that ends cancelled once it
// is cut is one the signal cut (Cost.Cut).
func (l *Ledger) CutBy(run context.Context) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.run = run
	l.mu.Unlock()
}

// noteCut tells the spans of a request that ended cancelled (e) that the
// signal cut it, when it did: the stopwatches under it, and the run.
func (en *entry) noteCut(e Entry) {
	if !e.Cancelled {
		return
	}
	noteCut(en.ctx, en.start)
	en.l.mu.Lock()
	if en.l.run != nil && Cut(en.l.run) {
		en.l.cut++
	}
	en.l.mu.Unlock()
}

// noteCut tells every stopwatch of ctx whose span was cut that a request
// sent at sent, under ctx, ended cancelled: the signal cut it.
func noteCut(ctx context.Context, sent time.Time) {
	if ctx == nil {
		return
	}
	s, _ := ctx.Value(stopwatchKey{}).(*Stopwatch)
	for ; s != nil; s = s.parent {
		if s.span != nil && Cut(s.span) {
			s.cut.add(sent)
		}
	}
}

// Kept is requests, the span's count (its budget's takes), and its time,
// less what the signal cut: each request it cut, and the time from the
// send of the first of them on (the wait for an answer that never came).
func (s *Stopwatch) Kept(requests int) (int, time.Duration) {
	n, first := s.cut.get()
	if n == 0 {
		return requests, s.Elapsed()
	}
	return max(requests-n, 0), s.At(first)
}
