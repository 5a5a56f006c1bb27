//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// probe --all --endpoints: a server that resets one path answers the
// others, and its later rows are measured (adversary try 16: every later
// row said "not dialled again", exit 4); one that resets every request
// is asked for two resources, then not dialled again.
func TestProbeAllServersAsksAgainAfterOneReset(t *testing.T) {
	core := `{"kind":"APIResourceList","groupVersion":"v1","resources":[` +
		`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"]},` +
		`{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","list","watch"]},` +
		`{"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":["get","list","watch"]}]}`
	reset := framework.ScriptAnswer{Reset: true}
	for _, c := range []struct {
		name     string
		resets   []string
		measured string // a row that must be measured ("": none)
		asked    string // a path that must not be asked ("": none)
	}{
		{"one path", []string{"configmaps"}, "deployments.apps", ""},
		{"every path", []string{"configmaps", "deployments", "pods", "secrets"}, "", "/api/v1/secrets"},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := map[string]framework.ScriptAnswer{"/api/v1": {Code: 200, Type: "application/json", Body: core}}
			for _, r := range c.resets {
				p := "/api/v1/" + r // probe --all reads every namespace
				if r == "deployments" {
					p = "/apis/apps/v1/deployments"
				}
				script[p] = reset
			}
			s, kc := framework.ServeScript(t, script)
			host := s.Host()
			r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, "probe", "--all", "--endpoints", host, "--request-timeout", "3s", "--qps", "100")
			var row string
			for _, l := range strings.Split(r.Stdout, "\n") {
				if c.measured != "" && strings.HasPrefix(l, c.measured+" ") {
					row = l
				}
			}
			switch {
			case c.measured != "" && (row == "" || strings.Contains(row, "not dialled again") || strings.Contains(row, "reset")):
				t.Fatalf("the %s row is not measured (%q):\n%s\n%s", c.measured, row, r.Stdout, r.Stderr)
			case c.measured != "" && r.Code != 12:
				t.Fatalf("exit %d, want 12 (one target of several failed):\n%s\n%s", r.Code, r.Stdout, r.Stderr)
			case c.asked != "" && s.Asked(c.asked) != 0:
				t.Fatalf("%s was asked %d times after two resources in a row were reset:\n%s", c.asked, s.Asked(c.asked), r.Stdout)
			case c.asked != "" && !strings.Contains(r.Stdout, "not dialled again after"):
				t.Fatalf("no row says the server was not dialled again:\n%s", r.Stdout)
			}
		})
	}
}
