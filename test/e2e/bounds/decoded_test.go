//go:build e2e

package bounds

import (
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// decodedLimit is the address space of these runs: before the decoded
// bounds, a page of 80 million `{}` items died under it with "fatal error:
// out of memory" and a Go stack, and a /metrics of a million series took
// over 1 GB.
const decodedLimit = 2_000_000_000

// Answers within their byte cap whose content, decoded, would take
// unbounded memory: every command that decodes them ends under a 2 GB
// address space with the one error line of the Unbounded class (exit 13)
// naming the request, never a Go stack.
func TestDecodedAnswersAreBounded(t *testing.T) {
	const capped = 13
	// A paged list ends at its limit; an rv=0 list (the watch cache does
	// not page it) at the plugin's item bound.
	overLimit := []string{"the answer to GET http://", "/configmaps?", "the most the plugin reads of one page of a paged list"}
	items := []string{"the answer to GET http://", "/configmaps?", "holds more than 1,000,000 items, the most the plugin reads of one list page"}
	// /metrics is named short, as every /metrics failure (apiclient.RequestName), with its server.
	series := []string{"the API server at http://127.0.0.1:", "the answer to GET /metrics (21 families)", "holds more than 50,000 series of the families read", "!name%5B%5D"}
	line := []string{"the API server at http://127.0.0.1:", "the answer to GET /metrics (21 families)", "has a line longer than 1 MiB", "!name%5B%5D"}
	// Small valid pages whose names add up: -o name holds them until the
	// walk ends, within the walk's bound of what its caller keeps.
	names := []string{"lists more than 128 MiB of what is kept of the objects", "the most one walk keeps of the objects it lists"}
	within := 120 * time.Second
	cases := []faultCase{
		{framework.FaultTinyItems, []string{"list", "cm", "--limit", "5"}, capped, overLimit, within},
		{framework.FaultTinyItems, []string{"list", "cm", "-o", "name"}, capped, overLimit, within},
		{framework.FaultTinyItems, []string{"watch", "cm", "--rv", "list", "--timeout", "60s"}, capped, overLimit, within},
		{framework.FaultTinyItems, []string{"list", "cm", "--rv", "0"}, capped, items, within},
		{framework.FaultLongNames, []string{"list", "cm", "-o", "name"}, capped, names, within},
		{framework.FaultManySeries, []string{"top", "--once", "--interval", "1s"}, capped, series, within},
		{framework.FaultLongMetricsLine, []string{"top", "--once", "--interval", "1s"}, capped, line, within},
	}
	runFaultCases(t, cases, decodedLimit)
	// The same pages under a command that keeps what it lists (a watch's
	// list): the walk's bound of what is kept (fresh try 7: watch --rv
	// list took 1.3 GB, then a Go stack), under 3 GB of address space.
	kept := names
	runFaultCases(t, []faultCase{
		{framework.FaultLongNames, []string{"watch", "cm", "--rv", "list", "--timeout", "110s"}, capped, kept, within},
	}, 3_000_000_000)
}
