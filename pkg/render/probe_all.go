package render

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// ProbeAllReport is the stable schema of "probe --all -o json|yaml".
type ProbeAllReport struct {
	// Cost is what the run took from the API server(s) (cost.go).
	Cost      *Cost         `json:"cost,omitempty"`
	Resources []ProbeReport `json:"resources"`
	// Requests counts every request of the run (discovery aside): the
	// rows' and SharedRequests (the APIService list, /metrics), never
	// those of the resource the signal cut, no row (Interrupted says
	// them); RequestsPerResource is Requests over the rows.
	Requests       int `json:"requests"`
	SharedRequests int `json:"sharedRequests"`
	// ResentByTransport: list and watch sends beyond Requests, which
	// net/http made by itself (resentByTransport).
	ResentByTransport   int     `json:"resentByTransport,omitempty"`
	RequestsPerResource float64 `json:"requestsPerResource"`
	// CurrentRV is the run's one current-RV read, shared by the rows
	// whose currentFrom is "run" (probe.RunWide).
	CurrentRV probe.RunWide `json:"runCurrent"`
	Millis    float64       `json:"ms"`
	Failed    int           `json:"failed"`
	// Interrupted is set when Ctrl-C or SIGTERM stopped the run: the rows
	// are the resources probed before it.
	Interrupted *Interruption `json:"interrupted,omitempty"`
	// DiscoveryFailed says which group versions' discovery failed, and
	// why: their resources are not among the rows (the run is partial).
	DiscoveryFailed string `json:"discoveryFailed,omitempty"`
}

// NewProbeAllReport makes the rows of a probe of every resource and sorts
// them: found windows narrowest first (the resources whose watchers relist
// soonest), then the rest by name.
func NewProbeAllReport(a *probe.AllResult) ProbeAllReport {
	rows := make([]ProbeReport, 0, len(a.Rows))
	for i, w := range a.Rows {
		row := NewProbeReport(w, probe.Reason(w.Err))
		row.Metrics = a.Metrics[i]
		rows = append(rows, failedRowGivesNone(a.RunWide, row))
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		okA, okB := a.Found && a.Error == "", b.Found && b.Error == ""
		if okA != okB {
			return okA
		}
		if okA && a.Width != b.Width {
			return a.Width < b.Width
		}
		return a.Resource < b.Resource
	})
	r := ProbeAllReport{Resources: rows, Requests: a.Requests(), SharedRequests: a.Shared, CurrentRV: a.RunWide, Failed: a.Failed}
	if len(rows) > 0 {
		r.RequestsPerResource = math.Round(float64(r.Requests)/float64(len(rows))*100) / 100
	}
	// What was measured, marked partial; the run exits 130.
	r.Interrupted = interruptionOf(a.Run)
	return r
}

// RowNames are the rows' resources, top down: the order of the table, in
// which an error line counts "the first" failure (sweep.InTableOrder).
func (r ProbeAllReport) RowNames() []string {
	names := make([]string, len(r.Resources))
	for i, row := range r.Resources {
		names[i] = row.Resource
	}
	return names
}

// ProbeAll prints one row per resource; failing rows carry their reason.
func (p *Printer) ProbeAll(r ProbeAllReport, verbose bool) error {
	r.Cost, r.Millis = p.cost(), p.runMillis()
	r.ResentByTransport = resentByTransport(r.Cost)
	return p.emit(oneDocument, r, func() error { return p.probeAllHuman(r, verbose) })
}

func (p *Printer) probeAllHuman(r ProbeAllReport, verbose bool) error {
	s := p.Style
	t := NewTable("RESOURCE", "CURRENT RV", "OLDEST RV", "WIDTH", "SOURCE", "REQUESTS", "TIME", "NOTE")
	for _, row := range r.Resources {
		oldest, width, note := row.OldestResourceVersion, strconv.FormatUint(row.Width, 10), ""
		if !row.Found {
			oldest, width = "?", "?"
		}
		if row.Error != "" {
			note = row.Reason + ": " + row.Error
		}
		t.Row(row.Resource, orDash(row.CurrentResourceVersion), oldest, width, sourceCell(row), strconv.Itoa(row.Requests), millis(row.Millis), note)
		t.PaintLast(4, sourcePaint(s, row.Source))
		if note != "" {
			t.PaintLast(7, s.Bad.Sprint)
		}
	}
	if err := p.tableOfRun(t, r.Interrupted); err != nil {
		return err
	}
	if err := p.interruptedLine(r.Interrupted, "resource"); err != nil {
		return err
	}
	if err := p.ProbeAllMetrics(r); err != nil {
		return err
	}
	shared := ""
	if r.SharedRequests > 0 {
		// In no row: the rows add up to the total with them (adversary
		// try 39 F6: a confirmation's /metrics read was in neither).
		shared = fmt.Sprintf(", %d of them for the whole run, in no row: the APIService list or /metrics", r.SharedRequests)
	}
	p.Notef("%s, %d failed, %s (%.2f per resource%s)%s in %s; %s", text.Count(len(r.Resources), "resource"), r.Failed, text.Count(r.Requests, "request"), r.RequestsPerResource, shared, resentWords(r.ResentByTransport), millis(r.Millis), runCurrentText(r.CurrentRV, r.Resources))
	return nil
}

