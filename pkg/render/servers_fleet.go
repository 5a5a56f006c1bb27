package render

import (
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// How many servers a per-server report speaks of: the fleet (the title,
// the Interrupted line's M), and the servers its requests went to (the
// Requests line). They differ when the signal cut a server, or when an
// address was never dialled.

// asked is how many servers the requests of the Requests line went to:
// the rows that count one. Never the fleet: a server the signal cut is no
// row (its requests are said apart, Interruption.CutRequests), and one
// that was never dialled (no IP address) got none (user try 24 F3: "4 to
// 2 servers" when all 4 went to the one measured).
func (r ServersReport) asked() int {
	n := 0
	for _, s := range r.Servers {
		if s.Requests > 0 {
			n++
		}
	}
	return n
}

// fleet is how many servers the run had: the rows, and when the signal
// cut it, those it did not measure too.
func (r ServersReport) fleet() int {
	if r.Interrupted != nil {
		return r.Interrupted.Of
	}
	return len(r.Servers)
}

// requestsText is the Requests line of the per-server view of one
// collection (requestParts).
func (r ServersReport) requestsText() string {
	return requestParts{toServers: r.Requests - r.Discovery.Requests, asked: r.asked(), toFind: r.Discovery.Requests, cost: r.Cost, in: r.Interrupted, millis: r.Millis}.text()
}

// requestParts are the parts of every per-server view's Requests line
// (the one builder: list, probe and explain-error --check --servers).
type requestParts struct {
	toServers, asked, toFind int
	// kubeconfigCheck: explain-error's one-server --check, asked of the
	// kubeconfig's server before the servers were (its requests but
	// discovery and /version, which are said with the others').
	kubeconfigCheck int
	cost            *Cost
	in              *Interruption
	millis          float64
}

// text is the Requests line: every part of the run's cost
// (Cost.Requests), each said, so that they add up to the JSON's: the
// rows' (to the servers measured, and to find them), the resource's
// discovery and /version, explain-error's one-server check, those the
// servers the signal cut had answered (Interruption.CutRequests), and
// those the signal cut in flight (Cost.Cut). Adversary try 25 F4: the
// human line said 17 of the JSON's 19, the 2 the signal cut in no human
// line; fresh user try 26 F4: explain-error's view had no Requests line.
func (q requestParts) text() string {
	s := fmt.Sprintf("%d to %s + %d to find them", q.toServers, text.Count(q.asked, "server"), q.toFind)
	if q.cost != nil {
		if n := q.cost.ByKind[apiclient.KindDiscovery].Requests + q.cost.ByKind[apiclient.KindVersion].Requests; n > 0 {
			s += fmt.Sprintf(" + %d to discover the resource and read /version", n)
		}
	}
	if q.kubeconfigCheck > 0 {
		s += fmt.Sprintf(" + %d to the kubeconfig's server for --check", q.kubeconfigCheck)
	}
	if in := q.in; in != nil && in.CutRequests > 0 {
		s += fmt.Sprintf(" + %d answered by the %s the signal cut", in.CutRequests, text.Count(in.CutTargets, "server"))
	}
	if q.cost != nil && q.cost.Cut > 0 {
		s += fmt.Sprintf(" + %d cut by the signal before their answer", q.cost.Cut)
	}
	return s + ", in " + millis(q.millis)
}
