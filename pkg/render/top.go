package render

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
	"github.com/watchrv/kubectl-watchrv/pkg/top"
)

// TopReport is the stable schema of "top -o json|yaml": one interval of
// every server (top.Report), and how the servers were found.
type TopReport struct {
	*top.Report `json:",inline"`
	// RunCost is what the run took from the API server(s) so far (cost.go):
	// every request, discovery included, beside the interval's own
	// metricsCost.
	RunCost *Cost `json:"cost,omitempty"`
	// Discovery is how the servers were found (--servers, --endpoints).
	Discovery *servers.Found `json:"discovery,omitempty"`

	// For the human view only.
	History *top.History `json:"-"`
	// Live: the view refreshes (a terminal); Clear: clear the screen
	// before it.
	Live, Clear bool `json:"-"`
	// Limit is how many rows the table shows (0: all).
	Limit int `json:"-"`
}

// clearScreen moves the cursor home and clears the screen (the one
// control sequence of top's refresh, besides colors).
const clearScreen = "\x1b[H\x1b[2J"

// clearScreenMark is clearScreen as a palette mark: the one writer's
// sanitizer shows every other control escaped, and writes this one as it is
// (top writes it only to a terminal, Live).
var clearScreenMark = newControlMark(clearScreen)

// Live reports whether top's view can refresh in place: stdout is a
// terminal (and TERM is not dumb).
func (p *Printer) Live() bool { return os.Getenv("TERM") != "dumb" && isTerminal(p.Out) }

// Top prints one interval of top.
func (p *Printer) Top(r TopReport) error {
	r.RunCost = p.cost()
	return p.emit(oneDocument, r, func() error { return p.topHuman(r) })
}

func (p *Printer) topHuman(r TopReport) error {
	var b strings.Builder
	if r.Clear {
		b.WriteString(clearScreenMark)
	}
	b.WriteString(p.Style.Header.Sprint(text.Inline(topTitle(r))) + "\n")
	several := len(r.Servers) > 1
	if several {
		for _, s := range r.Servers {
			b.WriteString(text.Inline(topServerLine(s)) + "\n")
		}
	} else if len(r.Servers) == 1 && (r.Servers[0].Err != "" || r.Servers[0].Restarted) {
		b.WriteString(text.Inline(topServerLine(r.Servers[0])) + "\n")
	}
	if err := p.topTable(&b, r, several); err != nil {
		return err
	}
	if r.Idle > 0 {
		fmt.Fprintf(&b, "(%s with no load in the interval not shown; name them as RESOURCE to see them)\n", text.Count(r.Idle, "resource"))
	}
	p.topCallouts(&b, r)
	var kv [][2]string
	if r.Imbalance != nil {
		kv = append(kv, [2]string{"Watchers across servers", r.Imbalance.Watchers.Verdict},
			[2]string{"Lists across servers", r.Imbalance.Lists.Verdict})
	}
	kv = append(kv, topEventBytes(r)...)
	kv = append(kv, topAPF(r)...)
	kv = append(kv, topUnmeasured(r)...)
	kv = append(kv, topMissing(r)...)
	kv = append(kv, topNoCache(r)...)
	kv = append(kv, topChecks(p, r)...)
	kv = append(kv, [2]string{"Cost", topCost(r)})
	b.WriteString("\n")
	if err := KeyValues(&b, kv); err != nil {
		return err
	}
	_, err := io.WriteString(p.Out, b.String())
	return err
}

func topTitle(r TopReport) string {
	where := ""
	switch {
	case len(r.Servers) == 1:
		s := r.Servers[0]
		where = s.Endpoint
		if s.Version != "" {
			where += " (" + s.Version + ")"
		}
	case r.Discovery != nil:
		where = fmt.Sprintf("%d API servers (%s)", len(r.Servers), discoverySource(*r.Discovery))
	default:
		where = fmt.Sprintf("%d API servers", len(r.Servers))
	}
	over := ""
	if len(r.Servers) == 1 && r.Servers[0].Answered() {
		over = fmt.Sprintf(" over %.1fs", r.Servers[0].Seconds)
	}
	live := ""
	if r.Live {
		live = fmt.Sprintf("; refresh %d, every %s, Ctrl-C to stop", r.Refresh, r.Interval)
	}
	return fmt.Sprintf("List/Watch load on %s%s, sorted by %s (rates per second; CLOSED and 410|429|5XX: counts in the interval%s)", where, over, r.Sort, live)
}

