//go:build e2e

package watch

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary try 28 F5, F6: the diagnosis of an answer the watch request
// itself got speaks of that answer, never of a pasted text ("pieced
// together", "find the original", "paste the full message"), takes no
// number of the server's for what the request sent, and the HTTP status
// decides the class whatever the Status's reason: a 504 saying "Too large
// resource version" is TooLarge (a row, exit 10) with reason Timeout or
// TooManyRequests.
func TestAWatchsOwnAnswerIsDiagnosedAsTheAnswerItIs(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	pasted := []string{"pieced together", "Find the original", "find the full message", "paste the full message", "the line was", "The text says"}
	cases := []struct {
		name   string
		code   int
		body   string
		mode   []string
		exit   int
		wants  []string // in the output
		refuse []string // never in the output
	}{
		{"410 to a watch that sent no RV", 410, statusBody(410, "Expired", "too old resource version: 400 (450)"), nil, 10,
			[]string{"sent no resourceVersion"}, []string{"asked for the events after RV 400"}},
		{"410 to a watch from RV 300", 410, statusBody(410, "Expired", "too old resource version: 300 (450)"), []string{"--rv", "300"}, 10,
			[]string{"after RV 300"}, nil},
		{"504 TooLarge, reason Timeout", 504, statusBody(504, "Timeout", "Too large resource version: 500, current: 400"), []string{"--rv", "500", "--send-initial-events"}, 10,
			[]string{"TooLarge"}, nil},
		{"504 TooLarge, reason TooManyRequests", 504, statusBody(429, "TooManyRequests", "Too large resource version: 500, current: 400"), []string{"--rv", "500", "--send-initial-events"}, 10,
			[]string{"TooLarge"}, []string{"the server failed the request"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path + "?watch": {Code: c.code, Type: "application/json", Body: c.body}})
			r := framework.Run(t, kc, 30*time.Second, append([]string{"watch", "configmaps", "--timeout", "3s"}, c.mode...)...)
			all := r.Stdout + r.Stderr
			if r.Code != c.exit || !errorRow.MatchString(r.Stdout) {
				t.Fatalf("exit %d (want %d) and an ERROR row of the answer:\n%s", r.Code, c.exit, all)
			}
			for _, w := range c.wants {
				if !strings.Contains(all, w) {
					t.Errorf("no %q:\n%s", w, all)
				}
			}
			for _, w := range append(pasted, c.refuse...) {
				if strings.Contains(all, w) {
					t.Errorf("%q said of the watch's own answer:\n%s", w, all)
				}
			}
		})
	}
}

// streamEnded is the summary's header of a stream the server ended.
var streamEnded = regexp.MustCompile(`Summary \(the server ended the stream after ([0-9.]+)(ms|s)\)`)

// Adversary try 28 F9: the summary's time is the session's, from the
// watch's request: the --rv check read's retry waits (2 s of Retry-After)
// before it are no time of the stream's.
func TestTheStreamsTimeHoldsNoWaitBeforeIt(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	busy := framework.ScriptAnswer{Head: "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1",
		Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"busy","reason":"ServiceUnavailable","code":503}`}
	one := `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"4b5f3c1e-0000-4000-8000-000000000009","resourceVersion":"301"}}}` + "\n"
	_, kc := framework.ServeScriptSequence(t, path, []framework.ScriptAnswer{busy, busy}, map[string]framework.ScriptAnswer{path + "?watch": {Code: 200, Type: "application/json", Body: one}})
	r := framework.Run(t, kc, 30*time.Second, "watch", "configmaps", "--rv", "300", "--timeout", "20s")
	m := streamEnded.FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("exit %d: no summary of a stream the server ended:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if v, err := strconv.ParseFloat(m[1], 64); err != nil || m[2] == "s" && v >= 1 {
		t.Fatalf("the stream's time holds the check read's retry waits (%s%s):\n%s\n%s", m[1], m[2], r.Stdout, r.Stderr)
	}
}
