//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A note or a warning that quotes a request's failed answer says it as
// the error line does, with its status and its request (the one
// describer, apiclient.AnswerWords), never the body alone: a 502's HTML
// page or "etcdserver: leader changed" read as the reason itself (fresh
// user try 26 F7).
func TestANoteSaysAnAnswerAsTheErrorLineDoes(t *testing.T) {
	const collection = "/api/v1/namespaces/default/configmaps"
	page := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[]}`}
	badGateway := framework.ScriptAnswer{Code: 502, Type: "text/html", Body: `<html><body><h1>502 Bad Gateway</h1></body></html>`}
	leader := framework.ScriptAnswer{Code: 503, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcdserver: leader changed","reason":"ServiceUnavailable","code":503}`}
	for _, c := range []struct {
		name   string
		first  []framework.ScriptAnswer // the collection's first answers, then failed
		failed framework.ScriptAnswer
		args   []string
		want   string
	}{
		{"watch --rv N's check, a 502 page", nil, badGateway, []string{"watch", "cm", "--rv", "300", "--timeout", "2s"},
			"cannot read the current RV to check --rv 300 against it: the API server answered list configmaps with 502 Bad Gateway: <html>"},
		{"watch --rv N's check, a 503", nil, leader, []string{"watch", "cm", "--rv", "300", "--timeout", "2s"},
			"against it: the API server answered list configmaps with 503 Service Unavailable: etcdserver: leader changed"},
		{"list --rv 0's check of the watch start", []framework.ScriptAnswer{page}, leader, []string{"list", "cm", "--rv", "0"},
			"could not be read to check it (the API server answered list configmaps with 503 Service Unavailable: etcdserver: leader changed (after 2 retries and "},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, kc := framework.ServeScriptSequence(t, collection, c.first, map[string]framework.ScriptAnswer{collection: c.failed})
			r := framework.Run(t, kc, time.Minute, c.args...)
			if out := r.Stdout + r.Stderr; !strings.Contains(out, c.want) {
				t.Fatalf("exit %d, no %q: the note does not say the answer as the error line does:\n%s", r.Code, c.want, out)
			}
		})
	}
}
