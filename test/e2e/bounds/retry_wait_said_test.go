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
// said only "throttling ... retry later"), and who set the wait. A failed
// list or probe -o json prints no document, as kubectl get -o json prints
// none when its request fails: the error line on stderr says the waits;
// explain-error --check prints its document, whose diagnosis of the given
// text stands without the server, cost.retryWait with it (fresh user try
// 27 F6).
func TestEveryCommandsErrorSaysTheRetryWaits(t *testing.T) {
	const collection = "/api/v1/namespaces/default/configmaps"
	throttled := retryAfterHead(429, "Too Many Requests")
	throttled.Head = strings.Replace(throttled.Head, "Retry-After: 3", "Retry-After: 1", 1)
	for _, c := range []struct {
		name    string
		args    []string
		retries string
		doc     bool // -o json: a document on stdout, with its cost.retryWait
	}{
		{"probe", []string{"probe", "cm"}, "after 2 retries", false},
		{"probe -o json", []string{"probe", "cm", "-o", "json"}, "after 2 retries", false},
		{"list", []string{"list", "cm"}, "after 5 retries", false},
		{"list --rv-only", []string{"list", "cm", "--rv-only"}, "after 5 retries", false},
		{"list -o json", []string{"list", "cm", "-o", "json"}, "after 5 retries", false},
		{"list --rv-only -o json", []string{"list", "cm", "--rv-only", "-o", "json"}, "after 5 retries", false},
		{"watch --rv list", []string{"watch", "cm", "--rv", "list", "--timeout", "20s"}, "after 5 retries", false},
		{"explain-error --check", []string{"explain-error", "--check", "too old resource version: 1 (2)"}, "after 2 retries", false},
		{"explain-error --check -o json", []string{"explain-error", "--check", "too old resource version: 1 (2)", "-o", "json"}, "after 2 retries", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{collection: throttled})
			r := framework.Run(t, kc, time.Minute, c.args...)
			line := r.Stderr[strings.LastIndex(r.Stderr, "error: "):]
			if r.Code != 8 || !strings.Contains(line, "("+c.retries+" and ") || !strings.Contains(line, "as the server's Retry-After asked") {
				t.Fatalf("exit %d: the error line does not say the retry waits (%s):\n%s", r.Code, c.retries, r.Stdout+r.Stderr)
			}
			if !strings.HasSuffix(c.name, "-o json") {
				return
			}
			if c.doc != strings.Contains(r.Stdout, `"retryWait"`) || (!c.doc && r.Stdout != "") {
				t.Fatalf("exit %d: a document on stdout: %v wanted (docs/output.md, on failure):\n%s", r.Code, c.doc, r.Stdout)
			}
		})
	}
}

// TestACheckSaysTheRetriesOfItsReads: an explain-error --check whose reads
// were sent again and then answered says those retries on its Checked now
// line, not only in -o json's cost (fresh user try 28 F6).
func TestACheckSaysTheRetriesOfItsReads(t *testing.T) {
	const collection = "/api/v1/namespaces/default/configmaps"
	throttled := retryAfterHead(429, "Too Many Requests")
	throttled.Head = strings.Replace(throttled.Head, "Retry-After: 3", "Retry-After: 1", 1)
	_, kc := framework.ServeScriptSequence(t, collection, []framework.ScriptAnswer{throttled}, nil)
	r := framework.Run(t, kc, time.Minute, "explain-error", "--check", "too old resource version: 1 (50)")
	out := strings.Join(strings.Fields(r.Stdout), " ") // the explanation wraps its lines
	if r.Code != 0 || !strings.Contains(out, "(its reads: after 1 retry and ") || !strings.Contains(out, "as the server's Retry-After asked: 1.00 s") {
		t.Fatalf("exit %d: Checked now does not say the retries of the check's reads:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}
