//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// statusBody is a JSON Status of code and reason saying message.
func statusBody(code, reason, message string) string {
	return `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + message + `","reason":"` + reason + `","code":` + code + `}`
}

// A verdict's words name the status code that was measured, never
// another, and the verdict and the exit code read the same code: the
// HTTP status (adversary try 25 F3: a 503 carrying etcd's compaction
// message was told "reported as 500 Internal Error ... report the 500";
// a 500 whose Status said 410 Expired got the Expired fix and exit 1).
func TestTheVerdictNamesTheMeasuredCode(t *testing.T) {
	const (
		collection = "/api/v1/namespaces/default/configmaps"
		compacted  = "etcdserver: mvcc: required revision has been compacted"
		tooOld     = "too old resource version: 1 (50)"
	)
	answer := func(code int, body string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: code, Type: "application/json", Body: body}
	}
	event := func(status string) framework.ScriptAnswer {
		return answer(200, `{"type":"ERROR","object":`+status+"}\n")
	}
	compacted503 := statusBody("503", "ServiceUnavailable", compacted)
	expiredIn500 := statusBody("410", "Expired", tooOld)
	tooLargeIn500 := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 5000, current: 400","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}`
	tooLargeFix := []string{"too new:", "List with resourceVersion unset"}
	// The words of the other code: a 503 said as a 500, or a 500 given
	// the fix of a 410.
	as500 := []string{"report the 500", "as 500", "500 Internal"}
	expiredFix := []string{"Relist and watch", "Treat it like an Expired", "too old: the watch"}
	for _, c := range []struct {
		name   string
		script map[string]framework.ScriptAnswer
		args   []string
		want   string   // in the output
		never  []string // in the output
	}{
		{"list answered 503 with compaction", map[string]framework.ScriptAnswer{collection: answer(503, compacted503)},
			[]string{"list", "cm"}, "report the 503", as500},
		{"list -o json answered 503 with compaction", map[string]framework.ScriptAnswer{collection: answer(503, compacted503)},
			[]string{"list", "cm", "-o", "json"}, "report the 503", as500},
		{"watch answered 503 with compaction", map[string]framework.ScriptAnswer{collection + "?watch": answer(503, compacted503)},
			[]string{"watch", "cm", "--rv", "50", "--timeout", "5s"}, "report the 503", as500},
		{"watch ERROR event 503 with compaction", map[string]framework.ScriptAnswer{collection + "?watch": event(compacted503)},
			[]string{"watch", "cm", "--rv", "50", "--timeout", "5s"}, "reported as 503 Service Unavailable", as500},
		{"watch --rv list answered 503 with compaction", map[string]framework.ScriptAnswer{collection: answer(503, compacted503)},
			// (--timeout past the retry policy's six tries of a 503, about
			// 7.75 s: the words are of the last answer, not of the time.)
			[]string{"watch", "cm", "--rv", "list", "--timeout", "15s"}, "report the 503", as500},
		{"list answered 500 whose Status says 410", map[string]framework.ScriptAnswer{collection: answer(500, expiredIn500)},
			[]string{"list", "cm"}, "500 Expired: " + tooOld, expiredFix},
		{"watch answered 500 whose Status says 410", map[string]framework.ScriptAnswer{collection + "?watch": answer(500, expiredIn500)},
			[]string{"watch", "cm", "--rv", "50", "--timeout", "5s"}, "500 Expired: " + tooOld, expiredFix},
		{"watch ERROR event 500 reason Expired", map[string]framework.ScriptAnswer{collection + "?watch": event(statusBody("500", "Expired", tooOld))},
			[]string{"watch", "cm", "--rv", "50", "--timeout", "5s"}, "500 Expired: " + tooOld, expiredFix},
		{"list answered 500 carrying the TooLarge cause", map[string]framework.ScriptAnswer{collection: answer(500, tooLargeIn500)},
			[]string{"list", "cm", "--rv", "5000"}, "500 Timeout: ", tooLargeFix},
		{"probe's current read answered 500 whose Status says 410", map[string]framework.ScriptAnswer{collection: answer(500, expiredIn500)},
			[]string{"probe", "cm"}, "500 Expired: " + tooOld, expiredFix},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, kc := framework.ServeScript(t, c.script)
			r := framework.Run(t, kc, time.Minute, c.args...)
			out := r.Stdout + r.Stderr
			if r.Code != 1 {
				t.Errorf("exit %d, want 1 (the HTTP status's: a server error):\n%s", r.Code, out)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("no %q:\n%s", c.want, out)
			}
			for _, w := range c.never {
				if strings.Contains(out, w) {
					t.Errorf("%q names another code than the measured one:\n%s", w, out)
				}
			}
		})
	}
}
