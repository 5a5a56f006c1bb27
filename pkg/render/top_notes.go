package render

import (
	"fmt"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"strings"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/top"
)

// The lines under top's table: what a column counts on some server, APF's
// rejections, the families not exposed, the --check bounds and the cost.

// topEventBytes says, for servers whose bytes are not the bytes sent, what
// the BYTES/S column counts there.
func topEventBytes(r TopReport) [][2]string {
	g := newPerServer("BYTES/S")
	lists := newPerServer("LISTS/S STORAGE")
	for _, s := range r.Servers {
		if s.EventBytes == "encoded" {
			g.add(s.Index, fmt.Sprintf("encoded, not sent: this server (%s) labels watch events by kind, and its apiserver_watch_events_sizes measures each event's object once per encoding, shared by the watchers that get it, not the bytes written to each watcher", s.Version))
		}
		if s.CurrentRVReads {
			lists.add(s.Index, fmt.Sprintf("includes the watch cache's reads of etcd's current RV: this server (%s) makes one, a storage list that reads no object, before each consistent list the cache serves (and each watch it starts at the current RV)", s.Version))
		}
	}
	several := len(r.Servers) > 1
	return append(g.lines(several), lists.lines(several)...)
}

func topAPF(r TopReport) [][2]string {
	g := newPerServer("APF rejected")
	for _, s := range r.Servers {
		if !s.Answered() || s.APF == nil {
			continue // not read, or named under "Not exposed"
		}
		if len(s.APF) == 0 {
			g.add(s.Index, "none in the interval")
			continue
		}
		var parts []string
		for _, a := range s.APF {
			parts = append(parts, fmt.Sprintf("%s: %s (flow schema %s, %s)", a.PriorityLevel, countCell(a.Rejected), a.FlowSchema, a.Reason))
		}
		g.add(s.Index, strings.Join(parts, "; "))
	}
	return g.lines(len(r.Servers) > 1)
}

// labelUnmeasured labels the note that names the samples shown as "?".
const labelUnmeasured = "Not measured (?)"

// seeBelow refers to the note labelled label, which the same report
// prints below (a test checks every reference of top's output has it).
func seeBelow(label string) string { return `"` + label + `" below` }

// topUnmeasured names, per server, the samples shown as "?": values no
// server can mean, not measured.
func topUnmeasured(r TopReport) [][2]string {
	g := newPerServer(labelUnmeasured)
	for _, s := range r.Servers {
		if len(s.Unmeasured) == 0 {
			continue
		}
		parts := make([]string, len(s.Unmeasured))
		for i, u := range s.Unmeasured {
			parts[i] = u.String()
		}
		g.add(s.Index, fmt.Sprintf("server %d (%s): %s", s.Index, s.Endpoint, strings.Join(parts, "; ")))
	}
	return g.lines(len(r.Servers) > 1)
}

// topNoCache names, per server that has a watch cache, the rows of
// resources without one of their own: their watch cache's cells (CLOSED,
// LISTS/S CACHE, and -o wide's) say n/a, and this says why (fresh user
// try 20 #5: events' n/a cells were explained nowhere). A server without
// any watch cache names it under "Not exposed".
func topNoCache(r TopReport) [][2]string {
	g := newPerServer("No watch cache (n/a)")
	for _, s := range r.Servers {
		if !s.Answered() || !s.Second.Values.AnyCache() {
			continue
		}
		var names []string
		for _, row := range s.Rows() {
			if row.WatchCache == top.CacheOff {
				names = append(names, row.Name())
			}
		}
		if len(names) > 0 {
			g.add(s.Index, strings.Join(names, ", ")+": no watch cache for this resource on this server (watch_cache_capacity has no series for it), so none of its lists is served by a watch cache and no watcher of it is closed as too slow by one: its watch cache's cells are n/a")
		}
	}
	return g.lines(len(r.Servers) > 1)
}

func topMissing(r TopReport) [][2]string {
	g := newPerServer("Not exposed (n/a)")
	for _, s := range r.Servers {
		if len(s.Missing) == 0 && len(s.Unmapped) == 0 {
			continue
		}
		var parts []string
		for _, m := range s.Missing {
			parts = append(parts, m.Family+": "+m.Reason)
		}
		if len(s.Unmapped) > 0 {
			parts = append(parts, "series not tied to a resource (left out): "+strings.Join(s.Unmapped, ", "))
		}
		g.add(s.Index, strings.Join(parts, "; "))
	}
	return g.lines(len(r.Servers) > 1)
}

