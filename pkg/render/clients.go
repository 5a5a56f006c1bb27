package render

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/clients"
)

// Clients prints the audit-log analysis: what was read, the clients ranked
// by load (the top of them), each one's resources and patterns, the herds,
// and the per-minute chart. -o json|yaml prints the whole Report.
func (p *Printer) Clients(r clients.Report, top int) error {
	return p.emit(oneDocument, r, func() error { return p.clientsHuman(r, top) })
}

func (p *Printer) clientsHuman(r clients.Report, top int) error {
	w := &errWriter{w: p.Out}
	s := p.Style
	w.printf("%s\n", clientsRead(r))
	w.printf("%s\n", clientsVersion(r))
	w.printf("\n")
	t := NewTable("CLIENT (USER / USER AGENT)", "REQUESTS", "LISTS", "PAGES", "WATCHES", "GETS", "OTHER", "410", "504", "429", "5XX", "STORAGE LISTS", "PATTERNS")
	for i, c := range r.Clients {
		if i >= top {
			break
		}
		t.Row(text.OneLine(c.Name()), n(c.Requests), n(c.Lists.Total), n(c.Lists.Continue), n(c.Watches.Total), n(c.Gets), n(c.Other),
			n(c.Codes.Expired), n(c.Codes.TooLarge), n(c.Codes.Throttled), n(c.Codes.Server), storageCell(c.Totals), patternNames(c.Patterns))
		if len(c.Patterns) > 0 {
			t.PaintLast(12, s.Bad.Sprint)
		}
	}
	if err := t.Write(w, s.Header.Sprint); err != nil {
		return err
	}
	if len(r.Clients) > top {
		w.printf("(%d more %s: --top %d shows them, -o json has them all)\n", len(r.Clients)-top, text.Noun(len(r.Clients)-top, "client"), len(r.Clients))
	}
	for i, c := range r.Clients {
		if i >= top {
			break
		}
		w.printf("\n%s\n", s.Bold.Sprint(text.OneLine(c.Name())))
		for _, res := range c.Resources {
			clientResource(w, res)
		}
		for _, pt := range c.Patterns {
			w.printf("  %s %s: %s\n", s.Bad.Sprint(pt.Name), "("+pt.Resource+")", pt.Evidence)
			w.printf("    fix: %s\n", pt.Fix)
		}
	}
	if len(r.Herds) > 0 {
		w.printf("\n%s\n", s.Bold.Sprint("Herds"))
		for _, h := range r.Herds {
			w.printf("  %s: %s\n    fix: %s\n", s.Bad.Sprint(h.Name), h.Evidence, h.Fix)
		}
	}
	if len(r.Timeline.Clients) > 0 {
		w.printf("\n")
		timelineChart(w, r.Timeline)
	}
	return w.err
}

func clientsRead(r clients.Report) string {
	src := r.Sources[0]
	if len(r.Sources) > 1 {
		src = fmt.Sprintf("%d files (merged in time order)", len(r.Sources))
	}
	line := fmt.Sprintf("Read %s: %s, %s", src, text.Count(r.Lines, "line"), text.Count(r.Events, "event"))
	if r.Wrapped > 0 {
		line += fmt.Sprintf(" (%s wrapped in other JSON)", th(r.Wrapped))
	}
	var bad int64
	var reasons []string
	for reason, c := range r.Unreadable {
		bad += c
		reasons = append(reasons, fmt.Sprintf("%s %s", th(c), reason))
	}
	sort.Strings(reasons)
	if bad > 0 {
		line += fmt.Sprintf(", %s unreadable line(s): %s", th(bad), strings.Join(reasons, ", "))
		var at []string
		for _, b := range r.BadLines {
			at = append(at, fmt.Sprintf("%s:%d", b.Source, b.Line))
		}
		line += " (" + strings.Join(at, ", ")
		if int64(len(at)) < bad {
			line += ", ..."
		}
		line += ")"
	}
	var levels []string
	for l, c := range r.Levels {
		levels = append(levels, fmt.Sprintf("%s %s", l, th(c)))
	}
	sort.Strings(levels)
	line += fmt.Sprintf("\nRequests: %s (level %s) from %s to %s (%s)", th(r.Requests), strings.Join(levels, ", "),
		r.From.UTC().Format("2006-01-02 15:04:05"), r.To.UTC().Format("15:04:05 MST"), r.To.Sub(r.From).Round(time.Second))
	if r.Open > 0 {
		line += fmt.Sprintf("; %s watch(es) still open at the end", th(r.Open))
	}
	return line
}

func clientsVersion(r clients.Report) string {
	var cache, storage, unknown []string
	for _, rule := range r.Reads {
		switch rule.From {
		case "cache":
			cache = append(cache, rule.Mode)
		case "storage":
			storage = append(storage, rule.Mode)
		default:
			unknown = append(unknown, rule.Mode)
		}
	}
	head := "Server version: unknown (--server-version not given)"
	if r.ServerVersion != "" {
		head = "Server version: " + r.ServerVersion
	}
	parts := []string{}
	if len(storage) > 0 {
		parts = append(parts, "lists read from etcd: "+strings.Join(storage, ", "))
	}
	if len(cache) > 0 {
		parts = append(parts, "from the watch cache: "+strings.Join(cache, ", "))
	}
	if len(unknown) > 0 {
		parts = append(parts, "not known: "+strings.Join(unknown, ", "))
	}
	return head + "; " + strings.Join(parts, "; ") + " (resources with the watch cache on, the default)"
}

