//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// statusishPage is a list page without kind whose "status" is a Status's
// mark, beside its items (adversary try 24 F5's page 2).
const statusishPage = `{"apiVersion":"v1","metadata":{"resourceVersion":"400"},"items":[{"metadata":{"name":"b","namespace":"default","uid":"u-b","resourceVersion":"301"}}],"status":"Failure"}`

// A body with items is no Status, whatever its status says: every command
// that reads a list page names it a list page without kind, never "a
// Status without a code" (adversary try 24 F5), whether it is the first
// page or a continue page.
func TestAKindlessListPageWithAStatusMarkIsNoStatus(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	first := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: statusishPage}
	_, kcFirst := framework.ServeScriptPageAnswers(t, path, []framework.ScriptAnswer{first}, nil)
	_, kcSecond := framework.ServeScriptPageAnswers(t, path,
		[]framework.ScriptAnswer{{Code: 200, Type: "application/json", Body: retryPage1}, first}, nil)
	for _, c := range []struct {
		kc   string
		args []string
	}{
		{kcFirst, []string{"list", "cm"}}, {kcFirst, []string{"list", "cm", "--rv-only"}}, {kcFirst, []string{"list", "cm", "-o", "json"}},
		{kcFirst, []string{"probe", "cm"}}, {kcFirst, []string{"watch", "cm", "--rv", "list", "--timeout", "5s"}},
		{kcFirst, []string{"streaming", "cm"}},
		{kcSecond, []string{"list", "cm", "--limit", "1"}}, {kcSecond, []string{"list", "cm", "--limit", "1", "-o", "json"}},
	} {
		name := strings.Join(c.args, " ")
		if c.kc == kcSecond {
			name = "page 2: " + name
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := framework.Run(t, c.kc, time.Minute, c.args...)
			out := r.Stdout + r.Stderr
			if strings.Contains(out, "Status without a code") || strings.Contains(out, "no message") {
				t.Errorf("exit %d: a list page read as a Status:\n%s", r.Code, out)
			}
			if r.Code == 0 || !strings.Contains(out, "a list page without kind") {
				t.Errorf("exit %d: the page is not named a list page without kind:\n%s", r.Code, out)
			}
		})
	}
}
