//go:build e2e

package watch

import (
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestARowCarriesTheTimeItsAnswerCame (adversary try 34 F2): with
// --follow, a watch answered 410 whose relist then failed after retries
// is shown as a row once the relist gave up; the row carries the time
// the 410 came, not the time it was shown (4 s later, after the
// relist's waits).
func TestARowCarriesTheTimeItsAnswerCame(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	list := framework.ScriptDefaults()[path]
	busy := framework.ScriptAnswer{Code: 429, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"slow down","reason":"TooManyRequests","details":{"retryAfterSeconds":2},"code":429}`}
	forbidden := framework.StatusAnswer(403, "Forbidden", "configmaps is forbidden")
	gone := framework.StatusAnswer(410, "Expired", "too old resource version: 100 (150)")
	_, kc := framework.ServeScriptSequence(t, path, []framework.ScriptAnswer{list, busy, busy, forbidden},
		map[string]framework.ScriptAnswer{path + "?watch": gone})
	began := time.Now()
	out := runWatch(t, kc, time.Minute, "configmaps", "--rv", "list", "--follow", "--timeout", "20s")
	ended := time.Now()
	for _, rec := range out.Records {
		if !rec.FromHTTPStatus {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, rec.Time)
		if err != nil {
			t.Fatalf("the row's time %q: %v", rec.Time, err)
		}
		if ended.Sub(began) < 3*time.Second {
			t.Fatalf("the run took %s: the relist's retries (2 x 2 s) were not waited, the case does not reach what it attacks:\n%s\n%s", ended.Sub(began), out.Stdout, out.Stderr)
		}
		if at.Sub(began) > 2*time.Second {
			t.Fatalf("the 410's row is stamped %s after the start, when the relist gave up (the run took %s), not when the 410 came:\n%s", at.Sub(began), ended.Sub(began), out.Stdout)
		}
		return
	}
	t.Fatalf("no row of the watch's 410:\n%s\n%s", out.Stdout, out.Stderr)
}
