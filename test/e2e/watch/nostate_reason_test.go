//go:build e2e

package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary F6: a watch answered 200 with an empty body, or with only an
// ERROR event, said in its summary "no resume point: the state came in
// key order, not RV order, ..." and "noResumePoint":"state-in-key-order"
// beside Events: 0. The class: the reason is chosen by elimination. Each
// reason is drawn from what came: no event, or no object of the state.
// No API server answers a watch with only a 500 ERROR event on demand,
// nor closes one from RV 0 at once: a ScriptServer gives both.
func TestAWatchWithNoStateSaysNoStateCame(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	answers := map[string]struct {
		body, words, reason string
	}{
		"empty body": {"", "no event came", "no-event-came"},
		"only an ERROR event": {`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"internal error","reason":"InternalError","code":500}}` + "\n",
			"no object of the state came", "no-state-came"},
	}
	for name, a := range answers {
		for _, rv := range [][]string{nil, {"--rv", "0"}} {
			for _, out := range []string{"human", "json"} {
				t.Run(name+"/"+strings.Join(rv, " ")+"/"+out, func(t *testing.T) {
					t.Parallel()
					_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
						path + "?watch": {Code: 200, Type: "application/json", Body: a.body},
					})
					args := append([]string{"watch", "cm", "--timeout", "3s"}, rv...)
					want := "no resume point: the watch was answered, and " + a.words
					if out == "json" {
						args = append(args, "-o", "json")
						want = `"noResumePoint":"` + a.reason + `"`
					}
					res := framework.Run(t, kc, 30*time.Second, args...)
					all := res.Stdout + res.Stderr
					if strings.Contains(all, "key order") || strings.Contains(all, "state-in-key-order") {
						t.Errorf("exit %d: the summary says the state came, though none did:\n%s", res.Code, all)
					}
					if !strings.Contains(res.Stdout, want) {
						t.Errorf("exit %d: the summary does not say %q:\n%s", res.Code, want, all)
					}
				})
			}
		}
	}
}
