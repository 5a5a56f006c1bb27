//go:build e2e

package watch

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary try 44 A: an ERROR event inside a 200 stream was worded as the
// HTTP answer of the watch request ("answered watch configmaps with 500
// InternalError: the watch ended with an ERROR event: 500 InternalError:
// ..."), a 403 said "forbidden" three times, and a 429 was "not marked as
// API Priority and Fairness's rejection (a text answer with its
// X-Kubernetes-PF-* headers ...)", which no event can carry. The class:
// an ERROR event is said in one wording, as the event it was (it answered
// no request), with its status once and nothing only a head could say,
// and exits with its status's code (docs/exit-codes.md). Attacked over
// the codes an event carries, with and without --follow.
func TestAnErrorEventIsSaidOnceAsTheEventItWas(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	list := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]}`}
	added := `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","resourceVersion":"5"}}}` + "\n"
	cases := []struct {
		code   int
		reason string
		// words is how the line says the status (its reason, or the
		// words the plugin gives it): said once.
		words string
		msg   string
		exit  int
		// sent is the code's JSON where it is not the number code:
		// "absent" (no "code") or "null"; the code is said missing then.
		sent string
	}{
		{400, "BadRequest", "Bad Request", "the request is not valid here", 2, ""},
		{403, "Forbidden", "Forbidden", `configmaps is forbidden: User "x" cannot watch resource "configmaps"`, 7, ""},
		{404, "NotFound", "Not Found", "the server could not find the requested resource", 9, ""},
		{410, "Expired", "Expired", "too old resource version: 4 (9)", 10, ""},
		{429, "TooManyRequests", "Too Many Requests", "slow down, please", 8, ""},
		{500, "InternalError", "InternalError", "etcd is down", 1, ""},
		{504, "Timeout", "Timeout", "request did not complete within the allotted time", 1, ""},
		// Reason Expired with a code that is no 410 (adversary: told as
		// "Expired (Gone): too old: 410 Gone", exit 10): a code that is no
		// HTTP error code is said as sent, no 410 or Gone invented, and
		// exits 1 ("other"): only a 410 is Expired.
		{200, "Expired", "Expired", "too old resource version: 4 (9)", 1, ""},
		{999, "Expired", "Expired", "too old resource version: 4 (9)", 1, ""},
		{-5, "Expired", "Expired", "too old resource version: 4 (9)", 1, ""},
		{0, "Expired", "Expired", "too old resource version: 4 (9)", 1, ""},
		// No code, absent or null (adversary: "0 Expired: too old"): said
		// missing, never as a 0, and exits 1 ("other").
		{0, "Expired", "Expired", "too old resource version: 4 (9)", 1, "absent"},
		{0, "Expired", "Expired", "too old resource version: 4 (9)", 1, "null"},
	}
	for _, c := range cases {
		for _, mode := range [][]string{nil, {"--follow"}} {
			t.Run(fmt.Sprintf("%d%s/%s", c.code, c.sent, strings.Join(append([]string{"plain"}, mode...), " ")), func(t *testing.T) {
				t.Parallel()
				code := fmt.Sprintf(`,"code":%d`, c.code)
				switch c.sent {
				case "absent":
					code = ""
				case "null":
					code = `,"code":null`
				}
				ev := fmt.Sprintf(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q%s}}`, c.msg, c.reason, code) + "\n"
				s, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
					path:            list,
					path + "?watch": {Code: 200, Type: "application/json", Body: added + ev},
				})
				args := append([]string{"watch", "cm", "--rv", "4", "--timeout", "3s"}, mode...)
				r := framework.Run(t, kc, 30*time.Second, args...)
				all := r.Stdout + r.Stderr
				if r.Code != c.exit {
					t.Fatalf("exit %d, want %d (docs/exit-codes.md):\n%s", r.Code, c.exit, all)
				}
				var line string
				for _, l := range strings.Split(r.Stderr, "\n") {
					if strings.HasPrefix(l, "error: ") {
						if line != "" {
							t.Fatalf("want one error line:\n%s", r.Stderr)
						}
						line = l
					}
				}
				want := fmt.Sprintf("the watch ended with an ERROR event from the API server at %s: %d ", s.URL(), c.code)
				if c.sent != "" {
					want = fmt.Sprintf("the watch ended with an ERROR event from the API server at %s whose Status carries no code: %s: ", s.URL(), c.reason)
				}
				if !strings.HasPrefix(strings.TrimPrefix(line, "error: "), want) && !strings.Contains(line, "): "+want) {
					t.Errorf("the line does not say the ERROR event in its one wording %q:\n%s\n%s", want, line, r.Stderr)
				}
				// The status once: its code and its reason's words; a
				// code not sent is never said, as a 0 or any other.
				wantCodes := 1
				if c.sent != "" {
					wantCodes = 0
				}
				if n := len(regexp.MustCompile(fmt.Sprintf(`(^|[^\w.-])%s\b`, regexp.QuoteMeta(fmt.Sprint(c.code)))).FindAllString(line, -1)); n != wantCodes {
					t.Errorf("the code %d is said %d times, want %d:\n%s", c.code, n, wantCodes, line)
				}
				if n := strings.Count(line, c.words); n != 1 {
					t.Errorf("%q is said %d times, want once:\n%s", c.words, n, line)
				}
				// A code not sent is said nowhere, as a 0 or a code's words.
				if c.sent != "" {
					for _, l := range strings.Split(all, "\n") {
						if regexp.MustCompile(`(^|[^\w.-])0 Expired|code 0`).MatchString(l) {
							t.Errorf("a Status with no code is said with a 0:\n%s", l)
						}
					}
				}
				// A code is never invented: only a 410 is Gone.
				if c.code != 410 {
					for _, l := range strings.Split(all, "\n") {
						if regexp.MustCompile(`\b410\b|Gone`).MatchString(l) {
							t.Errorf("a %d event is said as a 410 or Gone:\n%s", c.code, l)
						}
					}
				}
				// An event answered no request, and has no head.
				for _, l := range strings.Split(all, "\n") {
					// Nor explain-error's advice for a text it could not
					// read: the status was read (adversary try 45 F2).
					for _, bad := range []string{"answered watch", "X-Kubernetes-PF", "Priority and Fairness", "forbidden: the API server", "Unrecognized", "Paste the full error"} {
						if strings.Contains(l, bad) {
							t.Errorf("the output says %q of an ERROR event:\n%s", bad, l)
						}
					}
				}
			})
		}
	}
}
