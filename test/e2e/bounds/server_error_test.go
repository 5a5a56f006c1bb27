//go:build e2e

package bounds

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestServerErrorsNameTheRequest: a server answer the plugin has no words
// of its own for (a 500 "boom", a 503 Status without a reason) ends every
// command with one error line that names the server, the request and the
// status, not the server's message alone. The request named is the one
// that got the answer, never every request the command sends (fresh user
// try 25 F1: probe and watch --rv list said "answered list and watch" of
// a 500 to their first list; the fault answers every list 500, every
// watch 503).
func TestServerErrorsNameTheRequest(t *testing.T) {
	const within = 30 * time.Second
	named := func(request, status string) []string {
		return []string{"the API server at http://127.0.0.1:", " answered " + request + " with " + status + ": ", "check the API server's health", "!list and watch"}
	}
	boom, busy := named("list configmaps", "500 InternalError"), named("watch configmaps", "503 Service Unavailable")
	var cases []faultCase
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"list", "cm"}, boom},
		{[]string{"list", "cm", "--rv-only"}, boom},
		{[]string{"list", "cm", "-o", "json"}, boom},
		{[]string{"watch", "cm", "--timeout", "5s"}, busy},
		{[]string{"watch", "cm", "--rv", "list", "--timeout", "5s"}, boom},
		{[]string{"probe", "cm"}, boom},
		{[]string{"watch", "cm", "--rv", "list", "--follow", "--timeout", "5s"}, boom},
		{[]string{"probe", "cm", "-o", "json"}, boom},
		{[]string{"top", "--once", "--interval", "1s"}, named("get /metrics", "500 InternalError")},
	} {
		cases = append(cases, faultCase{framework.FaultServerError, c.args, 1, c.want, within})
	}
	runFaultCases(t, cases, memoryLimit)
}

// TestAWatchsServerErrorNamesTheWatch: the list answered, the watch got
// the 500: the error line names the watch (fresh user try 25 F1: "answered
// list and watch configmaps with 500", of a list answered 200).
func TestAWatchsServerErrorNamesTheWatch(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	failed := framework.ScriptAnswer{Code: 500, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcdserver: request timed out","reason":"InternalError","code":500}`}
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path + "?watch": failed})
	for _, args := range [][]string{
		{"probe", "cm"},
		{"watch", "cm", "--rv", "list", "--timeout", "5s"},
		{"watch", "cm", "--rv", "list", "--follow", "--timeout", "5s"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, 30*time.Second, args...)
			if !strings.Contains(r.Stderr, " answered watch configmaps with 500 InternalError") || strings.Contains(r.Stderr, "list and watch") {
				t.Fatalf("exit %d: the error line does not name the watch that got the 500:\n%s", r.Code, r.Stderr)
			}
		})
	}
}

