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
	// retryWait and retries are the waits of the one retry policy
	// (Retry.Wait) before a request sent again, and how many: the
	// plugin's own backoff, no more the server's time than its pacing
	// (adversary try 24 F5: a page that answered 504 five times made
	// "275 B decoded in 7.85 s" of a page read in 2 ms).
	retryWait atomic.Int64 // nanoseconds
	retries   atomic.Int64
	// serverRetries are the retries whose wait the server's Retry-After
	// set, and serverAsked the longest it asked (nanoseconds): the line
	// says who set the wait (adversary try 25 F6).
	serverRetries atomic.Int64
	serverAsked   atomic.Int64
	// cappedRetries: the waits the policy's cap cut below what the
	// server asked (adversary try 27 F1: two capped waits went unsaid).
	cappedRetries atomic.Int64
	// firstCause is the failure the first retry was sent after
	// (Pause.Cause): its words, bounded, said beside the retries, and its
	// key (retryCause), compared with the final failure.
	firstCause atomic.Pointer[noted]
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
func (s *Stopwatch) RetryWaited() time.Duration { return time.Duration(s.retryWait.Load()) }

// Retries is how many requests were sent again after such a wait so far.
func (s *Stopwatch) Retries() int { return int(s.retries.Load()) }

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
// stopwatch it is nested in, and counts the retry.
func noteRetryWait(ctx context.Context, d time.Duration, p Pause) {
	serverAsked, capped := p.ServerAsked, p.ServerAsked > p.Duration
	var cause *noted
	if p.Cause != nil {
		w, k := retryCause(p.Cause)
		cause = &noted{words: w, key: k}
	}
	s, _ := ctx.Value(stopwatchKey{}).(*Stopwatch)
	for ; s != nil; s = s.parent {
		s.retryWait.Add(int64(max(d, 0)))
		s.retries.Add(1)
		if cause != nil {
			s.firstCause.CompareAndSwap(nil, cause)
		}
		if capped {
			s.cappedRetries.Add(1)
		}
		if serverAsked > 0 {
			s.serverRetries.Add(1)
			for old := s.serverAsked.Load(); int64(serverAsked) > old && !s.serverAsked.CompareAndSwap(old, int64(serverAsked)); old = s.serverAsked.Load() {
			}
		}
	}
}

// ServerAskedRetries is how many of Retries waited as the server's
// Retry-After asked, and the longest it asked.
// CappedRetries is how many of the waits the policy's cap cut below what
// the server's Retry-After asked.
// FirstRetryCause is the words of the failure the first retry was sent
// after ("" when no retry named one).
func (s *Stopwatch) FirstRetryCause() string {
	if w := s.firstCause.Load(); w != nil {
		return w.words
	}
	return ""
}

// firstRetryCauseKey is the key of FirstRetryCause (SameFailure).
func (s *Stopwatch) firstRetryCauseKey() string {
	if w := s.firstCause.Load(); w != nil {
		return w.key
	}
	return ""
}

// noted is a retry's cause as a stopwatch keeps it.
type noted struct{ words, key string }

// causeWordsLimit bounds a retry's cause as said: the request and the
// failure, not a page of a proxy's text.
const causeWordsLimit = 400

func (s *Stopwatch) CappedRetries() int { return int(s.cappedRetries.Load()) }

func (s *Stopwatch) ServerAskedRetries() (int, time.Duration) {
	return int(s.serverRetries.Load()), time.Duration(s.serverAsked.Load())
}
