//go:build e2e

package list

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary try 45 F8: a list whose RV is no decimal number was said "list
// RV is not lower: ok" beside its items' RVs, and -o json gave
// listResourceVersionBelowNewestItem false: a check that was never made.
// The class: what cannot be ordered is said not compared, in the table and
// in JSON (no verdict field). A list at a decimal RV is the control.
func TestAListRVThatIsNoNumberIsNotCompared(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	for _, v := range []string{"abc", "18446744073709551616", "-7", "100"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			script := framework.ScriptDefaults()
			script[path] = framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"` + v + `"},"items":[` +
				`{"metadata":{"name":"a","namespace":"default","resourceVersion":"5"}}]}`}
			_, kc := framework.ServeScript(t, script)
			r := framework.Run(t, kc, 30*time.Second, "list", "cm")
			j := framework.Run(t, kc, 30*time.Second, "list", "cm", "-o", "json")
			var doc map[string]any
			if r.Code != 0 || j.Code != 0 || json.Unmarshal([]byte(j.Stdout), &doc) != nil {
				t.Fatalf("exit %d and %d:\n%s%s\n%s", r.Code, j.Code, r.Stdout, r.Stderr, j.Stdout)
			}
			below, given := doc["listResourceVersionBelowNewestItem"]
			if v == "100" {
				if !strings.Contains(r.Stdout, "not lower: ok") || !given || below != false {
					t.Errorf("the control (list RV 100, item RV 5) is not said ok (JSON %v):\n%s", below, r.Stdout)
				}
				return
			}
			if strings.Contains(r.Stdout, "ok)") || !strings.Contains(r.Stdout, "not compared with the list RV") || given {
				t.Errorf("list RV %q and item RV 5: a comparison is claimed (JSON %v %v):\n%s", v, below, given, r.Stdout)
			}
		})
	}
}
