//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestARestartedWalkNamesThePagesItAskedFor (adversary try 34 F1): a walk
// whose continue token expired at page 2 and whose second attempt read one
// page says who serves page 1 and page 2 (the lost attempt asked for it),
// never "pages 2-1".
func TestARestartedWalkNamesThePagesItAskedFor(t *testing.T) {
	const collection = "/api/v1/namespaces/default/configmaps"
	j := func(code int, body string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: code, Type: "application/json", Body: body}
	}
	// Then the script's default: the whole list, one page.
	_, kc := framework.ServeScriptSequence(t, collection, []framework.ScriptAnswer{
		j(200, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100","continue":"tok1"},"items":[]}`),
		j(410, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.","reason":"Expired","code":410}`),
	}, nil)
	r := framework.Run(t, kc, time.Minute, "list", "cm", "--limit", "1")
	out := r.Stdout + r.Stderr
	if r.Code != 0 || !strings.Contains(out, "Restarted:") {
		t.Fatalf("exit %d, want a restarted walk that ends:\n%s", r.Code, out)
	}
	if strings.Contains(out, "pages 2-1") || !strings.Contains(out, "; page 2 (continue tokens): ") {
		t.Errorf("Served by does not name page 2, the lost attempt's, alone:\n%s", out)
	}
}
