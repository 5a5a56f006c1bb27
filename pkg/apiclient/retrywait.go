package apiclient

import "errors"

// RetryWait is what the one retry policy (Retry.Wait) waited in a run:
// how many requests it sent again, the time it waited before them, and
// how many of those waits the server's Retry-After set (the longest it
// asked). A run's cost carries it, so that every command's summary, JSON
// and final error line say the plugin's waits, never a silence (adversary
// try 26 F3: a probe waited 60 s of Retry-After, then said only
// "throttling ... retry later").
type RetryWait struct {
	Retries            int     `json:"retries"`
	Millis             float64 `json:"ms"`
	ServerAskedRetries int     `json:"serverAskedRetries,omitempty"`
	RetryAfterSeconds  float64 `json:"retryAfterSeconds,omitempty"`
	CappedRetries      int     `json:"cappedRetries,omitempty"`
	// FirstCause is the failure the first retry was sent after, in its
	// own words (one line, bounded).
	FirstCause string `json:"firstCause,omitempty"`
	// FirstCauseKey is FirstCause's key (SameFailure): compared, not said.
	FirstCauseKey string `json:"-"`
}

// CountRetriesOf makes the ledger's Cost carry the retry waits of sw, the
// run's stopwatch (every request's context is under it, and every retry
// wait is noted on the stopwatches it is nested in).
func (l *Ledger) CountRetriesOf(sw *Stopwatch) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waits = sw
}

// RetryWaitOf is the retries noted on sw, nil when nothing was sent
// again: a fan-out member's own (each member's stopwatch is its own:
// servers.Fleet.Each), said on its row (adversary try 28 F3).
func RetryWaitOf(sw *Stopwatch) *RetryWait { return retryWait(sw) }

// retryWait is sw's RetryWait, nil when nothing was sent again.
func retryWait(sw *Stopwatch) *RetryWait {
	if sw == nil {
		return nil
	}
	return sw.all.retryWait()
}

// LineRetryWait is the run's retries a line about the run says: those of
// the run's stopwatch less the ones already said on a line of their own
// (StartOwnLineStopwatch: watch --rv N's check read, explain-error's
// check), nil when none is left (adversary try 30 F3: the watch's error
// line said the check read's 2 retries and its 503 as the watch's, sent
// once and answered 500).
func (l *Ledger) LineRetryWait() *RetryWait {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.waits == nil {
		return nil
	}
	return l.waits.line.retryWait()
}

// RetriedError is a read's failure after the retry policy sent it again:
// its words and class are Err's, and Wait is that read's own retries
// (not the run's), so that a note or a warning about the read can say
// them as an error line does (adversary try 27 F5: watch --rv N's check
// warning said the 500 of a read sent 3 times, not its retries).
type RetriedError struct {
	Err  error
	Wait RetryWait
}

func (e *RetriedError) Error() string { return e.Err.Error() }
func (e *RetriedError) Unwrap() error { return e.Err }

// RetriesOf is the retries a failure carries (RetriedError), nil when
// it was sent once.
func RetriesOf(err error) *RetryWait {
	var re *RetriedError
	if errors.As(err, &re) {
		return &re.Wait
	}
	return nil
}

// WithRetriesOf is err carrying the retries noted on sw, the stopwatch of
// its read alone; err as it is when the read was sent once.
func WithRetriesOf(err error, sw *Stopwatch) error {
	if err == nil {
		return nil
	}
	if rw := retryWait(sw); rw != nil {
		return &RetriedError{Err: err, Wait: *rw}
	}
	return err
}
