package follow

import (
	"errors"
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
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
	s.empties = 0
}

// judge records what one stream was: healthy when it delivered an event
// (not an ERROR) or stayed open without failing (until the watch's own end,
// quiet for StallTimeout where that proves no hang, or for more than a
// second before the server ended it cleanly), a failure when it broke,
// stalled where a bookmark was due, ended with an ERROR event, or was ended
// by the server at once with nothing (EmptyStreamError). A stream that sent
// events and then broke was both, in that order.
func (s *Session) judge(end streamEnd, opened time.Time, watchEnded bool) {
	var stall *StalledError
	stalled := errors.As(end.err, &stall)
	if end.progress > 0 {
		s.healthy()
	}
	switch {
	case stalled:
		s.failed(end.err)
	case end.quietStall:
		s.healthy() // answered, and quiet for StallTimeout where that is normal
	case watchEnded:
		if end.good == 0 && !end.expired && (end.failure == "" || end.broken) {
			s.healthy() // open, and quiet, when the watch ended
		}
	case end.broken || end.failure != "":
		s.failed(end.err)
	case s.clock().Since(opened) > time.Second:
		s.healthy()
	case end.progress == 0:
		s.empties++
		e := &EmptyStreamError{After: s.clock().Since(opened).Round(time.Millisecond), From: s.sentFrom(), InARow: s.empties, Stale: end.events}
		if s.noResume == NoResumeStartAhead {
			e.AheadOf = s.StartAheadOf
		}
		s.failed(e)
	}
}

// sentFrom is the RV the last watch was sent from ("" when unset): the
// watch an empty stream answered, not the newest RV seen, which a resume
// point below it (a state's end) is not (adversary try 42 F4: "from RV
// 219: the server ended the watch from RV 220").
func (s *Session) sentFrom() string {
	if !s.sentRVSet {
		return ""
	}
	return s.sentRV
}

// MaxEmptyStreams is how many streams in a row the server may end at once
// with no event before a following session gives up: more would only
// repeat the same answer (kine ends a watch from an RV ahead of it at once,
// every time), with the backoff between them (about 12 s in all).
const MaxEmptyStreams = 5

// EmptyStreamError: the server answered a watch and ended the stream at
// once (within a second) with no event, not even a bookmark. From a start
// RV known to be ahead of the server it is that RV's failure (TooLarge):
// its storage ended the watch instead of holding it until it gets there
// (kine does so with the watch cache off; etcd and the watch cache hold
// such a watch silently). Otherwise the server, or something in front of
// it, ends every watch at once.
type EmptyStreamError struct {
	After time.Duration
	From  string // the RV the watch started from ("" = unset)
	// AheadOf is the server's current RV, when From was found ahead of it.
	AheadOf string
	InARow  int
	// Stale counts the events the stream sent that moved nothing on
	// (changes sent before, or out of order, bookmarks not past the last
	// RV): a stream of them is as empty as one with none.
	Stale int
}

func (e *EmptyStreamError) Error() string {
	after := "after " + e.After.String()
	if e.After < time.Millisecond {
		after = "within 1ms"
	}
	times := ""
	if e.InARow > 1 {
		times = fmt.Sprintf(" (%s in a row)", text.Count(e.InARow, "time"))
	}
	if e.AheadOf != "" {
		return fmt.Sprintf("the server ended the watch from RV %s at once (%s) with no event%s: RV %s is ahead of its current RV %s, and its storage ended the watch instead of holding it until it gets there (kine does so with the watch cache off; etcd and the watch cache hold such a watch): list again for a real starting point",
			e.From, after, times, e.From, e.AheadOf)
	}
	from := "with RV unset"
	if e.From != "" {
		from = "from RV " + e.From
	}
	if e.Stale > 0 {
		return fmt.Sprintf("the server ended the watch %s at once (%s) with nothing new: %s that moved nothing on (sent before, out of order, or outside the request), and no bookmark past the last RV%s: the API server, or a proxy in front of it, replays and ends watches at once", from, after, text.Count(e.Stale, "event"), times)
	}
	return fmt.Sprintf("the server ended the watch %s at once (%s) with no event, not even a bookmark%s: the API server, or a proxy in front of it, ends watches at once", from, after, times)
}

// FailureClass: from an RV ahead of the server it is TooLarge (exit 10);
// otherwise no HTTP status names it.
func (e *EmptyStreamError) FailureClass() diagnose.Failure {
	if e.AheadOf != "" {
		return diagnose.FailureTooLarge
	}
	return diagnose.FailureOther
}
