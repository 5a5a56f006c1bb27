//go:build e2e

package bounds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// watchRecords parses watch -o json: one object per line.
func watchRecords(t *testing.T, r framework.Result) (summary map[string]any, reconnects int) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if l == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("a line that is not JSON: %v\n%s", err, l)
		}
		switch rec["record"] {
		case "summary":
			summary = rec
		case "reconnect":
			reconnects++
		}
	}
	if summary == nil {
		t.Fatalf("exit %d and no summary record:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	return summary, reconnects
}

// Every watch run ends with a summary whose words and counts are true
// (adversary and user try 17): one whose check before the watch ran out
// of time (a /version that hangs) has one, with its failureStreak; a
// refused --rv list says its List did not complete, not that "the state
// came in key order"; a reconnect whose wait would end after the run is
// neither announced nor counted.
func TestEveryWatchRunEndsWithATrueSummary(t *testing.T) {
	forbidden := framework.ScriptAnswer{Code: 403, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"nope","reason":"Forbidden","code":403}`}
	for _, c := range []struct {
		name   string
		script map[string]framework.ScriptAnswer
		args   []string
		code   int
		check  func(t *testing.T, sum map[string]any, reconnects int)
	}{
		{"version hangs", map[string]framework.ScriptAnswer{"/version": {Hang: true}}, []string{"watch", "cm", "--rv", "5", "--follow", "--timeout", "3s"}, 4,
			func(t *testing.T, sum map[string]any, _ int) {
				if sum["failureStreak"] == nil {
					t.Fatalf("no failureStreak in %v", sum)
				}
			}},
		{"version hangs, list first", map[string]framework.ScriptAnswer{"/version": {Hang: true}}, []string{"watch", "cm", "--rv", "list", "--follow", "--timeout", "3s"}, 4,
			func(t *testing.T, sum map[string]any, _ int) {
				streak, _ := sum["failureStreak"].(map[string]any)
				if sum["noResumePoint"] != "list-incomplete" || streak["failure"] == "Other" {
					t.Fatalf("noResumePoint %v (want list-incomplete), failure %v (never Other with exit 4)", sum["noResumePoint"], streak["failure"])
				}
			}},
		{"server unreachable", nil, []string{"watch", "cm", "--server", "http://127.0.0.1:1", "--timeout", "3s"}, 4,
			func(t *testing.T, sum map[string]any, _ int) {
				if sum["failureStreak"] == nil {
					t.Fatalf("no failureStreak in %v", sum)
				}
			}},
		{"list refused", map[string]framework.ScriptAnswer{"/api/v1/namespaces/default/configmaps": forbidden}, []string{"watch", "cm", "--rv", "list", "--timeout", "3s"}, 7,
			func(t *testing.T, sum map[string]any, _ int) {
				if sum["noResumePoint"] != "list-incomplete" {
					t.Fatalf("noResumePoint %v, want list-incomplete", sum["noResumePoint"])
				}
			}},
		{"watch refused, RV unset", map[string]framework.ScriptAnswer{"/api/v1/namespaces/default/configmaps?watch": forbidden}, []string{"watch", "cm", "--timeout", "3s"}, 7,
			func(t *testing.T, sum map[string]any, _ int) {
				if sum["noResumePoint"] != "nothing-answered" {
					t.Fatalf("noResumePoint %v, want nothing-answered", sum["noResumePoint"])
				}
			}},
		{"watch reset", map[string]framework.ScriptAnswer{"/api/v1/namespaces/default/configmaps?watch": {Reset: true}}, []string{"watch", "cm", "--rv", "5", "--follow", "--timeout", "4s"}, 4,
			func(t *testing.T, sum map[string]any, reconnects int) {
				streak, _ := sum["failureStreak"].(map[string]any)
				attempts, _ := streak["attempts"].(float64)
				if got, _ := sum["reconnects"].(float64); int(got) != reconnects || reconnects != int(attempts)-1 {
					t.Fatalf("%v reconnects counted, %d announced, %v attempts: each reconnect made is one attempt after the first", sum["reconnects"], reconnects, attempts)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, kc := framework.ServeScript(t, c.script)
			r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, append(c.args, "-o", "json")...)
			if r.Code != c.code {
				t.Fatalf("exit %d, want %d:\n%s\n%s", r.Code, c.code, r.Stdout, r.Stderr)
			}
			sum, reconnects := watchRecords(t, r)
			c.check(t, sum, reconnects)
			h := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, c.args...)
			if !strings.Contains(h.Stdout, "Summary (") || strings.Contains(h.Stdout, "key order") {
				t.Fatalf("the human summary is missing or says the state came in key order:\n%s\n%s", h.Stdout, h.Stderr)
			}
		})
	}
}
