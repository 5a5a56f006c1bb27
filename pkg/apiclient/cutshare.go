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
// Cost says them apart (Cost.Cut), as they were sent. A request cancelled
// before it had a connection was not sent, and is in no count at all
// (noteFate; user try 24 F3).

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

// noteFate decides, once, the fate of a request that ended (e), and tells
// every count of the run: the ledger (Cost.Requests, Cost.Cut) and the
// stopwatches it was sent under (Kept: a row's and a server's requests).
// The fates are three, and one request has one:
//   - not sent (Entry.NotSent): cancelled before it had a connection. It
//     is in no count: the ledger takes back the request begin counted,
//     and every stopwatch over it leaves it out;
//   - sent and cut: cancelled once the run's context was cut (CutBy),
//     after it had its connection. The cost counts it and says it apart
//     (Cost.Cut); a cut span leaves it, and its wait, out (Kept);
//   - sent: every other, answered or not, in every count.
func (en *entry) noteFate(e Entry) {
	if !e.Cancelled {
		return
	}
	notSent := e.NotSent()
	noteCut(en.ctx, en.start, notSent)
	en.l.mu.Lock()
	defer en.l.mu.Unlock()
	switch {
	case notSent:
		en.l.requests--
		en.l.byKind[e.Kind].Requests--
	case en.l.run != nil && Cut(en.l.run):
		en.l.cut++
	}
}

// noteCut tells every stopwatch of ctx that a request sent at sent, under
// ctx, ended cancelled: one whose span was cut, that the signal cut it;
// any other, when it was never sent (notSent), that it is no request.
func noteCut(ctx context.Context, sent time.Time, notSent bool) {
	if ctx == nil {
		return
	}
	s, _ := ctx.Value(stopwatchKey{}).(*Stopwatch)
	for ; s != nil; s = s.parent {
		switch {
		case s.span != nil && Cut(s.span):
			s.cut.add(sent)
		case notSent:
			s.unsent.Add(1)
		}
	}
}

// Kept is requests, the span's count (its budget's takes), and its time,
// less what the signal cut and what was never sent (noteFate): each
// request it cut, and the time from the send of the first of them on (the
// wait for an answer that never came); each request cancelled before it
// had a connection, which took a budget's turn and reached no server.
func (s *Stopwatch) Kept(requests int) (int, time.Duration) {
	n, first := s.cut.get()
	requests = max(requests-int(s.unsent.Load()), 0)
	if n == 0 {
		return requests, s.Elapsed()
	}
	return max(requests-n, 0), s.At(first)
}
