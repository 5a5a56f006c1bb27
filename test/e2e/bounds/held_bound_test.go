//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestAHeldListIsOnlyOneCutBeforeTheCachesHold (adversary try 42 F5):
// explain-error --check of a TooLarge text says its list "held" (exit 0)
// only when the request's time bound was shorter than a watch cache's
// hold of such a list (~3 s) with the time its 504 takes to come
// (diagnose.HeldAnswerBound, 4 s: adversary try 44 F4, a 3 s bound cut
// a real server's answer); a server that gives no answer within a longer
// bound gave none: exit 4, never "held".
func TestAHeldListIsOnlyOneCutBeforeTheCachesHold(t *testing.T) {
	for _, c := range []struct {
		timeout string
		code    int
		held    bool
	}{{"2s", 0, true}, {"3s", 0, true}, {"3500ms", 0, true}, {"4500ms", 4, false}, {"6s", 4, false}} {
		_, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{100}, HangAt: 2}) // the check's list
		r := framework.Run(t, kc, time.Minute, "explain-error", "--check", "--resource", "configmaps", "--request-timeout", c.timeout, "Too large resource version: 500, current: 100")
		held := strings.Contains(r.Stdout, "was held until")
		if r.Code != c.code || held != c.held {
			t.Errorf("--request-timeout %s: exit %d, held said %v: want %d and held %v:\n%s%s", c.timeout, r.Code, held, c.code, c.held, r.Stdout, r.Stderr)
		}
	}
}
