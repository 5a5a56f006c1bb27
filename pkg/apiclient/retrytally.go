package apiclient

import (
	"sync/atomic"
	"time"
)

// retryTally counts the retries of the one retry policy (Retry.Wait) a
// stopwatch saw: the waits before a request sent again, and how many
// (the plugin's own backoff, no more the server's time than its pacing:
// adversary try 24 F5, a page that answered 504 five times made "275 B
// decoded in 7.85 s" of a page read in 2 ms); the retries whose wait the
// server's Retry-After set and the longest it asked (adversary try 25
// F6); the waits the policy's cap cut (adversary try 27 F1); and the
// failure the first retry was sent after (Pause.Cause), its words said
// beside the retries and its key (retryCause) compared with the final
// failure.
type retryTally struct {
	wait          atomic.Int64 // nanoseconds
	retries       atomic.Int64
	serverRetries atomic.Int64
	serverAsked   atomic.Int64 // nanoseconds
	capped        atomic.Int64
	firstCause    atomic.Pointer[noted]
}

// note counts one retry after a wait of d (p: who set it, and why).
func (t *retryTally) note(d time.Duration, p Pause, cause *noted) {
	t.wait.Add(int64(max(d, 0)))
	t.retries.Add(1)
	if cause != nil {
		t.firstCause.CompareAndSwap(nil, cause)
	}
	if p.ServerAsked > p.Duration {
		t.capped.Add(1)
	}
	if asked := int64(p.ServerAsked); asked > 0 {
		t.serverRetries.Add(1)
		for old := t.serverAsked.Load(); asked > old && !t.serverAsked.CompareAndSwap(old, asked); old = t.serverAsked.Load() {
		}
	}
}

// retryWait is the tally as a RetryWait, nil when nothing was sent again.
func (t *retryTally) retryWait() *RetryWait {
	n := t.retries.Load()
	if n == 0 {
		return nil
	}
	rw := &RetryWait{Retries: int(n), Millis: float64(time.Duration(t.wait.Load()).Microseconds()) / 1000,
		ServerAskedRetries: int(t.serverRetries.Load()), RetryAfterSeconds: time.Duration(t.serverAsked.Load()).Seconds(),
		CappedRetries: int(t.capped.Load())}
	if c := t.firstCause.Load(); c != nil {
		rw.FirstCause, rw.FirstCauseKey = c.words, c.key
	}
	return rw
}

// noted is a retry's cause as a tally keeps it.
type noted struct{ words, key string }

// causeWordsLimit bounds a retry's cause as said: the request and the
// failure, not a page of a proxy's text.
const causeWordsLimit = 400