func clientResource(w *errWriter, res clients.Resource) {
	w.printf("  %s\n", text.OneLine(res.Resource))
	l := res.Lists
	if l.Total+l.Continue > 0 {
		var modes []string
		for _, m := range []struct {
			n     int64
			label string
		}{{l.Unset, "RV unset (consistent)"}, {l.Zero, "RV 0"}, {l.Exact, "exact RV"}, {l.NotOlderThan, "NotOlderThan RV"}} {
			if m.n > 0 {
				modes = append(modes, fmt.Sprintf("%s %s", th(m.n), m.label))
			}
		}
		line := fmt.Sprintf("lists    %s: %s", th(l.Total), strings.Join(modes, ", "))
		if l.Limit > 0 {
			line += fmt.Sprintf("; %s with a limit", th(l.Limit))
		}
		if l.Continue > 0 {
			line += fmt.Sprintf("; %s continued page(s)", th(l.Continue))
		}
		if res.Objects != nil {
			line += fmt.Sprintf("; %s returned", text.Count(*res.Objects, "object"))
		}
		w.printf("    %s\n", line)
	}
	wm := res.Watches
	if wm.Total > 0 {
		var modes, ends []string
		for _, m := range []struct {
			n     int64
			label string
		}{{wm.Unset, "RV unset"}, {wm.Zero, "RV 0"}, {wm.Exact, "exact RV"}, {wm.Streaming, "streaming list"}} {
			if m.n > 0 {
				modes = append(modes, fmt.Sprintf("%s %s", th(m.n), m.label))
			}
		}
		for _, m := range []struct {
			n     int64
			label string
		}{{wm.TimedOut, "at its timeout"}, {wm.Early, "closed early"}, {wm.AtOnce, "within 1s"}, {wm.Error, "with an error"}, {wm.Open, "still open"}} {
			if m.n > 0 {
				ends = append(ends, fmt.Sprintf("%s %s", th(m.n), m.label))
			}
		}
		line := fmt.Sprintf("watches  %s: %s; ended %s", th(wm.Total), strings.Join(modes, ", "), strings.Join(ends, ", "))
		if ended := wm.Total - wm.Open; ended > 0 {
			line += fmt.Sprintf("; lived %s min, %s mean, %s max", dur(wm.MinSeconds), dur(wm.MeanSeconds), dur(wm.MaxSeconds))
		}
		w.printf("    %s\n", line)
	}
	var other []string
	if res.Gets > 0 {
		other = append(other, fmt.Sprintf("%s get(s)", th(res.Gets)))
	}
	if res.Other > 0 {
		other = append(other, fmt.Sprintf("%s other request(s)", th(res.Other)))
	}
	c := res.Codes
	for _, a := range []struct {
		n     int64
		label string
	}{{c.Expired, "410"}, {c.TooLarge, "504"}, {c.Throttled, "429"}, {c.Server, "5xx"}} {
		if a.n > 0 {
			other = append(other, fmt.Sprintf("%s answered %s", th(a.n), a.label))
		}
	}
	if len(other) > 0 {
		w.printf("    %s\n", strings.Join(other, "; "))
	}
}

// sparks are the bar heights of the chart, from none to the row's peak.
var sparks = []rune(" ▁▂▃▄▅▆▇█")

func timelineChart(w *errWriter, tl clients.Timeline) {
	per := time.Duration(tl.BucketSeconds) * time.Second
	n := 0
	if len(tl.Clients) > 0 {
		n = len(tl.Clients[0].Lists)
	}
	end := tl.Start.Add(time.Duration(n) * per)
	unit := "minute"
	if per > time.Minute {
		unit = per.String()
	}
	w.printf("Per %s, %s to %s UTC (bars scaled to each row's peak; 410s: answered 410, or a watch from an exact RV that ended within 1s, the sign of a 410 inside the stream):\n", unit, tl.Start.Format("15:04"), end.Format("15:04"))
	for _, c := range tl.Clients {
		w.printf("%s\n", text.OneLine(c.Client))
		for _, row := range []struct {
			label string
			v     []int64
		}{{"lists  ", c.Lists}, {"watches", c.Watches}, {"410s   ", c.Expired}} {
			var peak, total int64
			for _, x := range row.v {
				peak = max(peak, x)
				total += x
			}
			var b strings.Builder
			for _, x := range row.v {
				if x == 0 {
					b.WriteRune('·')
					continue
				}
				h := int((x*8 + peak - 1) / peak)
				b.WriteRune(sparks[h])
			}
			w.printf("  %s |%s| peak %s, total %s\n", row.label, b.String(), th(peak), th(total))
		}
	}
}

func storageCell(t clients.Totals) string {
	switch {
	case t.StorageUnknown > 0 && t.StorageLists > 0:
		return fmt.Sprintf("%s + %s?", th(t.StorageLists), th(t.StorageUnknown))
	case t.StorageUnknown > 0:
		return th(t.StorageUnknown) + "?"
	}
	return th(t.StorageLists)
}

func patternNames(ps []clients.Pattern) string {
	seen := map[string]bool{}
	var names []string
	for _, p := range ps {
		if !seen[p.Name] {
			seen[p.Name] = true
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ",")
}

func n(v int64) string { return strconv.FormatInt(v, 10) }

func dur(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// errWriter keeps the first write error, so that a long report is written
// without an error check per line.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	k, err := e.w.Write(b)
	e.err = err
	return k, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

func th(v int64) string {
	if v < 0 {
		return "-" + text.Thousands(uint64(-v))
	}
	return text.Thousands(uint64(v))
}
