//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A server's single values that a command prints in its header lines (its
// version, from /version and from /metrics' kubernetes_build_info; a
// list's resourceVersion) are bounded there, with a mark of how long they
// were, in every command that names them (adversary try 20 #14: version
// printed a 60 KB gitVersion on one line; the watch's "-- listed N objects
// at RV ..." line carried a 60 KB RV whole, twice).
func TestServerFieldsInHeadersAreBounded(t *testing.T) {
	huge := "v1.37.2-" + strings.Repeat("A", 60000)
	hugeRV := strings.Repeat("1", 60000)
	j := func(body string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: 200, Type: "application/json", Body: body}
	}
	metrics := strings.ReplaceAll(framework.KubeMetrics("", framework.BreakNone), `git_version="v1.37.2"`, `git_version="`+huge+`"`)
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
		"/version": j(`{"major":"1","minor":"37","gitVersion":"` + huge + `","platform":"linux/amd64"}`),
		"/metrics": {Code: 200, Type: "text/plain; version=0.0.4", Body: metrics},
		"/api/v1/namespaces/default/configmaps": j(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"` + hugeRV + `"},"items":[` +
			`{"metadata":{"name":"a","namespace":"default","uid":"u-a","resourceVersion":"5"}}]}`),
	})
	// The longest line a bounded value leaves: a "Key:  value" value
	// (2 KiB), an error line (4 KiB), with their words around them.
	const longest = 5000
	for _, args := range [][]string{
		{"version"},
		{"list", "cm"},
		{"list", "cm", "--rv-only"},
		{"probe", "cm"},
		{"watch", "cm", "--rv", "list", "--timeout", "2s"},
		{"top", "--once", "--interval", "1s"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := framework.Run(t, kc, time.Minute, append(args, "--request-timeout", "10s")...)
			out := r.Stdout + r.Stderr
			for _, line := range strings.Split(out, "\n") {
				if len(line) > longest {
					t.Fatalf("exit %d: a line of %d bytes: %.300s", r.Code, len(line), line)
				}
			}
			if strings.Contains(out, strings.Repeat("A", 2000)) || strings.Contains(out, strings.Repeat("1", 5000)) {
				t.Fatalf("exit %d: a server's value printed whole: %.600s", r.Code, out)
			}
			if !strings.Contains(out, "bytes]") && !strings.Contains(out, "bytes left out]") {
				t.Fatalf("exit %d: no value is marked as cut: %.600s", r.Code, out)
			}
		})
	}
}
