package follow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"k8s.io/utils/clock"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// streamEnd is how one stream ended.
type streamEnd struct {
	callbackErr error            // the callback failed or asked to stop
	broken      bool             // reading failed (not an ERROR event, not a clean end)
	expired     bool             // an Expired or TooLarge ERROR event
	reason      string           // for the reconnect notice
	failure     diagnose.Failure // the class of the ERROR event or read error
	err         error
	events      int
	good        int // events other than ERROR
	// progress counts the events that moved the session on: a change not
	// seen before that kept the contract, a bookmark past the last RV, the
	// end of an initial state. A stream the server ended at once without
	// any is a failed attempt, however many events it sent (adversary try
	// 19: streams that replayed the same two events, or bookmarks that did
	// not advance, were reconnected to 70 times in 5 s).
	progress int
	// quietStall: the stream was answered and then silent for
	// StallTimeout, which here proves no hang (see Session.BookmarkPeriod).
	quietStall bool
	// behind: closed because the server is behind the resume point
	// (ServerBehindError); a relist follows.
	behind bool
}

// readStream reads one stream to its end, under the stall watchdog and,
// for a reconnect, the check that the server is not behind the resume
// point (behindCheck).
func (s *Session) readStream(ctx context.Context, stream *watchstream.Stream, reconnect bool) streamEnd {
	check := s.armBehindCheck(ctx, stream, reconnect)
	var stalled atomic.Bool
	var timer clock.Timer
	if s.StallTimeout > 0 {
		timer = s.clock().AfterFunc(s.StallTimeout, func() {
			stalled.Store(true)
			stream.Close()
		})
		defer timer.Stop()
	}
	end := s.drain(stream, func(moved bool) {
		if timer != nil {
			timer.Reset(s.StallTimeout)
		}
		if moved {
			check.moved()
		}
	})
	current, behind := check.stop(s)
	if current != "" {
		s.refreshFacts(ctx, current)
	}
	if behind != nil && end.callbackErr == nil {
		s.behindEnd(&end, behind)
		return end
	}
	if stalled.Load() && end.callbackErr == nil {
		s.stats.Stalls++
		// Whether silence proves a hang depends on who serves the
		// watch: the server now answering, after a reconnect.
		s.refreshFacts(ctx, "")
		err := &StalledError{After: s.StallTimeout}
		if hang, why := s.silenceProvesHang(); hang {
			err.Hint = why
			end.reason, end.err, end.failure, end.broken, end.expired = err.Error(), err, diagnose.FailureNoAnswer, true, false
		} else {
			err.Quiet, err.Hint = true, why
			end.reason, end.err, end.failure, end.broken, end.expired = err.Error(), nil, "", false, false
			if s.Follow {
				end.reason += "; watching again from the last RV"
			} else {
				end.reason += "; the watch ends here as asked (exit 0)"
			}
			end.quietStall = true
		}
	}
	return end
}

// drain reads events until the stream ends; alive is called at every
// event, with whether it moved the session on (streamEnd.progress).
func (s *Session) drain(stream *watchstream.Stream, alive func(moved bool)) streamEnd {
	var end streamEnd
	for {
		ev, err := stream.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				end.reason = "the server ended the stream"
			} else {
				end.reason, end.err, end.failure, end.broken = "the stream broke: "+err.Error(), err, diagnose.ClassifyFailure(err), true
			}
			return end
		}
		end.events++
		if ev.Type != watchstream.EventError {
			end.good++
		}
		progress := end.progress
		obs, last := s.handle(ev, &end)
		alive(end.progress > progress)
		if s.OnEvent != nil {
			if err := s.OnEvent(ev, obs); err != nil {
				end.callbackErr = err
				return end
			}
		}
		if last {
			return end
		}
	}
}

