package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// Record kinds of "watch -o json|yaml". Every line (document) has a
// "record" field; events have "type", "namespace", "name", "uid" and
// "resourceVersion" as the server sent them.
const (
	RecordEvent     = "event"
	RecordListed    = "listed"
	RecordReconnect = "reconnect"
	RecordRelist    = "relist"
	// RecordUnchecked: a check the watch ran could not tell (its reason
	// says which check, and why).
	RecordUnchecked = "unchecked"
	// RecordBehind: a reconnect reached a server behind the resume point
	// (said when found, whatever the relist after it does).
	RecordBehind  = "behind"
	RecordSummary = "summary"
)

// WatchEventRecord is one event, as "watch -o json" writes it.
type WatchEventRecord struct {
	Record          string `json:"record"`
	Time            string `json:"time"`
	Type            string `json:"type"`
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	UID             string `json:"uid"`
	ResourceVersion string `json:"resourceVersion"`
	// SinceStart is the object's RV minus the start RV (--rv N or the
	// List's RV): > 0 for a change after the start, <= 0 for state.
	SinceStart       *int64 `json:"sinceStart,omitempty"`
	InitialEventsEnd bool   `json:"initialEventsEnd,omitempty"`
	// EndUnusable: the state ended at this bookmark, whose RV no watch
	// can start from, or which broke the contract: no resume point.
	EndUnusable bool `json:"endUnusable,omitempty"`
	// InitialObjects is the number of objects before the initial-events-end bookmark.
	InitialObjects *int `json:"initialObjects,omitempty"`
	// Duplicate: this UID at this RV was delivered before.
	Duplicate bool `json:"duplicate,omitempty"`
	// OlderThan: this UID was delivered before at this newer RV (this
	// event's RV is older: no duplicate).
	OlderThan string `json:"olderThan,omitempty"`
	// PreviousUID: the name had another UID (deleted and recreated).
	PreviousUID string `json:"previousUID,omitempty"`
	DeleteCause string `json:"deleteCause,omitempty"`
	// Status is an ERROR event's, its code as sent (none where none was).
	Status *diagnose.SentStatus `json:"status,omitempty"`
	// FromHTTPStatus: the Status answered the watch request itself (an
	// HTTP 410 or 504), not an ERROR event inside a stream; no event of
	// the summary's count.
	FromHTTPStatus bool                `json:"fromHTTPStatus,omitempty"`
	Diagnosis      *diagnose.Diagnosis `json:"diagnosis,omitempty"`
	// ContractBreach says how the event broke the Watch contract.
	ContractBreach string `json:"contractBreach,omitempty"`
	// Unasked: a BOOKMARK the watch did not ask for (no
	// allowWatchBookmarks), which still floors the changes after it.
	Unasked bool `json:"unasked,omitempty"`
}

// NewWatchEventRecord builds the record of one event. start is the start
// RV ("" when the watch has none).
func NewWatchEventRecord(ev watchstream.Event, obs follow.Observation, start string) WatchEventRecord {
	r := WatchEventRecord{
		Record: RecordEvent, Time: ev.Received.UTC().Format(time.RFC3339Nano), Type: ev.Type,
		Namespace: ev.Object.Namespace, Name: ev.Object.Name, UID: ev.Object.UID, ResourceVersion: ev.Object.ResourceVersion,
		InitialEventsEnd: obs.InitialEventsEnd, Duplicate: obs.Duplicate, OlderThan: obs.OlderThan, PreviousUID: obs.PreviousUID, Status: ev.Status,
		ContractBreach: obs.Breach, EndUnusable: obs.EndUnusable,
	}
	if obs.InitialEventsEnd {
		n := obs.InitialObjects
		r.InitialObjects = &n
	}
	if s, ok := rv.Parse(start); ok && s > 0 && ev.Type != watchstream.EventError {
		if v, ok := rv.Parse(ev.Object.ResourceVersion); ok {
			d := int64(v) - int64(s)
			r.SinceStart = &d
		}
	}
	return r
}

// watchColumns are the widths of the human event lines; a line is written
// as soon as its event arrives, so the widths are fixed, not measured.
var watchColumns = []int{12, 8, 32, 8, 10, 8}

