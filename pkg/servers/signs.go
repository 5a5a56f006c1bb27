package servers

import (
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// The signs below are what one ordinary run (through the balancer) can see
// of several API servers answering it: one server's answers never go back
// in RV, so answers that do came from servers with different watch caches.
// The plugin's two HTTP clients (short requests, watches) each hold their
// own connection, which a balancer may send to different servers.

// SignsInWindow looks at one probe's answers: a watch cache that names an
// older oldest RV than another answer of the same search named (a window
// only moves forward on one server: probe.WindowSigns, the probe's one
// order of the RVs it saw), or a watch that stays silent below an RV the
// current-RV read saw a change at (its server's cache has not seen that
// change yet). A current RV below an RV the watches showed is the probe's
// own failure (probe.OutOfOrderError), said in its error line.
func SignsInWindow(w *probe.Result) []string {
	if w == nil || w.Search == nil {
		return nil
	}
	signs := probe.WindowSigns(w)
	for _, p := range w.Search.Probes {
		if p.Outcome == probe.OutcomeTransient && p.MissedChangeRV > 0 {
			signs = append(signs, fmt.Sprintf("a watch from RV %d stayed silent although the current-RV read saw a change after it (%s): the watch went to a server whose cache has not seen that change", p.ResourceVersion, p.Evidence))
			break
		}
	}
	return signs
}

// SignsInWalk looks at one paged list: a page whose RV is older than an
// earlier page's, or a 504 TooLarge right after pages that succeeded (the
// continue token's RV came from a server ahead of the one that got it).
func SignsInWalk(walk *listing.WalkResult, err error) []string {
	if walk == nil || len(walk.Attempts) == 0 {
		return nil
	}
	var signs []string
	var highest uint64
	a := walk.Final()
	for _, pg := range a.Pages {
		n, ok := rv.Parse(pg.ResourceVersion)
		if !ok {
			continue
		}
		if n < highest {
			signs = append(signs, fmt.Sprintf("page %d carried RV %d, older than RV %d of an earlier page", pg.Index, n, highest))
		}
		highest = max(highest, n)
	}
	if err != nil && len(a.Pages) > 0 && diagnose.ClassifyFailure(err) == diagnose.FailureTooLarge {
		signs = append(signs, fmt.Sprintf("504 TooLarge right after %s at RV %d succeeded", text.Count(len(a.Pages), "page"), highest))
	}
	return signs
}