func topServerLine(s *top.Server) string {
	if s.Err != "" {
		line := fmt.Sprintf("server %d %s: not read: %s: %s", s.Index, s.Endpoint, s.Reason, s.Err)
		if s.Fix != "" {
			line += "; fix: " + s.Fix
		}
		return line
	}
	line := fmt.Sprintf("server %d %s", s.Index, s.Endpoint)
	if s.Version != "" {
		line += " " + s.Version
	}
	if s.Answered() {
		line += fmt.Sprintf(", over %.1fs", s.Seconds)
	}
	if s.Restarted {
		line += ": " + s.RestartNote
	}
	return line
}

func (p *Printer) topTable(b *strings.Builder, r TopReport, several bool) error {
	headers := []string{"RESOURCE", "WATCHERS", "EVENTS/S", "BYTES/S", "CLOSED", "LISTS/S CACHE|STORAGE", "STORAGE READ/RETURNED", "410|429|5XX", "OBJECTS"}
	if p.Wide() {
		headers = append(headers, "CACHE IN/S", "DISPATCHED/S", "CAPACITY", "CACHE RV (BEHIND)")
	}
	if several {
		headers = append([]string{"SERVER"}, headers...)
	}
	showHistory := r.History != nil && r.Refresh > 1
	if showHistory {
		headers = append(headers, "HISTORY ("+r.Sort+")")
	}
	t := NewTable(headers...)
	rows := r.Rows
	if r.Limit > 0 && len(rows) > r.Limit {
		rows = rows[:r.Limit]
	}
	for _, row := range rows {
		cells := []string{row.Name(), gaugeText(row.Watchers, ""), rateCell(row.Events, false), rateCell(row.EventBytes, true),
			countCell(row.Terminated), rateCell(row.ListsCache, false) + "|" + rateCell(row.ListsStorage, false),
			readReturned(row), countCell(row.Code410) + "|" + countCell(row.Code429) + "|" + countCell(row.Code5xx),
			objectsCell(row.Objects)}
		if p.Wide() {
			cells = append(cells, rateCell(row.CacheReceived, false), rateCell(row.CacheDispatched, false), gaugeText(row.Capacity, ""), cacheRVText(row))
		}
		if several {
			cells = append([]string{fmt.Sprint(row.Server)}, cells...)
		}
		if showHistory {
			cells = append(cells, Sparkline(r.History.Of(row)))
		}
		t.Row(cells...)
		if row.Terminated.D() > 0 {
			t.PaintLast(index(several, 4), p.Style.Bad.Sprint)
		}
		if row.Errors() > 0 {
			t.PaintLast(index(several, 7), p.Style.Warn.Sprint)
		}
	}
	if err := p.tableTo(b, t); err != nil {
		return err
	}
	if len(r.Rows) > len(rows) {
		fmt.Fprintf(b, "(%d more %s below the first %d: --limit 0 shows them all)\n", len(r.Rows)-len(rows), text.Noun(len(r.Rows)-len(rows), "row"), len(rows))
	}
	if len(r.Rows) == 0 {
		b.WriteString("(no resource had load in the interval)\n")
	}
	return nil
}

func index(several bool, i int) int {
	if several {
		return i + 1
	}
	return i
}

// notAvailable is a cell whose family the server does not expose (named
// under the table), never a 0; notMeasured a cell whose sample was not a
// number the server can mean (NaN, ±Inf, ...: named under the table).
const (
	notAvailable = "n/a"
	notMeasured  = "?"
)

func gaugeText(g top.Gauge, suffix string) string {
	if g.Unmeasured != "" {
		return notMeasured
	}
	if !g.Known() {
		return notAvailable
	}
	return fmtNum(g.V()) + suffix
}

// objectsCell is the stored objects; the server sets -1 when its count
// failed.
func objectsCell(g top.Gauge) string {
	if g.Known() && g.V() < 0 {
		return "count failed"
	}
	return gaugeText(g, "")
}

func rateCell(r top.Rate, bytes bool) string {
	switch cell, ok := noValueCell(r); {
	case ok:
		return cell
	case bytes:
		return byteRate(r.PS())
	}
	return perSecond(r.PS())
}