// WatchHeader makes the column headers of the human event lines due: they
// are written as the first stream is answered (WatchOpened) or before the
// first event row, never over nothing or over notices alone: a watch
// refused or failed before any stream prints none, as an interrupted one
// does not (fresh user try 30 F5; fresh user try 31 F7: over the reconnect
// notes of --follow with 0 streams).
func (p *Printer) WatchHeader() error {
	return p.emit(noDocument, nil, func() error {
		p.watchHeaderDue = true
		return nil
	})
}

// WatchOpened writes the column headers, if due, as a stream is answered.
func (p *Printer) WatchOpened() error {
	return p.emit(noDocument, nil, func() error { return p.watchHeaderHuman() })
}

// watchHeaderHuman writes the column headers if they are due.
func (p *Printer) watchHeaderHuman() error {
	if p.NoHeaders || !p.watchHeaderDue {
		return nil
	}
	p.watchHeaderDue = false
	line := watchLine([]string{"TIME", "TYPE", "NAMESPACE/NAME", "UID", "RV", "START+", "NOTE"}, p.Wide())
	_, err := fmt.Fprintln(p.Out, p.Style.Header.Sprint(line))
	return err
}

// WatchEvent writes one event: a JSON line, a YAML document, or a human line
// (with the diagnosis of an ERROR event on the lines below it).
func (p *Printer) WatchEvent(r WatchEventRecord) error {
	return p.emit(streamDocument, r, func() error { return p.watchEventHuman(r) })
}

func (p *Printer) watchEventHuman(r WatchEventRecord) error {
	if err := p.watchHeaderHuman(); err != nil {
		return err
	}
	name := r.Name
	if r.Namespace != "" {
		name = r.Namespace + "/" + r.Name
	}
	uid := r.UID
	if len(uid) > 8 && !p.Wide() {
		uid = uid[:8]
	}
	since := ""
	if r.SinceStart != nil {
		since = strconv.FormatInt(*r.SinceStart, 10)
		if *r.SinceStart > 0 {
			since = "+" + since
		}
	}
	t, _ := time.Parse(time.RFC3339Nano, r.Time)
	cells := []string{t.Local().Format("15:04:05.000"), r.Type, name, uid, r.ResourceVersion, since, p.eventNote(r)}
	if r.Type == watchstream.EventError {
		cells[2], cells[3], cells[4] = "", "", ""
	}
	line := watchLine(cells, p.Wide())
	// Paint only the type cell; the padding was computed on plain text.
	typeStart := watchColumns[0] + 2
	painted := line[:typeStart] + p.typeColor(r.Type)(r.Type) + line[typeStart+len(r.Type):]
	if _, err := fmt.Fprintln(p.Out, painted); err != nil {
		return err
	}
	if r.Diagnosis != nil {
		return p.diagnosisLines(p.Out, *r.Diagnosis)
	}
	return nil
}

