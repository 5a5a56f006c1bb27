//go:build e2e

package watch

import (
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestARelistAfterAnEventAndAnExpiryIsBackedOff (adversary try 45 F1): a
// server whose every watch sends one event, then an Expired or TooLarge
// ERROR, is relisted from with --follow's backoff, never at once in a
// loop (it was 167 relists, 336 requests, in 4 s): a relist whose watch
// then made no progress, or lived under a second, is unproductive.
func TestARelistAfterAnEventAndAnExpiryIsBackedOff(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	list := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}`}
	added := func(at string) string {
		return `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u-a","resourceVersion":"` + at + `"}}}` + "\n"
	}
	for _, c := range []struct{ name, event, status string }{
		{"a replay, then 504 TooLarge", added("5"), `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Timeout: Too large resource version: 99, current: 10","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}]},"code":504}`},
		{"a replay, then 410", added("5"), `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"The resourceVersion for the provided watch is too old.","reason":"Expired","code":410}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
				path:            list,
				path + "?watch": {Code: 200, Type: "application/json", Body: c.event + `{"type":"ERROR","object":` + c.status + "}\n"},
			})
			w := runWatch(t, kc, time.Minute, "configmaps", "--rv", "4", "--follow", "--timeout", "4s")
			if s := w.summary(t); s.Relists > 8 || s.Relists < 1 {
				t.Errorf("%d relists in 4 s (%d streams): want the backoff between them (at most 8), and at least one:\n%.2000s", s.Relists, s.Streams, w.Stderr)
			}
		})
	}
}
