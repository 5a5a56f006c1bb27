package apiclient

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

// retryWait is sw's RetryWait, nil when nothing was sent again.
func retryWait(sw *Stopwatch) *RetryWait {
	if sw == nil || sw.Retries() == 0 {
		return nil
	}
	n, asked := sw.ServerAskedRetries()
	return &RetryWait{Retries: sw.Retries(), Millis: float64(sw.RetryWaited().Microseconds()) / 1000,
		ServerAskedRetries: n, RetryAfterSeconds: asked.Seconds(), CappedRetries: sw.CappedRetries(),
		FirstCause: sw.FirstRetryCause()}
}
