//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestAStatusInA200IsJudgedAgainstItsRequest (adversary try 38 F5): a
// Status of failure sent with a 200 as the list (client-go takes it as
// the answer's error) is judged against the consistent list that got it,
// on every command that sends one: the same line and fix from list and
// probe, never a fix that says to send the request that just failed.
func TestAStatusInA200IsJudgedAgainstItsRequest(t *testing.T) {
	script := map[string]framework.ScriptAnswer{
		"/api/v1/namespaces/default/configmaps": {Code: 200, Type: "application/json",
			Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Too large resource version: 999, current: 100","reason":"Timeout","code":504}`},
	}
	_, kc := framework.ServeScript(t, script)
	for _, args := range [][]string{{"list", "configmaps"}, {"probe", "configmaps"}, {"list", "configmaps", "--rv-only"}} {
		r := framework.Run(t, kc, time.Minute, args...)
		if r.Code != 10 || !strings.Contains(r.Stderr, "answered list configmaps with 504 Timeout: Too large resource version: 999, current: 100") {
			t.Errorf("%v: exit %d, want 10 and the answer said as the list's:\n%s%s", args, r.Code, r.Stdout, r.Stderr)
		}
		if !strings.Contains(r.Stderr, "Retry after a while") || strings.Contains(r.Stderr, "List with resourceVersion unset") {
			t.Errorf("%v: the fix is not the one of a consistent list's TooLarge:\n%s", args, r.Stderr)
		}
	}
}
