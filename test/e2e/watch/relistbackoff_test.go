//go:build e2e

package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary try 27 F2: with --follow, a watch that failed again from its
// relist's RV is waited for once, then relisted; when that relist failed,
// its backoff was waited and said, and then the unproductive watch's wait
// was waited and said again: a second reconnect line with the old reason,
// and no request after it. After a "relist failed" reconnect comes the
// relist itself, never another reconnect.
func TestWatchFollowWaitsOnceAfterAFailedRelist(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	expired := framework.ScriptAnswer{Code: 200, Type: "application/json",
		Body: `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (50)","reason":"Expired","code":410}}` + "\n"}
	list := framework.ScriptDefaults()[path]
	busy := framework.ScriptAnswer{Code: 503, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"busy","reason":"ServiceUnavailable","code":503}`}
	// Every watch is refused; the lists answer (--rv 100's check, the
	// first relist), but the second relist, sent after the watch from the
	// first's RV failed again.
	_, kc := framework.ServeScriptSequence(t, path, []framework.ScriptAnswer{list, list, busy}, map[string]framework.ScriptAnswer{path + "?watch": expired})
	out := runWatch(t, kc, time.Minute, "configmaps", "--follow", "--rv", "100", "--timeout", "8s")
	var failedRelist, checked bool
	for _, rec := range out.Records {
		if failedRelist {
			checked = true
			if rec.Record == "reconnect" {
				t.Fatalf("a reconnect after the failed relist's own, with no relist between (%q):\n%s", rec.Reason, out.Stdout)
			}
		}
		failedRelist = rec.Record == "reconnect" && (strings.HasPrefix(rec.Reason, "relist failed") || strings.HasPrefix(rec.Reason, "relist (after "))
	}
	if !checked {
		t.Fatalf("no relist failed then went on: the case does not reach what it attacks:\n%s\n%s", out.Stdout, out.Stderr)
	}
}
