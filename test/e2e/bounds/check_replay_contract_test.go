//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestACheckedReplayIsHeldToTheWatchContract (adversary try 36 F2, F6):
// explain-error --check reads a watch from the error's RV through to the
// current RV; a replay that goes back (RV 100, then 50, after a watch from
// 214) broke the Watch contract, as watch says of the same answer: exit 1,
// never "works". A bookmark in a replay is no change.
func TestACheckedReplayIsHeldToTheWatchContract(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	j := func(body string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: 200, Type: "application/json", Body: body}
	}
	ev := func(typ, rv string) string {
		return `{"type":"` + typ + `","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a` + rv + `","namespace":"default","resourceVersion":"` + rv + `"}}}` + "\n"
	}
	list := j(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"400"},"items":[]}`)
	const text = "too old resource version: 214 (257)"
	for _, c := range []struct {
		name, watch string
		code        int
		want, not   []string
	}{
		{"a replay that goes back", ev("ADDED", "300") + ev("MODIFIED", "250") + ev("ADDED", "400"), 1,
			[]string{"broke the Watch contract", "out of order: RV 250 is not after RV 300"}, []string{"works"}},
		// A bookmark is no change, and one the watch did not ask for
		// (it asks none) proves nothing of how far it reached; the
		// stream that ended after it did not end before any event
		// (adversary try 37 F1).
		{"a bookmark is no change", ev("ADDED", "300") + `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"400"}}}` + "\n", -1,
			[]string{"after 1 change and 1 other event (up to RV 300)"}, []string{"replayed 2 changes", "broke the", "works", "before any event"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: list, path + "?watch": j(c.watch)})
			r := framework.Run(t, kc, time.Minute, "explain-error", "--check", "-n", "default", text)
			out := r.Stdout + r.Stderr
			if c.code >= 0 && r.Code != c.code {
				t.Errorf("exit %d, want %d:\n%s", r.Code, c.code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("lacks %q:\n%s", w, out)
				}
			}
			for _, w := range c.not {
				if strings.Contains(out, w) {
					t.Errorf("says %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestACheckBreachOutranksTheServersFailures (adversary try 36 F4): the
// one-server check's own list answered below the RV it asked for broke
// the List contract: exit 1 with that line, whatever the --endpoints
// rows gave (12 or 7 before).
func TestACheckBreachOutranksTheServersFailures(t *testing.T) {
	good, kc := framework.ServeScript(t, nil) // lists answer at RV 100, whatever is asked
	forbidden := framework.StatusAnswer(403, "Forbidden", "configmaps is forbidden")
	bad, _ := framework.ServeScript(t, map[string]framework.ScriptAnswer{
		"/api/v1/namespaces/default/configmaps": forbidden, "/api/v1/namespaces/default/configmaps?watch": forbidden,
	})
	for _, endpoints := range []string{good.Host() + "," + bad.Host(), bad.Host()} {
		r := framework.Run(t, kc, time.Minute, "explain-error", "--check", "-n", "default", "--endpoints", endpoints, "Too large resource version: 9000, current: 8990")
		if r.Code != 1 || !strings.Contains(r.Stderr, "error: --check: this API server broke the List contract") {
			t.Errorf("--endpoints %s: exit %d, want 1 and the check's breach:\n%s%s", endpoints, r.Code, r.Stdout, r.Stderr)
		}
	}
}
