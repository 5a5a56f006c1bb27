//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A /metrics that answered with an error is said, in every command's note
// of it, as the error line says an answer (apiclient.FailureWords): its
// status and its request with its words, never the body alone (fresh user
// try 27 F3: list's note said "/metrics not read (injected metrics
// outage)", no 503, no request). A 403 keeps its own note, which says
// what the user needs.
func TestAMetricsNoteSaysTheAnswerAsTheErrorLineDoes(t *testing.T) {
	answers := []struct {
		name   string
		answer framework.ScriptAnswer
		want   string
	}{
		{"503 Status", framework.ScriptAnswer{Code: 503, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"injected metrics outage","reason":"ServiceUnavailable","code":503}`},
			"answered get /metrics with 503 Service Unavailable: injected metrics outage"},
		{"plain-text 500", framework.ScriptAnswer{Code: 500, Type: "text/plain", Body: "upstream metrics broke"},
			"answered get /metrics with 500 Internal Server Error: upstream metrics broke"},
		{"403 Status", framework.ScriptAnswer{Code: 403, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"u\" cannot get path \"/metrics\"","reason":"Forbidden","code":403}`},
			"forbidden"},
	}
	commands := []struct {
		name string
		args []string
	}{
		{"list", []string{"list", "cm"}},
		{"probe --metrics", []string{"probe", "cm", "--metrics"}},
		{"top", []string{"top", "--once", "--interval", "1s"}},
	}
	for _, a := range answers {
		for _, c := range commands {
			t.Run(a.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{"/metrics": a.answer})
				r := framework.Run(t, kc, time.Minute, c.args...)
				out := r.Stdout + r.Stderr
				t.Logf("exit %d:\n%s", r.Code, out)
				if !strings.Contains(out, a.want) {
					t.Fatalf("%v: exit %d, no %q: the note of /metrics does not say its answer as the error line does:\n%s", c.args, r.Code, a.want, out)
				}
			})
		}
	}
}

// TestFollowSaysItsStallCheckWhenTheCacheIsUnknown: with /metrics not
// read, whether a watch cache serves the resource is unknown, and
// --follow's stall check stays on: said once, with why the facts are
// unknown (fresh user try 27 F4: nothing was said).
func TestFollowSaysItsStallCheckWhenTheCacheIsUnknown(t *testing.T) {
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{"/metrics": {Code: 503, Type: "text/plain", Body: "metrics down"}})
	r := framework.Run(t, kc, time.Minute, "watch", "cm", "--follow", "--timeout", "2s")
	for _, want := range []string{"answered get /metrics with 503 Service Unavailable: metrics down", "whether a watch cache serves configmaps is not known here, so --follow's stall check stays on (default --stall-timeout 90s)"} {
		if !strings.Contains(r.Stderr, want) {
			t.Fatalf("exit %d, no %q:\n%s\n%s", r.Code, want, r.Stdout, r.Stderr)
		}
	}
	if n := strings.Count(r.Stderr, "stall check"); n != 1 {
		t.Fatalf("the stall check said %d times, want once:\n%s", n, r.Stderr)
	}
}

// TestANoteKeepsThePluginsOwnWordsWhole: a /metrics answer past its cap
// (a 300 KB 500) is said by the cap's own sentence, whole: only what the
// server sent may be shortened, never the plugin's words (adversary try 28
// F10: "the limit of an er …[91 bytes left out]… beconfig's").
func TestANoteKeepsThePluginsOwnWordsWhole(t *testing.T) {
	big := framework.ScriptAnswer{Code: 500, Type: "text/plain", Body: strings.Repeat("metrics broke ", 300*1024/14)}
	for _, args := range [][]string{{"list", "cm"}, {"watch", "cm", "--follow", "--timeout", "2s"}, {"probe", "cm", "--metrics"}} {
		_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{"/metrics": big})
		r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, args...)
		out := r.Stdout + r.Stderr
		if !strings.Contains(out, "went past") || strings.Contains(out, "bytes left out") {
			t.Errorf("%v: exit %d: the cap's sentence is not said whole:\n%s", args, r.Code, out)
		}
	}
}
