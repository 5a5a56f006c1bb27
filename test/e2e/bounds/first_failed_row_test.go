//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestTheFirstFailureIsTheFirstFailedRow (fresh user try 33 F3): the error
// line of a run over several resources names "the first" failure as the
// first failed row of its table, not the first checked; and streaming
// --all counts a refusal (an answer) apart from what could not be
// measured, saying the answer once. Discovery lists services before
// secrets, so the check order and the table's order (by name among equal
// rows) differ.
func TestTheFirstFailureIsTheFirstFailedRow(t *testing.T) {
	forbidden := func(res string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: 403, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + res + ` is forbidden: User \"u\" cannot list resource \"` + res + `\"","reason":"Forbidden","details":{"kind":"` + res + `"},"code":403}`}
	}
	script := map[string]framework.ScriptAnswer{
		"/api/v1": {Code: 200, Type: "application/json", Body: `{"kind":"APIResourceList","groupVersion":"v1","resources":[` +
			`{"name":"services","singularName":"service","namespaced":true,"kind":"Service","verbs":["get","list","watch"]},` +
			`{"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":["get","list","watch"]},` +
			`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"],"shortNames":["cm"]}]}`},
	}
	for _, res := range []string{"services", "secrets"} {
		for _, p := range []string{"/api/v1/namespaces/default/" + res, "/api/v1/" + res} {
			script[p] = forbidden(res)
			script[p+"?watch"] = forbidden(res)
		}
	}
	_, kc := framework.ServeScript(t, script)
	cases := []struct {
		args []string
		want []string
	}{
		// configmaps and deployments refuse the streaming list (a 410
		// ERROR event, ScriptDefaults): answers, counted apart.
		{[]string{"streaming", "--all", "--deadline", "5s"}, []string{
			"error: 2 of 4 resources could not be measured (the first, the API server answered watch secrets with 403 Forbidden: secrets is forbidden",
			", and 2 more failed the check by their answer: the verdict covers only what was answered",
			"!refused the streaming list: ", "!services is forbidden"}},
		{[]string{"probe", "--all"}, []string{
			"error: 2 of 4 resources failed (the first, the API server answered watch secrets with 403 Forbidden: secrets is forbidden",
			"!services is forbidden"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := framework.Run(t, kc, time.Minute, c.args...)
			if r.Code != 12 {
				t.Errorf("exit %d, want 12 (some answered, some not)\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
			}
			for _, w := range c.want {
				if no, ok := strings.CutPrefix(w, "!"); ok {
					if strings.Contains(r.Stderr, no) {
						t.Errorf("the error line says %q:\n%s", no, r.Stderr)
					}
				} else if !strings.Contains(r.Stderr, w) {
					t.Errorf("the error line lacks %q:\n%s\nstdout:\n%s", w, r.Stderr, r.Stdout)
				}
			}
		})
	}
}
