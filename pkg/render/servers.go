package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/pkg/servers"
)

// ServersReport is the stable schema of "probe|list RESOURCE --servers -o
// json|yaml": one entry per API server, and what they mean together.
type ServersReport struct {
	Resource     string `json:"resource"`
	GroupVersion string `json:"groupVersion"`
	Namespace    string `json:"namespace"`
	// Mode is probe (RVs and windows) or list (RVs only).
	Mode      string            `json:"mode"`
	Discovery servers.Found     `json:"discovery"`
	Servers   []*servers.Server `json:"servers"`
	Verdict   servers.Verdict   `json:"verdict"`
	// Requests counts every request of the run: the servers' and the
	// discovery's (EndpointSlices, leases).
	Requests int     `json:"requests"`
	Millis   float64 `json:"ms"`
}

// NewServersReport builds the report of one collection.
func NewServersReport(mode string, found servers.Found, v *servers.View) ServersReport {
	t := v.Target
	return ServersReport{
		Resource:     t.Resource.Name(),
		GroupVersion: t.Resource.GVR.GroupVersion().String(),
		Namespace:    t.Namespace,
		Mode:         mode,
		Discovery:    found,
		Servers:      v.Servers,
		Verdict:      v.Verdict,
		Requests:     v.Requests + found.Requests,
		Millis:       float64(v.Duration.Microseconds()) / 1000,
	}
}

// ServersAllReport is the schema of "probe --all --servers -o json|yaml".
type ServersAllReport struct {
	Discovery servers.Found   `json:"discovery"`
	Resources []ServersReport `json:"resources"`
	Requests  int             `json:"requests"`
	Millis    float64         `json:"ms"`
	// Interrupted is set when Ctrl-C or SIGTERM stopped the run.
	Interrupted *Interruption `json:"interrupted,omitempty"`
}

// Servers prints the per-server view of one collection.
func (p *Printer) Servers(r ServersReport) error {
	if p.Machine() {
		return p.Object(r)
	}
	fmt.Fprintln(p.Out, p.Style.Header.Sprint(serversTitle(r)))
	if err := p.serversTable(r, false).Write(p.Out, p.Style.Header.Sprint); err != nil {
		return err
	}
	fmt.Fprintln(p.Out)
	kv := serversVerdict(r)
	kv = append(kv, [2]string{"Requests", fmt.Sprintf("%d to %d server(s) + %d to find them, in %s",
		r.Requests-r.Discovery.Requests, len(r.Servers), r.Discovery.Requests, millis(r.Millis))})
	if err := KeyValues(p.Out, kv); err != nil {
		return err
	}
	// --metrics: each server's own watch cache, side by side.
	rows := make([]metricsRow, 0, len(r.Servers))
	for _, s := range r.Servers {
		rows = append(rows, metricsRow{s.Label(), s.Metrics})
	}
	return p.metricsTable("SERVER", rows)
}

// ServersAll prints one table for every resource, a server per row, and a
// verdict line only for the resources whose servers disagree.
func (p *Printer) ServersAll(r ServersAllReport) error {
	if p.Machine() {
		return p.Object(r)
	}
	cols := []string{colResource, colServer, colCurrent, colCache, colLag, colOldest, colWidth, colSource, colNote}
	t := NewTable(cols...)
	var notes []string
	for _, res := range r.Resources {
		for _, s := range res.Servers {
			c := serverCells(s, true)
			c[colResource] = res.Resource
			t.Row(cellsIn(cols, c)...)
			if s.Error != "" {
				t.PaintLast(columnOf(cols, colNote), p.Style.Bad.Sprint)
			}
		}
		if v := res.Verdict; v.LargestLag > 0 || v.CommonEmpty || v.Answered < v.Servers {
			notes = append(notes, res.Resource+": "+oneLineVerdict(v))
		}
	}
	if err := t.Write(p.Out, p.Style.Header.Sprint); err != nil {
		return err
	}
	if err := p.interruptedLine(r.Interrupted, "resources"); err != nil {
		return err
	}
	fmt.Fprintln(p.Out)
	if len(notes) == 0 {
		notes = []string{"every server agrees: no lag, and a common window on every resource"}
	}
	for _, n := range notes {
		fmt.Fprintln(p.Out, n)
	}
	p.Notef("%d resources on %d server(s) (%s), %d requests in %s", len(r.Resources), len(r.Discovery.Endpoints), discoveryText(r.Discovery), r.Requests, millis(r.Millis))
	return nil
}

