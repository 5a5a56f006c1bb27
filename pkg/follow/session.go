// Package follow runs watches the way client-go's Reflector does, and says
// what a Reflector hides: it reconnects from its resume point, relists on
// Expired or TooLarge, and reconciles the new list with what was known, so
// that the gap (objects added, modified and deleted while the watch was
// broken) is reported instead of silently absorbed.
package follow

import (
	"context"
	"errors"
	"time"

	"k8s.io/utils/clock"

	"github.com/watchrv/kubectl-watchrv/internal/rv"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// Stop, returned by an OnEvent callback, ends a Session cleanly; its Reason
// becomes the session's End (for example "until" or "max-events").
type Stop struct{ Reason string }

func (s *Stop) Error() string { return "stop watching: " + s.Reason }

// Session runs one raw watch or, with Follow, a chain of watches that
// behaves like client-go's Reflector. Run splits the work into named steps,
// as reflector.go does: listFirst, relist, openWatch, readStream, and
// afterStream decides what follows.
type Session struct {
	Client  *apiclient.Client
	Target  apiclient.Target
	Options watchstream.Options
	// ListFirst lists the collection (paged, metadata only) and watches from
	// the List's RV: the correct pattern (--rv list).
	ListFirst bool
	Follow    bool
	Backoff   Backoff
	// OnEvent sees every event in order. A *Stop ends the session cleanly;
	// any other error ends it and Run returns that error.
	OnEvent func(watchstream.Event, Observation) error
	// OnNotice sees the list, reconnects and relists.
	OnNotice func(Notice)
	// OnOpen, when set, is called as each stream is answered (before its
	// first event).
	OnOpen func()
	// StallTimeout (0 = off) closes a stream that has sent nothing, not even
	// a bookmark, for that long, and abandons a watch request whose answer
	// has not begun by then: a hung API server (or a network that drops
	// packets silently) is noticed by the client's own deadline, and with
	// Follow the session reconnects from the last RV, so nothing is lost.
	StallTimeout time.Duration
	// Trace (may be nil) sees every request the session sends, for -v.
	Trace func(format string, args ...any)
	// Clock (nil = the real clock) times backoffs, the stall watchdog and
	// how long a stream stayed open, as a Reflector's clock.Clock does.
	Clock clock.WithDelayedExecution
	// StartAheadOf is the server's current RV when the start RV was found
	// ahead of it before the watch ("" = not ahead, or not checked). Such a
	// start is no resume point (no change after it has happened yet), a
	// silent stream from it is explained (no bookmark comes before the
	// server reaches it), and a stream the server ends at once from it
	// with nothing is that RV's failure (TooLarge), not a stream end.
	StartAheadOf string
	// BookmarkPeriod is how often a quiet stream gets a bookmark here (0 =
	// never: none was asked for, or storage serves the watch and sends
	// none). Silence for StallTimeout proves a hang only when StallTimeout
	// exceeds it: shorter silence is what a quiet collection sends.
	BookmarkPeriod time.Duration
	// BookmarkFacts says, from the server's facts, who sends those
	// bookmarks, or why none come ("" = not known: no text names who
	// serves the watch).
	BookmarkFacts string
	// ServerFacts (may be nil) reads what the server now answering is,
	// given the current RV a consistent list of it just gave ("" for
	// none), and returns its BookmarkPeriod and BookmarkFacts: a
	// reconnect may reach another server than the facts were read of.
	ServerFacts func(ctx context.Context, currentRV string) (time.Duration, string)
	// FactsRead: BookmarkPeriod and BookmarkFacts were read of the server
	// before the first watch. Without it the first stream's silence asks
	// ServerFacts too, as every later one's does: one source for every
	// stall line (fresh user try 24 F1: the first said the generic rule,
	// later ones "no watch cache on this server").
	FactsRead bool
	// CredentialPlugin is the kubeconfig's exec credential command ("" =
	// none): a request that never reached the network is named after it.
	CredentialPlugin string

	tracker *Tracker
	// factsStream is the stream whose server BookmarkPeriod and
	// BookmarkFacts are of (the first one's are read before it).
	factsStream int
	// lastRV is the highest RV seen (of an event, a bookmark or a List):
	// what a relist asks "not older than", never by itself a watch's start.
	lastRV string
	// resumeRV is where the next watch starts from: the highest RV after
	// which nothing can have been missed ("" = none: a relist must give
	// one). resumeFrom says where it came from, noResume why there is none.
	resumeRV, resumeFrom, noResume string
	// stateSent counts the ADDED of the open stream's initial state;
	// streamEvents the events of the last stream opened, streamObjects
	// those of them neither ERROR nor BOOKMARK (stateNoResume).
	stateSent, streamEvents, streamObjects int
	// streak is the failure streak the session is in (nil after a healthy
	// stream); everHealthy, whether any stream was healthy.
	streak      *Streak
	everHealthy bool
	// answered: a watch request or a list was answered (response headers
	// came) at least once in this session; began is when Run started.
	answered bool
	began    time.Time
	// empties counts the streams in a row that the server ended at once
	// with no event (see EmptyStreamError).
	empties int
	// knowsState: the tracker holds the whole collection (after a list, or
	// once a watch that starts with the state has run), so a relist's
	// difference is a real gap rather than the first sight of the state.
	knowsState bool
	// statePending: the open stream sends the state, and has sent nothing
	// yet; its first event other than ERROR makes the state known.
	statePending bool
	mixing       mixingDetector
	// contract judges the open stream's events (the Watch contract).
	contract *watchstream.Contract
	// relisted: a relist happened and no event has arrived since.
	relisted bool
	// askedState: the watch request last sent (its stream open or not)
	// had sendInitialEvents=true, a streaming list (kept after its end
	// bookmark: the request sent stays what it was).
	askedState bool
	// sentRV, sentRVSet: the resourceVersion the watch request last sent
	// (SentResourceVersion).
	sentRV    string
	sentRVSet bool
	stats     Stats
	// held is the wait added since the last reconnect or relist notice,
	// which the next one says (refreshFacts).
	held      Held
	end       End
	endReason string
}

// End says how a session ended.
type End string

// Ends.
const (
	EndStreamEnd   End = "stream-end"  // the server ended the stream (without Follow)
	EndTimeout     End = "timeout"     // the watch's own deadline (--timeout)
	EndInterrupted End = "interrupted" // the caller's context was cancelled (Ctrl-C)
	EndError       End = "error"       // a failure, or an ERROR event, ended it
	// EndStallTimeout: without Follow, the answered stream sent nothing for
	// StallTimeout, which here proves no hang (see BookmarkPeriod).
	EndStallTimeout End = "stall-timeout"
)

// Stats count what a session did.
type Stats struct {
	Streams    int `json:"streams"`
	Reconnects int `json:"reconnects"`
	Relists    int `json:"relists"`
	Reconciled int `json:"reconciledByRelist"`
	// Duplicates counts the events of an object at the RV it was last
	// seen at, and OlderThanSeen those at an older RV (not applied;
	// Observation.OlderThan): every replay, one that also broke the
	// Watch contract included (countReplay).
	Duplicates    int `json:"duplicates"`
	OlderThanSeen int `json:"olderThanSeen,omitempty"`
	// LastRV is the highest RV seen; ResumeRV the resume point (see
	// Session.resumeRV), ResumeFrom where it came from (ResumeFrom*), and
	// NoResume why there is none (NoResume*).
	LastRV     string `json:"-"`
	ResumeRV   string `json:"-"`
	ResumeFrom string `json:"resumeFrom,omitempty"`
	NoResume   string `json:"noResumePoint,omitempty"`
	// MixedServers counts the signs that answers came from different API
	// servers behind one address (an RV going backwards, a TooLarge right
	// after a successful list).
	MixedServers int `json:"mixedServerSigns,omitempty"`
	// ContractBreaches counts the events that broke the Watch contract
	// (contract.go); FirstBreach says how the first did.
	ContractBreaches int    `json:"contractBreaches,omitempty"`
	FirstBreach      string `json:"firstContractBreach,omitempty"`
	// ServerBehind counts the reconnects that reached a server whose
	// current RV was below the resume point (ServerBehindError): another
	// storage; a relist is tried after each. ServerBehindRelisted counts
	// those the relist completed after: one that failed, or that the run
	// ended in, mended nothing (fresh user try 25 F4).
	ServerBehind         int `json:"serverBehindResumePoint,omitempty"`
	ServerBehindRelisted int `json:"serverBehindRelisted,omitempty"`
	// Unchecked counts the checks of a reconnect's server that ran and
	// could not tell whether it is behind the resume point (each said
	// by a NoticeUnchecked).
	Unchecked int `json:"behindUnchecked,omitempty"`
	// Stalls counts the streams the stall watchdog closed (silent for
	// StallTimeout), counted when closed: a run cut before the reconnect
	// that follows still records the stall it acted on (adversary try 25
	// F1).
	Stalls int `json:"stalledStreams,omitempty"`
}

// Stats returns the counts so far.
func (s *Session) Stats() Stats {
	st := s.stats
	st.LastRV = s.lastRV
	st.ResumeRV, st.ResumeFrom, st.NoResume = s.resumeRV, s.resumeFrom, s.noResume
	if st.NoResume == noResumeStatePending {
		st.NoResume = stateNoResume(st.Streams, s.streamEvents, s.streamObjects, s.askedState)
	}
	if st.ResumeFrom == "" {
		st.ResumeFrom = ResumeFromNone
	}
	st.MixedServers = len(s.mixing.signs)
	return st
}

// End is how the session ended (valid after Run).
func (s *Session) End() End { return s.end }

// EndReason says, in words, why the last stream ended (valid after Run).
func (s *Session) EndReason() string { return s.endReason }

// WatchCacheBookmarkPeriod is how often the watch cache sends a quiet
// watcher a bookmark: about once a minute (cacher's bookmark frequency),
// plus the 15 s of slack the cacher itself allows (DefaultEventFreshDuration).
// Watches served by storage get none.
const WatchCacheBookmarkPeriod = 75 * time.Second

// Run watches until the stream ends (or, with Follow, until ctx ends or the
// callback stops it). Without Follow an HTTP error status is returned as is;
// with Follow only failures a retry cannot mend are returned, each with its
// own class (403, 401, TLS, 400 ...), never disguised as a stall.
func (s *Session) Run(ctx context.Context) error {
	err := s.run(ctx)
	if !s.answered && s.streak == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// The run's time ran out before anything was answered (a list of
		// --rv list still waiting, a request never sent): no answer.
		s.failed(&StalledError{After: s.clock().Since(s.began).Round(time.Millisecond), Opening: true, AtDeadline: true})
	}
	var stop *Stop
	var incomplete *ListIncompleteError
	switch {
	case errors.As(err, &stop):
		s.end, err = End(stop.Reason), nil
	case errors.As(err, &incomplete):
		s.end = EndError // the time ran out, but before the watch began
	case s.end != "":
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		s.end, err = EndTimeout, nil
	case ctx.Err() != nil:
		s.end, err = EndInterrupted, nil
	case err != nil:
		s.end = EndError
	default:
		s.end = EndStreamEnd
	}
	return err
}

