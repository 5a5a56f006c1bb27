package render

import (
	"errors"
	"fmt"
	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// WatchNoticeRecord is a step between streams (list, reconnect, relist), as
// "watch -o json" writes it.
type WatchNoticeRecord struct {
	Record              string `json:"record"`
	Time                string `json:"time"`
	Reason              string `json:"reason,omitempty"`
	FromResourceVersion string `json:"fromResourceVersion,omitempty"`
	// URL is, for "listed", the watch request that follows the list (path
	// and query, as sent).
	URL          string  `json:"url,omitempty"`
	DelaySeconds float64 `json:"delaySeconds,omitempty"`
	// HeldSeconds and HeldBy: a wait the plugin added before this
	// reconnect or relist, on top of DelaySeconds, and what for
	// (follow.Held): never a wait shown as nothing.
	HeldSeconds float64 `json:"heldSeconds,omitempty"`
	HeldBy      string  `json:"heldBy,omitempty"`
	// DelayByServer: the server's Retry-After set the delay, not the
	// plugin's backoff.
	DelayByServer bool `json:"delayByServerRetryAfter,omitempty"`
	// RetryAfterSeconds: what the server's Retry-After asked, when it set
	// the delay (above DelaySeconds when the plugin's cap cut it).
	RetryAfterSeconds   float64  `json:"retryAfterSeconds,omitempty"`
	ListResourceVersion string   `json:"listResourceVersion,omitempty"`
	Items               *int     `json:"items,omitempty"`
	Tried               []string `json:"tried,omitempty"`
	// RVsAdvanced counts etcd revisions of the whole cluster between the
	// last RV seen and the new List's RV, not events of this collection.
	RVsAdvanced  uint64 `json:"clusterRVsAdvanced,omitempty"`
	MixedServers string `json:"mixedServers,omitempty"`
	// ServerBehind: the relist follows a reconnect that reached a server
	// behind the resume point (another storage): the gap is against the
	// state the other storage had.
	ServerBehind bool                `json:"serverBehindResumePoint,omitempty"`
	Gap          *follow.Gap         `json:"gap,omitempty"`
	Diagnosis    *diagnose.Diagnosis `json:"diagnosis,omitempty"`
}

// NewWatchNoticeRecord builds the record of a session notice.
func NewWatchNoticeRecord(n follow.Notice, d *diagnose.Diagnosis) WatchNoticeRecord {
	r := WatchNoticeRecord{
		Record: strings.ToLower(string(n.Kind)), Time: n.Time.UTC().Format(time.RFC3339Nano), Reason: text.OneLine(n.Reason),
		FromResourceVersion: n.FromResourceVersion, URL: n.URL, DelaySeconds: n.Delay.Round(time.Millisecond).Seconds(),
		DelayByServer: n.DelayByServer, RetryAfterSeconds: n.ServerAsked.Seconds(),
		ListResourceVersion: n.ListResourceVersion, Tried: n.Tried, RVsAdvanced: n.RVsAdvanced, MixedServers: n.MixedServers, Diagnosis: d,
		HeldSeconds: n.Held.For.Round(time.Millisecond).Seconds(), HeldBy: n.Held.By,
	}
	if n.Kind == follow.NoticeListed || n.Kind == follow.NoticeRelist {
		items := n.Items
		r.Items = &items
	}
	if n.Kind == follow.NoticeRelist {
		r.Gap = n.Gap
		var behind *follow.ServerBehindError
		r.ServerBehind = errors.As(n.Err, &behind)
	}
	return r
}

// watchGapShown caps how many objects of each kind a human relist line names.
const watchGapShown = 10

// WatchNotice writes a notice: a record, or a "--" line for a person.
func (p *Printer) WatchNotice(r WatchNoticeRecord) error {
	return p.emit(streamDocument, r, func() error { return p.watchNoticeHuman(r) })
}

func (p *Printer) watchNoticeHuman(r WatchNoticeRecord) error {
	var line string
	switch r.Record {
	case RecordListed:
		line = fmt.Sprintf("listed %s at RV %s; watching the changes after it", text.Count(watchDeref(r.Items), "object"), r.ListResourceVersion)
		if r.URL != "" {
			line += ": " + r.URL
		}
	case RecordUnchecked:
		line = p.Style.Warn.Sprint("unchecked") + ": " + r.Reason
	case RecordBehind:
		line = p.Style.Bad.Sprint("behind") + ": " + r.Reason
	case RecordReconnect:
		by := ""
		if r.DelayByServer {
			by = ", as the server's Retry-After asked,"
			if r.RetryAfterSeconds > r.DelaySeconds {
				by = fmt.Sprintf(" (the server's Retry-After asked %s, capped by the plugin's retry policy)", time.Duration(r.RetryAfterSeconds*float64(time.Second)))
			}
		}
		line = p.Style.Warn.Sprintf("reconnect in %.1fs%s from RV %s", r.DelaySeconds, by, watchOrDash(r.FromResourceVersion)) + watchHeld(r) + ": " + r.Reason
	case RecordRelist:
		tried := watchTried(r)
		advanced := fmt.Sprintf("the cluster's RV advanced %d since RV %s (writes to every resource, not events of this collection)", r.RVsAdvanced, watchOrDash(r.FromResourceVersion))
		if r.FromResourceVersion == "" || r.FromResourceVersion == "0" {
			// No RV to count from (fresh user try 29 F8: "advanced 0
			// since RV -"; adversary try 31 F2: RV 0 is any state).
			advanced = "no RV to count the cluster's advance from"
		} else if from, ok := rv.Parse(r.FromResourceVersion); ok && r.ServerBehind {
			advanced = fmt.Sprintf("RV %s was another storage's, which this one has not reached", r.FromResourceVersion)
		} else if ok {
			if listed, ok := rv.Parse(r.ListResourceVersion); ok && from > listed {
				// The RV the watch had was never the cluster's: nothing advanced.
				advanced = fmt.Sprintf("the list's RV is below RV %s, which the cluster had not reached", r.FromResourceVersion)
			}
		}
		line = p.Style.Bad.Sprint("RELIST") + watchHeld(r) + fmt.Sprintf(" after %s: listed %s at RV %s (%s); %s",
			r.Reason, text.Count(watchDeref(r.Items), "object"), r.ListResourceVersion, tried, advanced)
		switch {
		case r.Gap != nil && r.Gap.Initial:
			line += fmt.Sprintf("\n-- first list of the collection: %s; no state had come through the watch before it (an exact RV sends changes only; a stream refused or ended before its state sent none), so what changed while it was broken cannot be told apart from the state", text.Count(watchDeref(r.Items), "object"))
		case r.Gap != nil:
			if r.Gap.NoResumePoint {
				line += fmt.Sprintf("\n-- gap: the watch had sent %s of the state (in key order, not RV order) and no resume point; the list adds %d it never sent (or created since), %d modified and %d deleted since they were sent",
					text.Count(r.Gap.StateObjectsSent, "object"), len(r.Gap.Added), len(r.Gap.Modified), len(r.Gap.Deleted))
			} else if r.ServerBehind {
				line += fmt.Sprintf("\n-- gap: %d added, %d modified, %d deleted against the state the other storage had", len(r.Gap.Added), len(r.Gap.Modified), len(r.Gap.Deleted))
			} else {
				line += fmt.Sprintf("\n-- gap: %d added, %d modified, %d deleted while the watch was broken", len(r.Gap.Added), len(r.Gap.Modified), len(r.Gap.Deleted))
			}
			line += watchGapLine("added", r.Gap.Added, func(c follow.ObjectChange) string { return "RV " + c.NewResourceVersion })
			line += watchGapLine("modified", r.Gap.Modified, func(c follow.ObjectChange) string {
				return "RV " + c.OldResourceVersion + " -> " + c.NewResourceVersion
			})
			line += watchGapLine("deleted (DeletedFinalStateUnknown)", r.Gap.Deleted, func(c follow.ObjectChange) string { return "last seen at RV " + c.OldResourceVersion })
		}
	}
	if r.MixedServers != "" {
		line += "\n-- " + p.Style.Warn.Sprint("mixed API servers") + ": " + r.MixedServers + " (see: kubectl watchrv probe RESOURCE --servers)"
	}
	// The server's values in it (the list's RV, the watch's URL that
	// carries it, the objects' RVs) are bounded as a "Key:  value" value
	// is, line by line (adversary try 20 #14: a 60 KB RV made a 120 KB
	// line).
	lines := strings.Split("-- "+line, "\n")
	for i, l := range lines {
		lines[i] = text.Shorten(l, 2*cellLimit)
	}
	if _, err := fmt.Fprintln(p.Out, strings.Join(lines, "\n")); err != nil {
		return err
	}
	// The error that made the relist was diagnosed at its ERROR event
	// just above: said once (-o json keeps it in both records).
	if r.Diagnosis != nil && r.Diagnosis.Recognized() && r.Diagnosis.Summary != p.lastDiagnosis {
		return p.diagnosisLines(p.Out, *r.Diagnosis)
	}
	return nil
}

func watchGapLine(what string, cs []follow.ObjectChange, detail func(follow.ObjectChange) string) string {
	if len(cs) == 0 {
		return ""
	}
	parts := make([]string, 0, min(len(cs), watchGapShown)+1)
	for i, c := range cs {
		if i == watchGapShown {
			parts = append(parts, fmt.Sprintf("and %d more", len(cs)-watchGapShown))
			break
		}
		name := c.Name
		if c.Namespace != "" {
			name = c.Namespace + "/" + name
		}
		parts = append(parts, name+" ("+detail(c)+")")
	}
	return "\n--   " + what + ": " + strings.Join(parts, ", ")
}

// WatchSummary is the last record of a watch: what arrived and what the
// session had to do.
type WatchSummary struct {
	// Cost is what the run took from the API servers (cost.go).
	Cost   *Cost  `json:"cost,omitempty"`
	Record string `json:"record"`
	// Server is what was known and assumed of the API server, when the
	// run read it (watch --follow: whether silence is a stall).
	Server               *serverinfo.Info `json:"server,omitempty"`
	StartResourceVersion string           `json:"startResourceVersion,omitempty"`
	Events               int              `json:"events"`
	ByType               map[string]int   `json:"byType"`
	FirstResourceVersion string           `json:"firstResourceVersion,omitempty"`
	// LastResourceVersion is the resume point: the highest RV a next watch
	// may start from without losing an event (resumeFrom says where it came
	// from; none after a watch that sent the state in key order with no end
	// marker). It is not the RV of the last event, which is
	// LastEventResourceVersion: the state comes in key order, not RV order.
	LastResourceVersion      string `json:"lastResourceVersion,omitempty"`
	LastEventResourceVersion string `json:"lastEventResourceVersion,omitempty"`
	// Bookmarks counts every BOOKMARK received, BookmarksNotShown those
	// asked for only to keep the resume point fresh (--follow, a
	// streaming list, without --bookmarks): no event line, not in
	// events or byType.
	Bookmarks         int     `json:"bookmarks"`
	BookmarksNotShown int     `json:"bookmarksNotShown,omitempty"`
	DurationSeconds   float64 `json:"durationSeconds"`
	// Ended is why the watch stopped: timeout, interrupted, max-events,
	// until, stream-end or error.
	Ended string `json:"ended"`
	follow.Stats
	// FailureStreak is set when the session (--follow) ended inside a run
	// of failed attempts: it was not watching when it ended.
	FailureStreak *WatchFailureStreak `json:"failureStreak,omitempty"`
}

// WatchFailureStreak is the run of failures a --follow session ended in.
type WatchFailureStreak struct {
	Failure  string `json:"failure"`
	Attempts int    `json:"attempts"`
	Since    string `json:"since"`
	// EverHealthy: a stream of the session was healthy before the streak.
	EverHealthy bool   `json:"everHealthy"`
	Error       string `json:"error"`
}

// SetSession fills in what the session did: its counters, its resume
// point (the summary's last RV) and the failure streak it ended in.
func (s *WatchSummary) SetSession(st follow.Stats, streak *follow.Streak) {
	s.Stats = st
	s.LastResourceVersion = st.ResumeRV
	if streak != nil {
		s.FailureStreak = &WatchFailureStreak{
			Failure: string(streak.Failure), Attempts: streak.Attempts, Since: streak.Since.UTC().Format(time.RFC3339Nano),
			EverHealthy: streak.EverHealthy, Error: text.OneLine(streak.Err.Error()),
		}
	}
}

// NewWatchSummary starts an empty summary.
func NewWatchSummary(start string) *WatchSummary {
	return &WatchSummary{Record: RecordSummary, StartResourceVersion: start, ByType: map[string]int{}}
}

// Count adds one event.
func (s *WatchSummary) Count(r WatchEventRecord) {
	s.Events++
	s.ByType[r.Type]++
	if r.Type == watchstream.EventBookmark {
		s.Bookmarks++
	}
	// An event that broke the contract is counted as arrived, but its RV
	// is no RV of the collection: neither the first nor the last one
	// (adversary try 20 #15: "first 101, last 100" from an object of
	// another namespace).
	if r.ResourceVersion != "" && r.Type != watchstream.EventError && !r.brokeContract() {
		if s.FirstResourceVersion == "" {
			s.FirstResourceVersion = r.ResourceVersion
		}
		s.LastEventResourceVersion = r.ResourceVersion
	}
}

// CountNotShown counts a BOOKMARK received and not shown.
func (s *WatchSummary) CountNotShown(r WatchEventRecord) {
	if r.Type == watchstream.EventBookmark {
		s.Bookmarks++
		s.BookmarksNotShown++
	}
}

// Unhide counts as shown a BOOKMARK counted as not shown before.
func (s *WatchSummary) Unhide(r WatchEventRecord) {
	s.Bookmarks--
	s.BookmarksNotShown--
	s.Count(r)
}

// WatchSummary writes the summary: the last record, or a block for a person.
func (p *Printer) WatchSummary(s *WatchSummary) error {
	s.Cost = p.cost()
	return p.emit(streamDocument, s, func() error { return p.watchSummaryHuman(s) })
}

func (p *Printer) watchSummaryHuman(s *WatchSummary) error {
	var types []string
	for _, t := range []string{watchstream.EventAdded, watchstream.EventModified, watchstream.EventDeleted, watchstream.EventBookmark, watchstream.EventError} {
		if n := s.ByType[t]; n > 0 {
			types = append(types, fmt.Sprintf("%s %d", t, n))
		}
	}
	if len(types) == 0 {
		types = []string{"none"}
	}
	fmt.Fprintln(p.Out, p.Style.Header.Sprintf("Summary (%s after %s)", endedLabel(s.Ended), time.Duration(s.DurationSeconds*float64(time.Second)).Round(time.Millisecond)))
	kv := [][2]string{
		{"  Events", fmt.Sprintf("%d (%s)%s", s.Events, strings.Join(types, ", "), notShown(s.BookmarksNotShown))},
		{"  RVs", fmt.Sprintf("start %s, first %s, last %s (%s)", watchOrDash(s.StartResourceVersion), watchOrDash(s.FirstResourceVersion), watchOrDash(s.LastResourceVersion), resumeLabel(s.ResumeFrom, s.NoResume))},
		{"  Session", fmt.Sprintf("%s, %s, %s, %s reconciled by relist, %s%s%s",
			text.Count(s.Streams, "stream"), text.Count(s.Reconnects, "reconnect"), text.Count(s.Relists, "relist"), text.Count(s.Reconciled, "object"), text.Count(s.Duplicates, "duplicate"), olderThanSeen(s.OlderThanSeen), stalledStreams(s.Stalls))},
	}
	if f := s.FailureStreak; f != nil && f.Attempts == 1 {
		kv = append(kv, [2]string{"  Failed", fmt.Sprintf("%s: %s", f.Failure, f.Error)})
	} else if f != nil {
		since := "no stream of this session was healthy"
		if f.EverHealthy {
			since = "since the last healthy stream"
		}
		kv = append(kv, [2]string{"  Failing", fmt.Sprintf("%s in a row (%s), %s: %s", text.Count(f.Attempts, "failed attempt"), f.Failure, since, f.Error)})
	}
	if s.ContractBreaches > 0 {
		kv = append(kv, [2]string{"  Contract", p.Style.Bad.Sprintf("%s broke the Watch contract (the first: %s)", text.Count(s.ContractBreaches, "event"), s.FirstBreach)})
	}
	if s.ServerBehind > 0 {
		kv = append(kv, [2]string{"  Server behind", p.Style.Bad.Sprintf("%s reached a server whose current RV was below the resume point: another storage answered; %d followed by a completed relist (a Reflector would have kept watching and seen nothing)", text.Count(s.ServerBehind, "reconnect"), s.ServerBehindRelisted)})
	}
	if s.Unchecked > 0 {
		kv = append(kv, [2]string{"  Unchecked", p.Style.Warn.Sprintf("%s could not tell whether the server now answering is behind the resume point (its consistent list failed, or gave no RV of a storage): a watch held there looks like a quiet collection", text.Count(s.Unchecked, "check"))})
	}
	if s.MixedServers > 0 {
		// Counted by the session (pkg/follow mixing signs); each one is also a notice.
		kv = append(kv, [2]string{"  Mixed servers", fmt.Sprintf("%s that the answers came from different API servers (see: kubectl watchrv probe RESOURCE --servers)", text.Count(s.MixedServers, "sign"))})
	}
	return KeyValues(p.Out, kv)
}

// endedLabel says how the watch stopped, for the summary's header.
func endedLabel(ended string) string {
	switch follow.End(ended) {
	case "until":
		return "stopped at --until"
	case "max-events":
		return "stopped at --max-events"
	case follow.EndStreamEnd:
		return "the server ended the stream"
	case follow.EndStallTimeout:
		return "stopped at --stall-timeout"
	}
	return ended // timeout, interrupted, error
}

func watchDeref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func watchOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// resumeLabel says what the summary's last RV is: where a next watch may
// start without losing an event, or why there is no such RV.
func resumeLabel(from, noResume string) string {
	switch from {
	case follow.ResumeFromStart:
		return "resume point: the start RV"
	case follow.ResumeFromList:
		return "resume point: the List's RV"
	case follow.ResumeFromInitialEventsEnd:
		return "resume point: the initial-events-end bookmark"
	case follow.ResumeFromBookmark:
		return "resume point: a bookmark"
	case follow.ResumeFromEvent:
		return "resume point: the last event"
	}
	switch noResume {
	case follow.NoResumeInitialEventsIncomplete:
		return "no resume point: the initial-events-end bookmark did not come"
	case follow.NoResumeRVProblem:
		return "no resume point: the last RV was answered Expired or TooLarge; list again"
	case follow.NoResumeNoRVRefused:
		return "no resume point: the watch sent no RV or RV 0 (it reads the current state, or any state) and was answered Expired or TooLarge all the same, which no API server answers; list again"
	case follow.NoResumeConsistentReadLag:
		return "no resume point: the streaming list's consistent read was answered TooLarge (its watch cache lags storage); list again, or retry after a while"
	case follow.NoResumeStartAhead:
		return "no resume point: the start RV is ahead of the server's current RV, so nothing after it has happened yet; list again (--rv list)"
	case follow.NoResumeChangeLost:
		return "no resume point: storage lost a change after the last RV (PrevKv=nil), which a watch from it meets again; list again"
	case follow.NoResumeListIncomplete:
		return "no resume point: the List did not complete, so no RV was read"
	case follow.NoResumeListRVNotStorage:
		return "no resume point: the List completed, and its resourceVersion is no storage's RV (0, empty or not a decimal), so no watch can start after it"
	case follow.NoResumeServerBehind:
		return "no resume point: the server answering was behind it (another storage, whose RVs the ones seen are not); list again"
	case follow.NoResumeStateEndUnusable:
		return "no resume point: the initial-events-end bookmark came with an RV no watch can start from (none, 0, not a storage's, or below an RV already sent) or in breach of the Watch contract; --rv list gives one"
	case follow.NoResumeNothingAnswered:
		return "no resume point: no watch was answered, so no state came and none was marked complete (--rv list gives one)"
	case follow.NoResumeNoEvent:
		return "no resume point: the watch was answered, and no event came (neither the state nor its end); --rv list gives one"
	case follow.NoResumeNoState:
		return "no resume point: the watch was answered, and no object of the state came (only an ERROR event or bookmarks), nor its end; --rv list gives one"
	case follow.NoResumeStateInKeyOrder:
		// Not "the server sends none": v1.35 and later mark the end where
		// bookmarks are asked for, and a run can end before the mark (fresh
		// user try 42 F2, F3).
		return "no resume point: the state came in key order, not RV order, and no initial-events-end bookmark marked its end before the stream or the run ended (v1.35 and later send one on a watch that asks for bookmarks: --bookmarks or --follow); --rv list gives one"
	}
	// Each reason has its words above: none is said by elimination
	// (adversary F6: an empty answer said the state came in key order).
	return "no resume point"
}

// olderThanSeen is the Session line's count of events older than their
// object was seen at ("" for none): no duplicates, for they were never
// delivered at their RV.
func olderThanSeen(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %s older than the object was seen at", text.Count(n, "event"))
}

// notShown is the Events line's count of bookmarks received and not shown
// ("" for none): they may floor a change or be the resume point.
func notShown(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", and %s not shown (asked for only to keep the resume point fresh; --bookmarks shows them)", text.Count(n, "bookmark"))
}