func serversTitle(r ServersReport) string {
	scope := r.Resource
	if r.Namespace != "" {
		scope += " in namespace " + r.Namespace
	}
	return fmt.Sprintf("%s on %d API server(s) (%s)", scope, len(r.Servers), discoveryText(r.Discovery))
}

func discoveryText(f servers.Found) string {
	from := "from the kubernetes EndpointSlices"
	if f.From == servers.FromFlag {
		from = "from --endpoints"
	}
	switch {
	case f.Leases.Error != "":
		return from + "; identity leases not readable: " + firstWords(f.Leases.Error, 12)
	default:
		return fmt.Sprintf("%s; %d kube-apiserver identity lease(s)", from, f.Leases.Count)
	}
}

func (p *Printer) serversTable(r ServersReport, _ bool) *Table {
	probe := r.Mode == "probe"
	cols := []string{colServer, colCurrent, colCache, colLag, colRequests, colTime, colNote}
	if probe {
		cols = []string{colServer, colCurrent, colCache, colLag, colOldest, colWidth, colSource, colRequests, colTime, colNote}
	}
	t := NewTable(cols...)
	for _, s := range r.Servers {
		t.Row(cellsIn(cols, serverCells(s, probe))...)
		if s.LagKnown && s.Lag > 0 && s.Endpoint == r.Verdict.LargestLagServer {
			t.PaintLast(columnOf(cols, colLag), p.Style.Warn.Sprint)
		}
		if probe {
			t.PaintLast(columnOf(cols, colSource), sourcePaint(p.Style, s.Source))
		}
		if s.Error != "" {
			t.PaintLast(columnOf(cols, colNote), p.Style.Bad.Sprint)
		}
	}
	return t
}

// The columns of the per-server tables; each table picks its own, by name.
const (
	colResource = "RESOURCE"
	colServer   = "SERVER"
	colCurrent  = "CURRENT RV"
	colCache    = "CACHE RV"
	colLag      = "LAG"
	colOldest   = "OLDEST RV"
	colWidth    = "WIDTH"
	colSource   = "SOURCE"
	colRequests = "REQUESTS"
	colTime     = "TIME"
	colNote     = "NOTE"
)

// cellsIn lays out the cells of one row in the order of cols.
func cellsIn(cols []string, cells map[string]string) []string {
	row := make([]string, len(cols))
	for i, c := range cols {
		row[i] = cells[c]
	}
	return row
}

// columnOf is the index of a column in cols (len(cols) when absent:
// PaintLast then paints nothing).
func columnOf(cols []string, name string) int {
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	return len(cols)
}

// serverCells are one server's cells, by column.
func serverCells(s *servers.Server, probe bool) map[string]string {
	rv := func(known bool, n uint64) string {
		if !known {
			return "?"
		}
		return strconv.FormatUint(n, 10)
	}
	lag := rv(s.LagKnown, s.Lag)
	if s.LagKnown && s.LagAgainst != "" {
		lag += "*"
	}
	source := s.Source
	if !probe || (!s.WindowKnown && s.Source == "unknown" && s.Error != "") {
		source = "-"
	}
	note := ""
	if s.Error != "" {
		note = s.Reason + ": " + s.Error
		if s.Hint != "" {
			note += " (hint: " + s.Hint + ")"
		}
		if s.LagAgainst != "" {
			note = "*lag against the " + s.LagAgainst + "; " + note
		}
	} else if s.LagAgainst != "" {
		note = "*lag against the " + s.LagAgainst
	}
	return map[string]string{
		colServer: s.Label(), colCurrent: rv(s.CurrentKnown, s.CurrentRV), colCache: rv(s.CacheKnown, s.CacheRV), colLag: lag,
		colOldest: rv(s.WindowKnown, s.Oldest), colWidth: rv(s.WindowKnown, s.Width), colSource: source,
		colRequests: strconv.Itoa(s.Requests), colTime: millis(s.Millis), colNote: note,
	}
}

