package render

import (
	"fmt"
	"strconv"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
)

// The view of explain-error --check --servers: the explanation, then
// what every API server said of the RV (servers.CrossCheck).

// ServersExplanation is the schema of "explain-error --check --servers -o
// json|yaml": the explanation's own fields, and "servers".
type ServersExplanation struct {
	// Cost is what the run took from the API server(s) (cost.go).
	Cost *Cost `json:"cost,omitempty"`
	Explanation
	Servers *servers.CrossCheck `json:"servers"`
	// Interrupted is set when Ctrl-C or SIGTERM cut the question of a
	// server: it is not among Servers (servers.CrossCheck.Interrupted).
	Interrupted *Interruption `json:"interrupted,omitempty"`
	// KubeconfigCheck is a part of the Requests line (its builder,
	// requestParts): the one-server --check's requests, asked of the
	// kubeconfig's server before the servers were (discovery and /version
	// aside, said whole in cost.byKind). The requests that found the
	// servers are Servers.Discovery.Requests (in Servers.Requests too).
	KubeconfigCheck int `json:"kubeconfigCheckRequests"`
	millis          float64
}

// ExplanationServers prints an explanation and what every server said.
func (p *Printer) ExplanationServers(e ServersExplanation) error {
	e.Cost, e.millis = p.cost(), p.runMillis()
	e.Servers = answersWithHints(e.Servers)
	if e.Servers != nil {
		if done, of, ok := e.Servers.Interrupted(); ok {
			e.Interrupted = &Interruption{Done: done, Of: of, CutRequests: e.Servers.Cut.Requests, CutTargets: e.Servers.Cut.Servers}
		}
	}
	return p.emit(oneDocument, e, func() error { return p.explanationServersHuman(e) })
}

func (p *Printer) explanationServersHuman(e ServersExplanation) error {
	if err := p.Explanation(e.Explanation); err != nil {
		return err
	}
	cc := e.Servers
	if cc == nil {
		return nil
	}
	fmt.Fprintln(p.Out)
	// The header's count is the Requests line's first part (the servers'
	// rows), not the rows' with the ones that found the servers: fresh
	// user try 27 F2, it said 1 (the lease read) of a run whose servers
	// were sent 3.
	fmt.Fprintln(p.Out, p.Style.Header.Sprintf("Every API server, asked about RV %d (%s)", cc.RequestedResourceVersion, text.Count(cc.Requests-cc.Discovery.Requests, "request")))
	asked := "WATCH FROM RV"
	for _, a := range cc.Servers {
		if a.List != "" {
			asked = "EXACT LIST AT RV"
		}
	}
	t := NewTable("SERVER", "CACHE RV", asked, "NOTE")
	for i, a := range cc.Servers {
		cache := "-"
		if a.CacheKnown {
			cache = strconv.FormatUint(a.CacheRV, 10)
		}
		watch := orDash(a.Watch)
		if a.List != "" {
			watch = a.List
		}
		if a.OldestNamed > 0 {
			watch += fmt.Sprintf(" (oldest %d)", a.OldestNamed)
		}
		note := ""
		switch {
		case a.Error != "":
			note = diagnose.Prefixed(a.Reason, a.Error)
			if a.Hint != "" {
				note += " (hint: " + a.Hint + ")"
			}
		case a.Inconsistent != "":
			// Its 410 answers no watch from this RV (adversary try 27 F6).
			watch += ", inconsistent"
			note = "its 410's numbers are inconsistent: " + a.Inconsistent
		}
		note = withRowRetries(note, a.RetryWait, a.Err)
		bad := note != ""
		if a.CacheKnown || a.WatchCache == servers.CacheOff {
			// Its rv=0 list is the watch cache's answer only where the
			// resource has one (fresh user try 44 F1): said as the
			// per-server view says it (serverCells).
			note = joinNote(cacheNote(a.WatchCache, a.WatchCacheWhy, "the command with --metrics (probe --endpoints)"), note)
		}
		if a.WatchCache == servers.CacheOff {
			cache = "none"
		}
		n := a.Index
		if n == 0 {
			n = i + 1
		}
		t.Row(strconv.Itoa(n)+" "+a.Endpoint, cache, watch, note)
		if bad {
			t.PaintLast(3, p.Style.Bad.Sprint)
		}
	}
	if err := p.tableOfRun(t, e.Interrupted); err != nil {
		return err
	}
	if err := p.interruptedLine(e.Interrupted, "server"); err != nil {
		return err
	}
	for _, f := range cc.Findings {
		if _, err := fmt.Fprintln(p.Out, "- "+f); err != nil {
			return err
		}
	}
	// Every part of the run's cost, as every per-server view says it.
	q := requestParts{toServers: cc.Requests - cc.Discovery.Requests, asked: len(cc.Servers), toFind: cc.Discovery.Requests, kubeconfigCheck: e.KubeconfigCheck, cost: e.Cost, in: e.Interrupted, millis: e.millis}
	return KeyValues(p.Out, [][2]string{{"Requests", q.text()}})
}

// answersWithHints is cc with each failed server's hint (CrossAnswer.Hint),
// on a copy: the table's NOTE and the JSON row say the one hint, as the
// per-server rows of list and probe do (withHints; adversary try 44 C: an
// unreachable row's note had "(hint: ...)", its JSON row none).
func answersWithHints(cc *servers.CrossCheck) *servers.CrossCheck {
	if cc == nil {
		return nil
	}
	c := *cc
	c.Servers = make([]servers.CrossAnswer, len(cc.Servers))
	for i, a := range cc.Servers {
		if a.Error != "" {
			a.Hint = failureHint(a.Reason, a.Err)
		}
		c.Servers[i] = a
	}
	return &c
}
