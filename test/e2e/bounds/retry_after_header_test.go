//go:build e2e

package bounds

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// retryAfterHead is an answer whose Status names no delay
// (details.retryAfterSeconds) and whose head says "Retry-After: 3": what a
// proxy, an aggregated server or a load balancer in front sends.
func retryAfterHead(code int, reason string) framework.ScriptAnswer {
	return retryAfterHeadAndBody(code, reason, "")
}

// retryAfterHeadAndBody is retryAfterHead with the Status's details.
func retryAfterHeadAndBody(code int, reason, details string) framework.ScriptAnswer {
	if details != "" {
		details = `,"details":` + details
	}
	return framework.ScriptAnswer{
		Head: "HTTP/1.1 " + strconv.Itoa(code) + " " + reason + "\r\nContent-Type: application/json\r\nRetry-After: 3",
		Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"slow down","reason":"` + strings.ReplaceAll(reason, " ", "") + `","code":` + strconv.Itoa(code) + details + `}`,
	}
}

// The server's Retry-After header is waited for by every path of the one
// retry policy, as a Status's retryAfterSeconds is, and the line says who
// set the wait (adversary try 25 F6: "Retry-After: 3" gave a 1 s wait of a
// 429 and a 250 ms one of a 503, credited to "the plugin's retry policy").
func TestTheServersRetryAfterHeaderIsWaitedForAndSaid(t *testing.T) {
	const collection = "/api/v1/namespaces/default/configmaps"
	page := func(body string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: 200, Type: "application/json", Body: body}
	}
	last := `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"400"},"items":[{"metadata":{"name":"b","namespace":"default","uid":"u-b","resourceVersion":"301"}}]}`
	asked := "as the server's Retry-After asked: 3.00 s"
	for _, c := range []struct {
		name    string
		key     string
		answers []framework.ScriptAnswer
		args    []string
		want    []string // in stdout or stderr
		// bodyWins: the Status's own retryAfterSeconds (1) is waited,
		// not the header's 3 s.
		bodyWins bool
	}{
		{"list page 2 answered 429", collection, []framework.ScriptAnswer{page(retryPage1), retryAfterHead(429, "Too Many Requests"), page(last)},
			[]string{"list", "cm", "--limit", "1"}, []string{"(1 retry, " + asked + ")"}, false},
		{"list page 2 answered 503", collection, []framework.ScriptAnswer{page(retryPage1), retryAfterHead(503, "Service Unavailable"), page(last)},
			[]string{"list", "cm", "--limit", "1"}, []string{"(1 retry, " + asked + ")"}, false},
		{"list -o json", collection, []framework.ScriptAnswer{page(retryPage1), retryAfterHead(429, "Too Many Requests"), page(last)},
			[]string{"list", "cm", "--limit", "1", "-o", "json"}, []string{`"serverAskedRetries": 1`, `"retryAfterSeconds": 3`}, false},
		{"list: the Status's retryAfterSeconds wins over the header", collection, []framework.ScriptAnswer{page(retryPage1), retryAfterHeadAndBody(429, "Too Many Requests", `{"retryAfterSeconds":1}`), page(last)},
			[]string{"list", "cm", "--limit", "1"}, []string{"(1 retry, as the server's Retry-After asked: 1.00 s)"}, true},
		{"probe's current read answered 429", collection, []framework.ScriptAnswer{retryAfterHead(429, "Too Many Requests")},
			[]string{"probe", "cm"}, nil, false},
		{"explain-error --check's current read answered 429", collection, []framework.ScriptAnswer{retryAfterHead(429, "Too Many Requests")},
			[]string{"explain-error", "--check", "too old resource version: 1 (2)"}, nil, false},
		{"watch --follow's reconnect after a 503", collection + "?watch", []framework.ScriptAnswer{retryAfterHead(503, "Service Unavailable")},
			[]string{"watch", "cm", "--follow", "--rv", "100", "--timeout", "6s"}, []string{"reconnect in 3.0s, as the server's Retry-After asked, from RV 100"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, kc := framework.ServeScriptSequence(t, c.key, c.answers, nil)
			r := framework.Run(t, kc, time.Minute, c.args...)
			out := r.Stdout + r.Stderr
			if srv.Asked(collection) < 2 {
				t.Fatalf("the request was not sent again (%d requests):\n%s", srv.Asked(collection), out)
			}
			if c.bodyWins && (r.Duration < 900*time.Millisecond || r.Duration > 2500*time.Millisecond) {
				t.Errorf("the run took %s: the Status's retryAfterSeconds (1 s) was not what was waited for:\n%s", r.Duration, out)
			}
			if !c.bodyWins && r.Duration < 2900*time.Millisecond {
				t.Errorf("the run took %s: the server's Retry-After of 3 s was not waited for:\n%s", r.Duration, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q: who set the wait is not said:\n%s", w, out)
				}
			}
			if strings.Contains(out, "by the plugin's") && !strings.Contains(out, "by the plugin's own rate limit") {
				t.Errorf("the server's wait is credited to the plugin:\n%s", out)
			}
		})
	}
}

// A Retry-After above the policy's cap (30 s) is waited for up to the
// cap, and the line says the server's ask and the cap apart (adversary
// try 26 F1: "as the server's Retry-After asked: 30.00 s" of a 3600).
func TestARetryAfterAboveTheCapIsSaidApartFromTheWait(t *testing.T) {
	const collection = "/api/v1/namespaces/default/configmaps"
	last := `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"400"},"items":[{"metadata":{"name":"b","namespace":"default","uid":"u-b","resourceVersion":"301"}}]}`
	long := retryAfterHead(429, "Too Many Requests")
	long.Head = strings.Replace(long.Head, "Retry-After: 3", "Retry-After: 3600", 1)
	answers := []framework.ScriptAnswer{{Code: 200, Type: "application/json", Body: retryPage1}, long, {Code: 200, Type: "application/json", Body: last}}
	_, kc := framework.ServeScriptSequence(t, collection, answers, nil)
	r := framework.Run(t, kc, 2*time.Minute, "list", "cm", "--limit", "1")
	out := r.Stdout + r.Stderr
	if r.Code != 0 || !strings.Contains(out, "as the server's Retry-After asked: 3600.00 s, capped by the plugin's retry policy") || !strings.Contains(out, "and 30.0") {
		t.Fatalf("exit %d: the server's ask and the plugin's capped wait are not said apart:\n%s", r.Code, out)
	}
}
