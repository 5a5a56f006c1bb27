//go:build e2e

package bounds

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// timeoutFilter504 is kube-apiserver's own 504 as its timeout filter
// writes it (apiserver/pkg/server/filters/timeout.go: json.Encode of the
// Status, no kind, no apiVersion), recorded from the HA demo's server cut
// off from etcd (user try 22 #6).
var timeoutFilter504 = framework.ScriptAnswer{Code: 504, Type: "application/json",
	Body: `{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}` + "\n"}

const timeoutFilterMessage = "Timeout: request did not complete within the allotted timeout"

// A Status without kind is a Status: every command shows the server's
// own message on one line, never its JSON, and says the server answered
// (504), never that no answer came (user try 22 #6: the per-server NOTE
// and the error line carried the raw JSON with the hint "no answer within
// the request timeout").
func TestAStatusWithoutKindIsTheServersAnswer(t *testing.T) {
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
		"/api/v1/namespaces/default/configmaps":       timeoutFilter504,
		"/api/v1/namespaces/default/configmaps?watch": timeoutFilter504,
	})
	for _, args := range [][]string{
		{"list", "cm"}, {"list", "cm", "--rv-only"}, {"list", "cm", "-o", "json"},
		{"probe", "cm"}, {"probe", "cm", "-o", "json"},
		{"watch", "cm", "--timeout", "5s"}, {"watch", "cm", "--rv", "list", "--timeout", "5s"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := framework.Run(t, kc, time.Minute, args...)
			out := r.Stdout + r.Stderr
			if r.Code == 0 || !strings.Contains(out, timeoutFilterMessage) {
				t.Errorf("exit %d: the server's own message is not shown:\n%s", r.Code, out)
			}
			if strings.Contains(out, `"status":"Failure"`) || strings.Contains(out, `\"status\":\"Failure\"`) {
				t.Errorf("the Status is shown as JSON:\n%s", out)
			}
			if strings.Contains(out, "no answer") {
				t.Errorf("says no answer came; the server answered 504:\n%s", out)
			}
		})
	}
}

// The per-server views: a server that answers its own 504 is a row whose
// error is the server's message and whose hint says the server answered.
func TestAServerRowShowsAStatusWithoutKind(t *testing.T) {
	good, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{1000}, Oldest: 50})
	bad, _ := framework.ServeScript(t, map[string]framework.ScriptAnswer{
		"/api/v1/namespaces/default/configmaps": timeoutFilter504,
	})
	gu, err := url.Parse(good.URL())
	if err != nil {
		t.Fatal(err)
	}
	eps := gu.Host + "," + bad.Host()
	for _, args := range [][]string{
		{"list", "cm", "--endpoints", eps}, {"probe", "cm", "--endpoints", eps},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			t.Parallel()
			for _, format := range []string{"json", "wide"} {
				r := framework.Run(t, kc, time.Minute, append(args, "-o", format)...)
				out := r.Stdout + r.Stderr
				if format == "json" {
					var view struct {
						Servers []struct {
							Endpoint, Error, Hint string
						} `json:"servers"`
					}
					if err := json.Unmarshal([]byte(r.Stdout), &view); err != nil {
						t.Fatalf("exit %d, %v:\n%s", r.Code, err, out)
					}
					out = r.Stderr
					for _, s := range view.Servers {
						if s.Endpoint == bad.Host() {
							out += "\n" + s.Error + "\n" + s.Hint
						}
					}
				}
				if r.Code != 12 || !strings.Contains(out, timeoutFilterMessage) {
					t.Errorf("-o %s: exit %d: the server's own message is not in the row or the error line:\n%s", format, r.Code, out)
				}
				if strings.Contains(out, `"status":"Failure"`) || strings.Contains(out, `\"status\":\"Failure\"`) || strings.Contains(out, "no answer") {
					t.Errorf("-o %s: the Status shown as JSON, or said no answer:\n%s", format, out)
				}
			}
		})
	}
}