// serversVerdict is the verdict block under the table. Every claim names
// the servers it holds for: a server that did not answer a read is never
// counted as if it had.
func serversVerdict(r ServersReport) [][2]string {
	v := r.Verdict
	var kv [][2]string
	kv = append(kv, [2]string{"Answered", answeredText(r)})
	if v.CommonKnown {
		kv = append(kv, [2]string{"Every server", commonText(v, r.Servers, r.Mode == "probe")})
	}
	if rc := v.Reconnect; rc != nil {
		kv = append(kv, [2]string{fmt.Sprintf("Reconnect from RV %d", rc.ResourceVersion), reconnectText(rc, r.Mode == "probe")})
	}
	if v.LargestLagServer != "" {
		lag := fmt.Sprintf("%s RVs, server %s", text.Thousands(v.LargestLag), v.LargestLagServer)
		if v.LargestLag == 0 {
			lag = "0: every watch cache that was read has seen the current RV"
			if len(v.NewestUnknown) == 0 {
				lag = "0: every watch cache has seen the current RV"
			}
		}
		kv = append(kv, [2]string{"Largest lag", lag})
	}
	return kv
}

// answeredText counts the servers that answered every read, and names
// those that answered only some, or none.
func answeredText(r ServersReport) string {
	v := r.Verdict
	out := fmt.Sprintf("%d of %d server(s)", v.Answered, v.Servers)
	var partly, none []string
	for _, s := range r.Servers {
		switch {
		case s.Error == "":
		case s.Answered():
			partly = append(partly, s.Endpoint+" ("+s.Reason+")")
		default:
			none = append(none, s.Endpoint+" ("+s.Reason+")")
		}
	}
	if len(partly) > 0 {
		out += "; only partly: " + strings.Join(partly, ", ")
	}
	if len(none) > 0 {
		out += "; no answer: " + strings.Join(none, ", ")
	}
	return out
}

func commonText(v servers.Verdict, ss []*servers.Server, probe bool) string {
	if v.CommonEmpty {
		return fmt.Sprintf("no RV is served by every server now: server %s forgets below RV %d, server %s has seen only up to RV %d",
			v.CommonFromServer, v.CommonFrom, v.CommonToServer, v.CommonTo)
	}
	high := "(every server follows etcd: its cache reached the current RV right after a consistent list)"
	if len(v.NewestUnknown) > 0 {
		high = "(every server that gave an RV follows etcd: its cache reached the current RV right after a consistent list)"
	}
	if v.CommonToLagging {
		high = fmt.Sprintf("(above %d server %s has not seen the RV and does not catch up: 504 on a relist, a watch held)", v.CommonTo, v.CommonToServer)
	}
	unknownTo := ""
	if len(v.NewestUnknown) > 0 {
		unknownTo = "; not known for " + strings.Join(v.NewestUnknown, ", ") + ": no RV was read from it"
	}
	if !v.CommonFromKnown {
		// No window was measured: below which RV a server answers 410 is
		// unknown, so no range is claimed, only the 504 side.
		why := "no window was searched (probe RESOURCE --servers finds each server's oldest RV)"
		if probe {
			why = "no server's window was measured (see the NOTE column)"
		}
		who := "any server"
		if len(v.NewestUnknown) > 0 {
			who = "the servers that gave an RV"
		}
		return fmt.Sprintf("a reconnect from an RV up to %d gets no 504 from %s %s%s; whether it gets 410 is unknown: %s",
			v.CommonTo, who, high, unknownTo, why)
	}
	covered := v.Covered(ss)
	all := len(covered) == len(ss)
	low := fmt.Sprintf("(below %d server %s answers a watch with 410)", v.CommonFrom, v.CommonFromServer)
	if v.CommonFrom <= 1 {
		low = "(nothing has expired on any server)"
		if len(v.OldestUnknown) > 0 {
			low = "(nothing has expired on the servers whose window was measured)"
		}
	}
	who := "every server"
	if !all {
		who = strings.Join(covered, ", ") + " (the servers whose window and cache RV were measured)"
		if len(covered) == 0 {
			who = "no server known to serve all of it (its bounds were measured on different servers)"
		}
	}
	out := fmt.Sprintf("a reconnect from any RV in [%d, %d] is served at once by %s %s %s", v.CommonFrom, v.CommonTo, who, low, high)
	var unknownFrom []string
	for _, e := range v.OldestUnknown {
		if !slices.Contains(v.NewestUnknown, e) {
			unknownFrom = append(unknownFrom, e)
		}
	}
	if len(unknownFrom) > 0 {
		out += "; not known for " + strings.Join(unknownFrom, ", ") + ": its oldest RV was not measured, a reconnect to it may get 410"
	}
	return out + unknownTo
}