func topChecks(p *Printer, r TopReport) [][2]string {
	var out [][2]string
	for _, c := range r.Checks {
		var v string
		switch {
		case !c.Checked():
			v = p.Style.Warn.Sprint("NOT CHECKED") + ": " + c.Note
		case c.Crossed:
			v = p.Style.Bad.Sprint("CROSSED") + fmt.Sprintf(": %s > %s", fmtNum(*c.Value), fmtNum(c.Max))
		default:
			v = p.Style.Good.Sprint("ok") + fmt.Sprintf(": %s <= %s", fmtNum(*c.Value), fmtNum(c.Max))
		}
		if c.Where != "" {
			v += " (" + c.Where + ")"
		}
		if c.NotMeasured != "" {
			v += " (over what was measured; not measured: " + c.NotMeasured + ")"
		}
		out = append(out, [2]string{"Check " + c.Flag, v})
	}
	return out
}

// topCost is the cost line: the reads of /metrics, their bytes, and
// whether the servers filtered them.
func topCost(r TopReport) string {
	per, full := "2 per server: both samples", 2
	switch {
	case r.Refresh > 1:
		per, full = "1 per server: the first sample is the previous refresh's second", 1
	case !secondSampleSent(r.Servers):
		per, full = "1 per server: no second sample was asked for, as no server's first could be read", 1
	}
	per += fewerReads(r.Servers, full)
	s := fmt.Sprintf("%d GET /metrics for this interval (%s), %s read", r.Cost.Reads, per, apiclient.Bytes(r.Cost.Bytes))
	if r.Cost.Read == 0 && r.Cost.Reads > 0 {
		s = fmt.Sprintf("%d GET /metrics for this interval (%s), no answer read (a refused or unreadable answer's body is not counted)", r.Cost.Reads, per)
	} else if r.Cost.Read < r.Cost.Reads {
		// The bytes are the texts top read: a refused answer's body is
		// not one (adversary try 37: "2 GET /metrics ..., 3.1 KB read"
		// of one answer read and one refused).
		s += fmt.Sprintf(" from the %s read (a refused or unreadable answer's body not counted)", text.Count(r.Cost.Read, "answer"))
	}
	switch {
	case r.Cost.Bytes == 0 && !r.Cost.Filtered && len(r.Cost.Unfiltered) == 0:
		// An answer refused (a 403) or unreadable is an answer: what
		// failed is said by each server's line (adversary try 37 F6:
		// "no server answered" after a 403 and a 200).
		s += "; no server's /metrics could be read (each server's line says why)"
	case r.Cost.Filtered:
		s += fmt.Sprintf("; filtered by name[]: every server that answered sent only families of the %d top asks for (a family a server does not expose is named under Not exposed)", r.Cost.Families)
	default:
		ignore, send := "ignore", "send"
		if len(r.Cost.Unfiltered) == 1 {
			ignore, send = "ignores", "sends"
		}
		s += fmt.Sprintf("; %s %s the name[] filter (it needs kube-apiserver v1.37: client_golang v1.24) and %s every family: top keeps those of the %d it asks for", serversNamed(r.Cost.Unfiltered), ignore, send, r.Cost.Families)
	}
	return s
}

// fewerReads names the servers sent fewer than full reads for this
// interval: one without a client, or one not asked again (it gave no
// answer to an earlier read of the run), which its "not read" line says.
func fewerReads(ss []*top.Server, full int) string {
	byCount := map[int][]int{}
	for _, s := range ss {
		if s.ReadRequests < full {
			byCount[s.ReadRequests] = append(byCount[s.ReadRequests], s.Index)
		}
	}
	var parts []string
	for n := 0; n < full; n++ {
		if idx := byCount[n]; len(idx) > 0 {
			parts = append(parts, fmt.Sprintf("%d to %s", n, serversNamed(idx)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ") + ` (see their "not read" lines)`
}

// secondSampleSent: a server of the first interval was sent its second
// read.
func secondSampleSent(ss []*top.Server) bool {
	for _, s := range ss {
		if s.ReadRequests == 2 {
			return true
		}
	}
	return false
}

// serversNamed is "server 2" or "servers 1, 3": the noun agrees with the
// list.
func serversNamed(xs []int) string {
	return text.Noun(len(xs), "server") + " " + joinIndexes(xs)
}

func joinIndexes(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// perServer groups one line per server: servers with the same text share
// one line ("APF rejected, servers 1, 2, 3").
type perServer struct {
	label  string
	order  []string
	byText map[string][]int
}

func newPerServer(label string) *perServer {
	return &perServer{label: label, byText: map[string][]int{}}
}

func (g *perServer) add(server int, text string) {
	if _, ok := g.byText[text]; !ok {
		g.order = append(g.order, text)
	}
	g.byText[text] = append(g.byText[text], server)
}

func (g *perServer) lines(several bool) [][2]string {
	var out [][2]string
	for _, text := range g.order {
		label := g.label
		if several {
			ss := g.byText[text]
			label = fmt.Sprintf("%s, server %s", g.label, joinIndexes(ss))
			if len(ss) > 1 {
				label = fmt.Sprintf("%s, servers %s", g.label, joinIndexes(ss))
			}
		}
		out = append(out, [2]string{label, text})
	}
	return out
}
