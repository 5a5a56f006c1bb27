//go:build e2e

package list

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// pacedNamespace is a namespace of 300 configmaps: a --limit 1 walk of it
// sends 300 page requests, past the REST client's burst of 100, so that
// it takes seconds (50 requests a second after the burst).
func pacedNamespace(t *testing.T, name string) string {
	t.Helper()
	cs, ns := newNamespace(t, shared, name)
	if err := framework.CreateConfigMaps(context.Background(), cs, ns, "cm", 300, 16, 8); err != nil {
		t.Fatal(err)
	}
	return ns
}

// Ctrl-C in the middle of a paged list on a real server prints only
// "interrupted", exit 130, in every output (fresh user try 22 F2: "Items:
// 223" of 305, "Page RVs: all 223 pages at RV 939", "list RV is not
// lower: ok"; in -o json "error": "context canceled" and a watchCommand).
// The signal is sent once the server has answered 30 of the 300 pages,
// and the test checks that the walk had not ended by then.
func TestAnInterruptedListPrintsOnlyInterrupted(t *testing.T) {
	ns := pacedNamespace(t, "interrupted")
	for _, out := range [][]string{nil, {"-o", "json"}, {"-o", "name"}, {"-o", "wide"}} {
		t.Run(strings.Join(out, " "), func(t *testing.T) {
			before := listRequests(t, shared)
			p := framework.StartPlugin(t, shared.Kubeconfig, append([]string{"list", "cm", "-n", ns, "--limit", "1"}, out...)...)
			for deadline := time.Now().Add(time.Minute); listRequests(t, shared) < before+30; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the server counted fewer than 30 lists of configmaps in a minute; stderr:\n%s", p.Stderr())
				}
			}
			code := p.Interrupt(30 * time.Second)
			if sent := listRequests(t, shared) - before; sent >= 300 {
				t.Fatalf("the walk read all %g pages before the signal: it proves nothing", sent)
			}
			if code != 130 || p.Stdout() != "" || p.Stderr() != "interrupted\n" {
				t.Errorf("exit %d, stdout %q, stderr %q: want 130, nothing of the pages read, only \"interrupted\"", code, p.Stdout(), p.Stderr())
			}
		})
	}
}

// listRequests is the server's count of LIST requests of configmaps
// (apiserver_request_total, every series of verb LIST).
func listRequests(t *testing.T, c *framework.Cluster) float64 {
	t.Helper()
	m, err := c.TopMetrics(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, l := range strings.Split(m, "\n") {
		if strings.HasPrefix(l, "apiserver_request_total{") && strings.Contains(l, `resource="configmaps"`) && strings.Contains(l, `verb="LIST"`) {
			var v float64
			if _, err := fmt.Sscanf(l[strings.LastIndexByte(l, ' ')+1:], "%g", &v); err == nil {
				sum += v
			}
		}
	}
	return sum
}