// handle applies one event to the session's state; last is true when the
// server closes the stream after it.
func (s *Session) handle(ev watchstream.Event, end *streamEnd) (obs Observation, last bool) {
	s.streamEvents++
	if ev.Type != watchstream.EventError && ev.Type != watchstream.EventBookmark {
		s.streamObjects++
	}
	// The state is known once an object of it came, or its end: the
	// initial-events-end bookmark (another bookmark before it says
	// nothing of a streaming list's state); for a watch from RV unset or
	// 0, a bookmark comes after the state, so an empty one.
	if s.statePending && ev.Type != watchstream.EventError && (ev.Type != watchstream.EventBookmark || !s.askedState || ev.IsInitialEventsEnd()) {
		s.statePending, s.knowsState = false, true
	}
	// The one judge of the Watch contract; it also ends the state at its
	// initial-events-end bookmark, on any stream that sends a state (a
	// streaming list, or a watch from RV unset or 0 where the server
	// marks the end): stateEnd is that bookmark.
	inState := s.inState()
	breach := s.contract.Judge(ev)
	stateEnd := inState && !s.inState()
	switch ev.Type {
	case watchstream.EventError:
		// The server ends the stream after every ERROR event; each keeps
		// the meaning of its own code (the one classifier).
		serr := &EventError{Status: *ev.Status, err: apierrors.FromObject(&ev.Status.Status)}
		end.failure = diagnose.ClassifyFailure(serr)
		end.err = serr
		end.reason = serr.Error()
		switch {
		case end.failure == diagnose.FailureExpired || end.failure == diagnose.FailureTooLarge:
			end.expired = true
			s.clearRVProblem(serr)
		case diagnose.IsPrevKvNil(ev.Status.Status):
			// An expiry in disguise: a rewatch from the same RV meets the
			// same lost change, a relist recovers (as the Reflector's).
			end.expired = true
			s.clearResume(NoResumeChangeLost)
		}
		return obs, true
	case watchstream.EventBookmark:
		highest := s.lastRV
		if s.advance(ev.Object.ResourceVersion) {
			end.progress++
		}
		switch {
		case stateEnd && endsStateAt(ev.Object.ResourceVersion, highest, breach):
			end.progress++
			obs.InitialEventsEnd, obs.InitialObjects = true, s.stateSent
			// The state is complete at the bookmark's RV: from here on the
			// stream sends changes in RV order, after it.
			s.setResume(ev.Object.ResourceVersion, ResumeFromInitialEventsEnd)
		case stateEnd:
			// An end whose RV no watch can start from (none, "0", not a
			// storage's, below an RV the stream already sent) or that broke
			// the contract: no resume point, and no progress, so that
			// --follow lists again as a Reflector does, never reconnects
			// from it in a loop (adversary try 42 F1-F4). It is still the
			// state's end, shown as one (adversary try 44 F2: hidden as a
			// freshness bookmark, --until BOOKMARK never stopped).
			obs.InitialEventsEnd, obs.InitialObjects, obs.EndUnusable = true, s.stateSent, true
			s.clearResume(NoResumeStateEndUnusable)
		case breach == "":
			s.advanceResume(ev.Object.ResourceVersion, ResumeFromBookmark)
		}
		if obs.Breach = breach; breach != "" {
			// A state newer than its end: said on the bookmark's line.
			s.breached(breach)
		}
	default:
		if s.inState() && ev.Type == watchstream.EventAdded {
			s.stateSent++
		}
		if obs.Breach = breach; breach != "" {
			// Not the collection's, or not in its order: neither tracked
			// nor a resume point; a replay is still counted as one.
			obs.BelowBookmark = s.contract.BelowBookmark()
			s.breached(obs.Breach)
			replay := s.tracker.Replay(ev.Object)
			obs.Duplicate, obs.OlderThan = replay.Duplicate, replay.OlderThan
			s.countReplay(obs)
			return obs, false
		}
		obs = s.tracker.Observe(ev.Type, ev.Object)
		switch {
		case s.countReplay(obs):
		default:
			end.progress++
			s.advance(ev.Object.ResourceVersion)
			s.advanceResume(ev.Object.ResourceVersion, ResumeFromEvent)
		}
	}
	return obs, false
}

// countReplay counts obs when it is a replay of its object (a duplicate,
// or older than the object was seen at), whatever else the event broke:
// one count per definition of docs/watch.md. It reports whether it was.
func (s *Session) countReplay(obs Observation) bool {
	switch {
	case obs.Duplicate:
		s.stats.Duplicates++
	case obs.OlderThan != "":
		s.stats.OlderThanSeen++
	default:
		return false
	}
	return true
}

// EventError is a watch that ended with an ERROR event: the Status the
// server sent, unwrapping to the API error of its code, so that every
// code keeps its own class and exit code (diagnose.ClassifyFailure).
type EventError struct {
	// Status is as sent: its code kept, or said missing (CodeSent).
	Status diagnose.SentStatus
	err    error
}

func (e *EventError) Error() string {
	return e.Status.Said("ERROR event", e.Status.Message)
}

func (e *EventError) Unwrap() error { return e.err }

// FailureClass is the class of the event's Status as sent (the one rule,
// diagnose.ClassifySent): a code that is no HTTP error code is "other",
// whatever its reason; only a 410 is Expired.
func (e *EventError) FailureClass() diagnose.Failure { return diagnose.ClassifySent(e.Status.Status) }

// silenceProvesHang says whether a stream answered and then silent for
// StallTimeout is hung, and why (or why not): only where a bookmark was
// due in that time. A quiet collection sends nothing otherwise: without
// bookmarks asked for, from storage (which never sends one), or from a
// start RV ahead of the server (no bookmark before it gets there).
func (s *Session) silenceProvesHang() (bool, string) {
	switch {
	case s.noResume == NoResumeStartAhead:
		return false, "the start RV is ahead of the server, which sends no bookmark before it gets there, so silence is expected"
	case !s.Options.AllowBookmarks && !s.Options.SendInitialEvents:
		return false, "a quiet collection sends nothing, and no bookmark was asked for: silence is not taken for a hang"
	case s.BookmarkPeriod <= 0 && s.BookmarkFacts != "":
		return false, s.BookmarkFacts
	case s.BookmarkPeriod <= 0:
		return false, "a quiet collection sends nothing here as far as is known of the server answering (no bookmark is known to come), so silence is not taken for a hang"
	case s.StallTimeout <= s.BookmarkPeriod && s.BookmarkFacts != "":
		return false, "a quiet collection sends nothing for longer than that: " + s.BookmarkFacts + ", so silence is not taken for a hang"
	case s.StallTimeout <= s.BookmarkPeriod:
		return false, fmt.Sprintf("a quiet collection sends nothing for longer than that (the watch cache sends %s; storage sends no periodic bookmarks), so silence is not taken for a hang", BookmarkEvery(s.BookmarkPeriod))
	case s.BookmarkFacts != "":
		return true, "a bookmark was due: " + s.BookmarkFacts
	}
	// Who serves the watch was not read (the facts say nothing of it):
	// the claim is the watch cache's rule, not this server's.
	return true, fmt.Sprintf("a bookmark was due if the watch cache serves this watch (it sends %s; whether it does here was not read)", BookmarkEvery(s.BookmarkPeriod))
}
