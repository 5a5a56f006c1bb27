//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// unavailableFor is a 503 whose head says "Retry-After: 1" (the Status
// names no delay): what a proxy or an API server restarting sends.
func unavailableFor() framework.ScriptAnswer {
	a := retryAfterHead(503, "Service Unavailable")
	a.Head = strings.Replace(a.Head, "Retry-After: 3", "Retry-After: 1", 1)
	a.Body = strings.Replace(a.Body, "slow down", "etcdserver: leader changed", 1)
	return a
}

// The first list request of every command is sent again after a
// transient failure, by the one list path's one retry policy, as the
// continue pages are and as kubectl get does (fresh user try 26 F2: a 503
// with Retry-After on page 1 ended list at once, exit 1); the wait is
// said where the command says its list (list's Transfer line, every
// JSON's cost), and the request is sent no more than the policy says
// (no retry inside a retry).
func TestTheFirstListRequestIsRetriedByEveryCommand(t *testing.T) {
	const collection = "/api/v1/namespaces/default/configmaps"
	for _, c := range []struct {
		name string
		args []string
		want []string // in stdout or stderr
	}{
		{"list", []string{"list", "cm"}, []string{"waiting to send page 1 again after a transient failure (1 retry, as the server's Retry-After asked: 1.00 s)"}},
		{"list -o json", []string{"list", "cm", "-o", "json"}, []string{`"retryWait"`, `"serverAskedRetries": 1`}},
		{"list --rv-only", []string{"list", "cm", "--rv-only"}, []string{"more waiting to send page 1 again"}},
		{"watch --rv list", []string{"watch", "cm", "--rv", "list", "--timeout", "2s"}, nil},
		{"probe", []string{"probe", "cm", "-o", "json"}, []string{`"retryWait"`}},
		{"explain-error --check", []string{"explain-error", "--check", "too old resource version: 1 (2)"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, kc := framework.ServeScriptSequence(t, collection, []framework.ScriptAnswer{unavailableFor()}, nil)
			r := framework.Run(t, kc, time.Minute, c.args...)
			out := r.Stdout + r.Stderr
			// The 503 itself is said only as the first retry's cause
			// (firstCause, "first sent again after: 503 ..."), never as
			// the run's answer.
			if r.Code != 0 || strings.Contains(r.Stderr, "error:") || strings.Contains(strings.ReplaceAll(out, "503 Service Unavailable: etcdserver: leader changed", ""), "503") {
				t.Fatalf("exit %d: the first list's 503 was not sent again:\n%s", r.Code, out)
			}
			if srv.Asked(collection) < 2 || r.Duration < 900*time.Millisecond {
				t.Fatalf("%d list requests in %s: the server's Retry-After was not waited for:\n%s", srv.Asked(collection), r.Duration, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q: the wait is not said:\n%s", w, out)
				}
			}
		})
	}
}