func (p *Printer) eventNote(r WatchEventRecord) string {
	var notes []string
	switch {
	case r.InitialEventsEnd && r.EndUnusable:
		notes = append(notes, p.Style.Warn.Sprintf("initial state ended (%s), at %s: no resume point", text.Count(derefInt(r.InitialObjects), "object"), endRVWords(r.ResourceVersion, r.ContractBreach)))
	case r.InitialEventsEnd && r.InitialObjects != nil:
		notes = append(notes, p.Style.Good.Sprintf("initial state complete at RV %s: %s", r.ResourceVersion, text.Count(*r.InitialObjects, "object")))
	case r.InitialEventsEnd:
		notes = append(notes, p.Style.Good.Sprintf("initial state complete at RV %s", r.ResourceVersion))
	}
	if r.Unasked {
		notes = append(notes, p.Style.Warn.Sprint("sent unasked (the watch did not ask for bookmarks): the changes after it must still be after its RV"))
	}
	if r.Status != nil && diagnose.IsPrevKvNil(r.Status.Status) {
		notes = append(notes, p.Style.Warn.Sprint("the change it names is lost, and the server ends the stream after this ERROR"))
	}
	if r.ContractBreach != "" {
		notes = append(notes, p.Style.Bad.Sprint("breaks the Watch contract: "+r.ContractBreach))
	}
	if r.Duplicate {
		notes = append(notes, p.Style.Warn.Sprint("duplicate: this UID at this RV was delivered before"))
	}
	if r.OlderThan != "" {
		notes = append(notes, p.Style.Warn.Sprintf("older than seen: this UID was delivered at RV %s before", text.Echo(r.OlderThan)))
	}
	if r.PreviousUID != "" {
		notes = append(notes, p.Style.Warn.Sprintf("recreated: same name, new UID (was %s)", r.PreviousUID))
	}
	switch r.DeleteCause {
	case follow.DeleteCauseLeftSelector:
		notes = append(notes, "left the selector (the object still exists)")
	case follow.DeleteCauseDeleted:
		notes = append(notes, "deleted (the object is gone)")
	case follow.DeleteCauseRecreated:
		notes = append(notes, "deleted (a new object with another UID has the name now)")
	}
	if r.Status != nil {
		notes = append(notes, r.Status.Said("", r.Status.Message))
	}
	return strings.Join(notes, "; ")
}

// diagnosisLines writes a diagnosis under an ERROR event or an HTTP error:
// the class and summary, its notes, then the fix, one line each.
func (p *Printer) diagnosisLines(w io.Writer, d diagnose.Diagnosis) error {
	p.lastDiagnosis = d.Summary
	paint := p.Style.Warn
	if d.IsRVProblem() {
		paint = p.Style.Bad
	}
	head := string(d.Class)
	if d.Kind != "" {
		head += " (" + d.Kind + ")"
	}
	if _, err := fmt.Fprintf(w, "  %s %s\n", paint.Sprint(head+":"), d.Summary); err != nil {
		return err
	}
	// The notes, as list, probe and explain-error print them: a summary
	// may say "(see Note)", and one that pointed at no line did
	// (adversary try 25 F7).
	for _, note := range d.Notes {
		if _, err := fmt.Fprintf(w, "  %s %s\n", p.Style.Bold.Sprint("note:"), text.Inline(text.Shorten(note, 2*cellLimit))); err != nil {
			return err
		}
	}
	if d.Fix != "" {
		_, err := fmt.Fprintf(w, "  %s %s\n", p.Style.Bold.Sprint("fix:"), d.Fix)
		return err
	}
	return nil
}

func (p *Printer) typeColor(t string) func(a ...any) string {
	switch t {
	case watchstream.EventAdded:
		return p.Style.Added.Sprint
	case watchstream.EventModified:
		return p.Style.Modified.Sprint
	case watchstream.EventDeleted:
		return p.Style.Deleted.Sprint
	case watchstream.EventBookmark:
		return p.Style.Bookmark.Sprint
	case watchstream.EventError:
		return p.Style.Bad.Sprint
	}
	return fmt.Sprint
}

// watchLine pads cells to watchColumns; wide (-o wide) gives the UID
// column room for a whole UID.
func watchLine(cells []string, wide bool) string {
	var b strings.Builder
	for i, c := range cells {
		if i < len(watchColumns) {
			w := watchColumns[i]
			if wide && i == 3 {
				w = 36
			}
			c = padCell(c, w, 2)
		}
		// The last cell (NOTE) is not padded: one line all the same (an
		// ERROR event's reason and message come from the server), and
		// bounded as every cell is.
		b.WriteString(text.Inline(text.Shorten(c, cellLimit)))
	}
	return strings.TrimRight(b.String(), " ")
}

func derefInt(n *int) int {
	if n == nil {
		return 0
	}
	return *n
}

// endRVWords says why an initial-events-end bookmark's RV is no resume
// point: it broke the contract (said in its own note), or it is no RV a
// watch can start from.
func endRVWords(at, breach string) string {
	switch {
	case breach != "":
		return "RV " + text.Echo(at) + ", which breaks the contract"
	case at == "":
		return "no RV"
	}
	return `RV "` + text.Echo(at) + `", which no watch can start from`
}
