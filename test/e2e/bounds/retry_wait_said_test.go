//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Every command whose retry policy waited says so in its final error
// line, from the one count of the run's waits (adversary try 26 F3: a
// probe waited out a server's Retry-After twice, 60 s of silence, then
// said only "throttling ... retry later"), and who set the wait.
func TestEveryCommandsErrorSaysTheRetryWaits(t *testing.T) {
	const collection = "/api/v1/namespaces/default/configmaps"
	throttled := retryAfterHead(429, "Too Many Requests")
	throttled.Head = strings.Replace(throttled.Head, "Retry-After: 3", "Retry-After: 1", 1)
	for _, c := range []struct {
		name    string
		args    []string
		retries string
	}{
		{"probe", []string{"probe", "cm"}, "after 2 retries"},
		{"probe -o json", []string{"probe", "cm", "-o", "json"}, "after 2 retries"},
		{"list", []string{"list", "cm"}, "after 5 retries"},
		{"list --rv-only", []string{"list", "cm", "--rv-only"}, "after 5 retries"},
		{"watch --rv list", []string{"watch", "cm", "--rv", "list", "--timeout", "20s"}, "after 5 retries"},
		{"explain-error --check", []string{"explain-error", "--check", "too old resource version: 1 (2)"}, "after 2 retries"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{collection: throttled})
			r := framework.Run(t, kc, time.Minute, c.args...)
			line := r.Stderr[strings.LastIndex(r.Stderr, "error: "):]
			if r.Code != 8 || !strings.Contains(line, "("+c.retries+" and ") || !strings.Contains(line, "as the server's Retry-After asked") {
				t.Fatalf("exit %d: the error line does not say the retry waits (%s):\n%s", r.Code, c.retries, r.Stdout+r.Stderr)
			}
		})
	}
}
