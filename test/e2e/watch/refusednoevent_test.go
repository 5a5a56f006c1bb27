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

// errorRow is an ERROR row of the text output (a time, then the type).
var errorRow = regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d+\s+ERROR\b`)

// noEvents is the summary's count of no event.
var noEvents = regexp.MustCompile(`(?m)^  Events:\s+0 \(none\)`)

// Adversary try 27 F4: a watch request refused with HTTP 429 whose
// Status message was "Too large resource version: 500, current: 400" was
// shown as an ERROR row and counted ("Events: 1 (ERROR 1)") beside
// "Session: 0 stream(s)"; a 429 with another body got "Events: 0". The
// class: a refusal of the watch request itself is no event, whatever its
// status or body. A 410 or a 504 is shown with its diagnosis (the 410
// comes in both forms), marked fromHTTPStatus, and still not counted. Attacked over every watch mode and the refusals whose
// words an ERROR event may carry (TooLarge, Expired): never a row, never
// counted, and the summary's failure says the answer as the error line
// does, with its status and request (fresh user try 27 F3).
func TestARefusedWatchRequestIsNoEvent(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	refusals := []struct {
		name string
		code int
		body string
	}{
		{"429 TooLarge", 429, statusBody(429, "TooManyRequests", "Too large resource version: 500, current: 400")},
		{"429 plain", 429, statusBody(429, "TooManyRequests", "slow down")},
		{"410", 410, statusBody(410, "Expired", "too old resource version: 1 (50)")},
		{"504 TooLarge", 504, statusBody(504, "Timeout", "Too large resource version: 500, current: 400")},
	}
	modes := [][]string{nil, {"--rv", "100"}, {"--rv", "list"}, {"--send-initial-events"}, {"--follow"}}
	for _, rf := range refusals {
		for _, mode := range modes {
			name := rf.name + "/" + strings.Join(append([]string{"plain"}, mode...), " ")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				srv, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
					path + "?watch": {Code: rf.code, Type: "application/json", Body: rf.body},
				})
				args := append([]string{"watch", "configmaps", "--timeout", "3s"}, mode...)
				r := framework.Run(t, kc, 30*time.Second, args...)
				all := r.Stdout + r.Stderr
				if srv.Asked(path) == 0 {
					t.Fatalf("no watch was sent: the case does not reach what it attacks:\n%s", all)
				}
				// A 410 or 504 answer is shown with its diagnosis, as an
				// ERROR event's is (fromHTTPStatus); a 429 never is: the
				// HTTP status wins over the body's words.
				if rf.code == 429 && errorRow.MatchString(r.Stdout) {
					t.Errorf("a refused watch request is shown as an ERROR row:\n%s", all)
				}
				if rf.code != 429 && mode == nil && !errorRow.MatchString(r.Stdout) {
					t.Errorf("the watch request's own %d is not shown with its diagnosis:\n%s", rf.code, all)
				}
				if strings.Contains(r.Stdout, "ERROR 1") || !noEvents.MatchString(r.Stdout) {
					t.Errorf("a refused watch request is counted as an event:\n%s", all)
				}
				if strings.Contains(all, "the watch ended with") {
					t.Errorf("a refused watch request is said to have ended a watch:\n%s", all)
				}
				for _, line := range strings.Split(r.Stdout, "\n") {
					if strings.HasPrefix(line, "  Failed:") || strings.HasPrefix(line, "  Failing:") {
						if !strings.Contains(line, "answered watch configmaps with "+strconv.Itoa(rf.code)) && !strings.Contains(line, "answered list configmaps with") {
							t.Errorf("the summary's failure does not say the answer with its status and request:\n%s", line)
						}
						// A 429 is said with whose it is, as the error
						// line says it (fresh user try 28 F3).
						if rf.code == 429 && !strings.Contains(line, "(its watch cache lags storage)") && !strings.Contains(line, "(not marked as API Priority and Fairness's rejection)") && !strings.Contains(line, "not the watch cache's answer)") {
							t.Errorf("the summary's 429 does not say whose it is:\n%s", line)
						}
					}
				}
				// A 429 is said as the list's 429 is ("answered list configmaps
				// with 429 Too Many Requests: its watch cache lags storage");
				// a 410 or 504 by its class and fix, as the list's are.
				if mode == nil && rf.code == 429 && !strings.Contains(r.Stderr, "answered watch configmaps with "+strconv.Itoa(rf.code)) {
					t.Errorf("the error line does not say the refusal as a refused request's answer:\n%s", r.Stderr)
				}
			})
		}
	}
}