// runCurrentText says where the rows' current RV came from, from the rows
// themselves (their currentFrom): the run's RV is claimed shared only by
// as many rows as used it.
//
// A row counts as having read its own only when its read answered (fresh
// user try 31 F6: "1 read their own" of a row whose read was a 403).
func runCurrentText(c probe.RunWide, rows []ProbeReport) string {
	// A failed row measured nothing: it is not counted as sharing the
	// run's RV (fresh user try 35 F4: "shared by 58 of the 63 rows" of
	// which 56 were forbidden).
	shared, own, failed := 0, 0, 0
	for _, r := range rows {
		switch {
		case r.Error != "" && !readsRunRV(c, r):
			failed++
		case r.CurrentFrom == probe.CurrentRun:
			shared++
		case r.CurrentResourceVersion != "":
			own++
		}
	}
	unread := ""
	if n := len(rows) - shared - own - failed; n > 0 {
		unread = fmt.Sprintf("; %d read none", n)
	}
	if failed > 0 {
		// Said of the failed rows it leaves out, which are not all the
		// failed when a failed row's list read the run's RV (adversary
		// try 38 F2: "3 failed ...; the 2 failed left out").
		// Said as what they give: none, as the rows show "-" (fresh
		// user try 39 F1: "63 failed rows left out" above the 63 rows).
		unread += "; " + text.Count(failed, "failed row") + " " + map[bool]string{true: "gives", false: "give"}[failed == 1] + " none"
		if failedShared := failedReadingRunRV(c, rows); failedShared > 0 {
			unread += fmt.Sprintf(" (and %d that failed after its list read the run's RV shows it)", failedShared)
		}
	}
	if c.Current == 0 || shared == 0 {
		if own == 0 && c.Current != 0 {
			return fmt.Sprintf("the run's current RV %d (a consistent list of %s) is given for no row", c.Current, c.From) + unread
		}
		if own == 0 {
			return "no row read a current RV" + unread
		}
		return fmt.Sprintf("%d of the %s read its own current RV (no row shared the run's)", own, text.Count(len(rows), "row")) + unread
	}
	// The row whose list read the run's RV is one of the rows that share
	// it (fresh user try 12: it was counted among those that read their
	// own).
	out := fmt.Sprintf("current RV %d (a consistent list of %s) shared by %d of the %s", c.Current, c.From, shared, text.Count(len(rows), "row"))
	if values := sharedValues(c, rows); len(values) > 1 {
		// The cluster wrote during the run: each row shares the value it
		// was probed with (fresh user try 46 F2).
		out = fmt.Sprintf("the run's current RV moved as the cluster wrote: %s, of the %s", strings.Join(values, ", "), text.Count(len(rows), "row"))
	}
	if own > 0 {
		out += fmt.Sprintf("; %d read their own (searched in full, or a group of its own)", own)
	}
	out += unread
	if c.Reads > 1 {
		out += fmt.Sprintf(" (the run's RV was read %s: a window moved past it)", text.Count(c.Reads, "time"))
	}
	if len(c.Own) > 0 {
		out += "; own current RV: " + strings.Join(c.Own, ", ")
	}
	return out
}

// sharedValues says each value of the run's RV that rows share, in the
// order it was read, with the list that read it and how many rows have it.
func sharedValues(c probe.RunWide, rows []ProbeReport) []string {
	count := map[string]int{}
	for _, r := range rows {
		if r.CurrentFrom == probe.CurrentRun && r.CurrentResourceVersion != "" && !(r.Error != "" && !readsRunRV(c, r)) {
			count[r.CurrentResourceVersion]++
		}
	}
	var out []string
	for _, h := range c.History {
		if n := count[strconv.FormatUint(h.Current, 10)]; n > 0 {
			out = append(out, fmt.Sprintf("%d (a consistent list of %s) shared by %s", h.Current, h.From, text.Count(n, "row")))
		}
	}
	return out
}

// failedReadingRunRV counts the failed rows whose list read the run's
// RV (counted among the rows that share it).
func failedReadingRunRV(c probe.RunWide, rows []ProbeReport) int {
	n := 0
	for _, r := range rows {
		if r.Error != "" && readsRunRV(c, r) {
			n++
		}
	}
	return n
}

// failedRowGivesNone is row without what its failed requests did not
// measure, in the one model the table and -o json|yaml print (adversary
// try 41 F7: the table's "-" was "100" in JSON): no current RV when that
// is the run's and its own read failed (fresh user try 35 F4), and no
// bracket when no watch of its search was answered (the bracket "(0,
// current]" it starts from is no measure of this resource).
func failedRowGivesNone(c probe.RunWide, row ProbeReport) ProbeReport {
	if row.Error == "" {
		return row
	}
	if row.CurrentFrom == probe.CurrentRun && !readsRunRV(c, row) {
		row.CurrentResourceVersion, row.CurrentFrom = "", ""
	}
	if row.Bracket != nil && !anyAnswered(row.ProbeDetails) {
		row.Bracket = nil
	}
	return row.saidAsKnown()
}

// anyAnswered: a watch of the search was answered within the window's
// terms (it started, or was refused as expired).
func anyAnswered(tries []probe.Try) bool {
	for _, t := range tries {
		if t.Outcome == probe.OutcomeOK || t.Outcome == probe.OutcomeExpired {
			return true
		}
	}
	return false
}

// readsRunRV: row's own list read the run's current RV (its watch may
// have failed after it): that value was measured by the row, and it is
// shown and counted as shared (adversary try 36 F1: "-" in the row whose
// list the summary named).
func readsRunRV(c probe.RunWide, row ProbeReport) bool {
	if c.Current == 0 || row.CurrentFrom != probe.CurrentRun || row.outOfOrder {
		return false
	}
	for _, h := range c.History {
		if h.From == row.Resource && strconv.FormatUint(h.Current, 10) == row.CurrentResourceVersion {
			return true
		}
	}
	return c.From == row.Resource
}
