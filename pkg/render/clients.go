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
		t.Row(text.Inline(c.Name()), n(c.Requests), n(c.Lists.Total), n(c.Lists.Continue), n(c.Watches.Total), n(c.Gets), n(c.Other),
			n(c.Codes.Expired), n(c.Codes.TooLarge), n(c.Codes.Throttled), n(c.Codes.Server), storageCell(c.Totals), patternNames(c.Patterns))
		if len(c.Patterns) > 0 {
			t.PaintLast(12, s.Bad.Sprint)
		}
	}
	if err := p.tableTo(w, t); err != nil {
		return err
	}
	if len(r.Clients) > top {
		more := len(r.Clients) - top
		w.printf("(%d more %s: --top %d shows %s, -o json has them all)\n", more, text.Noun(more, "client"), len(r.Clients), map[bool]string{true: "it", false: "them"}[more == 1])
	}
	if f := r.Folded; f != nil {
		// Clients, not folds: one folded again after it came back is
		// one client (user try 22 #5).
		folded := text.Count(f.Clients, "client")
		if f.ClientsAtLeast {
			folded = "at least " + folded
		}
		split := ""
		if f.SeenAgain > 0 {
			has := "have"
			if f.SeenAgain == 1 {
				has = "has"
			}
			split = fmt.Sprintf(", and %s of them came again after their fold and %s a row too, with the counts split between it and this", th(f.SeenAgain), has)
		}
		w.printf("(%s folded into one, the lightest each time more than %s were seen: %s, %s, %s, %s storage lists together; their patterns are not judged%s: --max-clients keeps more apart)\n",
			folded, th(int64(f.MaxClients)), text.Count(f.Requests, "request"), text.Count(f.Lists.Total+f.Lists.Continue, "list"), text.Count(f.Watches.Total, "watch"), storageCell(f.Totals), split)
	}
	for i, c := range r.Clients {
		if i >= top {
			break
		}
		w.printf("\n%s\n", s.Bold.Sprint(text.Inline(c.Name())))
		for _, res := range c.Resources {
			clientResource(w, res)
		}
		for _, pt := range c.Patterns {
			w.printf("  %s %s: %s\n", s.Bad.Sprint(pt.Name), "("+text.Inline(pt.Resource)+")", text.Inline(pt.Evidence))
			w.printf("    fix: %s\n", pt.Fix)
		}
	}
	if len(r.Herds) > 0 {
		w.printf("\n%s\n", s.Bold.Sprint("Herds"))
		for _, h := range r.Herds {
			w.printf("  %s: %s\n    fix: %s\n", s.Bad.Sprint(h.Name), text.Inline(h.Evidence), h.Fix)
		}
		if r.HerdsFolded > 0 {
			w.printf("  and %s, not kept (the %d with the most clients are)\n", text.Count(r.HerdsFolded, "smaller herd"), clients.MaxHerds)
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
		line += fmt.Sprintf(", %s: %s", text.Count(bad, "unreadable line"), strings.Join(reasons, ", "))
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
	if in := inputLine(r.Input); in != "" {
		line += "\nInput: " + in
	}
	var levels []string
	for l, c := range r.Levels {
		levels = append(levels, fmt.Sprintf("%s %s", l, th(c)))
	}
	sort.Strings(levels)
	line += fmt.Sprintf("\nRequests: %s (level %s) from %s (%s)", th(r.Requests), strings.Join(levels, ", "),
		clients.Span(r.From, r.To), r.To.Sub(r.From).Round(time.Second))
	if r.Open > 0 {
		line += fmt.Sprintf("; %s watch(es) still open at the end", th(r.Open))
	}
	if r.AuditIDCollisions > 0 {
		line += fmt.Sprintf("; %s came with the auditID of another request still open (a client-chosen Audit-ID header), counted apart", th(r.AuditIDCollisions))
	}
	if r.OpenDropped > 0 {
		line += fmt.Sprintf("; %s whose first stage was not kept (more than %s open at once) count when their end comes, and not as open when it is not in the log", th(r.OpenDropped), th(clients.MaxOpen))
	}
	return line
}

// inputLine says what was done to read the input, "" when nothing.
func inputLine(in clients.Input) string {
	var parts []string
	for _, s := range in.Sorted {
		parts = append(parts, fmt.Sprintf("%s is %s: read twice, in time order", s.Source, s.Order))
	}
	if in.Reordered > 0 {
		parts = append(parts, fmt.Sprintf("%s put back in time order", text.Count(in.Reordered, "event")))
	}
	if in.Late > 0 {
		parts = append(parts, fmt.Sprintf("%s came after later ones beyond what can be held to order them and count where they came (patterns that follow time may be missed: give the log as a file, -f FILE, to have it sorted)", text.Count(in.Late, "event")))
	}
	if in.Duplicates > 0 {
		parts = append(parts, fmt.Sprintf("%s counted once (the same event twice: a file given twice, overlapping exports, a shipper's retries)", text.Count(in.Duplicates, "duplicate event")))
	}
	for _, c := range in.Cut {
		parts = append(parts, fmt.Sprintf("%s ends early after %s: %s; what was read counts", c.Source, text.Count(c.Lines, "line"), c.End))
	}
	if in.Interrupted {
		parts = append(parts, "interrupted: the report covers what was read before")
	}
	return strings.Join(parts, "; ")
}

func clientsVersion(r clients.Report) string {
	var cache, storage, unknown, cacheIfOn []string
	for _, rule := range r.Reads {
		switch {
		case rule.From == "cache":
			cache = append(cache, rule.Mode)
		case rule.From == "storage":
			storage = append(storage, rule.Mode)
		case rule.IfCacheOn == "cache":
			cacheIfOn = append(cacheIfOn, rule.Mode)
		default:
			unknown = append(unknown, rule.Mode)
		}
	}
	head := "Server version: unknown (--server-version not given)"
	if r.ServerVersion != "" {
		head = "Server version: " + r.ServerVersion
	}
	parts := []string{head, "watch cache: " + watchCacheState(r)}
	if len(storage) > 0 {
		parts = append(parts, "lists read from storage: "+strings.Join(storage, ", "))
	}
	if len(cache) > 0 {
		parts = append(parts, "from the watch cache: "+strings.Join(cache, ", "))
	}
	if len(cacheIfOn) > 0 {
		parts = append(parts, "from the watch cache if it is on, else from storage: "+strings.Join(cacheIfOn, ", "))
	}
	if len(unknown) > 0 {
		parts = append(parts, "not known: "+strings.Join(unknown, ", "))
	}
	return strings.Join(parts, "; ")
}

// watchCacheState says what is known of the watch cache, and on what it
// rests.
func watchCacheState(r clients.Report) string {
	var sizes []string
	for res, n := range r.WatchCacheSizes {
		sizes = append(sizes, fmt.Sprintf("%s#%d", res, n))
	}
	sort.Strings(sizes)
	var s string
	switch r.WatchCache {
	case clients.CacheOff:
		return "off (--watch-cache=off): every list reads storage"
	case clients.CacheOn:
		s = "on (--watch-cache=on; events have none by default)"
	default:
		s = "not known (the audit log does not record it; the API server's default is on: --watch-cache=on|off and --watch-cache-sizes say)"
	}
	if len(sizes) > 0 {
		s = "on, sizes " + strings.Join(sizes, ",") + " (--watch-cache-sizes; #0 is none; the rules below are for the other resources)"
	}
	if len(r.SizesUnmatched) > 0 {
		// A short name or a typo matches nothing and applies nothing:
		// said, never echoed as applied (fresh user try 20).
		s += fmt.Sprintf("; %s of --watch-cache-sizes: no request of the log is for it, so nothing was applied: the API server's flag names resources in full (configmaps#0, deployments.apps#0)", strings.Join(r.SizesUnmatched, ", "))
	}
	return s
}

func clientResource(w *errWriter, res clients.Resource) {
	w.printf("  %s\n", text.Inline(res.Resource))
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
			line += fmt.Sprintf("; %s", text.Count(l.Continue, "continued page"))
		}
		if res.Objects != nil {
			line += fmt.Sprintf("; %s returned", text.Count(*res.Objects, "object"))
		}
		w.printf("    %s\n", text.Inline(line))
	}
	wm := res.Watches
	if wm.Total > 0 {
		var modes, ends []string
		for _, m := range []struct {
			n     int64
			label string
		}{
			// By what the server sends first (docs/clients.md): RV unset
			// and 0 apart only in -o json, as both send the same.
			{wm.StateAndChanges, "state + changes (legacy RV unset/0: the whole collection as ADDED)"},
			{wm.ChangesOnly, "changes only (sendInitialEvents=false)"},
			{wm.Exact, "exact RV"},
			{wm.Streaming, "streaming list"},
		} {
			if m.n > 0 {
				modes = append(modes, fmt.Sprintf("%s %s", th(m.n), m.label))
			}
		}
		for _, m := range []struct {
			n     int64
			label string
		}{{wm.TimedOut, "at its timeout"}, {wm.Early, "closed early"}, {wm.AtOnce, "within 1s"}, {wm.Error, "with an error"}, {wm.Open, "still open"}, {wm.LifetimeUnknown, "with no valid start time (lifetime not known)"}} {
			if m.n > 0 {
				ends = append(ends, fmt.Sprintf("%s %s", th(m.n), m.label))
			}
		}
		line := fmt.Sprintf("watches  %s: %s; ended %s", th(wm.Total), strings.Join(modes, ", "), strings.Join(ends, ", "))
		if wm.Timed > 0 {
			line += fmt.Sprintf("; lived %s min, %s mean, %s max", dur(wm.MinSeconds), dur(wm.MeanSeconds), dur(wm.MaxSeconds))
		}
		w.printf("    %s\n", text.Inline(line))
	}
	var other []string
	if res.Gets > 0 {
		other = append(other, text.Count(res.Gets, "get"))
	}
	if res.Other > 0 {
		other = append(other, text.Count(res.Other, "other request"))
	}
	c := res.Codes
	for _, a := range []struct {
		n     int64
		label string
	}{{c.Expired, "410"}, {c.TooLarge, "504"}, {c.Throttled, "429"}, {c.Server, "5xx"}} {
		if a.n > 0 {
			other = append(other, fmt.Sprintf("%s answered %s", text.Count(a.n, "request"), a.label))
		}
	}
	if len(other) > 0 {
		w.printf("    %s\n", text.Inline(strings.Join(other, "; ")))
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
	// In seconds: n buckets of a log that spans centuries overflow a
	// time.Duration (the chart of a 1970-2262 log ended in 1680).
	end := time.Unix(tl.Start.Unix()+int64(n)*tl.BucketSeconds, 0)
	unit := "minute"
	if per > time.Minute {
		unit = per.String()
	}
	w.printf("Per %s, %s (bars scaled to each row's peak; 410s: answered 410, or a watch from an exact RV that ended within 1s, as one ended by a 410 inside the stream does):\n", unit, clients.Span(tl.Start, end))
	for _, c := range tl.Clients {
		w.printf("%s\n", text.Inline(c.Client))
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
	if s >= 1e9 { // past what a time.Duration holds (292 years) with room
		return fmt.Sprintf("%.0fh", s/3600)
	}
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
