package follow

import (
	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// Where the session's resume point came from: the RV a next watch may start
// from without losing an event.
const (
	ResumeFromStart            = "start"              // --rv N: the changes after N come in RV order
	ResumeFromList             = "list"               // a List's RV (--rv list, or a relist)
	ResumeFromInitialEventsEnd = "initial-events-end" // the bookmark that ends an initial state (a streaming list's, or a watch's from RV unset or 0)
	ResumeFromBookmark         = "bookmark"           // a bookmark of a watch that sends changes
	ResumeFromEvent            = "event"              // the last event of a watch that sends changes
	ResumeFromNone             = "none"
)

// Why the session has no resume point.
const (
	// NoResumeStateInKeyOrder: a watch with RV unset or 0 sent the state as
	// ADDED events in key order, not RV order, and no initial-events-end
	// bookmark where the state ends (not every server sends one, nor one
	// without bookmarks asked for: docs/watch.md): no RV it sent is a
	// resume point until a List gives one. Where the bookmark comes, it is
	// the resume point (ResumeFromInitialEventsEnd).
	NoResumeStateInKeyOrder = "state-in-key-order"
	// NoResumeInitialEventsIncomplete: a streaming list ended before its
	// initial-events-end bookmark.
	NoResumeInitialEventsIncomplete = "initial-events-incomplete"
	// NoResumeRVProblem: the last RV was answered Expired or TooLarge: only
	// a new List gives a start.
	NoResumeRVProblem = "rv-expired-or-too-large"
	// NoResumeNoRVRefused: the watch sent no RV, or RV 0 (any state), and
	// was answered Expired or TooLarge all the same (no API server answers
	// so): no RV was answered, and only a new List gives a start (fresh
	// user try 29 F8; adversary try 30 F4: RV 0 was "the last RV").
	NoResumeNoRVRefused = "no-rv-sent-refused"
	// NoResumeConsistentReadLag: a streaming list that sent no RV (a
	// consistent read) was answered TooLarge: its watch cache lags
	// storage; only a new List (or a later streaming list) gives a start.
	NoResumeConsistentReadLag = "consistent-read-lag"
	// NoResumeStartAhead: the start RV (--rv N) is ahead of the server's
	// current RV (checked before the watch): no change after it has
	// happened yet, so it says nothing about what the collection holds.
	NoResumeStartAhead = "start-rv-ahead"
	// NoResumeChangeLost: the watch met a change whose previous value
	// storage no longer has (500 "etcd event received with PrevKv=nil"):
	// a watch from the last RV meets the same change and fails again.
	NoResumeChangeLost = "change-lost"
	// NoResumeListIncomplete: the List of --rv list did not complete
	// (refused, failed, or the time ran out), so no RV was read to
	// resume from.
	NoResumeListIncomplete = "list-incomplete"
	// NoResumeNothingAnswered: no watch of the session was answered (a
	// watch with RV unset or 0 refused, or not answered in time): no
	// state came, and none gives a resume point but a List.
	NoResumeNothingAnswered = "nothing-answered"
	// NoResumeServerBehind: the server answering a reconnect was behind
	// the resume point (ServerBehindError): another storage, whose RVs the
	// ones seen are not; only a List of it gives one.
	NoResumeServerBehind = "server-behind-resume-point"
	// NoResumeListRVNotStorage: a List (of --rv list, or a relist)
	// completed, and its resourceVersion is no storage's ("0", empty, not
	// a decimal: NoResumePointError), so no watch starts after it; not
	// "the List did not complete" (adversary try 25 F2).
	NoResumeListRVNotStorage = "list-rv-not-storage"
	// NoResumeStateEndUnusable: the initial-events-end bookmark came with
	// an RV no watch can start from (none, "0", not a decimal, past 64
	// bits, below an RV the stream had already sent), or in breach of the
	// Watch contract: the state's end is no resume point.
	NoResumeStateEndUnusable = "state-end-rv-unusable"
	// NoResumeNoEvent: a watch that sends the state (RV unset or 0, or a
	// streaming list) was answered, and its stream ended with no event at
	// all (an empty 200 body): nothing came, neither the state nor its
	// end.
	NoResumeNoEvent = "no-event-came"
	// NoResumeNoState: a watch that sends the state was answered, and
	// events came, none of them an object of the state (only an ERROR
	// event not Expired or TooLarge, or bookmarks that did not end it).
	NoResumeNoState = "no-state-came"
)

// noResumeStatePending is the session's reason while a watch that sends
// the state has not ended it: never reported as it is, but as what the
// facts recorded since say (stateNoResume), so that no reason is chosen
// by elimination (adversary F6: a watch answered with an empty body said
// "the state came in key order, not RV order" with Events: 0).
const noResumeStatePending = "state-pending"

// stateNoResume is why a session whose watch sends the state has no
// resume point, from what was recorded: streams, the watches answered;
// events and objects, the events of the last such stream and, of them,
// the objects (neither ERROR nor BOOKMARK); askedState, that it was a
// streaming list.
func stateNoResume(streams, events, objects int, askedState bool) string {
	switch {
	case streams == 0:
		return NoResumeNothingAnswered
	case events == 0:
		return NoResumeNoEvent
	case objects == 0:
		return NoResumeNoState
	case askedState:
		return NoResumeInitialEventsIncomplete
	}
	return NoResumeStateInKeyOrder
}

// endsStateAt: at, the RV of the bookmark that ends a state, is one a
// watch can start from: a storage's RV (rv.Valid), not below highest (the
// newest RV the stream sent before it), on a bookmark within the
// contract (breach "").
func endsStateAt(at, highest, breach string) bool {
	return breach == "" && watchstream.ResumableEnd(at) && (highest == "" || !rv.After(highest, at))
}

// setResume sets the resume point.
func (s *Session) setResume(rv, from string) {
	s.resumeRV, s.resumeFrom, s.noResume = rv, from, ""
	if rv == "" {
		s.resumeFrom = ResumeFromNone
	}
}

// clearRVProblem: err, an Expired or TooLarge answer to the watch: of the
// RV it sent, or of none or 0 (NoResumeNoRVRefused), unless the answer
// fits the request (a streaming list that sent none is a consistent read
// its watch cache may fail to serve in time: NoResumeConsistentReadLag;
// fresh user try 31 F2: "which no API server answers" under a row that
// called it the cache's lag).
func (s *Session) clearRVProblem(err error) {
	if !s.sentRVSet || s.sentRV == "0" {
		if ctx := s.SentContext(err); ctx.Operation == diagnose.OpStreamingList && diagnose.FromError(err, ctx).Inconsistent == "" {
			s.clearResume(NoResumeConsistentReadLag)
			return
		}
		s.clearResume(NoResumeNoRVRefused)
		return
	}
	s.clearResume(NoResumeRVProblem)
}

// SentContext is what the watch request that got err sent, as the
// classifier is told it: as the answer carries it (an answer to the
// request: diagnose.AnsweredContext), else the session's last watch
// request as it was sent (an ERROR event in its stream, or err nil): a
// streaming list or a watch, its resourceVersion or none, never the
// highest RV seen since (adversary try 28 F5). The one source of it for
// the session and for every line of the watch command.
func (s *Session) SentContext(err error) diagnose.Context {
	if ctx, ok := diagnose.AnsweredContext(err); ok {
		return ctx
	}
	op := diagnose.OpWatch
	if s.askedState {
		op = diagnose.OpStreamingList
	}
	return diagnose.Context{Operation: op, RequestedResourceVersion: s.sentRV, NoResourceVersionSent: !s.sentRVSet, Live: true}
}

// clearResume says there is no resume point, and why.
func (s *Session) clearResume(why string) {
	s.resumeRV, s.resumeFrom, s.noResume = "", ResumeFromNone, why
}

// advanceResume moves the resume point to at (never back) when the stream
// sends changes in RV order; events of an initial state never move it.
func (s *Session) advanceResume(at, from string) {
	if s.inState() || !rv.Valid(at) {
		return
	}
	if s.resumeRV == "" || rv.After(at, s.resumeRV) {
		s.resumeRV, s.resumeFrom, s.noResume = at, from, ""
	}
}

// openedStream notes what the stream just opened with opts will deliver.
func (s *Session) openedStream(opts watchstream.Options) {
	s.contract = watchstream.NewContract(s.Target, opts)
	s.stateSent, s.streamEvents, s.streamObjects = 0, 0, 0
	if s.inState() {
		// The stream repeats the state: whatever resume point there was is
		// not one for this stream's events (the session only reopens such a
		// watch while it has none). Why there is none is said from what
		// comes (stateNoResume).
		s.clearResume(noResumeStatePending)
	}
}

// stateCut reports a stream that ended before its initial state was known
// complete, after it sent some of it: resuming from the highest RV seen
// would lose every object the stream had not sent yet, so only a relist
// (as client-go's Reflector does: it never resumes without a List's RV)
// completes the state.
func (s *Session) stateCut(end streamEnd) bool {
	return (s.inState() || s.noResume == NoResumeStateEndUnusable) && s.resumeRV == "" && (end.events > 0 || s.tracker.Len() > 0)
}

// stateCutReason is the relist's reason after a stateCut.
func (s *Session) stateCutReason(end streamEnd) string {
	what := "the stream ended"
	if end.broken || end.err != nil {
		what = end.reason
	}
	if s.noResume == NoResumeStateEndUnusable {
		return what + " after an initial-events-end bookmark whose RV no watch can start from (" + text.Count(s.stateSent, "object") + " of the state sent): the highest RV seen is not a resume point either; listing again, as a Reflector does"
	}
	if s.askedState {
		return what + " before the initial-events-end bookmark, after " + text.Count(s.stateSent, "object") + " of the state: the state comes in key order, not RV order, so resuming from the highest RV seen would lose the objects not sent yet; listing again, as a Reflector does"
	}
	return what + " while the session had no resume point (" + text.Count(s.stateSent, "object") + " of the state sent): a watch with RV unset or 0 sends the state in key order, not RV order, and no initial-events-end bookmark had marked its end, so the highest RV seen is not a resume point; listing again, as a Reflector does"
}

// resumeOptions are the options of the next watch: from the last RV seen,
// with bookmarks so that a quiet stream still advances it.
func (s *Session) resumeOptions(o watchstream.Options) watchstream.Options {
	if s.resumeRV == "" {
		// No resume point and nothing of the state known (else a relist
		// came first): the state is asked for again, as on the first watch.
		return o
	}
	return watchstream.Options{ResourceVersion: s.resumeRV, RVSet: true, AllowBookmarks: true, TimeoutSeconds: o.TimeoutSeconds}
}

// fromRV is the RV a watch with these options starts from ("" = unset).
func fromRV(o watchstream.Options) string {
	if !o.RVSet {
		return ""
	}
	return o.ResourceVersion
}
