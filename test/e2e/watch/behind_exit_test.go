//go:build e2e

package watch

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Fresh user try 25 F3, F4: a reconnect reached a server behind the
// resume point and every relist after it failed (500). The run exited 1
// where the docs said 10, the summary said each such reconnect "was
// followed by a relist" with 0 relists, and no line said when the server
// was found behind. The class: what follows the detection (a relist
// refused, failed, held until --timeout, or completed) exits by the one
// rule (the last attempt: a relist that failed is one, with its own code;
// the behind state is the last one only when no relist was answered
// after it), and in every output the detection has its own line and the
// summary counts the relists that completed after it, never more.
//
// The fake lists at RV 100, replays one change at 101 on the first watch
// and holds every later watch silently; the reconnect's check reads the
// current RV 100, below the resume point 101; a relist that completes
// lists at RV 99 (its one item's RV), which the server is not behind.
func TestWatchFollowExitAfterAServerBehindFollowsTheLastAttempt(t *testing.T) {
	t.Parallel()
	status := func(code int, reason string) *framework.ScriptAnswer {
		return &framework.ScriptAnswer{Code: code, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the relist fails","reason":"` + reason + `","code":` + strconv.Itoa(code) + `}`}
	}
	current := &framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[]}`}
	cases := []struct {
		name     string
		relists  *framework.ScriptAnswer
		want     int
		stderr   string
		relisted int // relists completed after the detection
	}{
		{name: "relist 500", relists: status(500, "InternalError"), want: 1, stderr: "500"},
		{name: "relist 403", relists: status(403, "Forbidden"), want: 7, stderr: "forbidden"},
		{name: "relist held to --timeout", relists: &framework.ScriptAnswer{Hang: true}, want: 10, stderr: "behind the resume point"},
		{name: "relist completed", want: 0, relisted: 1},
	}
	for _, c := range cases {
		for _, output := range []string{"human", "json"} {
			t.Run(c.name+"/"+output, func(t *testing.T) {
				t.Parallel()
				_, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{100, 99}, Oldest: 50, QuietAfter: 1, Current: current, Relists: c.relists})
				args := []string{"watch", "configmaps", "--follow", "--rv", "list", "--timeout", "8s"}
				if output == "json" {
					args = append(args, "-o", "json")
				}
				res := framework.Run(t, kc, time.Minute, args...)
				all := res.Stdout + res.Stderr
				if res.Code != c.want || (c.stderr != "" && !strings.Contains(res.Stderr, c.stderr)) {
					t.Fatalf("exit %d, want %d with %q on stderr:\n%s", res.Code, c.want, c.stderr, all)
				}
				const found = "the server now answering is behind the resume point"
				if output == "human" {
					if !strings.Contains(res.Stdout, "-- behind: "+found) {
						t.Errorf("no line says when the server was found behind:\n%s", all)
					}
					counted := "1 reconnect reached a server whose current RV was below the resume point: another storage answered; " + strconv.Itoa(c.relisted) + " followed by a completed relist"
					if !strings.Contains(res.Stdout, counted) {
						t.Errorf("the summary must say %q:\n%s", counted, all)
					}
					return
				}
				var behind int
				var sum map[string]any
				for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
					var rec map[string]any
					if err := json.Unmarshal([]byte(line), &rec); err != nil {
						t.Fatalf("a line of -o json is no JSON (%v): %q", err, line)
					}
					switch rec["record"] {
					case "behind":
						if r, _ := rec["reason"].(string); strings.HasPrefix(r, found) {
							behind++
						}
					case "summary":
						sum = rec
					}
				}
				relisted, _ := sum["serverBehindRelisted"].(float64)
				if behind != 1 || sum["serverBehindResumePoint"] != float64(1) || int(relisted) != c.relisted {
					t.Errorf("want 1 behind record, and a summary counting 1 server behind and %d relist(s) completed after it: %d record(s), summary %v", c.relisted, behind, sum)
				}
				if noResume, _ := sum["noResumePoint"].(string); (c.relisted == 0) != (noResume == "server-behind-resume-point") {
					t.Errorf("noResumePoint %q: it names the server behind exactly when no relist completed after it", noResume)
				}
			})
		}
	}
}