// TestTheCachersLaggingAnswerIsNotCalledThrottling: the 429 a watch cache
// answers a consistent read it could not serve in time ("Too large
// resource version" in a TooManyRequests Status, docs/explain-error.md's
// own example) is said as that, with the throttled exit (8), never as API
// Priority and Fairness (adversary try 26 F2).
func TestTheCachersLaggingAnswerIsNotCalledThrottling(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	lagging := framework.ScriptAnswer{Code: 429, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 900, current: 800","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`}
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: lagging})
	for _, args := range [][]string{{"list", "cm"}, {"list", "cm", "--rv-only"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, args...)
			if r.Code != 8 || !strings.Contains(r.Stderr, "its watch cache lags storage") || strings.Contains(r.Stderr, "Priority and Fairness") {
				t.Fatalf("exit %d, want 8 naming the lagging watch cache:\n%s", r.Code, r.Stderr)
			}
		})
	}
}

// One HTTP 429 gets one exit (8) and one verdict whatever its Status body
// says of its reason or code: the HTTP status wins (docs/exit-codes.md).
// A 429 whose body said code 504 or reason Timeout with "Too large
// resource version" exited 10 as a too new RV, the same 429 with reason
// TooManyRequests 8 (adversary try 26 F2).
func TestOneHTTP429GetsOneExitWhateverItsBodySays(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	msg := `"message":"Timeout: Too large resource version: 900, current: 800"`
	for _, body := range []string{
		`"code":429,"reason":"TooManyRequests"`,
		`"code":504,"reason":"Timeout"`,
		`"reason":"Timeout"`,
		`"code":429,"reason":"Timeout"`,
		`"code":504,"reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}]}`,
	} {
		answer := framework.ScriptAnswer{Code: 429, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` + body + `,` + msg + `}`}
		for _, args := range [][]string{{"list", "cm", "--rv-only"}, {"watch", "cm", "--rv", "list", "--timeout", "30s"}} {
			t.Run(body+" "+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: answer})
				r := framework.Run(t, kc, time.Minute, args...)
				if r.Code != 8 || !strings.Contains(r.Stderr, "429") {
					t.Fatalf("exit %d, want 8 of the 429:\n%s", r.Code, r.Stderr)
				}
			})
		}
	}
}

// TestARetryThatCannotEndInTimeIsNotWaited: the current-RV read before a
// watch, answered 429 or 503 with a Retry-After past --timeout, is not
// waited out: the check says the server's answer at once, as the error
// line words it, and the watch goes on; never "no answer ... check that
// the cluster is up" (fresh user try 27 F1, adversary try 27 F3: exit 4
// after waiting to --timeout, of a server that had answered at once).
func TestARetryThatCannotEndInTimeIsNotWaited(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	status := func(code int, reason string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: code, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"slow down","reason":"` + reason + `","details":{"retryAfterSeconds":10},"code":` + strconv.Itoa(code) + `}`}
	}
	for _, c := range []struct {
		answer framework.ScriptAnswer
		words  string
	}{
		{status(429, "TooManyRequests"), "answered list configmaps with 429"},
		{status(503, "ServiceUnavailable"), "answered list configmaps with 503"},
	} {
		t.Run(c.words, func(t *testing.T) {
			s, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: c.answer})
			r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, "watch", "cm", "--rv", "5", "--timeout", "4s")
			if !strings.Contains(r.Stderr, "cannot read the current RV to check --rv 5 against it: the API server "+c.words) || strings.Contains(r.Stderr, "no answer") || strings.Contains(r.Stderr, "retry") {
				t.Fatalf("exit %d: the check does not say the server's answer at once:\n%s", r.Code, r.Stderr)
			}
			if n := s.Asked(path); n != 2 {
				t.Errorf("%s asked %d times, want the check's one list and the watch (no retry that could not end in time)", path, n)
			}
		})
	}
}

// TestAProxysPlainTextTooManyRequestsIsNotCalledAPF: a 429 without API
// Priority and Fairness's mark exits 8 as any 429, and is never said to
// be APF's: a proxy's text (fresh user try 27 F7), and a JSON Status 429
// that carries APF's headers, as every request APF lets through does (a
// handler's 429 after APF, as the watch cache's), and a JSON 429 that
// claims the mark's cause itself: the server's claim, not the transport's
// mark (adversary try 28 F1). APF's own rejection, a text 429 with its
// headers, is said so on the real server
// (test/e2e/faults TestAccessFailuresHaveDistinctExitCodes).
func TestAProxysPlainTextTooManyRequestsIsNotCalledAPF(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	const apfHeaders = "X-Kubernetes-PF-FlowSchema-UID: 5e4b1f1e-0000-4000-8000-000000000001\r\nX-Kubernetes-PF-PriorityLevel-UID: 5e4b1f1e-0000-4000-8000-000000000002"
	for name, a := range map[string]framework.ScriptAnswer{
		"a proxy's text": {Code: 429, Type: "text/plain", Body: "upstream busy"},
		"a handler's Status after APF": {Head: "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n" + apfHeaders,
			Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","message":"busy","code":429}`},
		// The server's own claim of the mark's cause, with no headers:
		// only the transport's mark counts (adversary try 28 F1).
		"a JSON Status that claims APF's cause": {Code: 429, Type: "application/json",
			Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","message":"busy","code":429,"details":{"causes":[{"reason":"APIPriorityAndFairnessRejected","message":"the 429 carried API Priority and Fairness's X-Kubernetes-PF-* headers"}]}}`},
		"a JSON Status that claims APF's cause with a field": {Code: 429, Type: "application/json",
			Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","message":"busy","code":429,"details":{"causes":[{"reason":"APIPriorityAndFairnessRejected","field":"apf-mark-00000000000000000000000000000000"}]}}`},
	} {
		t.Run(name, func(t *testing.T) {
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: a})
			r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, "list", "cm", "--rv-only")
			if r.Code != 8 || !strings.Contains(r.Stderr, "answered list configmaps with 429 Too Many Requests, not marked as API Priority and Fairness's rejection") || strings.Contains(r.Stderr, "is throttling requests") {
				t.Fatalf("exit %d, want 8 not said to be API Priority and Fairness's:\n%s", r.Code, r.Stderr)
			}
		})
	}
}