func reconnectText(rc *servers.Reconnect, probe bool) string {
	var bad, ok, no504 []string
	for _, a := range rc.Answers {
		switch a.Answer {
		case servers.AnswerExpired:
			bad = append(bad, fmt.Sprintf("%s answers 410 Expired (%s RVs below its oldest)", a.Endpoint, text.Thousands(a.By)))
		case servers.AnswerTooLarge:
			bad = append(bad, fmt.Sprintf("%s answers 504 TooLarge on a relist (%s RVs ahead of its cache)", a.Endpoint, text.Thousands(a.By)))
		case servers.AnswerUnknown:
			bad = append(bad, a.Endpoint+" unknown")
		case servers.AnswerNotTooLarge:
			no504 = append(no504, a.Endpoint)
		default:
			ok = append(ok, a.Endpoint)
		}
	}
	why := "the newest current RV: an informer that just listed on the freshest server"
	if rc.Why == "given" {
		why = "--from-rv"
	}
	out := "(" + why + ") "
	if len(bad) == 0 && len(no504) == 0 {
		return out + "every server serves it"
	}
	parts := bad
	if len(ok) > 0 {
		parts = append(parts, "served by "+strings.Join(ok, ", "))
	}
	if len(no504) > 0 {
		what := "no window searched"
		if probe {
			what = "its window was not measured"
		}
		no := "no server answers 504 (the RV is within every cache)"
		if len(no504) < len(rc.Answers) {
			no = "no 504 from " + strings.Join(no504, ", ") + " (the RV is within their caches)"
		}
		parts = append(parts, fmt.Sprintf("%s; 410 not known (%s)", no, what))
	}
	return out + strings.Join(parts, "; ")
}

func oneLineVerdict(v servers.Verdict) string {
	parts := []string{}
	if v.Answered < v.Servers {
		parts = append(parts, fmt.Sprintf("%d of %d server(s) answered every read (see the NOTE column)", v.Answered, v.Servers))
	}
	if v.LargestLag > 0 {
		parts = append(parts, fmt.Sprintf("server %s lags %s RVs", v.LargestLagServer, text.Thousands(v.LargestLag)))
	}
	if v.CommonEmpty {
		parts = append(parts, fmt.Sprintf("no common window (oldest %d on %s > cache RV %d on %s)", v.CommonFrom, v.CommonFromServer, v.CommonTo, v.CommonToServer))
	}
	return strings.Join(parts, "; ")
}

func firstWords(s string, n int) string {
	w := strings.Fields(s)
	if len(w) > n {
		return strings.Join(w[:n], " ") + " ..."
	}
	return s
}

// ServersExplanation is the schema of "explain-error --check --servers -o
// json|yaml": the explanation's own fields, and "servers".
type ServersExplanation struct {
	Explanation
	Servers *servers.CrossCheck `json:"servers"`
}

// ExplanationServers prints an explanation and what every server said.
func (p *Printer) ExplanationServers(e ServersExplanation) error {
	if p.Machine() {
		return p.Object(e)
	}
	if err := p.Explanation(e.Explanation); err != nil {
		return err
	}
	cc := e.Servers
	if cc == nil {
		return nil
	}
	fmt.Fprintln(p.Out)
	fmt.Fprintln(p.Out, p.Style.Header.Sprintf("Every API server, asked about RV %d (%d request(s))", cc.RequestedResourceVersion, cc.Requests))
	t := NewTable("SERVER", "CACHE RV", "WATCH FROM RV", "NOTE")
	for i, a := range cc.Servers {
		cache := "-"
		if a.CacheKnown {
			cache = strconv.FormatUint(a.CacheRV, 10)
		}
		watch := orDash(a.Watch)
		if a.OldestNamed > 0 {
			watch += fmt.Sprintf(" (oldest %d)", a.OldestNamed)
		}
		note := ""
		if a.Error != "" {
			note = a.Reason + ": " + a.Error
		}
		t.Row(strconv.Itoa(i+1)+" "+a.Endpoint, cache, watch, note)
		if note != "" {
			t.PaintLast(3, p.Style.Bad.Sprint)
		}
	}
	if err := t.Write(p.Out, p.Style.Header.Sprint); err != nil {
		return err
	}
	for _, f := range cc.Findings {
		if _, err := fmt.Fprintln(p.Out, "- "+f); err != nil {
			return err
		}
	}
	return nil
}
