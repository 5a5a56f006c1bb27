//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestServersRowsSayWhoSentTheirTooManyRequests (adversary try 28 F2):
// the hint of a --endpoints row that got a 429 says who sent it, with the
// error line's words (diagnose.ThrottledBy): the watch cache's lag, API
// Priority and Fairness's rejection (a text 429 with its headers, as the
// transport marks it), or neither: before, all three had one hint that
// named APF, the max-in-flight limit and a proxy alike, for every command
// that draws the per-server view.
func TestServersRowsSayWhoSentTheirTooManyRequests(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	const apfHeaders = "X-Kubernetes-PF-FlowSchema-UID: 5e4b1f1e-0000-4000-8000-000000000001\r\nX-Kubernetes-PF-PriorityLevel-UID: 5e4b1f1e-0000-4000-8000-000000000002"
	// Retry-After 0 keeps the retries short; the hint is of the last answer.
	lag := framework.ScriptAnswer{Head: "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 0",
		Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","message":"Too large resource version: 500, current: 400","code":429}`}
	apf := framework.ScriptAnswer{Head: "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 0\r\n" + apfHeaders,
		Body: "Too many requests, please try again later.\n"}
	proxy := framework.ScriptAnswer{Head: "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain\r\nRetry-After: 0", Body: "upstream busy"}
	claim := framework.ScriptAnswer{Head: "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 0",
		Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","message":"busy","code":429,"details":{"causes":[{"reason":"APIPriorityAndFairnessRejected"}]}}`}
	good, kc := framework.ServeScript(t, nil)
	lagS, _ := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: lag})
	apfS, _ := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: apf})
	proxyS, _ := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: proxy})
	claimS, _ := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: claim})
	eps := strings.Join([]string{good.Host(), lagS.Host(), apfS.Host(), proxyS.Host(), claimS.Host()}, ",")
	want := map[string]string{
		lagS.Host():   "its watch cache lags storage",
		apfS.Host():   "API Priority and Fairness is throttling",
		proxyS.Host(): "not marked as API Priority and Fairness's rejection",
		claimS.Host(): "not marked as API Priority and Fairness's rejection",
	}
	for _, args := range [][]string{
		{"probe", "configmaps"},
		{"list", "configmaps"},
	} {
		t.Run(args[0], func(t *testing.T) {
			r := framework.Run(t, kc, time.Minute, append(args, "--endpoints", eps, "--request-timeout", "5s")...)
			for host, words := range want {
				hint := hintOf(r.Stdout, host)
				if !strings.Contains(hint, words) || (words != "API Priority and Fairness is throttling" && strings.Contains(hint, "is throttling")) {
					t.Errorf("%s: the row of %s hints %q, want %q:\n%s\n%s", args[0], host, hint, words, r.Stdout, r.Stderr)
				}
			}
		})
	}
}

// hintOf is the "(hint: ...)" of the row of host in out, "" when none.
func hintOf(out, host string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.Contains(l, host) {
			continue
		}
		for _, m := range lines[i:min(i+3, len(lines))] {
			if j := strings.Index(m, "(hint: "); j >= 0 {
				return m[j:]
			}
		}
	}
	return ""
}
