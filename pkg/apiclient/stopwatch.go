package apiclient

import (
	"context"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// Every duration the plugin prints for its requests (a probe row's TIME,
// a try's LATENCY, streaming's TO BOOKMARK and OBJ/S, a server's TIME, a
// list's time) is the server's and the network's, not the plugin's own
// pacing: at --qps 5 a request waits up to 200 ms for its token before it
// is sent (fresh user try 19 #3: TO BOOKMARK 200 ms for an empty
// collection that streams in 2 ms, OBJ/S 20 to 40 times too low). The
// one place the plugin waits for a client-side rate limiter is
// deadlineLimiter.Wait (--qps's Budget and the REST client's own both pace
// with it): it adds each wait to the Stopwatch of its context, and a
// Stopwatch leaves those waits out of what it measured. The -v lines and
// the cost are timed by the meter, below both limiters: from the send.

// Stopwatch measures a span of the plugin's work less the time spent
// waiting for a client-side rate limiter under its context (and under the
// contexts derived from it). A wait also counts for the stopwatches it is
// nested in, so a stopwatch is for a span whose requests go one after the
// other: over requests sent at the same time, waits would add up beyond
// the span (measure each, and take the longest).
type Stopwatch struct {
	parent *Stopwatch
	clk    clock.PassiveClock
	start  time.Time
	paced  atomic.Int64 // nanoseconds
	// all is every retry of the one retry policy under the stopwatch
	// (retryTally); line leaves out those of a span said on its own line
	// (StartOwnLineStopwatch): what a later line about the run says.
	all, line retryTally
	// ownLine: the retries under this stopwatch are said on a line of
	// their own (a note or a warning about its read).
	ownLine bool
	// span is the context the stopwatch was started under, and cut the
	// requests the signal cut under it (cutshare.go).
	span context.Context
	cut  cutTally
	// unsent are the requests under it cancelled before they were sent,
	// not by the signal (noteFate): no request of the span's.
	unsent atomic.Int64
}

type stopwatchKey struct{}

// StartStopwatch starts a stopwatch on the real clock; the requests sent
// with the returned context have their rate-limiter waits left out of it.
func StartStopwatch(ctx context.Context) (context.Context, *Stopwatch) {
	return StartStopwatchOn(ctx, nil)
}

// StartStopwatchOn is StartStopwatch on clk (nil: the real clock).
func StartStopwatchOn(ctx context.Context, clk clock.PassiveClock) (context.Context, *Stopwatch) {
	if clk == nil {
		clk = clock.RealClock{}
	}
	s := &Stopwatch{clk: clk, start: clk.Now(), span: ctx}
	s.parent, _ = ctx.Value(stopwatchKey{}).(*Stopwatch)
	return context.WithValue(ctx, stopwatchKey{}, s), s
}

// StartOwnLineStopwatch is StartStopwatch of a read whose retries are
// said on a line of their own (a note or a warning about it): they count
// in the cost of every stopwatch it is nested in, but a later line about
// the run (Ledger.LineRetryWait) does not say them again as another
// request's.
func StartOwnLineStopwatch(ctx context.Context) (context.Context, *Stopwatch) {
	ctx, s := StartStopwatch(ctx)
	s.ownLine = true
	return ctx, s
}

// Elapsed is the time since the start, less the plugin's own waits: for a
// rate limiter (Paced) and before a retry (RetryWaited).
func (s *Stopwatch) Elapsed() time.Duration { return s.At(s.clk.Now()) }

// At is the time from the start to t (a moment seen since: an event's
// arrival), less the plugin's own waits so far: they all came before the
// requests were sent.
func (s *Stopwatch) At(t time.Time) time.Duration {
	return max(t.Sub(s.start)-s.Paced()-s.RetryWaited(), 0)
}

// Paced is the time spent waiting for a client-side rate limiter so far.
func (s *Stopwatch) Paced() time.Duration { return time.Duration(s.paced.Load()) }

// RetryWaited is the time spent waiting to send a request again (the
// retry policy's backoff, or the server's Retry-After) so far.
func (s *Stopwatch) RetryWaited() time.Duration { return time.Duration(s.all.wait.Load()) }

// Retries is how many requests were sent again after such a wait so far.
func (s *Stopwatch) Retries() int { return int(s.all.retries.Load()) }

// notePaced adds a rate limiter's wait to the stopwatch of ctx and to
// every stopwatch it is nested in.
func notePaced(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	s, _ := ctx.Value(stopwatchKey{}).(*Stopwatch)
	for ; s != nil; s = s.parent {
		s.paced.Add(int64(d))
	}
}

// noteRetryWait adds a retry's wait to the stopwatch of ctx and to every
// stopwatch it is nested in, and counts the retry; above a stopwatch whose
// retries are said on their own line, it counts in all only, not in line.
func noteRetryWait(ctx context.Context, d time.Duration, p Pause) {
	var cause *noted
	if p.Cause != nil {
		w, k := retryCause(p.Cause)
		cause = &noted{words: w, key: k}
	}
	said := false
	s, _ := ctx.Value(stopwatchKey{}).(*Stopwatch)
	for ; s != nil; s = s.parent {
		s.all.note(d, p, cause)
		if !said {
			s.line.note(d, p, cause)
		}
		said = said || s.ownLine
	}
}

// ServerAskedRetries is how many of Retries waited as the server's
// Retry-After asked, and the longest it asked.
func (s *Stopwatch) ServerAskedRetries() (int, time.Duration) {
	return int(s.all.serverRetries.Load()), time.Duration(s.all.serverAsked.Load())
}

// CappedRetries is how many of the waits the policy's cap cut below what
// the server's Retry-After asked.
func (s *Stopwatch) CappedRetries() int { return int(s.all.capped.Load()) }
