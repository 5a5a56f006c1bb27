//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// An event the contract refused is no RV of the collection: the summary's
// first RV is not its RV (adversary try 20 #15: "first 101, last 100",
// the first from an object of another namespace, the last not), and a
// control byte of its name reads one way in its row, its note and the
// error line (#15: \x07 in the row, \a in the breach).
func TestARefusedEventIsNoRVOfTheCollection(t *testing.T) {
	evil := `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"e\u0007vil","namespace":"kube-system","uid":"u-e","resourceVersion":"101"}}}` + "\n"
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
		"/api/v1/namespaces/default/configmaps?watch": {Code: 200, Type: "application/json", Body: evil},
	})
	r := framework.Run(t, kc, time.Minute, "watch", "cm", "--rv", "100", "--timeout", "3s")
	out := r.Stdout + r.Stderr
	if r.Code != 1 || !strings.Contains(r.Stdout, "first -, last 100") {
		t.Errorf("exit %d: want 1 and no first RV from the refused event:\n%s", r.Code, out)
	}
	if strings.Count(out, `e\avil`) < 3 || strings.Contains(out, `\x07`) {
		t.Errorf("the BEL of the name is not \\a in its row, its note and the error line alike:\n%s", out)
	}
	j := framework.Run(t, kc, time.Minute, "watch", "cm", "--rv", "100", "--timeout", "3s", "-o", "json")
	if strings.Contains(j.Stdout, `"firstResourceVersion"`) || strings.Contains(j.Stdout, `"lastEventResourceVersion":"101"`) {
		t.Errorf("-o json: the refused event's RV is the collection's:\n%s", j.Stdout)
	}
}
