package follow

import (
	"errors"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// Streak is the run of failed attempts (watch requests, streams, relists)
// since the last healthy stream. A session that ends inside one did not
// watch when it ended, whatever its end (--timeout): the caller reports the
// failure as the watch without --follow would (unreachable, 429, Expired).
type Streak struct {
	// Err is the last failure, Failure its class.
	Err     error
	Failure diagnose.Failure
	// Attempts is how many failed in a row; Since when the first did.
	Attempts int
	Since    time.Time
	// EverHealthy: a stream of this session was healthy before the streak.
	EverHealthy bool
}

// Streak returns the failure streak the session is in, or nil when its last
// stream was healthy (or nothing failed).
func (s *Session) Streak() *Streak {
	if s.streak == nil {
		return nil
	}
	st := *s.streak
	return &st
}

// failed records a failed attempt.
func (s *Session) failed(err error) {
	if err == nil {
		return
	}
	if s.streak == nil {
		s.streak = &Streak{Since: s.clock().Now(), EverHealthy: s.everHealthy}
	}
	s.streak.Err, s.streak.Failure = err, diagnose.ClassifyFailure(err)
	s.streak.Attempts++
}

// healthy records a healthy stream: one that delivered an event (not an
// ERROR), or stayed open without failing. It ends any streak.
func (s *Session) healthy() {
	s.everHealthy = true
	s.streak = nil
}

// judge records what one stream was: healthy when it delivered an event
// (not an ERROR) or stayed open without failing (until the watch's own end,
// or for more than a second before the server ended it cleanly), a failure
// when it broke, stalled or ended with an ERROR event. A stream that sent
// events and then broke was both, in that order.
func (s *Session) judge(end streamEnd, opened time.Time, watchEnded bool) {
	var stall *StalledError
	stalled := errors.As(end.err, &stall)
	if end.good > 0 {
		s.healthy()
	}
	switch {
	case stalled:
		s.failed(end.err)
	case watchEnded:
		if end.good == 0 && !end.expired && (end.failure == "" || end.broken) {
			s.healthy() // open, and quiet, when the watch ended
		}
	case end.broken || end.failure != "":
		s.failed(end.err)
	case end.err == nil && s.clock().Since(opened) > time.Second:
		s.healthy()
	}
}
