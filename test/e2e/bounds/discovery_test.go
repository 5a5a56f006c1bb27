//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A connection cut in the middle of discovery (/api or /apis) is a lost
// connection (exit 4), never "the server doesn't have a resource type"
// (exit 9): cached discovery keeps the failure to itself and answers "no
// match", and the uncached check that follows succeeds, since only the
// first answer was cut. Every run, for each command that resolves a type,
// a core name (cm: its group version alone is read, which a server of
// aggregated discovery answers from /api and /apis) and another.
func TestDiscoveryCutIsALostConnection(t *testing.T) {
	a := cluster(t).APIServers[0]
	for _, path := range []string{"/api", "/apis"} {
		for _, args := range [][]string{
			{"list", "cm"},
			{"watch", "cm", "--timeout", "3s"},
			{"probe", "cm"},
			{"list", "deployments"},
		} {
			for run := 1; run <= 3; run++ {
				name := path + " " + strings.Join(args, " ")
				t.Run(name, func(t *testing.T) {
					dir := t.TempDir()
					p, err := framework.StartPathCutProxy(a, dir, path)
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					kc, err := p.Kubeconfig(dir, framework.AdminToken)
					if err != nil {
						t.Fatal(err)
					}
					r := framework.Run(t, kc, time.Minute, append(args, "-v=6")...)
					if cuts := p.Cuts(); len(cuts) != 1 {
						t.Fatalf("the proxy cut %v, want one answer to %s", cuts, path)
					}
					line := lastLine(r.Stderr)
					if r.Code != 4 || !strings.HasPrefix(line, "error: ") || strings.Contains(line, "doesn't have a resource type") {
						t.Fatalf("exit %d, want 4 (a lost connection); stderr:\n%s", r.Code, r.Stderr)
					}
					for _, w := range []string{"cannot read ", "discovery", "the connection to the API server at https://", "broke", "check the network"} {
						if !strings.Contains(line, w) {
							t.Fatalf("the error line lacks %q: %s", w, line)
						}
					}
					t.Logf("exit %d: %s", r.Code, line)
				})
			}
		}
	}
}

// Without a cut, an unknown type is still "no such type" (exit 9): the
// fix does not turn a real answer into a failure.
func TestUnknownTypeIsStillNotFound(t *testing.T) {
	r := framework.Run(t, cluster(t).Kubeconfig, time.Minute, "list", "nosuchtypes")
	if r.Code != 9 || !strings.Contains(r.Stderr, `the server doesn't have a resource type "nosuchtypes"`) {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
}