func countCell(r top.Rate) string {
	if cell, ok := noValueCell(r); ok {
		return cell
	}
	return fmtNum(r.D())
}

// noValueCell is the cell of a rate without a value, in the order of its
// reasons (ok false: it has one).
func noValueCell(r top.Rate) (string, bool) {
	switch {
	case r.Unmeasured != "":
		return notMeasured, true
	case r.Missing != "":
		return notAvailable, true
	case r.Restarted:
		return "restart", true
	case r.WentDown:
		return "reset", true
	case !r.Known():
		return notAvailable, true
	}
	return "", false
}

func readReturned(row *top.Row) string {
	f, ret := row.StorageFetched, row.StorageReturned
	if !f.Known() || !ret.Known() {
		return countCell(f) + "/" + countCell(ret)
	}
	return fmtNum(f.D()) + "/" + fmtNum(ret.D())
}

func cacheRVText(row *top.Row) string {
	if !row.CacheRV.Known() {
		return gaugeText(row.CacheRV, "")
	}
	s := fmtNum(row.CacheRV.V())
	if row.CacheRVBehindNewest != nil {
		s += fmt.Sprintf(" (%s)", fmtNum(*row.CacheRVBehindNewest))
	}
	return s
}

func perSecond(f float64) string {
	switch {
	case f == 0:
		return "0"
	case f < 10:
		return fmt.Sprintf("%.1f", f)
	}
	return fmtNum(math.Round(f))
}

// byteRate is bytes per second in the plugin's one byte unit
// (apiclient.Bytes: B, KiB, MiB).
func byteRate(f float64) string { return apiclient.Bytes(int64(math.Round(f))) }

// Sparkline draws values (oldest first) with the bars of the clients
// chart (sparks): a zero is '·', any other value a bar of height
// ceil(8 * value / peak), so that the smallest load still shows.
func Sparkline(values []float64) string {
	peak := 0.0
	for _, v := range values {
		peak = math.Max(peak, v)
	}
	var b strings.Builder
	for _, v := range values {
		if v <= 0 || peak <= 0 {
			b.WriteRune('·')
			continue
		}
		b.WriteRune(sparks[max(1, min(int(math.Ceil(v*8/peak)), 8))])
	}
	return b.String()
}

// quietSentence is "nothing stands out" with only the claims the interval
// measured (top.QuietOf): what was not measured is not claimed quiet.
func quietSentence(r TopReport) string {
	q := top.QuietOf(r.Report)
	cells := false
	for _, s := range r.Servers {
		cells = cells || len(s.Unmeasured) > 0
	}
	line := "nothing stands out in this interval"
	if cells || len(q.Unmeasured) > 0 {
		line = "nothing stands out in what was measured"
	}
	if len(q.Held) > 0 {
		line += " (" + strings.Join(q.Held, ", ") + ")"
	}
	if len(q.Unmeasured) > 0 {
		// Each with its reason (top.QuietOf): no reference to a note
		// that may not be printed.
		line += "; not measured in this interval: " + strings.Join(q.Unmeasured, ", ")
	}
	if cells {
		line += "; the cells shown as ? were not measured (see " + seeBelow(labelUnmeasured) + ")"
	}
	return line
}

func (p *Printer) topCallouts(b *strings.Builder, r TopReport) {
	if len(r.Callouts) == 0 {
		if len(r.Rows) > 0 {
			b.WriteString("\n" + p.Style.Header.Sprint("What matters most") + ": " + quietSentence(r) + "\n")
		}
		return
	}
	b.WriteString("\n" + p.Style.Header.Sprint("What matters most") + "\n")
	for i, c := range r.Callouts {
		paint := p.Style.Bold.Sprint
		if strings.HasPrefix(c.Kind, "most-") {
			paint = fmt.Sprint
		} else {
			paint = p.Style.Bad.Sprint
		}
		fmt.Fprintf(b, "%d. %s\n   means: %s\n   fix:   %s\n", i+1, paint(text.Inline(c.What)), text.Inline(c.Meaning), text.Inline(c.Fix))
		if c.Command != "" {
			fmt.Fprintf(b, "   run:   %s\n", c.Command)
		}
	}
}
