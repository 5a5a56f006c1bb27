//go:build e2e

package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Fresh user try 29 F2, F3, F8, adversary try 29 F2, F4: a 410 or a
// TooLarge 504 to a request that sent no RV is diagnosed of what that
// request sent, in every place that says it (the row, a relist notice,
// the error line) and every mode (watch, watch --follow, a streaming
// list, a list): never the message's numbers as the request's RV, never
// pasted-text words, a plain watch's TooLarge is inconsistent (one note),
// a consistent read's lag is not fixed by doing it again.
func TestAnAnswerToNoRVIsDiagnosedOfWhatWasSent(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	expired := framework.ScriptAnswer{Code: 410, Type: "application/json", Body: statusBody(410, "Expired", "too old resource version: 5 (500)")}
	bare := framework.ScriptAnswer{Code: 410, Type: "application/json", Body: statusBody(410, "Expired", "too old resource version")}
	large := framework.ScriptAnswer{Code: 504, Type: "application/json", Body: statusBody(504, "Timeout", "Too large resource version: 9000, current: 542")}
	listed := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"600"},"items":[]}`}
	pasted := []string{"pieced together", "Find the original", "find the full message", "paste the full message", "the line was"}
	// Not "the last RV was answered": --follow's later watches send the
	// relist's RV; the fix of an inconsistent answer names a real one's.
	never := []string{"after RV 5,", "asked for RV 9000", "since RV -"}
	cases := []struct {
		name   string
		args   []string
		list   framework.ScriptAnswer
		watch  *framework.ScriptAnswer
		wants  []string
		refuse []string
	}{
		{"watch, 410", []string{"watch", "configmaps", "--timeout", "3s"}, listed, &expired, []string{"sent no resourceVersion", "confidence low"}, []string{"the last RV was answered"}},
		{"watch --follow, 410", []string{"watch", "configmaps", "--follow", "--timeout", "3s"}, listed, &expired, []string{"sent no resourceVersion", "confidence low"}, nil},
		{"watch, 504", []string{"watch", "configmaps", "--timeout", "3s"}, listed, &large, []string{"sent no resourceVersion", "confidence low"}, []string{"lags storage", "the last RV was answered"}},
		{"watch --follow, 504", []string{"watch", "configmaps", "--follow", "--timeout", "3s"}, listed, &large, []string{"sent no resourceVersion", "confidence low"}, []string{"lags storage"}},
		{"streaming list, 504", []string{"watch", "configmaps", "--send-initial-events", "--timeout", "3s"}, listed, &large, []string{"lags storage", "Retry after a while"}, nil},
		{"list, 504", []string{"list", "configmaps"}, large, nil, []string{"Retry after a while"}, []string{"List with resourceVersion unset"}},
		{"list, 410", []string{"list", "configmaps"}, expired, nil, []string{"cannot be an API server's answer", "sent no resourceVersion"}, nil},
		{"list, bare 410", []string{"list", "configmaps"}, bare, nil, []string{"sent no resourceVersion"}, nil},
		{"watch, bare 410", []string{"watch", "configmaps", "--timeout", "3s"}, listed, &bare, []string{"sent no resourceVersion"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			script := map[string]framework.ScriptAnswer{path: c.list}
			if c.watch != nil {
				script[path+"?watch"] = *c.watch
			}
			_, kc := framework.ServeScript(t, script)
			r := framework.Run(t, kc, 30*time.Second, c.args...)
			all := r.Stdout + r.Stderr
			if r.Code == 0 {
				t.Fatalf("exit 0:\n%s", all)
			}
			for _, w := range c.wants {
				if !strings.Contains(all, w) {
					t.Errorf("no %q:\n%s", w, all)
				}
			}
			for _, w := range append(append(pasted, never...), c.refuse...) {
				if strings.Contains(all, w) {
					t.Errorf("%q said of an answer to a request that sent no RV:\n%s", w, all)
				}
			}
		})
	}
}