func (s *Session) run(ctx context.Context) error {
	s.tracker = NewTracker()
	s.began = s.clock().Now()
	if s.FactsRead || s.ServerFacts == nil {
		s.factsStream = 1 // the caller's are the first stream's
	}
	opts := s.Options
	if opts.RVSet {
		s.lastRV = opts.ResourceVersion
	}
	switch {
	case s.ListFirst:
		// Until the List completes, it gave no RV (try 17: a refused
		// list was "the state came in key order").
		s.clearResume(NoResumeListIncomplete)
	case opts.DeliversState():
		s.clearResume(noResumeStatePending)
	case s.StartAheadOf != "":
		s.clearResume(NoResumeStartAhead)
	default:
		s.setResume(opts.ResourceVersion, ResumeFromStart)
	}
	if s.ListFirst {
		var err error
		if opts, err = s.listFirst(ctx, opts); err != nil {
			if outOfTime(ctx, err) {
				if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
					return nil // interrupted: the run says so
				}
				// The time ran out before the list completed: no watch
				// was started, and the run did not do what was asked.
				err = &ListIncompleteError{Err: err}
			}
			s.failed(err)
			return err
		}
	}
	var pending *relistCause // an Expired or TooLarge asks for a relist
	// reconnect: the next watch starts from the resume point after a
	// stream or a watch request of this session; not after a list, whose
	// RV is the answering storage's own, nor the first watch, whose start
	// was checked before it.
	reconnect := false
	for ctx.Err() == nil {
		if pending != nil {
			reconnect = false
			retry, err := s.relistFor(ctx, pending)
			if err != nil || ctx.Err() != nil {
				return err
			}
			if retry {
				continue
			}
			pending = nil
			opts = s.resumeOptions(opts)
		}
		// The request sent, whether or not a stream opens: a refusal of
		// the request itself (a 504 where storage serves a streaming
		// list) answers it too.
		s.askedState = opts.SendInitialEvents
		s.sentRV, s.sentRVSet = opts.ResourceVersion, opts.RVSet && opts.ResourceVersion != ""
		stream, release, err := s.openWatch(ctx, opts)
		if err != nil {
			if outOfTime(ctx, err) {
				if diagnose.IsAnswer(err) {
					// Its status came as the time ran out (a 410 whose
					// body did not): the attempt's outcome, never "no
					// answer" (adversary try 12).
					s.failed(err)
					return err
				}
				s.unansweredAtDeadline(ctx, err)
				return nil
			}
			s.failed(err)
			reconnect = true
			if pending, err = s.afterOpenFailure(ctx, err, opts); err != nil {
				return err
			}
			continue
		}
		s.stats.Streams++
		s.answered = true
		if s.OnOpen != nil {
			s.OnOpen()
		}
		opened := s.clock().Now()
		// A watch that sends the state makes it known once it sends
		// anything but an ERROR (handle): a streaming list from an RV the
		// server has not reached is answered 200, then refused by an ERROR
		// event, and has sent no state. An exact watch sends changes only.
		s.statePending = opts.DeliversState()
		s.openedStream(opts)
		end := s.readStream(ctx, stream, reconnect)
		reconnect = true
		stream.Close()
		release()
		if end.callbackErr != nil {
			if end.failure != "" {
				// Stopped at an ERROR event (--until ERROR): the attempt
				// still ended in that error, and keeps its class.
				s.failed(end.err)
			} else if end.good > 0 {
				s.healthy()
			}
			return end.callbackErr
		}
		s.judge(end, opened, ctx.Err() != nil)
		s.endReason = end.reason
		if ctx.Err() != nil {
			return nil
		}
		if s.Follow && end.err == nil && !end.quietStall && endsWithin(ctx, time.Second) {
			// The server ended the stream at the run's own end (the
			// watch's timeoutSeconds is what --timeout left, in whole
			// seconds): a reconnect would have no time, and none is
			// announced or counted (fresh user try 16: "reconnect in
			// 0.0s", then the summary of 1 stream and 1 reconnect). A
			// stream the stall watchdog closed is no end of the server's:
			// its reconnect is dropped only when its wait would pass
			// --timeout (sleep), as the docs say (fresh user try 26 F5: one
			// of 0.0 s was dropped with 0.9 s left).
			<-ctx.Done()
			return nil
		}
		if !s.Follow {
			// One attempt: what it was (judged above) is the run's outcome.
			switch {
			case end.broken || end.failure != "":
				s.end = EndError
			case end.quietStall:
				s.end = EndStallTimeout
			case opts.TimeoutSeconds > 0 && s.clock().Since(opened) >= time.Duration(opts.TimeoutSeconds)*time.Second-time.Second:
				s.end = EndTimeout
			}
			return nil
		}
		opts = s.resumeOptions(opts)
		if pending, err = s.afterStream(ctx, end, opened, opts); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) trace(format string, args ...any) {
	if s.Trace != nil {
		s.Trace(format, args...)
	}
}

func (s *Session) notify(n Notice) {
	if n.Kind == NoticeReconnect || n.Kind == NoticeRelist {
		n.Held, s.held = s.held, Held{}
	}
	if s.OnNotice != nil {
		s.OnNotice(n)
	}
}

// advance moves the last RV seen forward (never back), and says whether
// it moved. An RV that is no decimal RV is never one: it cannot be
// ordered, nor sent back as --rv is (adversary try 19: a bookmark at
// "abc" became the resume point).
func (s *Session) advance(v string) bool {
	s.mixing.seen(v)
	if rv.Valid(v) && (s.lastRV == "" || apiclient.RVAfter(v, s.lastRV)) {
		s.lastRV = v
		return true
	}
	return false
}
